package orgs

import (
	"context"

	orgsv1 "forge/gen/forge/orgs/v1"
	reposv1 "forge/gen/forge/repos/v1"
	usersv1 "forge/gen/forge/users/v1"
	"forge/services/access"
	"forge/services/auth"
	"forge/services/paging"
	"forge/services/repos"
	"forge/services/store"
)

// Server implements orgsv1.OrganizationServiceServer: a thin adapter over
// Service. The organization a method acts on was resolved and checked by
// the interceptor (access.OrgFrom).
type Server struct {
	orgsv1.UnimplementedOrganizationServiceServer
	base
}

// base is what both servers hold.
type base struct {
	svc    *Service
	render Renderer
	limits paging.Limits
}

var _ orgsv1.OrganizationServiceServer = (*Server)(nil)

func NewServer(svc *Service, r Renderer, limits paging.Limits) *Server {
	return &Server{base: base{svc: svc, render: r, limits: limits}}
}

func orgInput(name, fullName, email, description, website, location, visibility string, rac *bool) OrgInput {
	return OrgInput{Name: name, FullName: fullName, Email: email, Description: description, Website: website,
		Location: location, Visibility: visibility, RepoAdminChangeTeamAccess: rac}
}

func (s *Server) CreateOrg(ctx context.Context, req *orgsv1.CreateOrgRequest) (*orgsv1.CreateOrgResponse, error) {
	caller := auth.FromContext(ctx)
	rac := req.GetRepoAdminChangeTeamAccess()
	o, err := s.svc.Create(ctx, caller, orgInput(req.GetUsername(), req.GetFullName(), req.GetEmail(), req.GetDescription(),
		req.GetWebsite(), req.GetLocation(), req.GetVisibility(), &rac))
	if err != nil {
		return nil, err
	}
	return &orgsv1.CreateOrgResponse{Organization: s.render.Org(o, caller)}, nil
}

func (s *Server) AdminCreateOrg(ctx context.Context, req *orgsv1.AdminCreateOrgRequest) (*orgsv1.AdminCreateOrgResponse, error) {
	caller := auth.FromContext(ctx)
	opt := req.GetOrganization()
	o, err := s.svc.AdminCreate(ctx, req.GetUsername(), orgInput(opt.GetUsername(), opt.GetFullName(), opt.GetEmail(),
		opt.GetDescription(), opt.GetWebsite(), opt.GetLocation(), opt.GetVisibility(), nil), caller)
	if err != nil {
		return nil, err
	}
	return &orgsv1.AdminCreateOrgResponse{Organization: s.render.Org(o, caller)}, nil
}

func (s *Server) ListOrgs(ctx context.Context, req *orgsv1.ListOrgsRequest) (*orgsv1.ListOrgsResponse, error) {
	viewer := auth.FromContext(ctx)
	p := s.limits.Normalize(int(req.GetPage()), int(req.GetLimit()))
	list, total, err := s.svc.List(ctx, viewer, p.Offset(), p.Size)
	if err != nil {
		return nil, err
	}
	return &orgsv1.ListOrgsResponse{Organizations: s.render.Orgs(list, viewer), TotalCount: total}, nil
}

func (s *Server) GetOrg(ctx context.Context, _ *orgsv1.GetOrgRequest) (*orgsv1.GetOrgResponse, error) {
	o, err := access.OrgFrom(ctx)
	if err != nil {
		return nil, err
	}
	return &orgsv1.GetOrgResponse{Organization: s.render.Org(o.User, auth.FromContext(ctx))}, nil
}

func (s *Server) EditOrg(ctx context.Context, req *orgsv1.EditOrgRequest) (*orgsv1.EditOrgResponse, error) {
	o, err := s.svc.Edit(ctx, orgInput("", req.GetFullName(), req.GetEmail(), req.GetDescription(), req.GetWebsite(),
		req.GetLocation(), req.GetVisibility(), req.RepoAdminChangeTeamAccess))
	if err != nil {
		return nil, err
	}
	return &orgsv1.EditOrgResponse{Organization: s.render.Org(o, auth.FromContext(ctx))}, nil
}

func (s *Server) DeleteOrg(ctx context.Context, _ *orgsv1.DeleteOrgRequest) (*orgsv1.DeleteOrgResponse, error) {
	if err := s.svc.Delete(ctx); err != nil {
		return nil, err
	}
	return &orgsv1.DeleteOrgResponse{}, nil
}

func (s *Server) ListMyOrgs(ctx context.Context, req *orgsv1.ListMyOrgsRequest) (*orgsv1.ListMyOrgsResponse, error) {
	caller := auth.FromContext(ctx)
	p := s.limits.Normalize(int(req.GetPage()), int(req.GetLimit()))
	list, total, err := s.svc.ListMine(ctx, caller, p.Offset(), p.Size)
	if err != nil {
		return nil, err
	}
	return &orgsv1.ListMyOrgsResponse{Organizations: s.render.Orgs(list, caller), TotalCount: total}, nil
}

func (s *Server) ListUserOrgs(ctx context.Context, req *orgsv1.ListUserOrgsRequest) (*orgsv1.ListUserOrgsResponse, error) {
	viewer := auth.FromContext(ctx)
	p := s.limits.Normalize(int(req.GetPage()), int(req.GetLimit()))
	list, total, err := s.svc.ListOfUser(ctx, req.GetUsername(), viewer, p.Offset(), p.Size)
	if err != nil {
		return nil, err
	}
	return &orgsv1.ListUserOrgsResponse{Organizations: s.render.Orgs(list, viewer), TotalCount: total}, nil
}

