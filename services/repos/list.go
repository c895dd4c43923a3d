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
// see (access.Filter), each with viewer's mode and its details.
func (s *Service) List(ctx context.Context, opts store.RepoListOptions, viewer *auth.Principal) ([]Details, int64, error) {
	opts.RepoFilter = access.Filter(viewer)
	found, total, err := s.store.ListRepositories(ctx, opts)
	if err != nil {
		return nil, 0, errs.Wrap(err, "list repositories")
	}
	ids := make([]int64, len(found))
	for i := range found {
		ids[i] = found[i].OwnerID
	}
	owners, err := s.store.UsersByID(ctx, ids)
	if err != nil {
		return nil, 0, errs.Wrap(err, "load owners")
	}
	out := make([]Details, 0, len(found))
	for i := range found {
		mode, err := s.access.Mode(ctx, &found[i], viewer)
		if err != nil {
			return nil, 0, err
		}
		d, err := s.Details(ctx, &access.Repo{Repository: &found[i], Owner: owners[found[i].OwnerID], Mode: mode})
		if err != nil {
			return nil, 0, err
		}
		out = append(out, d)
	}
	return out, total, nil
}
