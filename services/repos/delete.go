package repos

import (
	"context"
	"errors"
	"log/slog"

	"forge/services/access"
	"forge/services/auth"
	"forge/services/errs"
	"forge/services/git"
	"forge/services/store"
)

// PurgeStore is what deleting a repository writes.
type PurgeStore interface {
	// DeleteRepositoryBy deletes the repository's row and the rows every
	// area declares as its own, by actorID (for the webhook event);
	// store.ErrNotFound for an unknown id.
	DeleteRepositoryBy(ctx context.Context, id, actorID int64) error
}

// Purger deletes repositories: the repository delete, the admin's user
// delete with purge, and the command line's `admin user delete --purge`
// all use it, so none of them builds a server to reach it.
type Purger struct {
	Store PurgeStore
	Git   *git.Store
}

// Purge deletes a repository's records, then its git data. It returns the
// store's errors (store.ErrNotFound when the record is already gone); a
// failure to remove the files is logged, not returned, because the
// repository no longer exists once its record is gone.
func (p Purger) Purge(ctx context.Context, r *store.Repository) error {
	// The caller, when there is one (not the command line), deleted it.
	if err := p.Store.DeleteRepositoryBy(ctx, r.ID, auth.FromContext(ctx).ID()); err != nil {
		return err
	}
	path, _ := p.Git.RepoPath(r.OwnerName, r.Name)
	// Delete removes whatever exists there, a repository or the leftovers
	// of an interrupted create; nothing at all is fine too.
	if err := p.Git.Delete(path); err != nil && !errors.Is(err, git.ErrNotFound) {
		slog.Error("delete repository files", "path", path, "err", err) // the record is gone; files are garbage
	}
	return nil
}

// Delete deletes the resolved repository r (DELETE /repos/{owner}/{repo}).
func (s *Service) Delete(ctx context.Context, r *access.Repo) error {
	if err := s.purger.Purge(ctx, r.Repository); err != nil {
		return errs.Replace(err, store.ErrNotFound, errs.New(errs.NotFound, ""))
	}
	return nil
}
