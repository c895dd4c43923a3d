package repos

import (
	"context"
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"

	reposv1 "forge/gen/forge/repos/v1"
	usersv1 "forge/gen/forge/users/v1"
	"forge/services/access"
	"forge/services/auth"
	"forge/services/paging"
	"forge/services/store"
)

// Server implements reposv1.RepositoryServiceServer: a thin adapter that
// decodes each request, calls one use case of Service and renders the
// result. The rules live in Service (create.go, edit.go, delete.go,
// list.go, collaborators.go, details.go); the repository a method acts on
// was resolved and checked by the interceptor (access.RepoFrom).
type Server struct {
	reposv1.UnimplementedRepositoryServiceServer
	repos  *Service
	render Renderer
	limits paging.Limits
}

var _ reposv1.RepositoryServiceServer = (*Server)(nil)

func NewServer(svc *Service, r Renderer, limits paging.Limits) *Server {
	return &Server{repos: svc, render: r, limits: limits}
}

func (s *Server) CreateCurrentUserRepo(ctx context.Context, req *reposv1.CreateCurrentUserRepoRequest) (*reposv1.CreateCurrentUserRepoResponse, error) {
	caller := auth.FromContext(ctx)
	r, err := s.repos.CreateOwn(ctx, caller, CreateOptions{
		Name: req.GetName(), Description: req.GetDescription(), Private: req.GetPrivate(), AutoInit: req.GetAutoInit(),
		Template: req.GetTemplate(), Readme: req.GetReadme(), Gitignores: req.GetGitignores(), License: req.GetLicense(),
		IssueLabels: req.GetIssueLabels(), DefaultBranch: req.GetDefaultBranch(), ObjectFormatName: req.GetObjectFormatName(),
	})
	if err != nil {
		return nil, err
	}
	return &reposv1.CreateCurrentUserRepoResponse{Repository: s.render.Repository(r, caller)}, nil
}

func (s *Server) AdminCreateRepo(ctx context.Context, req *reposv1.AdminCreateRepoRequest) (*reposv1.AdminCreateRepoResponse, error) {
	caller := auth.FromContext(ctx)
	r, err := s.repos.CreateFor(ctx, req.GetUsername(), createOptions(req.GetRepository()), caller)
	if err != nil {
		return nil, err
	}
	return &reposv1.AdminCreateRepoResponse{Repository: s.render.Repository(r, caller)}, nil
}

func (s *Server) GenerateRepo(ctx context.Context, req *reposv1.GenerateRepoRequest) (*reposv1.GenerateRepoResponse, error) {
	caller := auth.FromContext(ctx)
	tmpl, err := access.RepoFrom(ctx)
	if err != nil {
		return nil, err
	}
	owner, err := access.ObjectFrom(ctx)
	if err != nil {
		return nil, err
	}
	g := req.GetGenerate()
	r, err := s.repos.Generate(ctx, tmpl, owner.User, GenerateOptions{
		Name: g.GetName(), Description: g.GetDescription(), DefaultBranch: g.GetDefaultBranch(), Private: g.GetPrivate(),
		GitContent: g.GetGitContent(), Topics: g.GetTopics(), Labels: g.GetLabels(), GitHooks: g.GetGitHooks(),
		Avatar: g.GetAvatar(), Webhooks: g.GetWebhooks(), ProtectedBranch: g.GetProtectedBranch(),
		Links: s.render.Links,
	}, caller)
	if err != nil {
		return nil, err
	}
	return &reposv1.GenerateRepoResponse{Repository: s.render.Repository(r, caller)}, nil
}

// createOptions decodes Gitea's CreateRepoOption.
func createOptions(opt *reposv1.CreateRepoOption) CreateOptions {
	return CreateOptionsOf(opt)
}

// CreateOptionsOf decodes Gitea's CreateRepoOption (for the orgs area's
// POST /orgs/{org}/repos too).
func CreateOptionsOf(opt *reposv1.CreateRepoOption) CreateOptions {
	return CreateOptions{
		Name: opt.GetName(), Description: opt.GetDescription(), Private: opt.GetPrivate(), AutoInit: opt.GetAutoInit(),
		Template: opt.GetTemplate(), Readme: opt.GetReadme(), Gitignores: opt.GetGitignores(), License: opt.GetLicense(),
		IssueLabels: opt.GetIssueLabels(), DefaultBranch: opt.GetDefaultBranch(), ObjectFormatName: opt.GetObjectFormatName(),
	}
}

// present reads r's details and renders them for viewer.
func (s *Server) present(ctx context.Context, r *access.Repo, viewer *auth.Principal) (*reposv1.Repository, error) {
	d, err := s.repos.Details(ctx, r, viewer)
	if err != nil {
		return nil, err
	}
	return s.render.Details(d, viewer), nil
}

