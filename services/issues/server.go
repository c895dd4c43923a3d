package issues

import (
	"context"

	issuesv1 "forge/gen/forge/issues/v1"
	"forge/services/access"
	"forge/services/auth"
	"forge/services/paging"
	"forge/services/store"
	"forge/services/users"
)

// Server implements issuesv1.IssueServiceServer: it decodes a request,
// calls one use case of Service and renders the result. The repository
// was resolved and authorized by the interceptor (access.RepoFrom).
type Server struct {
	issuesv1.UnimplementedIssueServiceServer
	svc  *Service
	view view
}

var _ issuesv1.IssueServiceServer = (*Server)(nil)

// NewServer builds the service; rootURL ends with "/".
func NewServer(s Store, c *access.Checker, u users.Renderer, rootURL string, limits paging.Limits) *Server {
	return &Server{svc: NewService(s, c, limits), view: view{root: rootURL, users: u, store: s}}
}

func ref(r *access.Repo) repoRef { return repoRef{id: r.ID, owner: r.Owner.Name, name: r.Name} }

// one renders a single issue of r.
func (s *Server) one(ctx context.Context, r *access.Repo, is *store.Issue) (*issuesv1.Issue, error) {
	out, err := s.view.issues(ctx, auth.FromContext(ctx), []store.Issue{*is}, func(int64) repoRef { return ref(r) })
	if err != nil {
		return nil, err
	}
	return out[0], nil
}

func (s *Server) ListIssues(ctx context.Context, req *issuesv1.ListIssuesRequest) (*issuesv1.ListIssuesResponse, error) {
	r, err := access.RepoFrom(ctx)
	if err != nil {
		return nil, err
	}
	viewer := auth.FromContext(ctx)
	list, total, err := s.svc.List(ctx, r, viewer, Query{
		State: req.GetState(), Labels: req.GetLabels(), Q: req.GetQ(), Type: req.GetType(),
		Since: req.GetSince(), Before: req.GetBefore(),
		CreatedBy: req.GetCreatedBy(), AssignedBy: req.GetAssignedBy(), MentionedBy: req.GetMentionedBy(),
		Milestones: req.GetMilestones(), Page: int(req.GetPage()), Limit: int(req.GetLimit()),
	})
	if err != nil {
		return nil, err
	}
	out, err := s.view.issues(ctx, viewer, list, func(int64) repoRef { return ref(r) })
	if err != nil {
		return nil, err
	}
	return &issuesv1.ListIssuesResponse{Issues: out, TotalCount: total}, nil
}

func (s *Server) SearchIssues(ctx context.Context, req *issuesv1.SearchIssuesRequest) (*issuesv1.SearchIssuesResponse, error) {
	viewer := auth.FromContext(ctx)
	list, total, err := s.svc.Search(ctx, viewer, Query{
		State: req.GetState(), Labels: req.GetLabels(), Q: req.GetQ(), Type: req.GetType(),
		Since: req.GetSince(), Before: req.GetBefore(), Owner: req.GetOwner(),
		Page: int(req.GetPage()), Limit: int(req.GetLimit()),
	})
	if err != nil {
		return nil, err
	}
	ids := make([]int64, len(list))
	for i := range list {
		ids[i] = list[i].RepoID
	}
	repos, err := s.view.store.RepositoriesByID(ctx, ids)
	if err != nil {
		return nil, err
	}
	out, err := s.view.issues(ctx, viewer, list, func(id int64) repoRef {
		if r := repos[id]; r != nil {
			return repoRef{id: r.ID, owner: r.OwnerName, name: r.Name}
		}
		return repoRef{id: id}
	})
	if err != nil {
		return nil, err
	}
	return &issuesv1.SearchIssuesResponse{Issues: out, TotalCount: total}, nil
}

