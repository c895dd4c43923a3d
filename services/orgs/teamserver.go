package orgs

import (
	"context"

	orgsv1 "forge/gen/forge/orgs/v1"
	"forge/services/access"
	"forge/services/auth"
	"forge/services/paging"
	"forge/services/store"
)

// TeamServer implements orgsv1.TeamServiceServer over Service. The
// organization or team a method acts on was resolved and checked by the
// interceptor (access.OrgFrom, access.TeamFrom).
type TeamServer struct {
	orgsv1.UnimplementedTeamServiceServer
	base
}

var _ orgsv1.TeamServiceServer = (*TeamServer)(nil)

func NewTeamServer(svc *Service, r Renderer, limits paging.Limits) *TeamServer {
	return &TeamServer{base: base{svc: svc, render: r, limits: limits}}
}

func (s *TeamServer) renderTeams(list []store.Team, viewer *auth.Principal) []*orgsv1.Team {
	out := make([]*orgsv1.Team, len(list))
	for i := range list {
		out[i] = s.render.Team(&list[i], nil, viewer)
	}
	return out
}

func (s *TeamServer) ListTeams(ctx context.Context, req *orgsv1.ListTeamsRequest) (*orgsv1.ListTeamsResponse, error) {
	p := s.limits.Normalize(int(req.GetPage()), int(req.GetLimit()))
	list, total, err := s.svc.Teams(ctx, "", false, p.Offset(), p.Size)
	if err != nil {
		return nil, err
	}
	return &orgsv1.ListTeamsResponse{Teams: s.renderTeams(list, auth.FromContext(ctx)), TotalCount: total}, nil
}

func (s *TeamServer) SearchTeams(ctx context.Context, req *orgsv1.SearchTeamsRequest) (*orgsv1.SearchTeamsResponse, error) {
	p := s.limits.Normalize(int(req.GetPage()), int(req.GetLimit()))
	list, total, err := s.svc.Teams(ctx, req.GetQ(), req.GetIncludeDesc(), p.Offset(), p.Size)
	if err != nil {
		return nil, err
	}
	return &orgsv1.SearchTeamsResponse{Ok: true, Data: s.renderTeams(list, auth.FromContext(ctx)), TotalCount: total}, nil
}

func teamInput(name, description *string, all, create *bool, permission string, units []string, unitsMap map[string]string) TeamInput {
	return TeamInput{Name: name, Description: description, IncludesAllRepositories: all, CanCreateOrgRepo: create,
		Permission: permission, Units: units, UnitsMap: unitsMap}
}

func (s *TeamServer) CreateTeam(ctx context.Context, req *orgsv1.CreateTeamRequest) (*orgsv1.CreateTeamResponse, error) {
	name, desc, all, create := req.GetName(), req.GetDescription(), req.GetIncludesAllRepositories(), req.GetCanCreateOrgRepo()
	t, o, err := s.svc.CreateTeam(ctx, teamInput(&name, &desc, &all, &create, req.GetPermission(), req.GetUnits(), req.GetUnitsMap()))
	if err != nil {
		return nil, err
	}
	return &orgsv1.CreateTeamResponse{Team: s.render.Team(t, o.User, auth.FromContext(ctx))}, nil
}

func (s *TeamServer) GetTeam(ctx context.Context, _ *orgsv1.GetTeamRequest) (*orgsv1.GetTeamResponse, error) {
	t, err := access.TeamFrom(ctx)
	if err != nil {
		return nil, err
	}
	return &orgsv1.GetTeamResponse{Team: s.render.Team(t.Team, t.Org.User, auth.FromContext(ctx))}, nil
}

func (s *TeamServer) EditTeam(ctx context.Context, req *orgsv1.EditTeamRequest) (*orgsv1.EditTeamResponse, error) {
	t, err := s.svc.EditTeam(ctx, teamInput(req.Name, req.Description, req.IncludesAllRepositories, req.CanCreateOrgRepo,
		req.GetPermission(), req.GetUnits(), req.GetUnitsMap()))
	if err != nil {
		return nil, err
	}
	return &orgsv1.EditTeamResponse{Team: s.render.Team(t, nil, auth.FromContext(ctx))}, nil
}

func (s *TeamServer) DeleteTeam(ctx context.Context, _ *orgsv1.DeleteTeamRequest) (*orgsv1.DeleteTeamResponse, error) {
	if err := s.svc.DeleteTeam(ctx); err != nil {
		return nil, err
	}
	return &orgsv1.DeleteTeamResponse{}, nil
}

