package users

import (
	"context"
	"errors"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	usersv1 "forge/gen/forge/users/v1"
	"forge/services/auth"
	"forge/services/paging"
	"forge/services/rpcerr"
	"forge/services/store"
)

// Store is what the user service reads.
type Store interface {
	UserByName(ctx context.Context, name string) (*store.User, error)
	ListUsers(ctx context.Context, opts store.ListUsersOptions) ([]store.User, int64, error)
}

// Policies declares who may call each method.
var Policies = auth.Policies{
	usersv1.UserService_GetAuthenticatedUser_FullMethodName: auth.Read(auth.SignedIn, auth.CategoryUser),
	usersv1.UserService_GetUser_FullMethodName:              auth.Read(auth.Public, auth.CategoryUser),
	usersv1.UserService_SearchUsers_FullMethodName:          auth.Read(auth.Public, auth.CategoryUser),
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

// Visible loads the account named name if viewer may see it: private
// accounts only to themselves and admins, limited ones to signed-in users.
// Otherwise, and when missing, it returns NotFound.
func Visible(ctx context.Context, st interface {
	UserByName(ctx context.Context, name string) (*store.User, error)
}, name string, viewer *auth.Principal) (*store.User, error) {
	u, err := st.UserByName(ctx, name)
	if errors.Is(err, store.ErrNotFound) || (err == nil && !CanSee(u, viewer)) {
		return nil, status.Errorf(codes.NotFound, "user does not exist [name: %s]", name)
	}
	if err != nil {
		return nil, rpcerr.Internal(err)
	}
	return u, nil
}

// CanSee applies account visibility.
func CanSee(u *store.User, viewer *auth.Principal) bool {
	switch u.Visibility {
	case store.VisibilityPrivate:
		return viewer != nil && (viewer.IsAdmin() || viewer.User.ID == u.ID)
	case store.VisibilityLimited:
		return viewer != nil
	}
	return true
}

func (s *Server) SearchUsers(ctx context.Context, req *usersv1.SearchUsersRequest) (*usersv1.SearchUsersResponse, error) {
	viewer := auth.FromContext(ctx)
	page := s.limits.Normalize(int(req.GetPage()), int(req.GetLimit()))
	opts := store.ListUsersOptions{Query: req.GetQ(), UID: req.GetUid(), Offset: page.Offset(), Limit: page.Size}
	opts.Visible, opts.Self = visibleTo(viewer)
	found, total, err := s.store.ListUsers(ctx, opts)
	if err != nil {
		return nil, rpcerr.Internal(err)
	}
	out := &usersv1.SearchUsersResponse{Ok: true, Data: make([]*usersv1.User, len(found)), TotalCount: total}
	for i := range found {
		out.Data[i] = s.render.User(&found[i], viewer)
	}
	return out, nil
}

// visibleTo is the store filter matching CanSee.
func visibleTo(viewer *auth.Principal) ([]store.Visibility, int64) {
	switch {
	case viewer.IsAdmin():
		return nil, 0
	case viewer != nil:
		return []store.Visibility{store.VisibilityPublic, store.VisibilityLimited}, viewer.ID()
	}
	return []store.Visibility{store.VisibilityPublic}, 0
}
