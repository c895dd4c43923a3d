package webhooks

import (
	"context"
	"encoding/json"
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"

	webhooksv1 "forge/gen/forge/webhooks/v1"
	"forge/services/store"
)

// Server implements webhooksv1.WebhookServiceServer: thin adapters from
// each level's rpcs to the use cases.
type Server struct {
	webhooksv1.UnimplementedWebhookServiceServer
	svc *Service
}

var _ webhooksv1.WebhookServiceServer = (*Server)(nil)

// NewServer serves svc.
func NewServer(svc *Service) *Server { return &Server{svc: svc} }

// hookJSON is Gitea's Hook; the secret and the authorization header are
// never returned.
func hookJSON(h *store.Webhook) *webhooksv1.Hook {
	cfg := map[string]string{"url": h.URL, "content_type": contentTypeName(h.ContentType)}
	if h.Type == "slack" {
		var m slackMeta
		_ = json.Unmarshal([]byte(h.Meta), &m)
		cfg["channel"], cfg["username"], cfg["icon_url"], cfg["color"] = m.Channel, m.Username, m.IconURL, m.Color
	}
	return &webhooksv1.Hook{Id: h.ID, Type: h.Type, BranchFilter: h.BranchFilter, Config: cfg,
		Events: eventNames(h.Events), Active: h.Active,
		UpdatedAt: timestamppb.New(time.Unix(h.UpdatedUnix, 0)), CreatedAt: timestamppb.New(time.Unix(h.CreatedUnix, 0))}
}

func hooksJSON(list []store.Webhook) []*webhooksv1.Hook {
	out := make([]*webhooksv1.Hook, len(list))
	for i := range list {
		out[i] = hookJSON(&list[i])
	}
	return out
}

func createInput(o *webhooksv1.CreateHookOption) CreateInput {
	return CreateInput{Type: o.GetType(), Config: o.GetConfig(), Events: o.GetEvents(), BranchFilter: o.GetBranchFilter(),
		AuthorizationHeader: o.GetAuthorizationHeader(), Active: o.GetActive()}
}

func editInput(o *webhooksv1.EditHookOption) EditInput {
	in := EditInput{Config: o.GetConfig(), Events: o.GetEvents(), BranchFilter: o.GetBranchFilter(),
		AuthorizationHeader: o.GetAuthorizationHeader()}
	if o != nil && o.Active != nil {
		a := o.GetActive()
		in.Active = &a
	}
	return in
}

func (s *Server) ListRepoHooks(ctx context.Context, req *webhooksv1.ListRepoHooksRequest) (*webhooksv1.ListRepoHooksResponse, error) {
	sc, err := s.svc.repoScope(ctx)
	if err != nil {
		return nil, err
	}
	list, total, err := s.svc.list(ctx, sc, req.GetPage(), req.GetLimit())
	if err != nil {
		return nil, err
	}
	return &webhooksv1.ListRepoHooksResponse{Hooks: hooksJSON(list), TotalCount: total}, nil
}

func (s *Server) CreateRepoHook(ctx context.Context, req *webhooksv1.CreateRepoHookRequest) (*webhooksv1.CreateRepoHookResponse, error) {
	sc, err := s.svc.repoScope(ctx)
	if err != nil {
		return nil, err
	}
	h, err := s.svc.create(ctx, sc, createInput(req.GetHook()), "")
	if err != nil {
		return nil, err
	}
	return &webhooksv1.CreateRepoHookResponse{Hook: hookJSON(h)}, nil
}

func (s *Server) GetRepoHook(ctx context.Context, req *webhooksv1.GetRepoHookRequest) (*webhooksv1.GetRepoHookResponse, error) {
	sc, err := s.svc.repoScope(ctx)
	if err != nil {
		return nil, err
	}
	h, err := s.svc.get(ctx, sc, req.GetId())
	if err != nil {
		return nil, err
	}
	return &webhooksv1.GetRepoHookResponse{Hook: hookJSON(h)}, nil
}

func (s *Server) EditRepoHook(ctx context.Context, req *webhooksv1.EditRepoHookRequest) (*webhooksv1.EditRepoHookResponse, error) {
	sc, err := s.svc.repoScope(ctx)
	if err != nil {
		return nil, err
	}
	h, err := s.svc.edit(ctx, sc, req.GetId(), editInput(req.GetHook()))
	if err != nil {
		return nil, err
	}
	return &webhooksv1.EditRepoHookResponse{Hook: hookJSON(h)}, nil
}