func (s *Server) GetIssue(ctx context.Context, req *issuesv1.GetIssueRequest) (*issuesv1.GetIssueResponse, error) {
	r, err := access.RepoFrom(ctx)
	if err != nil {
		return nil, err
	}
	is, err := s.svc.Get(ctx, r, req.GetIndex())
	if err != nil {
		return nil, err
	}
	out, err := s.one(ctx, r, is)
	if err != nil {
		return nil, err
	}
	return &issuesv1.GetIssueResponse{Issue: out}, nil
}

func (s *Server) CreateIssue(ctx context.Context, req *issuesv1.CreateIssueRequest) (*issuesv1.CreateIssueResponse, error) {
	r, err := access.RepoFrom(ctx)
	if err != nil {
		return nil, err
	}
	names := req.GetAssignees()
	if a := req.GetAssignee(); a != "" {
		names = append([]string{a}, names...)
	}
	in := NewIssue{
		Title: req.GetTitle(), Body: req.GetBody(), Assignees: names, Closed: req.GetClosed(),
		Labels: req.GetLabels(), Ref: req.GetRef(), Milestone: req.GetMilestone(),
	}
	if req.GetDueDate() != nil {
		in.Due = req.GetDueDate().AsTime()
	}
	n, err := s.svc.Create(ctx, r, auth.FromContext(ctx), in)
	if err != nil {
		return nil, err
	}
	var out *issuesv1.Issue
	if len(n.LabelIDs) == 0 {
		out, err = s.view.created(ctx, auth.FromContext(ctx), &n.Issue, n.AssigneeIDs, ref(r))
	} else {
		out, err = s.one(ctx, r, &n.Issue)
	}
	if err != nil {
		return nil, err
	}
	return &issuesv1.CreateIssueResponse{Issue: out}, nil
}

func (s *Server) EditIssue(ctx context.Context, req *issuesv1.EditIssueRequest) (*issuesv1.EditIssueResponse, error) {
	r, err := access.RepoFrom(ctx)
	if err != nil {
		return nil, err
	}
	ch := IssueChange{Title: req.GetTitle(), Body: req.Body, State: req.State, Ref: req.Ref,
		Milestone: req.Milestone, UnsetDue: req.GetUnsetDueDate()}
	if req.GetDueDate() != nil {
		d := req.GetDueDate().AsTime()
		ch.Due = &d
	}
	if req.Assignee != nil || len(req.GetAssignees()) > 0 {
		ch.ReplaceAssignees = true
		ch.Assignees = req.GetAssignees()
		if a := req.GetAssignee(); a != "" {
			ch.Assignees = append([]string{a}, ch.Assignees...)
		}
	}
	is, err := s.svc.Edit(ctx, r, auth.FromContext(ctx), req.GetIndex(), ch)
	if err != nil {
		return nil, err
	}
	out, err := s.one(ctx, r, is)
	if err != nil {
		return nil, err
	}
	return &issuesv1.EditIssueResponse{Issue: out}, nil
}

func (s *Server) DeleteIssue(ctx context.Context, req *issuesv1.DeleteIssueRequest) (*issuesv1.DeleteIssueResponse, error) {
	r, err := access.RepoFrom(ctx)
	if err != nil {
		return nil, err
	}
	if err := s.svc.Delete(ctx, r, req.GetIndex()); err != nil {
		return nil, err
	}
	return &issuesv1.DeleteIssueResponse{}, nil
}

// comments renders comments of r with their issues.
func (s *Server) comments(ctx context.Context, r *access.Repo, list []store.Comment) ([]*issuesv1.Comment, error) {
	ids := make([]int64, len(list))
	for i := range list {
		ids[i] = list[i].IssueID
	}
	issues, err := s.view.store.IssuesByID(ctx, ids)
	if err != nil {
		return nil, err
	}
	return s.view.comments(ctx, auth.FromContext(ctx), list, ref(r), issues)
}

