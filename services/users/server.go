package users

import (
	"context"

	usersv1 "forge/gen/forge/users/v1"
	"forge/services/access"
	"forge/services/auth"
	"forge/services/errs"
	"forge/services/paging"
	"forge/services/store"
)

// Store is what the user service reads.
type Store interface {
	access.VisibilityStore
	SettingsStore
	EmailStore
	ListUsers(ctx context.Context, opts store.ListUsersOptions) ([]store.User, int64, error)
	FollowUser(ctx context.Context, userID, followID int64) error
	UnfollowUser(ctx context.Context, userID, followID int64) error
	IsFollowing(ctx context.Context, userID, followID int64) (bool, error)
	ListFollowers(ctx context.Context, userID int64, visible store.UserFilter, offset, limit int) ([]store.User, int64, error)
	ListFollowing(ctx context.Context, userID int64, visible store.UserFilter, offset, limit int) ([]store.User, int64, error)
	UserSocialCounts(ctx context.Context, userID int64) (store.SocialCounts, error)
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
	out, err := s.withCounts(ctx, s.render.User(p.User, p))
	if err != nil {
		return nil, err
	}
	return &usersv1.GetAuthenticatedUserResponse{User: out}, nil
}

func (s *Server) GetUser(ctx context.Context, req *usersv1.GetUserRequest) (*usersv1.GetUserResponse, error) {
	viewer := auth.FromContext(ctx)
	u, err := access.VisibleUser(ctx, s.store, req.GetUsername(), viewer)
	if err != nil {
		return nil, err
	}
	out, err := s.withCounts(ctx, s.render.User(u, viewer))
	if err != nil {
		return nil, err
	}
	return &usersv1.GetUserResponse{User: out}, nil
}

func (s *Server) SearchUsers(ctx context.Context, req *usersv1.SearchUsersRequest) (*usersv1.SearchUsersResponse, error) {
	viewer := auth.FromContext(ctx)
	page := s.limits.Normalize(int(req.GetPage()), int(req.GetLimit()))
	opts := store.ListUsersOptions{Query: req.GetQ(), UID: req.GetUid(), Offset: page.Offset(), Limit: page.Size}
	f := access.UserFilter(viewer)
	opts.Visible, opts.EmailOf = &f, &f // Gitea's search matches e-mail addresses the viewer may see
	found, total, err := s.store.ListUsers(ctx, opts)
	if err != nil {
		return nil, errs.Wrap(err, "search users")
	}
	out := &usersv1.SearchUsersResponse{Ok: true, Data: make([]*usersv1.User, len(found)), TotalCount: total}
	for i := range found {
		out.Data[i] = s.render.User(&found[i], viewer)
	}
	if err := s.render.FillCounts(ctx, out.Data); err != nil {
		return nil, err
	}
	return out, nil
}

// withCounts fills the follow and star counts of a single user's JSON
// (GET /user, GET /users/{username}); lists leave them 0.
func (s *Server) withCounts(ctx context.Context, u *usersv1.User) (*usersv1.User, error) {
	c, err := s.store.UserSocialCounts(ctx, u.GetId())
	if err != nil {
		return nil, errs.Wrap(err, "user counts")
	}
	u.FollowersCount, u.FollowingCount, u.StarredReposCount = c.Followers, c.Following, c.Stars
	return u, nil
}