func (s *Server) GetRepo(ctx context.Context, req *reposv1.GetRepoRequest) (*reposv1.GetRepoResponse, error) {
	r, err := access.RepoFrom(ctx)
	if err != nil {
		return nil, err
	}
	out, err := s.present(ctx, r, auth.FromContext(ctx))
	if err != nil {
		return nil, err
	}
	return &reposv1.GetRepoResponse{Repository: out}, nil
}

func (s *Server) GetRepoByID(ctx context.Context, req *reposv1.GetRepoByIDRequest) (*reposv1.GetRepoByIDResponse, error) {
	r, err := access.RepoFrom(ctx)
	if err != nil {
		return nil, err
	}
	out, err := s.present(ctx, r, auth.FromContext(ctx))
	if err != nil {
		return nil, err
	}
	return &reposv1.GetRepoByIDResponse{Repository: out}, nil
}

func (s *Server) EditRepo(ctx context.Context, req *reposv1.EditRepoRequest) (*reposv1.EditRepoResponse, error) {
	r, err := access.RepoFrom(ctx)
	if err != nil {
		return nil, err
	}
	updated, err := s.repos.Edit(ctx, r, edit(req))
	if err != nil {
		return nil, err
	}
	out, err := s.present(ctx, updated, auth.FromContext(ctx))
	if err != nil {
		return nil, err
	}
	return &reposv1.EditRepoResponse{Repository: out}, nil
}

// edit decodes Gitea's EditRepoOption: absent fields stay nil.
func edit(req *reposv1.EditRepoRequest) Edit {
	return Edit{
		Name: req.Name, Description: req.Description, Website: req.Website,
		DefaultBranch: req.DefaultBranch, DefaultMergeStyle: req.DefaultMergeStyle,
		MirrorInterval: req.MirrorInterval, Archived: req.Archived,
		Private: req.Private, Template: req.Template, HasIssues: req.HasIssues, HasWiki: req.HasWiki,
		HasPullRequests: req.HasPullRequests, HasProjects: req.HasProjects, HasReleases: req.HasReleases,
		HasPackages: req.HasPackages, HasActions: req.HasActions, IgnoreWhitespaceConflicts: req.IgnoreWhitespaceConflicts,
		AllowMergeCommits: req.AllowMergeCommits, AllowRebase: req.AllowRebase, AllowRebaseExplicit: req.AllowRebaseExplicit,
		AllowSquashMerge: req.AllowSquashMerge, AllowFastForwardOnlyMerge: req.AllowFastForwardOnlyMerge,
		AllowRebaseUpdate: req.AllowRebaseUpdate, DefaultDeleteBranchAfterMerge: req.DefaultDeleteBranchAfterMerge,
		DefaultAllowMaintainerEdit: req.DefaultAllowMaintainerEdit, AllowManualMerge: req.AllowManualMerge,
	}
}

func (s *Server) DeleteRepo(ctx context.Context, req *reposv1.DeleteRepoRequest) (*reposv1.DeleteRepoResponse, error) {
	r, err := access.RepoFrom(ctx)
	if err != nil {
		return nil, err
	}
	if err := s.repos.Delete(ctx, r); err != nil {
		return nil, err
	}
	return &reposv1.DeleteRepoResponse{}, nil
}

// renderAll renders a page of repositories for viewer.
func (s *Server) renderAll(list []Details, viewer *auth.Principal) []*reposv1.Repository {
	out := make([]*reposv1.Repository, len(list))
	for i := range list {
		out[i] = s.render.Details(list[i], viewer)
	}
	return out
}

func (s *Server) ListUserRepos(ctx context.Context, req *reposv1.ListUserReposRequest) (*reposv1.ListUserReposResponse, error) {
	viewer := auth.FromContext(ctx)
	page := s.limits.Normalize(int(req.GetPage()), int(req.GetLimit()))
	list, total, err := s.repos.ListUser(ctx, req.GetUsername(), viewer, page.Offset(), page.Size)
	if err != nil {
		return nil, err
	}
	return &reposv1.ListUserReposResponse{Repositories: s.renderAll(list, viewer), TotalCount: total}, nil
}

func (s *Server) ListMyRepos(ctx context.Context, req *reposv1.ListMyReposRequest) (*reposv1.ListMyReposResponse, error) {
	viewer := auth.FromContext(ctx)
	page := s.limits.Normalize(int(req.GetPage()), int(req.GetLimit()))
	list, total, err := s.repos.List(ctx, store.RepoListOptions{OnlyAccessible: true, Offset: page.Offset(), Limit: page.Size}, viewer)
	if err != nil {
		return nil, err
	}
	return &reposv1.ListMyReposResponse{Repositories: s.renderAll(list, viewer), TotalCount: total}, nil
}

