package users

import (
	"context"
	"errors"

	usersv1 "forge/gen/forge/users/v1"
	"forge/services/auth"
	"forge/services/errs"
	"forge/services/paging"
	"forge/services/store"
)

// Store is what the user service reads.
type Store interface {
	VisibilityStore
	SettingsStore
	ListUsers(ctx context.Context, opts store.ListUsersOptions) ([]store.User, int64, error)
}

// Server implements usersv1.UserServiceServer.
type Server struct {
	usersv1.UnimplementedUserServiceServer
	store  Store
	render Renderer
	limits paging.Limits
}

var _ usersv1.UserServiceServer = (*Server)(nil)

func NewServer(s Store, r Renderer, limits paging.Limits) *Server {
	return &Server{store: s, render: r, limits: limits}
}

func (s *Server) GetAuthenticatedUser(ctx context.Context, _ *usersv1.GetAuthenticatedUserRequest) (*usersv1.GetAuthenticatedUserResponse, error) {
	p := auth.FromContext(ctx) // the policy guarantees a caller
	return &usersv1.GetAuthenticatedUserResponse{User: s.render.User(p.User, p)}, nil
}

func (s *Server) GetUser(ctx context.Context, req *usersv1.GetUserRequest) (*usersv1.GetUserResponse, error) {
	viewer := auth.FromContext(ctx)
	u, err := Visible(ctx, s.store, req.GetUsername(), viewer)
	if err != nil {
		return nil, err
	}
	return &usersv1.GetUserResponse{User: s.render.User(u, viewer)}, nil
}

// VisibilityStore is what the visibility rule reads for a single account.
type VisibilityStore interface {
	UserByName(ctx context.Context, name string) (*store.User, error)
	UserVisible(ctx context.Context, f store.UserFilter, id int64) (bool, error)
}

// Visible loads the account named name if viewer may see it (CanSee).
// Otherwise, and when missing, it returns the same NotFound, so a hidden
// account cannot be told from an unknown one.
func Visible(ctx context.Context, st VisibilityStore, name string, viewer *auth.Principal) (*store.User, error) {
	u, err := st.UserByName(ctx, name)
	if errors.Is(err, store.ErrNotFound) {
		return nil, NotFound(name)
	}
	if err != nil {
		return nil, errs.Wrap(err, "load user")
	}
	ok, err := CanSee(ctx, st, u, viewer)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, NotFound(name)
	}
	return u, nil
}

// NotFound is the answer for an unknown or hidden account.
func NotFound(name string) error {
	return errs.Newf(errs.NotFound, "user does not exist [name: %s]", name)
}

// CanSee applies account visibility (Filter) to u, asking the store only
// when a relation could still make u visible.
func CanSee(ctx context.Context, st interface {
	UserVisible(ctx context.Context, f store.UserFilter, id int64) (bool, error)
}, u *store.User, viewer *auth.Principal) (bool, error) {
	f := Filter(viewer)
	if visible, settled := f.Settled(u); settled {
		return visible, nil
	}
	ok, err := st.UserVisible(ctx, f, u.ID)
	if err != nil {
		return false, errs.Wrap(err, "check user visibility")
	}
	return ok, nil
}

// Filter is the one definition of who sees which account; CanSee and
// every store list that returns or embeds users apply it.
//
//   - Site administrators see every account; everyone signed in sees
//     themself, the owners of repositories shared with them as a
//     collaborator, and the organizations they are a member of.
//   - Anonymous viewers see public accounts.
//   - Signed-in viewers also see public and limited accounts; private
//     accounts are hidden from them.
//   - Restricted viewers (Gitea's restricted users) see nobody by
//     visibility alone: besides themself and the owners above, only the
//     public and limited accounts collaborating on a repository they own
//     or collaborate on, or members of one of their organizations.
func Filter(viewer *auth.Principal) store.UserFilter {
	switch {
	case viewer.IsAdmin():
		return store.UserFilter{All: true}
	case viewer == nil:
		return store.UserFilter{Visibilities: []store.Visibility{store.VisibilityPublic}}
	case viewer.User.Restricted:
		return store.UserFilter{ViewerID: viewer.ID(), Related: []store.Visibility{store.VisibilityPublic, store.VisibilityLimited}}
	}
	return store.UserFilter{ViewerID: viewer.ID(), Visibilities: []store.Visibility{store.VisibilityPublic, store.VisibilityLimited}}
}

func (s *Server) SearchUsers(ctx context.Context, req *usersv1.SearchUsersRequest) (*usersv1.SearchUsersResponse, error) {
	viewer := auth.FromContext(ctx)
	page := s.limits.Normalize(int(req.GetPage()), int(req.GetLimit()))
	opts := store.ListUsersOptions{Query: req.GetQ(), UID: req.GetUid(), Offset: page.Offset(), Limit: page.Size}
	f := Filter(viewer)
	opts.Visible = &f
	found, total, err := s.store.ListUsers(ctx, opts)
	if err != nil {
		return nil, errs.Wrap(err, "search users")
	}
	out := &usersv1.SearchUsersResponse{Ok: true, Data: make([]*usersv1.User, len(found)), TotalCount: total}
	for i := range found {
		out.Data[i] = s.render.User(&found[i], viewer)
	}
	return out, nil
}

// DropHidden removes from m the accounts viewer may not see, for services
// that embed accounts found by other means (release publishers, commit
// authors), so they show no account the viewer could not look up.
func DropHidden[K comparable](ctx context.Context, st interface {
	UserVisible(ctx context.Context, f store.UserFilter, id int64) (bool, error)
}, viewer *auth.Principal, m map[K]*store.User) error {
	seen := map[int64]bool{}
	for k, u := range m {
		visible, known := seen[u.ID]
		if !known {
			var err error
			if visible, err = CanSee(ctx, st, u, viewer); err != nil {
				return err
			}
			seen[u.ID] = visible
		}
		if !visible {
			delete(m, k)
		}
	}
	return nil
}
