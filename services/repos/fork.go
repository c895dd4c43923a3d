package repos

import (
	"context"
	"errors"

	"forge/services/access"
	"forge/services/auth"
	"forge/services/errs"
	"forge/services/store"
)

// Fork makes a fork of src owned by owner (POST /repos/{o}/{r}/forks):
// a repository named name (src's name when empty) with src's branches,
// tags, default branch and description, private when src is private or
// src's owner is (as Gitea: a fork into a private organization stays
// public, and internal), whose object files are shared with src (git.Store.
// ForkStaged), recorded and placed all or nothing (CreateStaged); src's
// fork count moves in the same transaction. The policy checked that the
// caller reads src's code and may create repositories in owner (rule
// fork-owner). The result carries owner access and src as its parent.
func (s *Service) Fork(ctx context.Context, src *access.Repo, owner *store.User, name string, caller *auth.Principal) (Details, error) {
	if name == "" {
		name = src.Name
	}
	path, err := s.git.RepoPath(owner.Name, name)
	if err != nil {
		return Details{}, errs.New(errs.Invalid, "[Name]: invalid repository name")
	}
	srcPath, err := s.git.RepoPath(src.Owner.Name, src.Name)
	if err != nil {
		return Details{}, errs.Wrap(err, "source repository path")
	}
	limit := s.access.RepoLimit(owner, caller)
	// A taken name or an owner at their limit is refused before any git
	// work; CreateStaged decides for good.
	if err := CheckCreatable(ctx, s.store, owner.ID, name, limit); err != nil {
		return Details{}, err
	}
	staged, err := s.git.ForkStaged(ctx, srcPath)
	if err != nil {
		return Details{}, errs.Wrap(err, "copy the source repository")
	}
	private := src.IsPrivate || src.Owner.Visibility == store.VisibilityPrivate
	rec := newRecord(owner, name, src.Description, src.DefaultBranch, private)
	rec.ForkID = src.ID
	n := store.NewRepository{Repo: rec, WatcherID: caller.ID(), PusherID: caller.ID(), Limit: limit}
	err = CreateStaged(ctx, s.git, s.store, staged, path, n, func(n *store.NewRepository) error {
		branches, err := s.git.ListBranches(ctx, staged)
		if err != nil {
			return errs.Wrap(err, "read the fork's branches")
		}
		n.Branches = BranchUpdates(branches)
		return nil
	})
	if errors.Is(err, store.ErrNotFound) {
		return Details{}, access.ErrRepoNotFound // the source was deleted meanwhile
	}
	if err != nil {
		return Details{}, err
	}
	// The source as resolved before the fork: its fork count is reloaded.
	counted := *src.Repository
	if err := s.store.RepositoryCounters(ctx, &counted); err != nil {
		return Details{}, errs.Wrap(err, "reload the source's counters")
	}
	counts := *src
	counts.Repository = &counted
	parent, err := s.details(ctx, &counts, nil)
	if err != nil {
		return Details{}, err
	}
	return Details{Repo: &access.Repo{Repository: rec, Owner: owner, Mode: store.AccessOwner}, Parent: &parent}, nil
}

// Forks is a page of src's forks that viewer may see (GET
// /repos/{o}/{r}/forks), oldest first, each with src as its parent.
func (s *Service) Forks(ctx context.Context, src *access.Repo, viewer *auth.Principal, offset, limit int) ([]Details, int64, error) {
	return s.List(ctx, store.RepoListOptions{ForkOf: src.ID, Offset: offset, Limit: limit}, viewer)
}
