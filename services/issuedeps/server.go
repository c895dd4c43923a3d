package issuedeps

import (
	"context"

	issuesv1 "forge/gen/forge/issues/v1"
	"forge/services/access"
	"forge/services/auth"
	"forge/services/errs"
	"forge/services/paging"
	"forge/services/store"
)

// Renderer renders issues as Gitea's Issue object, as the issues area
// does (wired in cmd/forge/app), so both areas answer the same JSON.
type Renderer interface {
	// Issues renders list; repoOf names each issue's repository (owner
	// login and name).
	Issues(ctx context.Context, viewer *auth.Principal, list []store.Issue, repoOf func(repoID int64) (owner, name string)) ([]*issuesv1.Issue, error)
}

// Server implements issuesv1.DependencyServiceServer: it decodes, calls
// the use cases and renders.
type Server struct {
	issuesv1.UnimplementedDependencyServiceServer
	svc    *Service
	store  Store
	render Renderer
	limits paging.Limits
}

var _ issuesv1.DependencyServiceServer = (*Server)(nil)

// NewServer returns the dependency service.
func NewServer(svc *Service, s Store, r Renderer, limits paging.Limits) *Server {
	return &Server{svc: svc, store: s, render: r, limits: limits}
}

type listRequest interface {
	GetIndex() int64
	GetPage() int32
	GetLimit() int32
}

func (s *Server) list(ctx context.Context, rel Relation, req listRequest) ([]*issuesv1.Issue, error) {
	from, err := access.RepoFrom(ctx)
	if err != nil {
		return nil, err
	}
	viewer := auth.FromContext(ctx)
	page := s.limits.Normalize(int(req.GetPage()), int(req.GetLimit()))
	list, err := s.svc.List(ctx, rel, from, req.GetIndex(), page, viewer)
	if err != nil {
		return nil, err
	}
	return s.renderList(ctx, viewer, from, list)
}

// renderList renders issues of possibly several repositories.
func (s *Server) renderList(ctx context.Context, viewer *auth.Principal, from *access.Repo, list []store.Issue) ([]*issuesv1.Issue, error) {
	type ref struct{ owner, name string }
	refs := map[int64]ref{from.ID: {from.Owner.Name, from.Name}}
	var others []int64
	for i := range list {
		if _, ok := refs[list[i].RepoID]; !ok {
			others = append(others, list[i].RepoID)
		}
	}
	// One query for the page's other repositories; one deleted meanwhile
	// is absent, and its issues are rendered without names.
	repos, err := s.store.RepositoriesByID(ctx, others)
	if err != nil {
		return nil, errs.Wrap(err, "load repositories")
	}
	for id, r := range repos {
		refs[id] = ref{r.OwnerName, r.Name}
	}
	return s.render.Issues(ctx, viewer, list, func(id int64) (string, string) { return refs[id].owner, refs[id].name })
}

type linkRequest interface {
	GetIndex() int64
	GetMeta() *issuesv1.IssueMeta
}

func (s *Server) link(ctx context.Context, rel Relation, add bool, req linkRequest) (*issuesv1.Issue, error) {
	from, err := access.RepoFrom(ctx)
	if err != nil {
		return nil, err
	}
	viewer := auth.FromContext(ctx)
	on, err := access.ObjectFrom(ctx)
	if err != nil {
		return nil, err
	}
	is, err := s.svc.Link(ctx, rel, add, on)
	if err != nil {
		return nil, err
	}
	out, err := s.renderList(ctx, viewer, from, []store.Issue{*is})
	if err != nil {
		return nil, err
	}
	return out[0], nil
}

func (s *Server) ListIssueDependencies(ctx context.Context, req *issuesv1.ListIssueDependenciesRequest) (*issuesv1.ListIssueDependenciesResponse, error) {
	list, err := s.list(ctx, DependsOn, req)
	if err != nil {
		return nil, err
	}
	return &issuesv1.ListIssueDependenciesResponse{Issues: list}, nil
}

func (s *Server) ListIssueBlocks(ctx context.Context, req *issuesv1.ListIssueBlocksRequest) (*issuesv1.ListIssueBlocksResponse, error) {
	list, err := s.list(ctx, Blocks, req)
	if err != nil {
		return nil, err
	}
	return &issuesv1.ListIssueBlocksResponse{Issues: list}, nil
}

func (s *Server) CreateIssueDependency(ctx context.Context, req *issuesv1.CreateIssueDependencyRequest) (*issuesv1.CreateIssueDependencyResponse, error) {
	is, err := s.link(ctx, DependsOn, true, req)
	if err != nil {
		return nil, err
	}
	return &issuesv1.CreateIssueDependencyResponse{Issue: is}, nil
}

func (s *Server) RemoveIssueDependency(ctx context.Context, req *issuesv1.RemoveIssueDependencyRequest) (*issuesv1.RemoveIssueDependencyResponse, error) {
	is, err := s.link(ctx, DependsOn, false, req)
	if err != nil {
		return nil, err
	}
	return &issuesv1.RemoveIssueDependencyResponse{Issue: is}, nil
}

func (s *Server) CreateIssueBlocking(ctx context.Context, req *issuesv1.CreateIssueBlockingRequest) (*issuesv1.CreateIssueBlockingResponse, error) {
	is, err := s.link(ctx, Blocks, true, req)
	if err != nil {
		return nil, err
	}
	return &issuesv1.CreateIssueBlockingResponse{Issue: is}, nil
}

func (s *Server) RemoveIssueBlocking(ctx context.Context, req *issuesv1.RemoveIssueBlockingRequest) (*issuesv1.RemoveIssueBlockingResponse, error) {
	is, err := s.link(ctx, Blocks, false, req)
	if err != nil {
		return nil, err
	}
	return &issuesv1.RemoveIssueBlockingResponse{Issue: is}, nil
}
