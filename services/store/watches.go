package store

import "context"

// Watch makes a user watch a repository. It reports whether the user was
// not watching before; watching twice is a no-op. ErrNotFound if the
// repository does not exist.
func (s *Store) Watch(ctx context.Context, userID, repoID int64) (bool, error) {
	return watchLink.add(ctx, s.db, userID, repoID)
}

// Unwatch stops a user watching a repository. It reports whether the user
// was watching; unwatching twice is a no-op.
func (s *Store) Unwatch(ctx context.Context, userID, repoID int64) (bool, error) {
	return watchLink.remove(ctx, s.db, userID, repoID)
}

// IsWatching reports whether a user watches a repository.
func (s *Store) IsWatching(ctx context.Context, userID, repoID int64) (bool, error) {
	return watchLink.has(ctx, s.db, userID, repoID)
}

// ListWatchers returns a page of the users watching a repository that
// visible shows, in the order they started watching, and how many there
// are.
func (s *Store) ListWatchers(ctx context.Context, repoID int64, visible UserFilter, offset, limit int) ([]User, int64, error) {
	return watchLink.users(ctx, s, repoID, visible, offset, limit)
}

// WatchedListOptions selects the repositories a user watches, as a viewer
// may see them.
type WatchedListOptions struct {
	UserID int64 // the watcher
	// RepoFilter applies the visibility rules of repository access.
	RepoFilter
	Offset int
	Limit  int
}

// ListWatchedRepositories returns a page of the repositories a user
// watches that the viewer can see, by repository name, and how many there
// are.
func (s *Store) ListWatchedRepositories(ctx context.Context, o WatchedListOptions) ([]Repository, int64, error) {
	return watchLink.repositories(ctx, s, o)
}
