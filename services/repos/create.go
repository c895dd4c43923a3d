package repos

import (
	"context"
	"errors"
	"time"

	reposv1 "forge/gen/forge/repos/v1"
	"forge/services/auth"
	"forge/services/git"
	"forge/services/rpcerr"
	"forge/services/store"
)

// createAtomic makes a repository, with its auto_init commit, all or
// nothing (see CreateStaged). limit is the owner's repository limit
// (access.Checker.RepoLimit).
func (s *Server) createAtomic(ctx context.Context, rec *store.Repository, path string, opt *reposv1.CreateRepoOption, caller *auth.Principal, limit int) error {
	staged, err := s.git.InitStaged(ctx, rec.DefaultBranch)
	if err != nil {
		return rpcerr.Internal(err)
	}
	n := store.NewRepository{Repo: rec, WatcherID: caller.ID(), PusherID: caller.ID(), Limit: limit}
	return CreateStaged(ctx, s.git, s.store, staged, path, n, func(n *store.NewRepository) error {
		if !opt.GetAutoInit() {
			return nil
		}
		b, err := s.autoInit(ctx, staged, rec, caller)
		if err != nil {
			return rpcerr.Internal(err)
		}
		n.Branches = append(n.Branches, branchUpdate(b))
		return nil
	})
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
