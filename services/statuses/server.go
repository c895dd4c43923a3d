package statuses

import (
	"context"
	"net/url"
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"

	statusesv1 "forge/gen/forge/statuses/v1"
	"forge/services/access"
	"forge/services/auth"
	"forge/services/paging"
	"forge/services/repos"
	"forge/services/store"
)

// Server implements statusesv1.CommitStatusServiceServer: it decodes
// requests, calls the use cases (Service) and renders statuses. The
// repository comes resolved and authorized from the interceptor
// (access.RepoFrom).
type Server struct {
	statusesv1.UnimplementedCommitStatusServiceServer
	svc    *Service
	store  Store
	render repos.Renderer
	limits paging.Limits
	// created are told the repository of each status created.
	created []func(ctx context.Context, repoID int64)
}

// OnCreated adds f to what is told the repository of each commit status
// created (a scheduled merge may wait for it).
func (s *Server) OnCreated(f func(ctx context.Context, repoID int64)) *Server {
	s.created = append(s.created, f)
	return s
}

var _ statusesv1.CommitStatusServiceServer = (*Server)(nil)

// NewServer builds the service; render's RootURL ends with "/".
func NewServer(st Store, g Git, render repos.Renderer, limits paging.Limits) *Server {
	return &Server{svc: NewService(st, g), store: st, render: render, limits: limits}
}

// ghost stands in for a creator whose account is gone or hidden from the
// caller, as in Gitea.
var ghost = &store.User{ID: -1, Name: "Ghost", LowerName: "ghost"}

func (s *Server) CreateCommitStatus(ctx context.Context, req *statusesv1.CreateCommitStatusRequest) (*statusesv1.CreateCommitStatusResponse, error) {
	r, err := access.RepoFrom(ctx)
	if err != nil {
		return nil, err
	}
	caller := auth.FromContext(ctx)
	st, err := s.svc.Create(ctx, r, req.GetSha(), NewStatus{
		State: req.GetState(), TargetURL: req.GetTargetUrl(), Description: req.GetDescription(),
		Context: req.GetContext(), CreatorID: caller.ID(),
	})
	if err != nil {
		return nil, err
	}
	for _, f := range s.created {
		f(ctx, r.ID)
	}
	out, err := s.statuses(ctx, r, []store.CommitStatus{*st})
	if err != nil {
		return nil, err
	}
	return &statusesv1.CreateCommitStatusResponse{Status: out[0]}, nil
}

func (s *Server) ListCommitStatuses(ctx context.Context, req *statusesv1.ListCommitStatusesRequest) (*statusesv1.ListCommitStatusesResponse, error) {
	list, total, err := s.list(ctx, req.GetSha(), req.GetSort(), req.GetState(), req.GetPage(), req.GetLimit())
	if err != nil {
		return nil, err
	}
	return &statusesv1.ListCommitStatusesResponse{Statuses: list, TotalCount: total}, nil
}

func (s *Server) ListCommitStatusesByRef(ctx context.Context, req *statusesv1.ListCommitStatusesByRefRequest) (*statusesv1.ListCommitStatusesByRefResponse, error) {
	list, total, err := s.list(ctx, req.GetRef(), req.GetSort(), req.GetState(), req.GetPage(), req.GetLimit())
	if err != nil {
		return nil, err
	}
	return &statusesv1.ListCommitStatusesByRefResponse{Statuses: list, TotalCount: total}, nil
}

// list is a page of the statuses of the commit ref names.
func (s *Server) list(ctx context.Context, ref, sort, state string, page, limit int32) ([]*statusesv1.CommitStatus, int64, error) {
	r, err := access.RepoFrom(ctx)
	if err != nil {
		return nil, 0, err
	}
	sha, err := s.svc.Commit(ctx, r, ref)
	if err != nil {
		return nil, 0, err
	}
	p := s.limits.Normalize(int(page), int(limit))
	found, total, err := s.svc.List(ctx, store.CommitStatusListOptions{
		RepoID: r.ID, SHA: sha, State: state, Sort: sort, Offset: p.Offset(), Limit: p.Size,
	})
	if err != nil {
		return nil, 0, err
	}
	out, err := s.statuses(ctx, r, found)
	return out, total, err
}

func (s *Server) GetCombinedStatus(ctx context.Context, req *statusesv1.GetCombinedStatusRequest) (*statusesv1.GetCombinedStatusResponse, error) {
	r, err := access.RepoFrom(ctx)
	if err != nil {
		return nil, err
	}
	sha, err := s.svc.Commit(ctx, r, req.GetRef())
	if err != nil {
		return nil, err
	}
	p := s.limits.Normalize(int(req.GetPage()), int(req.GetLimit()))
	c, err := s.svc.Combine(ctx, r, sha, p.Offset(), p.Size)
	if err != nil {
		return nil, err
	}
	list, err := s.statuses(ctx, r, c.Latest)
	if err != nil {
		return nil, err
	}
	api := s.repoAPI(r)
	return &statusesv1.GetCombinedStatusResponse{TotalCount: c.Contexts, Combined: &statusesv1.CombinedStatus{
		State: c.State, Sha: sha, TotalCount: int64(len(list)), Statuses: list,
		Repository: s.render.Repository(r, auth.FromContext(ctx)),
		CommitUrl:  api + "/git/commits/" + url.PathEscape(sha),
		Url:        api + "/commits/" + url.PathEscape(sha) + "/status",
	}}, nil
}

// repoAPI is the repository's API URL.
func (s *Server) repoAPI(r *access.Repo) string {
	return s.render.RootURL + "api/v1/repos/" + url.PathEscape(r.Owner.Name) + "/" + url.PathEscape(r.Name)
}

// statuses renders a page of statuses, loading their creators at once.
func (s *Server) statuses(ctx context.Context, r *access.Repo, list []store.CommitStatus) ([]*statusesv1.CommitStatus, error) {
	viewer := auth.FromContext(ctx)
	ids := make([]int64, len(list))
	for i := range list {
		ids[i] = list[i].CreatorID
	}
	creators, err := s.store.UsersByID(ctx, ids)
	if err != nil {
		return nil, err
	}
	if err := access.DropHidden(ctx, s.store, viewer, creators); err != nil {
		return nil, err
	}
	api := s.repoAPI(r)
	out := make([]*statusesv1.CommitStatus, len(list))
	for i := range list {
		st := &list[i]
		creator := creators[st.CreatorID]
		if creator == nil {
			creator = ghost
		}
		created := timestamppb.New(timeOf(st.CreatedUnix))
		out[i] = &statusesv1.CommitStatus{
			Id: st.Index, Status: st.State, TargetUrl: st.TargetURL, Description: st.Description,
			Url: api + "/statuses/" + url.PathEscape(st.SHA), Context: st.Context,
			Creator: s.render.Users.User(creator, viewer), CreatedAt: created, UpdatedAt: created,
		}
	}
	return out, nil
}

func timeOf(unix int64) time.Time { return time.Unix(unix, 0) }