func (s *Server) DeleteRepoHook(ctx context.Context, req *webhooksv1.DeleteRepoHookRequest) (*webhooksv1.DeleteRepoHookResponse, error) {
	sc, err := s.svc.repoScope(ctx)
	if err != nil {
		return nil, err
	}
	if err := s.svc.delete(ctx, sc, req.GetId()); err != nil {
		return nil, err
	}
	return &webhooksv1.DeleteRepoHookResponse{}, nil
}

func (s *Server) ListOrgHooks(ctx context.Context, req *webhooksv1.ListOrgHooksRequest) (*webhooksv1.ListOrgHooksResponse, error) {
	sc, err := s.svc.orgScope(ctx)
	if err != nil {
		return nil, err
	}
	list, total, err := s.svc.list(ctx, sc, req.GetPage(), req.GetLimit())
	if err != nil {
		return nil, err
	}
	return &webhooksv1.ListOrgHooksResponse{Hooks: hooksJSON(list), TotalCount: total}, nil
}

func (s *Server) CreateOrgHook(ctx context.Context, req *webhooksv1.CreateOrgHookRequest) (*webhooksv1.CreateOrgHookResponse, error) {
	sc, err := s.svc.orgScope(ctx)
	if err != nil {
		return nil, err
	}
	h, err := s.svc.create(ctx, sc, createInput(req.GetHook()), "")
	if err != nil {
		return nil, err
	}
	return &webhooksv1.CreateOrgHookResponse{Hook: hookJSON(h)}, nil
}

func (s *Server) GetOrgHook(ctx context.Context, req *webhooksv1.GetOrgHookRequest) (*webhooksv1.GetOrgHookResponse, error) {
	sc, err := s.svc.orgScope(ctx)
	if err != nil {
		return nil, err
	}
	h, err := s.svc.get(ctx, sc, req.GetId())
	if err != nil {
		return nil, err
	}
	return &webhooksv1.GetOrgHookResponse{Hook: hookJSON(h)}, nil
}

func (s *Server) EditOrgHook(ctx context.Context, req *webhooksv1.EditOrgHookRequest) (*webhooksv1.EditOrgHookResponse, error) {
	sc, err := s.svc.orgScope(ctx)
	if err != nil {
		return nil, err
	}
	h, err := s.svc.edit(ctx, sc, req.GetId(), editInput(req.GetHook()))
	if err != nil {
		return nil, err
	}
	return &webhooksv1.EditOrgHookResponse{Hook: hookJSON(h)}, nil
}

func (s *Server) DeleteOrgHook(ctx context.Context, req *webhooksv1.DeleteOrgHookRequest) (*webhooksv1.DeleteOrgHookResponse, error) {
	sc, err := s.svc.orgScope(ctx)
	if err != nil {
		return nil, err
	}
	if err := s.svc.delete(ctx, sc, req.GetId()); err != nil {
		return nil, err
	}
	return &webhooksv1.DeleteOrgHookResponse{}, nil
}

func (s *Server) ListUserHooks(ctx context.Context, req *webhooksv1.ListUserHooksRequest) (*webhooksv1.ListUserHooksResponse, error) {
	sc, err := s.svc.userScope(ctx)
	if err != nil {
		return nil, err
	}
	list, total, err := s.svc.list(ctx, sc, req.GetPage(), req.GetLimit())
	if err != nil {
		return nil, err
	}
	return &webhooksv1.ListUserHooksResponse{Hooks: hooksJSON(list), TotalCount: total}, nil
}

func (s *Server) CreateUserHook(ctx context.Context, req *webhooksv1.CreateUserHookRequest) (*webhooksv1.CreateUserHookResponse, error) {
	sc, err := s.svc.userScope(ctx)
	if err != nil {
		return nil, err
	}
	h, err := s.svc.create(ctx, sc, createInput(req.GetHook()), "")
	if err != nil {
		return nil, err
	}
	return &webhooksv1.CreateUserHookResponse{Hook: hookJSON(h)}, nil
}

