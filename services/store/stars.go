package store

import "context"

// Star makes a user star a repository. It reports whether the user had
// not starred it before; starring twice is a no-op. ErrNotFound if the
// repository does not exist.
func (s *Store) Star(ctx context.Context, userID, repoID int64) (bool, error) {
	return starLink.add(ctx, s.db, userID, repoID)
}

// Unstar removes a user's star from a repository. It reports whether the
// user had starred it; unstarring twice is a no-op.
func (s *Store) Unstar(ctx context.Context, userID, repoID int64) (bool, error) {
	return starLink.remove(ctx, s.db, userID, repoID)
}

// IsStarring reports whether a user starred a repository.
func (s *Store) IsStarring(ctx context.Context, userID, repoID int64) (bool, error) {
	return starLink.has(ctx, s.db, userID, repoID)
}

// ListStargazers returns a page of the users who starred a repository
// that visible shows, in the order they starred it, and how many there
// are.
func (s *Store) ListStargazers(ctx context.Context, repoID int64, visible UserFilter, offset, limit int) ([]User, int64, error) {
	return starLink.users(ctx, s, repoID, visible, offset, limit)
}

// ListStarredRepositories returns a page of the repositories a user
// (o.UserID) starred that the viewer can see, by repository name, and how
// many there are.
func (s *Store) ListStarredRepositories(ctx context.Context, o WatchedListOptions) ([]Repository, int64, error) {
	return starLink.repositories(ctx, s, o)
}
