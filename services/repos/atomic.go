package repos

import (
	"context"
	"errors"
	"log/slog"

	"forge/services/access"
	"forge/services/errs"
	"forge/services/failpoint"
	"forge/services/git"
	"forge/services/store"
)

// Stager is the part of git.Store that moves a repository built in
// scratch space (git.Store.InitStaged, CloneStaged) into place, or drops it.
type Stager interface {
	Place(staged, path string) error
	Discard(staged string) error
	Delete(path string) error
}

// AtomicStore records a new repository in one transaction (store.Store).
type AtomicStore interface {
	CreateRepositoryAtomic(ctx context.Context, n store.NewRepository, place func() error) error
}

// The crash-test failpoints (see package failpoint) of CreateStaged; the
// third, between the record and the rename, is git's
// "repo-create-before-place".
const (
	FailpointBeforeRecord = "repo-create-before-record"
	FailpointBeforeCommit = "repo-create-before-commit"
)

// CreateStaged makes the repository staged (built in scratch space, where
// nothing serves it) the repository at path, all or nothing, even if the
// process dies at any moment. Every way of creating a repository (POST
// /user/repos, migrations) goes through here:
//
//  1. build fills the staged repository (an auto_init commit) and
//     completes n (its branches, default branch, mirror state); a crash
//     leaves scratch debris that git.Store.Sweep removes;
//  2. one transaction inserts the records of n, within the owner's
//     repository limit n.Limit, and, before committing, renames the
//     repository into place (a crash before the commit leaves files
//     without a record, which the next create of the name clears, see
//     git.Store.Place);
//  3. the commit makes both visible at once.
//
// So a record always has a complete repository, and a name is never
// blocked by leftovers. CreateStaged owns staged: it is placed or
// discarded whatever happens. build's errors are returned as they are;
// the others are AlreadyExists, access.RepoLimitError or Internal.
func CreateStaged(ctx context.Context, g Stager, st AtomicStore, staged, path string, n store.NewRepository, build func(n *store.NewRepository) error) error {
	placed := false
	defer func() {
		if !placed {
			if err := g.Discard(staged); err != nil {
				slog.Error("discard staged repository", "path", staged, "err", err)
			}
		}
	}()
	if err := build(&n); err != nil {
		return err
	}
	failpoint.Hit(FailpointBeforeRecord)
	err := st.CreateRepositoryAtomic(ctx, n, func() error {
		if err := g.Place(staged, path); err != nil {
			return err
		}
		placed = true
		failpoint.Hit(FailpointBeforeCommit)
		return nil
	})
	if err != nil {
		if placed {
			// The record was rolled back; the files must not outlive it.
			if derr := g.Delete(path); derr != nil {
				slog.Error("remove files of a failed repository create", "path", path, "err", derr)
			}
		}
		return createError(err, n.Limit)
	}
	return nil
}

// createError maps the store's refusals of a new repository to Gitea's
// answers.
func createError(err error, limit int) error {
	switch {
	case errors.Is(err, store.ErrRepoExists), errors.Is(err, store.ErrForkExists):
		return err // declares Gitea's message and 409
	case errors.Is(err, store.ErrNotFound):
		return err // the owner, or a fork's parent, was deleted meanwhile
	case errors.Is(err, store.ErrRepoLimit):
		return access.RepoLimitError(limit)
	}
	return errs.Wrap(err, "create repository")
}

// NameChecker answers early whether a repository could be created
// (store.Store).
type NameChecker interface {
	CheckNewRepository(ctx context.Context, ownerID int64, name string, limit int) error
}

// CheckCreatable refuses, before any expensive work (a migration's
// clone), a repository name the owner already uses or an owner at their
// repository limit, with CreateStaged's answers. CreateStaged checks again.
func CheckCreatable(ctx context.Context, st NameChecker, ownerID int64, name string, limit int) error {
	if err := st.CheckNewRepository(ctx, ownerID, name, limit); err != nil {
		return createError(err, limit)
	}
	return nil
}

// BranchUpdates are the records of branches read from git.
func BranchUpdates(branches []git.Branch) []store.BranchUpdate {
	out := make([]store.BranchUpdate, len(branches))
	for i, b := range branches {
		out[i] = branchUpdate(b)
	}
	return out
}