func (s *Server) GetUserHook(ctx context.Context, req *webhooksv1.GetUserHookRequest) (*webhooksv1.GetUserHookResponse, error) {
	sc, err := s.svc.userScope(ctx)
	if err != nil {
		return nil, err
	}
	h, err := s.svc.get(ctx, sc, req.GetId())
	if err != nil {
		return nil, err
	}
	return &webhooksv1.GetUserHookResponse{Hook: hookJSON(h)}, nil
}

func (s *Server) EditUserHook(ctx context.Context, req *webhooksv1.EditUserHookRequest) (*webhooksv1.EditUserHookResponse, error) {
	sc, err := s.svc.userScope(ctx)
	if err != nil {
		return nil, err
	}
	h, err := s.svc.edit(ctx, sc, req.GetId(), editInput(req.GetHook()))
	if err != nil {
		return nil, err
	}
	return &webhooksv1.EditUserHookResponse{Hook: hookJSON(h)}, nil
}

func (s *Server) DeleteUserHook(ctx context.Context, req *webhooksv1.DeleteUserHookRequest) (*webhooksv1.DeleteUserHookResponse, error) {
	sc, err := s.svc.userScope(ctx)
	if err != nil {
		return nil, err
	}
	if err := s.svc.delete(ctx, sc, req.GetId()); err != nil {
		return nil, err
	}
	return &webhooksv1.DeleteUserHookResponse{}, nil
}

func (s *Server) ListAdminHooks(ctx context.Context, req *webhooksv1.ListAdminHooksRequest) (*webhooksv1.ListAdminHooksResponse, error) {
	sc, err := adminListScope(req.GetType())
	if err != nil {
		return nil, err
	}
	list, total, err := s.svc.list(ctx, sc, req.GetPage(), req.GetLimit())
	if err != nil {
		return nil, err
	}
	return &webhooksv1.ListAdminHooksResponse{Hooks: hooksJSON(list), TotalCount: total}, nil
}

func (s *Server) CreateAdminHook(ctx context.Context, req *webhooksv1.CreateAdminHookRequest) (*webhooksv1.CreateAdminHookResponse, error) {
	sc, err := adminScope()
	if err != nil {
		return nil, err
	}
	h, err := s.svc.create(ctx, sc, createInput(req.GetHook()), req.GetType())
	if err != nil {
		return nil, err
	}
	return &webhooksv1.CreateAdminHookResponse{Hook: hookJSON(h)}, nil
}

func (s *Server) GetAdminHook(ctx context.Context, req *webhooksv1.GetAdminHookRequest) (*webhooksv1.GetAdminHookResponse, error) {
	sc, err := adminScope()
	if err != nil {
		return nil, err
	}
	h, err := s.svc.get(ctx, sc, req.GetId())
	if err != nil {
		return nil, err
	}
	return &webhooksv1.GetAdminHookResponse{Hook: hookJSON(h)}, nil
}

func (s *Server) EditAdminHook(ctx context.Context, req *webhooksv1.EditAdminHookRequest) (*webhooksv1.EditAdminHookResponse, error) {
	sc, err := adminScope()
	if err != nil {
		return nil, err
	}
	h, err := s.svc.edit(ctx, sc, req.GetId(), editInput(req.GetHook()))
	if err != nil {
		return nil, err
	}
	return &webhooksv1.EditAdminHookResponse{Hook: hookJSON(h)}, nil
}

func (s *Server) DeleteAdminHook(ctx context.Context, req *webhooksv1.DeleteAdminHookRequest) (*webhooksv1.DeleteAdminHookResponse, error) {
	sc, err := adminScope()
	if err != nil {
		return nil, err
	}
	if err := s.svc.delete(ctx, sc, req.GetId()); err != nil {
		return nil, err
	}
	return &webhooksv1.DeleteAdminHookResponse{}, nil
}

func (s *Server) TestRepoHook(ctx context.Context, req *webhooksv1.TestRepoHookRequest) (*webhooksv1.TestRepoHookResponse, error) {
	sc, err := s.svc.repoScope(ctx)
	if err != nil {
		return nil, err
	}
	if err := s.svc.test(ctx, sc, req.GetId(), req.GetRef()); err != nil {
		return nil, err
	}
	return &webhooksv1.TestRepoHookResponse{}, nil
}

// adminScope is the instance's hooks, of either kind.
func adminScope() (store.HookScope, error) { return store.HookScope{Instance: true}, nil }
