package users

import (
	"context"

	usersv1 "forge/gen/forge/users/v1"
	"forge/services/access"
	"forge/services/auth"
	"forge/services/errs"
	"forge/services/store"
)

// Following: a signed-in caller follows any account they can see (an
// account they cannot see is "user does not exist", as a missing one).
// Following twice or oneself is a no-op (204), as Gitea. Lists show only
// the accounts the caller can see; checks answer 204 or a bare 404.

// errNotFollowing is Gitea's bare 404 of the following checks.
var errNotFollowing = errs.New(errs.NotFound, "")

func (s *Server) Follow(ctx context.Context, req *usersv1.FollowRequest) (*usersv1.FollowResponse, error) {
	p := auth.FromContext(ctx)
	u, err := access.VisibleUser(ctx, s.store, req.GetUsername(), p)
	if err != nil {
		return nil, err
	}
	if err := s.store.FollowUser(ctx, p.ID(), u.ID); err != nil {
		return nil, errs.Wrap(err, "follow")
	}
	return &usersv1.FollowResponse{}, nil
}

func (s *Server) Unfollow(ctx context.Context, req *usersv1.UnfollowRequest) (*usersv1.UnfollowResponse, error) {
	p := auth.FromContext(ctx)
	u, err := access.VisibleUser(ctx, s.store, req.GetUsername(), p)
	if err != nil {
		return nil, err
	}
	if err := s.store.UnfollowUser(ctx, p.ID(), u.ID); err != nil {
		return nil, errs.Wrap(err, "unfollow")
	}
	return &usersv1.UnfollowResponse{}, nil
}

// following answers errNotFollowing unless user follows target (both
// seen by viewer).
func (s *Server) following(ctx context.Context, viewer *auth.Principal, user *store.User, target string) error {
	t, err := access.VisibleUser(ctx, s.store, target, viewer)
	if err != nil {
		return err
	}
	on, err := s.store.IsFollowing(ctx, user.ID, t.ID)
	if err != nil {
		return errs.Wrap(err, "check follow")
	}
	if !on {
		return errNotFollowing
	}
	return nil
}

func (s *Server) CheckMyFollowing(ctx context.Context, req *usersv1.CheckMyFollowingRequest) (*usersv1.CheckMyFollowingResponse, error) {
	p := auth.FromContext(ctx)
	if err := s.following(ctx, p, p.User, req.GetUsername()); err != nil {
		return nil, err
	}
	return &usersv1.CheckMyFollowingResponse{}, nil
}

func (s *Server) CheckUserFollowing(ctx context.Context, req *usersv1.CheckUserFollowingRequest) (*usersv1.CheckUserFollowingResponse, error) {
	viewer := auth.FromContext(ctx)
	u, err := access.VisibleUser(ctx, s.store, req.GetUsername(), viewer)
	if err != nil {
		return nil, err
	}
	if err := s.following(ctx, viewer, u, req.GetTarget()); err != nil {
		return nil, err
	}
	return &usersv1.CheckUserFollowingResponse{}, nil
}

type followLister func(ctx context.Context, userID int64, visible store.UserFilter, offset, limit int) ([]store.User, int64, error)

// follows lists a page of list for user, as viewer sees it.
func (s *Server) follows(ctx context.Context, list followLister, user *store.User, viewer *auth.Principal, pageNum, limit int32) ([]*usersv1.User, int64, error) {
	page := s.limits.Normalize(int(pageNum), int(limit))
	found, total, err := list(ctx, user.ID, access.UserFilter(viewer), page.Offset(), page.Size)
	if err != nil {
		return nil, 0, errs.Wrap(err, "list follows")
	}
	out := make([]*usersv1.User, len(found))
	for i := range found {
		out[i] = s.render.User(&found[i], viewer)
	}
	if err := s.render.FillCounts(ctx, out); err != nil {
		return nil, 0, err
	}
	return out, total, nil
}

func (s *Server) ListMyFollowers(ctx context.Context, req *usersv1.ListMyFollowersRequest) (*usersv1.ListMyFollowersResponse, error) {
	p := auth.FromContext(ctx)
	out, total, err := s.follows(ctx, s.store.ListFollowers, p.User, p, req.GetPage(), req.GetLimit())
	if err != nil {
		return nil, err
	}
	return &usersv1.ListMyFollowersResponse{Users: out, TotalCount: total}, nil
}

func (s *Server) ListMyFollowing(ctx context.Context, req *usersv1.ListMyFollowingRequest) (*usersv1.ListMyFollowingResponse, error) {
	p := auth.FromContext(ctx)
	out, total, err := s.follows(ctx, s.store.ListFollowing, p.User, p, req.GetPage(), req.GetLimit())
	if err != nil {
		return nil, err
	}
	return &usersv1.ListMyFollowingResponse{Users: out, TotalCount: total}, nil
}

func (s *Server) ListFollowers(ctx context.Context, req *usersv1.ListFollowersRequest) (*usersv1.ListFollowersResponse, error) {
	viewer := auth.FromContext(ctx)
	u, err := access.VisibleUser(ctx, s.store, req.GetUsername(), viewer)
	if err != nil {
		return nil, err
	}
	out, total, err := s.follows(ctx, s.store.ListFollowers, u, viewer, req.GetPage(), req.GetLimit())
	if err != nil {
		return nil, err
	}
	return &usersv1.ListFollowersResponse{Users: out, TotalCount: total}, nil
}

func (s *Server) ListFollowing(ctx context.Context, req *usersv1.ListFollowingRequest) (*usersv1.ListFollowingResponse, error) {
	viewer := auth.FromContext(ctx)
	u, err := access.VisibleUser(ctx, s.store, req.GetUsername(), viewer)
	if err != nil {
		return nil, err
	}
	out, total, err := s.follows(ctx, s.store.ListFollowing, u, viewer, req.GetPage(), req.GetLimit())
	if err != nil {
		return nil, err
	}
	return &usersv1.ListFollowingResponse{Users: out, TotalCount: total}, nil
}