func (s *Server) oneComment(ctx context.Context, r *access.Repo, c *store.Comment) (*issuesv1.Comment, error) {
	out, err := s.comments(ctx, r, []store.Comment{*c})
	if err != nil {
		return nil, err
	}
	return out[0], nil
}

func (s *Server) ListIssueComments(ctx context.Context, req *issuesv1.ListIssueCommentsRequest) (*issuesv1.ListIssueCommentsResponse, error) {
	r, err := access.RepoFrom(ctx)
	if err != nil {
		return nil, err
	}
	list, total, err := s.svc.ListComments(ctx, r, CommentQuery{Index: req.GetIndex(), Since: req.GetSince(), Before: req.GetBefore()})
	if err != nil {
		return nil, err
	}
	out, err := s.comments(ctx, r, list)
	if err != nil {
		return nil, err
	}
	return &issuesv1.ListIssueCommentsResponse{Comments: out, TotalCount: total}, nil
}

func (s *Server) ListRepoComments(ctx context.Context, req *issuesv1.ListRepoCommentsRequest) (*issuesv1.ListRepoCommentsResponse, error) {
	r, err := access.RepoFrom(ctx)
	if err != nil {
		return nil, err
	}
	list, total, err := s.svc.ListComments(ctx, r, CommentQuery{
		Since: req.GetSince(), Before: req.GetBefore(), Page: int(req.GetPage()), Limit: int(req.GetLimit()),
	})
	if err != nil {
		return nil, err
	}
	out, err := s.comments(ctx, r, list)
	if err != nil {
		return nil, err
	}
	return &issuesv1.ListRepoCommentsResponse{Comments: out, TotalCount: total}, nil
}

func (s *Server) CreateComment(ctx context.Context, req *issuesv1.CreateCommentRequest) (*issuesv1.CreateCommentResponse, error) {
	r, err := access.RepoFrom(ctx)
	if err != nil {
		return nil, err
	}
	on, err := access.ObjectFrom(ctx)
	if err != nil {
		return nil, err
	}
	c, is, err := s.svc.Comment(ctx, r, auth.FromContext(ctx), on.Issue, req.GetBody())
	if err != nil {
		return nil, err
	}
	out, err := s.view.comments(ctx, auth.FromContext(ctx), []store.Comment{*c}, ref(r), map[int64]*store.Issue{is.ID: is})
	if err != nil {
		return nil, err
	}
	return &issuesv1.CreateCommentResponse{Comment: out[0]}, nil
}

func (s *Server) GetComment(ctx context.Context, req *issuesv1.GetCommentRequest) (*issuesv1.GetCommentResponse, error) {
	r, err := access.RepoFrom(ctx)
	if err != nil {
		return nil, err
	}
	c, err := s.svc.GetComment(ctx, r, req.GetId())
	if err != nil {
		return nil, err
	}
	out, err := s.oneComment(ctx, r, c)
	if err != nil {
		return nil, err
	}
	return &issuesv1.GetCommentResponse{Comment: out}, nil
}

func (s *Server) EditComment(ctx context.Context, req *issuesv1.EditCommentRequest) (*issuesv1.EditCommentResponse, error) {
	r, err := access.RepoFrom(ctx)
	if err != nil {
		return nil, err
	}
	c, err := s.svc.EditComment(ctx, r, req.GetId(), req.GetBody())
	if err != nil {
		return nil, err
	}
	out, err := s.oneComment(ctx, r, c)
	if err != nil {
		return nil, err
	}
	return &issuesv1.EditCommentResponse{Comment: out}, nil
}

func (s *Server) DeleteComment(ctx context.Context, req *issuesv1.DeleteCommentRequest) (*issuesv1.DeleteCommentResponse, error) {
	r, err := access.RepoFrom(ctx)
	if err != nil {
		return nil, err
	}
	if err := s.svc.DeleteComment(ctx, r, req.GetId()); err != nil {
		return nil, err
	}
	return &issuesv1.DeleteCommentResponse{}, nil
}