func (s *Server) SearchRepos(ctx context.Context, req *reposv1.SearchReposRequest) (*reposv1.SearchReposResponse, error) {
	viewer := auth.FromContext(ctx)
	page := s.limits.Normalize(int(req.GetPage()), int(req.GetLimit()))
	list, total, err := s.repos.List(ctx, store.RepoListOptions{OwnerID: req.GetUid(), Keyword: req.GetQ(), TopicOnly: req.GetTopic(),
		Offset: page.Offset(), Limit: page.Size}, viewer)
	if err != nil {
		return nil, err
	}
	return &reposv1.SearchReposResponse{Ok: true, Data: s.renderAll(list, viewer), TotalCount: total}, nil
}

func (s *Server) ListCollaborators(ctx context.Context, req *reposv1.ListCollaboratorsRequest) (*reposv1.ListCollaboratorsResponse, error) {
	viewer := auth.FromContext(ctx)
	r, err := access.RepoFrom(ctx)
	if err != nil {
		return nil, err
	}
	page := s.limits.Normalize(int(req.GetPage()), int(req.GetLimit()))
	list, total, err := s.repos.Collaborators(ctx, r, viewer, page.Offset(), page.Size)
	if err != nil {
		return nil, err
	}
	out := &reposv1.ListCollaboratorsResponse{Users: make([]*usersv1.User, len(list)), TotalCount: total}
	for i := range list {
		out.Users[i] = s.render.Users.User(&list[i].User, viewer)
	}
	if err := s.render.Users.FillCounts(ctx, out.Users); err != nil {
		return nil, err
	}
	return out, nil
}

func (s *Server) CheckCollaborator(ctx context.Context, req *reposv1.CheckCollaboratorRequest) (*reposv1.CheckCollaboratorResponse, error) {
	r, err := access.RepoFrom(ctx)
	if err != nil {
		return nil, err
	}
	if err := s.repos.CheckCollaborator(ctx, r, req.GetCollaborator(), auth.FromContext(ctx)); err != nil {
		return nil, err
	}
	return &reposv1.CheckCollaboratorResponse{}, nil
}

func (s *Server) AddCollaborator(ctx context.Context, req *reposv1.AddCollaboratorRequest) (*reposv1.AddCollaboratorResponse, error) {
	r, err := access.RepoFrom(ctx)
	if err != nil {
		return nil, err
	}
	if err := s.repos.AddCollaborator(ctx, r, req.GetCollaborator(), req.GetPermission(), auth.FromContext(ctx)); err != nil {
		return nil, err
	}
	return &reposv1.AddCollaboratorResponse{}, nil
}

func (s *Server) DeleteCollaborator(ctx context.Context, req *reposv1.DeleteCollaboratorRequest) (*reposv1.DeleteCollaboratorResponse, error) {
	r, err := access.RepoFrom(ctx)
	if err != nil {
		return nil, err
	}
	if err := s.repos.DeleteCollaborator(ctx, r, req.GetCollaborator(), auth.FromContext(ctx)); err != nil {
		return nil, err
	}
	return &reposv1.DeleteCollaboratorResponse{}, nil
}

func (s *Server) GetCollaboratorPermission(ctx context.Context, req *reposv1.GetCollaboratorPermissionRequest) (*reposv1.GetCollaboratorPermissionResponse, error) {
	viewer := auth.FromContext(ctx)
	r, err := access.RepoFrom(ctx)
	if err != nil {
		return nil, err
	}
	on, err := access.ObjectFrom(ctx)
	if err != nil {
		return nil, err
	}
	u := on.User
	mode, err := s.repos.CollaboratorPermission(ctx, r, u)
	if err != nil {
		return nil, err
	}
	return &reposv1.GetCollaboratorPermissionResponse{
		Permission: mode.String(),
		RoleName:   mode.String(),
		User:       s.render.Users.User(u, viewer),
	}, nil
}

func (s *Server) ListRepoTopics(ctx context.Context, req *reposv1.ListRepoTopicsRequest) (*reposv1.ListRepoTopicsResponse, error) {
	r, err := access.RepoFrom(ctx)
	if err != nil {
		return nil, err
	}
	page := s.limits.Normalize(int(req.GetPage()), int(req.GetLimit()))
	names, total := s.repos.Topics(r, page.Offset(), page.Size)
	return &reposv1.ListRepoTopicsResponse{Topics: names, TotalCount: total}, nil
}

func (s *Server) SetRepoTopics(ctx context.Context, req *reposv1.SetRepoTopicsRequest) (*reposv1.SetRepoTopicsResponse, error) {
	r, err := access.RepoFrom(ctx)
	if err != nil {
		return nil, err
	}
	if err := s.repos.SetTopics(ctx, r, req.GetTopics()); err != nil {
		return nil, err
	}
	return &reposv1.SetRepoTopicsResponse{}, nil
}

