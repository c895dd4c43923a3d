package pulls

import (
	"context"
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"

	commitsv1 "forge/gen/forge/commits/v1"
	pullsv1 "forge/gen/forge/pulls/v1"
	"forge/services/access"
	"forge/services/auth"
	"forge/services/code"
	"forge/services/issues"
	"forge/services/paging"
	"forge/services/repos"
	"forge/services/store"
	"forge/services/users"
)

// Server implements pullsv1.PullServiceServer: it decodes a request,
// calls one use case of Service and renders the result.
type Server struct {
	pullsv1.UnimplementedPullServiceServer
	svc     *Service
	view    view
	history History
}

var _ pullsv1.PullServiceServer = (*Server)(nil)

// Options is what the server is built from.
type Options struct {
	Store   Store
	Git     Git
	Access  *access.Checker
	Users   users.Renderer
	Repos   repos.Renderer
	Labels  issues.Renderer
	RootURL string // ends with "/"
	Limits  paging.Limits
	// History renders the pull request's commits as the repository's
	// commit list does (code.CommitServer).
	History History
}

// History renders pages of the history of the request's repository.
type History interface {
	History(ctx context.Context, q code.HistoryQuery) (*commitsv1.ListCommitsResponse, error)
}

// NewServer builds the service.
func NewServer(o Options) *Server {
	return &Server{
		svc: NewService(o.Store, o.Git, o.Access, o.Limits),
		view: view{root: o.RootURL, users: o.Users, repos: o.Repos, labels: o.Labels,
			store: o.Store, git: o.Git, modes: o.Access},
		history: o.History,
	}
}

// one renders a single pull request of r.
func (s *Server) one(ctx context.Context, r *access.Repo, is *store.Issue) (*pullsv1.PullRequest, error) {
	out, err := s.view.page(ctx, auth.FromContext(ctx), r, []store.Issue{*is})
	if err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, errPullNotFound
	}
	return out[0], nil
}

func (s *Server) ListPullRequests(ctx context.Context, req *pullsv1.ListPullRequestsRequest) (*pullsv1.ListPullRequestsResponse, error) {
	r, err := access.RepoFrom(ctx)
	if err != nil {
		return nil, err
	}
	list, total, err := s.svc.List(ctx, r, Query{
		State: req.GetState(), Sort: req.GetSort(), Milestone: req.GetMilestone(), Labels: req.GetLabels(),
		Page: int(req.GetPage()), Limit: int(req.GetLimit()),
	})
	if err != nil {
		return nil, err
	}
	out, err := s.view.page(ctx, auth.FromContext(ctx), r, list)
	if err != nil {
		return nil, err
	}
	return &pullsv1.ListPullRequestsResponse{PullRequests: out, TotalCount: total}, nil
}

// ListPinnedPullRequests lists the repository's pinned pull requests in
// pin order.
func (s *Server) ListPinnedPullRequests(ctx context.Context, req *pullsv1.ListPinnedPullRequestsRequest) (*pullsv1.ListPinnedPullRequestsResponse, error) {
	r, err := access.RepoFrom(ctx)
	if err != nil {
		return nil, err
	}
	list, err := s.svc.store.PinnedIssues(ctx, r.ID, true)
	if err != nil {
		return nil, err
	}
	out, err := s.view.page(ctx, auth.FromContext(ctx), r, list)
	if err != nil {
		return nil, err
	}
	return &pullsv1.ListPinnedPullRequestsResponse{PullRequests: out}, nil
}

func (s *Server) GetPullRequest(ctx context.Context, req *pullsv1.GetPullRequestRequest) (*pullsv1.GetPullRequestResponse, error) {
	r, err := access.RepoFrom(ctx)
	if err != nil {
		return nil, err
	}
	_, is, err := s.svc.Get(ctx, r, req.GetIndex())
	if err != nil {
		return nil, err
	}
	out, err := s.one(ctx, r, is)
	if err != nil {
		return nil, err
	}
	return &pullsv1.GetPullRequestResponse{PullRequest: out}, nil
}

func (s *Server) CreatePullRequest(ctx context.Context, req *pullsv1.CreatePullRequestRequest) (*pullsv1.CreatePullRequestResponse, error) {
	r, err := access.RepoFrom(ctx)
	if err != nil {
		return nil, err
	}
	head, err := access.ObjectFrom(ctx)
	if err != nil {
		return nil, err
	}
	names := req.GetAssignees()
	if a := req.GetAssignee(); a != "" {
		names = append([]string{a}, names...)
	}
	n, err := s.svc.Create(ctx, r, head.Repo, auth.FromContext(ctx), NewPull{
		Head: req.GetHead(), Base: req.GetBase(), Title: req.GetTitle(), Body: req.GetBody(),
		Assignees: names, Labels: req.GetLabels(), Milestone: req.GetMilestone(), Due: dueOf(req.GetDueDate()),
	})
	if err != nil {
		return nil, err
	}
	out, err := s.one(ctx, r, &n.Issue)
	if err != nil {
		return nil, err
	}
	return &pullsv1.CreatePullRequestResponse{PullRequest: out}, nil
}

// ListPullRequestCommits pages the commits of the head not reachable from
// the merge base, with their stats always (Gitea 1.22 has no stat toggle
// here).
func (s *Server) ListPullRequestCommits(ctx context.Context, req *pullsv1.ListPullRequestCommitsRequest) (*pullsv1.ListPullRequestCommitsResponse, error) {
	r, err := access.RepoFrom(ctx)
	if err != nil {
		return nil, err
	}
	pr, _, err := s.svc.Get(ctx, r, req.GetIndex())
	if err != nil {
		return nil, err
	}
	page, err := s.history.History(ctx, code.HistoryQuery{
		Ref: pr.HeadSHA, Not: []string{pr.MergeBase}, Page: int(req.GetPage()), Limit: int(req.GetLimit()),
		Options: code.CommitOptions{Stat: true, Verification: req.Verification == nil || *req.Verification,
			Files: req.Files == nil || *req.Files},
	})
	if err != nil {
		return nil, err
	}
	return &pullsv1.ListPullRequestCommitsResponse{Commits: page.Commits, TotalCount: page.TotalCount}, nil
}

// dueOf is a request's due date (zero: none).
func dueOf(ts *timestamppb.Timestamp) time.Time {
	if ts == nil {
		return time.Time{}
	}
	return ts.AsTime()
}