func (s *TeamServer) ListTeamMembers(ctx context.Context, req *orgsv1.ListTeamMembersRequest) (*orgsv1.ListTeamMembersResponse, error) {
	viewer := auth.FromContext(ctx)
	p := s.limits.Normalize(int(req.GetPage()), int(req.GetLimit()))
	list, total, err := s.svc.TeamMembers(ctx, viewer, p.Offset(), p.Size)
	if err != nil {
		return nil, err
	}
	users, err := s.renderUsers(ctx, list, viewer)
	if err != nil {
		return nil, err
	}
	return &orgsv1.ListTeamMembersResponse{Users: users, TotalCount: total}, nil
}

func (s *TeamServer) GetTeamMember(ctx context.Context, req *orgsv1.GetTeamMemberRequest) (*orgsv1.GetTeamMemberResponse, error) {
	viewer := auth.FromContext(ctx)
	u, err := s.svc.TeamMember(ctx, req.GetUsername(), viewer)
	if err != nil {
		return nil, err
	}
	return &orgsv1.GetTeamMemberResponse{User: s.render.Users.User(u, viewer)}, nil
}

func (s *TeamServer) AddTeamMember(ctx context.Context, req *orgsv1.AddTeamMemberRequest) (*orgsv1.AddTeamMemberResponse, error) {
	if err := s.svc.AddTeamMember(ctx, req.GetUsername(), auth.FromContext(ctx)); err != nil {
		return nil, err
	}
	return &orgsv1.AddTeamMemberResponse{}, nil
}

func (s *TeamServer) RemoveTeamMember(ctx context.Context, req *orgsv1.RemoveTeamMemberRequest) (*orgsv1.RemoveTeamMemberResponse, error) {
	if err := s.svc.RemoveTeamMember(ctx, req.GetUsername(), auth.FromContext(ctx)); err != nil {
		return nil, err
	}
	return &orgsv1.RemoveTeamMemberResponse{}, nil
}

func (s *TeamServer) ListTeamRepos(ctx context.Context, req *orgsv1.ListTeamReposRequest) (*orgsv1.ListTeamReposResponse, error) {
	viewer := auth.FromContext(ctx)
	p := s.limits.Normalize(int(req.GetPage()), int(req.GetLimit()))
	list, total, err := s.svc.TeamRepos(ctx, viewer, p.Offset(), p.Size)
	if err != nil {
		return nil, err
	}
	return &orgsv1.ListTeamReposResponse{Repositories: s.renderRepos(list, viewer), TotalCount: total}, nil
}

func (s *TeamServer) GetTeamRepo(ctx context.Context, req *orgsv1.GetTeamRepoRequest) (*orgsv1.GetTeamRepoResponse, error) {
	viewer := auth.FromContext(ctx)
	r, err := s.svc.TeamRepo(ctx, req.GetOrg(), req.GetRepo(), viewer)
	if err != nil {
		return nil, err
	}
	d, err := s.svc.repos.Details(ctx, r, viewer)
	if err != nil {
		return nil, err
	}
	return &orgsv1.GetTeamRepoResponse{Repository: s.render.Repos.Details(d, viewer)}, nil
}

func (s *TeamServer) AddTeamRepo(ctx context.Context, req *orgsv1.AddTeamRepoRequest) (*orgsv1.AddTeamRepoResponse, error) {
	if err := s.svc.SetTeamRepo(ctx, true); err != nil {
		return nil, err
	}
	return &orgsv1.AddTeamRepoResponse{}, nil
}

func (s *TeamServer) RemoveTeamRepo(ctx context.Context, req *orgsv1.RemoveTeamRepoRequest) (*orgsv1.RemoveTeamRepoResponse, error) {
	if err := s.svc.SetTeamRepo(ctx, false); err != nil {
		return nil, err
	}
	return &orgsv1.RemoveTeamRepoResponse{}, nil
}

func (s *TeamServer) ListMyTeams(ctx context.Context, req *orgsv1.ListMyTeamsRequest) (*orgsv1.ListMyTeamsResponse, error) {
	caller := auth.FromContext(ctx)
	p := s.limits.Normalize(int(req.GetPage()), int(req.GetLimit()))
	list, orgs, total, err := s.svc.MyTeams(ctx, caller, p.Offset(), p.Size)
	if err != nil {
		return nil, err
	}
	out := make([]*orgsv1.Team, len(list))
	for i := range list {
		out[i] = s.render.Team(&list[i], orgs[list[i].OrgID], caller)
	}
	return &orgsv1.ListMyTeamsResponse{Teams: out, TotalCount: total}, nil
}