func (s *Server) GetUserOrgPermissions(ctx context.Context, req *orgsv1.GetUserOrgPermissionsRequest) (*orgsv1.GetUserOrgPermissionsResponse, error) {
	p, err := s.svc.UserPermissions(ctx, req.GetUsername(), auth.FromContext(ctx))
	if err != nil {
		return nil, err
	}
	return &orgsv1.GetUserOrgPermissionsResponse{IsOwner: p.IsOwner, IsAdmin: p.IsAdmin, CanWrite: p.CanWrite,
		CanRead: p.CanRead, CanCreateRepository: p.CanCreateRepository}, nil
}

// renderUsers renders a page of users with their follow and star counts.
func (s *base) renderUsers(ctx context.Context, list []store.User, viewer *auth.Principal) ([]*usersv1.User, error) {
	out := make([]*usersv1.User, len(list))
	for i := range list {
		out[i] = s.render.Users.User(&list[i], viewer)
	}
	if err := s.render.Users.FillCounts(ctx, out); err != nil {
		return nil, err
	}
	return out, nil
}

func (s *Server) ListMembers(ctx context.Context, req *orgsv1.ListMembersRequest) (*orgsv1.ListMembersResponse, error) {
	viewer := auth.FromContext(ctx)
	p := s.limits.Normalize(int(req.GetPage()), int(req.GetLimit()))
	list, total, err := s.svc.Members(ctx, viewer, false, p.Offset(), p.Size)
	if err != nil {
		return nil, err
	}
	users, err := s.renderUsers(ctx, list, viewer)
	if err != nil {
		return nil, err
	}
	return &orgsv1.ListMembersResponse{Users: users, TotalCount: total}, nil
}

func (s *Server) IsMember(ctx context.Context, req *orgsv1.IsMemberRequest) (*orgsv1.IsMemberResponse, error) {
	if err := s.svc.IsMember(ctx, req.GetUsername(), auth.FromContext(ctx)); err != nil {
		return nil, err
	}
	return &orgsv1.IsMemberResponse{}, nil
}

func (s *Server) DeleteMember(ctx context.Context, req *orgsv1.DeleteMemberRequest) (*orgsv1.DeleteMemberResponse, error) {
	if err := s.svc.RemoveMember(ctx, req.GetUsername(), auth.FromContext(ctx)); err != nil {
		return nil, err
	}
	return &orgsv1.DeleteMemberResponse{}, nil
}

func (s *Server) ListPublicMembers(ctx context.Context, req *orgsv1.ListPublicMembersRequest) (*orgsv1.ListPublicMembersResponse, error) {
	viewer := auth.FromContext(ctx)
	p := s.limits.Normalize(int(req.GetPage()), int(req.GetLimit()))
	list, total, err := s.svc.Members(ctx, viewer, true, p.Offset(), p.Size)
	if err != nil {
		return nil, err
	}
	users, err := s.renderUsers(ctx, list, viewer)
	if err != nil {
		return nil, err
	}
	return &orgsv1.ListPublicMembersResponse{Users: users, TotalCount: total}, nil
}

func (s *Server) IsPublicMember(ctx context.Context, req *orgsv1.IsPublicMemberRequest) (*orgsv1.IsPublicMemberResponse, error) {
	if err := s.svc.IsPublicMember(ctx, req.GetUsername(), auth.FromContext(ctx)); err != nil {
		return nil, err
	}
	return &orgsv1.IsPublicMemberResponse{}, nil
}

func (s *Server) PublicizeMember(ctx context.Context, req *orgsv1.PublicizeMemberRequest) (*orgsv1.PublicizeMemberResponse, error) {
	if err := s.svc.SetPublic(ctx, true); err != nil {
		return nil, err
	}
	return &orgsv1.PublicizeMemberResponse{}, nil
}

func (s *Server) ConcealMember(ctx context.Context, req *orgsv1.ConcealMemberRequest) (*orgsv1.ConcealMemberResponse, error) {
	if err := s.svc.SetPublic(ctx, false); err != nil {
		return nil, err
	}
	return &orgsv1.ConcealMemberResponse{}, nil
}

func (s *Server) CreateOrgRepo(ctx context.Context, req *orgsv1.CreateOrgRepoRequest) (*orgsv1.CreateOrgRepoResponse, error) {
	caller := auth.FromContext(ctx)
	r, err := s.svc.CreateRepo(ctx, repos.CreateOptionsOf(req.GetRepository()), caller)
	if err != nil {
		return nil, err
	}
	return &orgsv1.CreateOrgRepoResponse{Repository: s.render.Repos.Repository(r, caller)}, nil
}

func (s *base) renderRepos(list []repos.Details, viewer *auth.Principal) []*reposv1.Repository {
	out := make([]*reposv1.Repository, len(list))
	for i := range list {
		out[i] = s.render.Repos.Details(list[i], viewer)
	}
	return out
}

func (s *Server) ListOrgRepos(ctx context.Context, req *orgsv1.ListOrgReposRequest) (*orgsv1.ListOrgReposResponse, error) {
	viewer := auth.FromContext(ctx)
	p := s.limits.Normalize(int(req.GetPage()), int(req.GetLimit()))
	list, total, err := s.svc.Repos(ctx, viewer, p.Offset(), p.Size)
	if err != nil {
		return nil, err
	}
	return &orgsv1.ListOrgReposResponse{Repositories: s.renderRepos(list, viewer), TotalCount: total}, nil
}