func (s *Server) AddRepoTopic(ctx context.Context, req *reposv1.AddRepoTopicRequest) (*reposv1.AddRepoTopicResponse, error) {
	r, err := access.RepoFrom(ctx)
	if err != nil {
		return nil, err
	}
	if err := s.repos.AddTopic(ctx, r, req.GetTopic()); err != nil {
		return nil, err
	}
	return &reposv1.AddRepoTopicResponse{}, nil
}

func (s *Server) DeleteRepoTopic(ctx context.Context, req *reposv1.DeleteRepoTopicRequest) (*reposv1.DeleteRepoTopicResponse, error) {
	r, err := access.RepoFrom(ctx)
	if err != nil {
		return nil, err
	}
	if err := s.repos.DeleteTopic(ctx, r, req.GetTopic()); err != nil {
		return nil, err
	}
	return &reposv1.DeleteRepoTopicResponse{}, nil
}

func (s *Server) SearchTopics(ctx context.Context, req *reposv1.SearchTopicsRequest) (*reposv1.SearchTopicsResponse, error) {
	page := s.limits.Normalize(int(req.GetPage()), int(req.GetLimit()))
	found, total, err := s.repos.SearchTopics(ctx, req.GetQ(), page.Offset(), page.Size)
	if err != nil {
		return nil, err
	}
	out := &reposv1.SearchTopicsResponse{Topics: make([]*reposv1.Topic, len(found)), TotalCount: total}
	for i, t := range found {
		out.Topics[i] = &reposv1.Topic{
			Id: t.ID, TopicName: t.Name, RepoCount: t.RepoCount,
			Created: timestamppb.New(time.Unix(t.CreatedUnix, 0)), Updated: timestamppb.New(time.Unix(t.UpdatedUnix, 0)),
		}
	}
	return out, nil
}

func (s *Server) CreateFork(ctx context.Context, req *reposv1.CreateForkRequest) (*reposv1.CreateForkResponse, error) {
	caller := auth.FromContext(ctx)
	src, err := access.RepoFrom(ctx)
	if err != nil {
		return nil, err
	}
	target, err := access.ObjectFrom(ctx)
	if err != nil {
		return nil, err
	}
	d, err := s.repos.Fork(ctx, src, target.User, req.GetName(), caller)
	if err != nil {
		return nil, err
	}
	return &reposv1.CreateForkResponse{Repository: s.render.Details(d, caller)}, nil
}

func (s *Server) ListForks(ctx context.Context, req *reposv1.ListForksRequest) (*reposv1.ListForksResponse, error) {
	viewer := auth.FromContext(ctx)
	src, err := access.RepoFrom(ctx)
	if err != nil {
		return nil, err
	}
	page := s.limits.Normalize(int(req.GetPage()), int(req.GetLimit()))
	list, total, err := s.repos.Forks(ctx, src, viewer, page.Offset(), page.Size)
	if err != nil {
		return nil, err
	}
	return &reposv1.ListForksResponse{Repositories: s.renderAll(list, viewer), TotalCount: total}, nil
}

func (s *Server) TransferRepo(ctx context.Context, req *reposv1.TransferRepoRequest) (*reposv1.TransferRepoResponse, error) {
	caller := auth.FromContext(ctx)
	r, err := access.RepoFrom(ctx)
	if err != nil {
		return nil, err
	}
	target, err := access.ObjectFrom(ctx)
	if err != nil {
		return nil, err
	}
	d, pending, err := s.repos.Transfer(ctx, r, target, caller)
	if err != nil {
		return nil, err
	}
	return &reposv1.TransferRepoResponse{Repository: s.render.Details(d, caller), Pending: pending}, nil
}

func (s *Server) AcceptRepoTransfer(ctx context.Context, req *reposv1.AcceptRepoTransferRequest) (*reposv1.AcceptRepoTransferResponse, error) {
	caller := auth.FromContext(ctx)
	obj, err := access.ObjectFrom(ctx)
	if err != nil {
		return nil, err
	}
	d, err := s.repos.AcceptTransfer(ctx, obj, caller)
	if err != nil {
		return nil, err
	}
	return &reposv1.AcceptRepoTransferResponse{Repository: s.render.Details(d, caller)}, nil
}

func (s *Server) RejectRepoTransfer(ctx context.Context, req *reposv1.RejectRepoTransferRequest) (*reposv1.RejectRepoTransferResponse, error) {
	caller := auth.FromContext(ctx)
	obj, err := access.ObjectFrom(ctx)
	if err != nil {
		return nil, err
	}
	d, err := s.repos.RejectTransfer(ctx, obj, caller)
	if err != nil {
		return nil, err
	}
	return &reposv1.RejectRepoTransferResponse{Repository: s.render.Details(d, caller)}, nil
}
