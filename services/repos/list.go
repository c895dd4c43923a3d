package repos

import (
	"context"

	"forge/services/access"
	"forge/services/auth"
	"forge/services/errs"
	"forge/services/store"
)

// ListUser is a page of owner's repositories that viewer may see
// (GET /users/{username}/repos); an owner hidden from viewer is NotFound.
func (s *Service) ListUser(ctx context.Context, owner string, viewer *auth.Principal, offset, limit int) ([]Details, int64, error) {
	u, err := access.VisibleUser(ctx, s.store, owner, viewer)
	if err != nil {
		return nil, 0, err
	}
	return s.List(ctx, store.RepoListOptions{OwnerID: u.ID, Offset: offset, Limit: limit}, viewer)
}

// List is a page of the repositories opts selects, among those viewer may
// see (access.Filter), each with viewer's mode and its details, and a
// fork with its parent when viewer may see that too.
func (s *Service) List(ctx context.Context, opts store.RepoListOptions, viewer *auth.Principal) ([]Details, int64, error) {
	opts.RepoFilter = access.Filter(viewer)
	found, total, err := s.store.ListRepositories(ctx, opts)
	if err != nil {
		return nil, 0, errs.Wrap(err, "list repositories")
	}
	var parentIDs []int64
	for i := range found {
		if found[i].IsFork && found[i].ForkID != 0 {
			parentIDs = append(parentIDs, found[i].ForkID)
		}
	}
	if len(parentIDs) == 0 {
		out, err := s.pageDetails(ctx, found, viewer)
		return out, total, err
	}
	// The page's parents, as the viewer may see them, in one query; they
	// get their details with the page's own (no parent of their own: one
	// level).
	parents, _, err := s.store.ListRepositories(ctx, store.RepoListOptions{IDs: parentIDs, RepoFilter: opts.RepoFilter, Limit: len(parentIDs)})
	if err != nil {
		return nil, 0, errs.Wrap(err, "list parents")
	}
	all, err := s.pageDetails(ctx, append(found, parents...), viewer)
	if err != nil {
		return nil, 0, err
	}
	page, byID := all[:len(found)], map[int64]*Details{}
	for i := len(found); i < len(all); i++ {
		byID[all[i].ID] = &all[i]
	}
	for i := range page {
		if page[i].IsFork {
			page[i].Parent = byID[page[i].ForkID]
		}
	}
	return page, total, nil
}

// pageDetails loads, for every repository of found, its owner, viewer's mode,
// its release count and mirror record, in one query each.
func (s *Service) pageDetails(ctx context.Context, found []store.Repository, viewer *auth.Principal) ([]Details, error) {
	// One query per relation for the whole page: owners, the viewer's
	// modes, release counts and mirror records.
	owners := make([]int64, len(found))
	ids := make([]int64, len(found))
	var mirrors []int64
	for i := range found {
		owners[i], ids[i] = found[i].OwnerID, found[i].ID
		if found[i].IsMirror {
			mirrors = append(mirrors, found[i].ID)
		}
	}
	transfers, err := s.store.PendingTransfersOf(ctx, ids)
	if err != nil {
		return nil, err
	}
	for _, t := range transfers {
		owners = append(owners, t.DoerID, t.RecipientID)
	}
	users, err := s.store.UsersByID(ctx, owners)
	if err != nil {
		return nil, errs.Wrap(err, "load owners")
	}
	modes, err := s.access.Modes(ctx, found, viewer)
	if err != nil {
		return nil, err
	}
	releases, err := s.store.CountReleasesOf(ctx, ids)
	if err != nil {
		return nil, err
	}
	mirrored, err := s.store.MirrorsOf(ctx, mirrors)
	if err != nil {
		return nil, err
	}
	out := make([]Details, 0, len(found))
	for i := range found {
		r := &found[i]
		out = append(out, Details{
			Repo:     &access.Repo{Repository: r, Owner: users[r.OwnerID], Mode: modes[r.ID]},
			Releases: releases[r.ID],
			Mirror:   mirrored[r.ID],
			Transfer: pendingTransfer(transfers[r.ID], users),
		})
	}
	return out, nil
}
