package repos

import (
	"context"
	"errors"
	"log/slog"
	"time"

	reposv1 "forge/gen/forge/repos/v1"
	"forge/services/access"
	"forge/services/auth"
	"forge/services/failpoint"
	"forge/services/git"
	"forge/services/rpcerr"
	"forge/services/store"
)

// createAtomic makes a repository all or nothing, even if the process dies
// at any moment:
//
//  1. the bare repository, with its auto_init commit, is built in scratch
//     space where nothing serves it (a crash leaves scratch debris that
//     git.Store.Sweep removes);
//  2. one transaction inserts the record and the branch records and, before
//     committing, renames the repository into place (a crash before the
//     commit leaves files without a record, which the next create of the
//     name clears, see git.Store.Place);
//  3. the commit makes both visible at once.
//
// So a record always has a complete repository, and a name is never
// blocked by leftovers.
// limit is the owner's repository limit (access.Checker.RepoLimit).
func (s *Server) createAtomic(ctx context.Context, rec *store.Repository, path string, opt *reposv1.CreateRepoOption, caller *auth.Principal, limit int) error {
	staged, err := s.git.InitStaged(ctx, rec.DefaultBranch)
	if err != nil {
		return rpcerr.Internal(err)
	}
	placed := false
	defer func() {
		if !placed {
			if err := s.git.Discard(staged); err != nil {
				slog.Error("discard staged repository", "path", staged, "err", err)
			}
		}
	}()
	var branches []store.BranchUpdate
	if opt.GetAutoInit() {
		b, err := s.autoInit(ctx, staged, rec, caller)
		if err != nil {
			return rpcerr.Internal(err)
		}
		branches = append(branches, branchUpdate(b))
	}
	failpoint.Hit("repo-create-before-record")
	err = s.store.CreateRepositoryAtomic(ctx, store.NewRepository{
		Repo: rec, WatcherID: caller.ID(), PusherID: caller.ID(), Branches: branches, Limit: limit,
	}, func() error {
		if err := s.git.Place(staged, path); err != nil {
			return err
		}
		placed = true
		failpoint.Hit("repo-create-before-commit")
		return nil
	})
	if err != nil {
		if placed {
			// The record was rolled back; the files must not outlive it.
			if derr := s.git.Delete(path); derr != nil {
				slog.Error("remove files of a failed repository create", "path", path, "err", derr)
			}
		}
		switch {
		case errors.Is(err, store.ErrRepoExists):
			return err // declares Gitea's message and 409
		case errors.Is(err, store.ErrRepoLimit):
			return access.RepoLimitError(limit)
		}
		return rpcerr.Internal(err)
	}
	return nil
}

// autoInit makes the first commit (a README) in the staged repository and
// returns the branch it created.
func (s *Server) autoInit(ctx context.Context, staged string, rec *store.Repository, caller *auth.Principal) (git.Branch, error) {
	readme := "# " + rec.Name + "\n"
	if d := rec.Description; d != "" {
		readme += "\n" + d + "\n"
	}
	sig := git.Signature{Name: caller.User.Name, Email: caller.User.Email, When: time.Now()}
	if _, err := s.git.InitialCommit(ctx, staged, rec.DefaultBranch, map[string][]byte{"README.md": []byte(readme)}, sig, "Initial commit"); err != nil {
		return git.Branch{}, err
	}
	b, err := s.git.BranchesByName(ctx, staged, []string{rec.DefaultBranch})
	if err != nil {
		return git.Branch{}, err
	}
	if len(b) != 1 {
		return git.Branch{}, errors.New("auto_init: the initial branch is missing")
	}
	return b[0], nil
}
