package reactions

import (
	"context"
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"

	issuesv1 "forge/gen/forge/issues/v1"
	"forge/services/access"
	"forge/services/auth"
	"forge/services/errs"
	"forge/services/paging"
	"forge/services/store"
	"forge/services/users"
)

// Server implements issuesv1.ReactionServiceServer: it decodes, calls the
// use cases and renders.
type Server struct {
	issuesv1.UnimplementedReactionServiceServer
	svc    *Service
	store  Store
	users  users.Renderer
	limits paging.Limits
}

var _ issuesv1.ReactionServiceServer = (*Server)(nil)

// NewServer returns the reaction service; allowed is [ui] REACTIONS.
func NewServer(s Store, allowed []string, u users.Renderer, limits paging.Limits) *Server {
	return &Server{svc: NewService(s, allowed), store: s, users: u, limits: limits}
}

func target(ctx context.Context) (Target, error) {
	o, err := access.ObjectFrom(ctx)
	if err != nil {
		return Target{}, err
	}
	return TargetOf(o), nil
}

// render renders reactions, loading their users at once; a reaction of a
// user gone meanwhile is left out.
func (s *Server) render(ctx context.Context, list []store.Reaction) ([]*issuesv1.Reaction, error) {
	ids := make([]int64, len(list))
	for i := range list {
		ids[i] = list[i].UserID
	}
	us, err := s.store.UsersByID(ctx, ids)
	if err != nil {
		return nil, errs.Wrap(err, "load reacting users")
	}
	viewer := auth.FromContext(ctx)
	out := make([]*issuesv1.Reaction, 0, len(list))
	for i := range list {
		u, ok := us[list[i].UserID]
		if !ok {
			continue
		}
		out = append(out, &issuesv1.Reaction{User: s.users.User(u, viewer), Content: list[i].Type,
			CreatedAt: timestamppb.New(time.Unix(list[i].CreatedUnix, 0))})
	}
	return out, nil
}

func (s *Server) list(ctx context.Context, page paging.Page) ([]*issuesv1.Reaction, int64, error) {
	t, err := target(ctx)
	if err != nil {
		return nil, 0, err
	}
	list, total, err := s.svc.List(ctx, t, page)
	if err != nil {
		return nil, 0, err
	}
	out, err := s.render(ctx, list)
	return out, total, err
}

func (s *Server) react(ctx context.Context, content string) (*issuesv1.Reaction, bool, error) {
	t, err := target(ctx)
	if err != nil {
		return nil, false, err
	}
	caller := auth.FromContext(ctx)
	r, existed, err := s.svc.React(ctx, caller, t, content)
	if err != nil {
		return nil, false, err
	}
	return &issuesv1.Reaction{User: s.users.User(caller.User, caller), Content: r.Type,
		CreatedAt: timestamppb.New(time.Unix(r.CreatedUnix, 0))}, existed, nil
}

func (s *Server) unreact(ctx context.Context, content string) error {
	t, err := target(ctx)
	if err != nil {
		return err
	}
	return s.svc.Unreact(ctx, auth.FromContext(ctx), t, content)
}

func (s *Server) ListIssueReactions(ctx context.Context, req *issuesv1.ListIssueReactionsRequest) (*issuesv1.ListIssueReactionsResponse, error) {
	out, total, err := s.list(ctx, s.limits.Normalize(int(req.GetPage()), int(req.GetLimit())))
	if err != nil {
		return nil, err
	}
	return &issuesv1.ListIssueReactionsResponse{Reactions: out, TotalCount: total}, nil
}

func (s *Server) PostIssueReaction(ctx context.Context, req *issuesv1.PostIssueReactionRequest) (*issuesv1.PostIssueReactionResponse, error) {
	r, existed, err := s.react(ctx, req.GetContent())
	if err != nil {
		return nil, err
	}
	return &issuesv1.PostIssueReactionResponse{Reaction: r, Existed: existed}, nil
}

func (s *Server) DeleteIssueReaction(ctx context.Context, req *issuesv1.DeleteIssueReactionRequest) (*issuesv1.DeleteIssueReactionResponse, error) {
	if err := s.unreact(ctx, req.GetContent()); err != nil {
		return nil, err
	}
	return &issuesv1.DeleteIssueReactionResponse{}, nil
}

func (s *Server) ListCommentReactions(ctx context.Context, req *issuesv1.ListCommentReactionsRequest) (*issuesv1.ListCommentReactionsResponse, error) {
	out, _, err := s.list(ctx, paging.Page{})
	if err != nil {
		return nil, err
	}
	return &issuesv1.ListCommentReactionsResponse{Reactions: out}, nil
}

func (s *Server) PostCommentReaction(ctx context.Context, req *issuesv1.PostCommentReactionRequest) (*issuesv1.PostCommentReactionResponse, error) {
	r, existed, err := s.react(ctx, req.GetContent())
	if err != nil {
		return nil, err
	}
	return &issuesv1.PostCommentReactionResponse{Reaction: r, Existed: existed}, nil
}

func (s *Server) DeleteCommentReaction(ctx context.Context, req *issuesv1.DeleteCommentReactionRequest) (*issuesv1.DeleteCommentReactionResponse, error) {
	if err := s.unreact(ctx, req.GetContent()); err != nil {
		return nil, err
	}
	return &issuesv1.DeleteCommentReactionResponse{}, nil
}
