package reviews

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"

	reviewsv1 "forge/gen/forge/reviews/v1"
	usersv1 "forge/gen/forge/users/v1"
	"forge/services/access"
	"forge/services/auth"
	"forge/services/errs"
	"forge/services/orgs"
	"forge/services/paging"
	"forge/services/store"
	"forge/services/users"
)

// maxLines bounds the line comments listed for one review.
const maxLines = 1000

// maxReviewers bounds GET /reviewers (Gitea does not page it).
const maxReviewers = 1000

// Server implements reviewsv1.ReviewServiceServer. Permission was checked
// by the interceptor (the policies in the proto and the review rules);
// what a rule loaded is read with access.ObjectFrom.
type Server struct {
	reviewsv1.UnimplementedReviewServiceServer
	store     Store
	git       Git
	access    *access.Checker
	officials Officials
	users     users.Renderer
	teams     orgs.Renderer
	root      string // ROOT_URL, ends with "/"
	limits    paging.Limits
	// submitted are told the repository of each review submitted.
	submitted []func(ctx context.Context, repoID int64)
}

// OnSubmitted adds f to what is told the repository of each review
// submitted (a scheduled merge may wait for approvals).
func (s *Server) OnSubmitted(f func(ctx context.Context, repoID int64)) *Server {
	s.submitted = append(s.submitted, f)
	return s
}

func (s *Server) tellSubmitted(ctx context.Context, repoID int64) {
	for _, f := range s.submitted {
		f(ctx, repoID)
	}
}

var _ reviewsv1.ReviewServiceServer = (*Server)(nil)

// Options is what the server is built from.
type Options struct {
	Store  Store
	Git    Git
	Access *access.Checker
	// Officials decides official verdicts; nil is CodeWriters.
	Officials Officials
	Users     users.Renderer
	Teams     orgs.Renderer
	RootURL   string
	Limits    paging.Limits
}

// NewServer builds the service.
func NewServer(o Options) *Server {
	if o.Officials == nil {
		o.Officials = CodeWriters
	}
	return &Server{store: o.Store, git: o.Git, access: o.Access, officials: o.Officials, users: o.Users,
		teams: o.Teams, root: o.RootURL, limits: o.Limits}
}

var errPullNotFound = errs.New(errs.NotFound, "")

// target is the pull request a rule loaded, with its row and repository.
type target struct {
	repo  *access.Repo
	obj   *access.Object
	pr    *store.PullRequest
	issue *store.Issue
}

func (s *Server) target(ctx context.Context) (*target, error) {
	r, err := access.RepoFrom(ctx)
	if err != nil {
		return nil, err
	}
	obj, err := access.ObjectFrom(ctx)
	if err != nil {
		return nil, err
	}
	pr, is, err := s.store.PullRequestByIndex(ctx, r.ID, obj.Issue.Index)
	if err != nil {
		return nil, errs.Replace(err, store.ErrNotFound, errPullNotFound)
	}
	return &target{repo: r, obj: obj, pr: pr, issue: is}, nil
}

// The review events of the API and their types.
var events = map[string]store.ReviewType{
	"APPROVED": store.ReviewApprove, "REQUEST_CHANGES": store.ReviewReject, "COMMENT": store.ReviewComment,
}

var stateNames = map[store.ReviewType]string{
	store.ReviewPending: "PENDING", store.ReviewApprove: "APPROVED", store.ReviewComment: "COMMENT",
	store.ReviewReject: "REQUEST_CHANGES", store.ReviewRequest: "REQUEST_REVIEW",
}

func eventType(event string) store.ReviewType {
	if t, ok := events[strings.ToUpper(strings.TrimSpace(event))]; ok {
		return t
	}
	return store.ReviewPending // anything else, empty too, as Gitea
}

// verdictRules are Gitea's refusals of a review of typ with body and n
// line comments on t's pull request by caller.
func verdictRules(t *target, caller *auth.Principal, typ store.ReviewType, body string, n int) error {
	verdict := typ == store.ReviewApprove || typ == store.ReviewReject
	if verdict && caller.ID() == t.issue.PosterID {
		if typ == store.ReviewApprove {
			return errs.New(errs.Invalid, "approve your own pull is not allowed")
		}
		return errs.New(errs.Invalid, "reject your own pull is not allowed")
	}
	blank := strings.TrimSpace(body) == ""
	if (typ == store.ReviewReject || typ == store.ReviewPending) && blank ||
		typ == store.ReviewComment && blank && n == 0 {
		return errs.Newf(errs.Invalid, "review event %s requires a body", stateNames[typ])
	}
	if verdict && (t.issue.IsClosed || t.pr.HasMerged) {
		return errs.New(errs.Invalid, "can't submit review for a closed or merged PR")
	}
	return nil
}

// official is whether caller's review of typ counts for approvals.
func (s *Server) official(ctx context.Context, t *target, caller *auth.Principal, typ store.ReviewType) (bool, error) {
	if typ != store.ReviewApprove && typ != store.ReviewReject {
		return false, nil // comments and drafts never count
	}
	return s.officials(ctx, t.repo, t.pr, caller)
}

func (s *Server) ListPullReviews(ctx context.Context, req *reviewsv1.ListPullReviewsRequest) (*reviewsv1.ListPullReviewsResponse, error) {
	t, err := s.target(ctx)
	if err != nil {
		return nil, err
	}
	caller := auth.FromContext(ctx)
	page := s.limits.Normalize(int(req.GetPage()), int(req.GetLimit()))
	list, total, err := s.store.ListReviews(ctx, store.ReviewListOptions{IssueID: t.issue.ID, ViewerID: caller.ID(),
		AllPending: caller.IsAdmin(), Offset: page.Offset(), Limit: page.Size})
	if err != nil {
		return nil, err
	}
	out, err := s.render(ctx, t, list)
	if err != nil {
		return nil, err
	}
	return &reviewsv1.ListPullReviewsResponse{Reviews: out, TotalCount: total}, nil
}

func (s *Server) CreatePullReview(ctx context.Context, req *reviewsv1.CreatePullReviewRequest) (*reviewsv1.CreatePullReviewResponse, error) {
	t, err := s.target(ctx)
	if err != nil {
		return nil, err
	}
	caller := auth.FromContext(ctx)
	typ := eventType(req.GetEvent())
	if err := verdictRules(t, caller, typ, req.GetBody(), len(req.GetComments())); err != nil {
		return nil, err
	}
	commit := req.GetCommitId()
	if commit == "" {
		commit = t.pr.HeadSHA
	}
	lines, err := s.lines(ctx, t, commit, req.GetComments())
	if err != nil {
		return nil, err
	}
	official, err := s.official(ctx, t, caller, typ)
	if err != nil {
		return nil, err
	}
	rv, err := s.store.SubmitReview(ctx, store.NewReview{RepoID: t.repo.ID, IssueID: t.issue.ID, ReviewerID: caller.ID(),
		Type: typ, Content: req.GetBody(), CommitID: commit, Official: official, Lines: lines})
	if err != nil {
		return nil, err
	}
	s.tellSubmitted(ctx, t.repo.ID)
	out, err := s.one(ctx, t, rv)
	if err != nil {
		return nil, err
	}
	return &reviewsv1.CreatePullReviewResponse{Review: out}, nil
}

// lines are a new review's line comments, each with its hunk of the pull
// request's diff at commit (one diff read for all of them).
func (s *Server) lines(ctx context.Context, t *target, commit string, in []*reviewsv1.CreatePullReviewComment) ([]store.ReviewLine, error) {
	if len(in) == 0 {
		return nil, nil
	}
	path, err := s.git.RepoPath(t.repo.Owner.Name, t.repo.Name)
	if err != nil {
		return nil, err
	}
	diff, err := diffOf(ctx, s.git, path, t.pr.MergeBase, commit)
	if err != nil {
		return nil, errs.Wrap(err, "read the pull request's diff")
	}
	out := make([]store.ReviewLine, 0, len(in))
	for _, c := range in {
		line := c.GetNewPosition()
		if line <= 0 {
			line = -c.GetOldPosition()
		}
		out = append(out, store.ReviewLine{Content: c.GetBody(), TreePath: c.GetPath(), Line: line, CommitID: commit,
			Patch: hunkAt(diff, c.GetPath(), line)})
	}
	return out, nil
}

func (s *Server) GetPullReview(ctx context.Context, _ *reviewsv1.GetPullReviewRequest) (*reviewsv1.GetPullReviewResponse, error) {
	t, err := s.target(ctx)
	if err != nil {
		return nil, err
	}
	out, err := s.one(ctx, t, t.obj.Review)
	if err != nil {
		return nil, err
	}
	return &reviewsv1.GetPullReviewResponse{Review: out}, nil
}

func (s *Server) SubmitPullReview(ctx context.Context, req *reviewsv1.SubmitPullReviewRequest) (*reviewsv1.SubmitPullReviewResponse, error) {
	t, err := s.target(ctx)
	if err != nil {
		return nil, err
	}
	pending := t.obj.Review
	if pending.Type != store.ReviewPending {
		return nil, store.ErrReviewNotPending
	}
	typ := eventType(req.GetEvent())
	if typ == store.ReviewPending {
		return nil, errs.New(errs.Invalid, "review stay pending")
	}
	// The review is its reviewer's (a site administrator submits it on
	// their behalf).
	reviewer := &auth.Principal{User: &store.User{ID: pending.ReviewerID}}
	if err := verdictRules(t, reviewer, typ, req.GetBody(), pending.NumComments); err != nil {
		return nil, err
	}
	official, err := s.official(ctx, t, auth.FromContext(ctx), typ)
	if err != nil {
		return nil, err
	}
	rv, err := s.store.SubmitReview(ctx, store.NewReview{IssueID: t.issue.ID, ReviewerID: pending.ReviewerID, PendingID: pending.ID,
		Type: typ, Content: req.GetBody(), CommitID: t.pr.HeadSHA, Official: official})
	if err != nil {
		return nil, errs.Replace(err, store.ErrNotFound, errPullNotFound)
	}
	s.tellSubmitted(ctx, t.repo.ID)
	out, err := s.one(ctx, t, rv)
	if err != nil {
		return nil, err
	}
	return &reviewsv1.SubmitPullReviewResponse{Review: out}, nil
}

func (s *Server) DeletePullReview(ctx context.Context, _ *reviewsv1.DeletePullReviewRequest) (*reviewsv1.DeletePullReviewResponse, error) {
	obj, err := access.ObjectFrom(ctx)
	if err != nil {
		return nil, err
	}
	if err := s.store.DeleteReview(ctx, obj.Review.ID); err != nil {
		return nil, errs.Replace(err, store.ErrNotFound, errPullNotFound)
	}
	return &reviewsv1.DeletePullReviewResponse{}, nil
}

func (s *Server) ListPullReviewComments(ctx context.Context, _ *reviewsv1.ListPullReviewCommentsRequest) (*reviewsv1.ListPullReviewCommentsResponse, error) {
	t, err := s.target(ctx)
	if err != nil {
		return nil, err
	}
	lines, err := s.store.ReviewLines(ctx, t.obj.Review.ID, maxLines)
	if err != nil {
		return nil, err
	}
	ids := make([]int64, 0, len(lines))
	for _, l := range lines {
		ids = append(ids, l.PosterID)
	}
	people, err := s.people(ctx, ids)
	if err != nil {
		return nil, err
	}
	pull := s.pullURL(t)
	out := &reviewsv1.ListPullReviewCommentsResponse{Comments: make([]*reviewsv1.PullReviewComment, 0, len(lines))}
	for _, l := range lines {
		c := &reviewsv1.PullReviewComment{
			Id: l.ID, Body: l.Content, User: s.user(people, l.PosterID), PullRequestReviewId: l.ReviewID,
			CreatedAt: ts(l.CreatedUnix), UpdatedAt: ts(l.UpdatedUnix), Path: l.TreePath, CommitId: l.CommitID,
			DiffHunk: l.Patch, HtmlUrl: pull + "#issuecomment-" + strconv.FormatInt(l.ID, 10), PullRequestUrl: pull,
		}
		if l.Line < 0 {
			c.OriginalPosition = -l.Line
		} else {
			c.Position = l.Line
		}
		out.Comments = append(out.Comments, c)
	}
	return out, nil
}

// Gitea's refusals of a dismissal of something that cannot be dismissed.
const (
	dismissTypeMessage   = "not need to dismiss this review because it's type is not Approve or change request"
	dismissClosedMessage = "not need to dismiss this review because this pr is closed"
)

// dismiss dismisses (with message, recorded on the timeline) or
// undismisses the review the policy loaded.
func (s *Server) dismiss(ctx context.Context, dismissed bool, message string) (*reviewsv1.PullReview, error) {
	t, err := s.target(ctx)
	if err != nil {
		return nil, err
	}
	rv := t.obj.Review
	if rv.Type != store.ReviewApprove && rv.Type != store.ReviewReject {
		return nil, errs.New(errs.PermissionDenied, dismissTypeMessage)
	}
	if t.issue.IsClosed || t.pr.HasMerged {
		return nil, errs.New(errs.PermissionDenied, dismissClosedMessage)
	}
	rv, err = s.store.SetReviewDismissed(ctx, rv.ID, dismissed, auth.FromContext(ctx).ID(), message)
	if err != nil {
		return nil, errs.Replace(err, store.ErrNotFound, errPullNotFound)
	}
	return s.one(ctx, t, rv)
}

func (s *Server) DismissPullReview(ctx context.Context, req *reviewsv1.DismissPullReviewRequest) (*reviewsv1.DismissPullReviewResponse, error) {
	out, err := s.dismiss(ctx, true, req.GetMessage())
	if err != nil {
		return nil, err
	}
	return &reviewsv1.DismissPullReviewResponse{Review: out}, nil
}

func (s *Server) UndismissPullReview(ctx context.Context, _ *reviewsv1.UndismissPullReviewRequest) (*reviewsv1.UndismissPullReviewResponse, error) {
	out, err := s.dismiss(ctx, false, "")
	if err != nil {
		return nil, err
	}
	return &reviewsv1.UndismissPullReviewResponse{Review: out}, nil
}

// errClosedRequest refuses review requests on a closed pull request.
var errClosedRequest = errs.New(errs.PermissionDenied, "pull request is closed")

// reviewers resolves a request's people (logins or e-mail addresses, as
// the caller sees accounts) and teams of the owning organization; when
// adding, each person must read the pull requests and not be their
// poster (422).
func (s *Server) reviewers(ctx context.Context, t *target, names, teamNames []string, adding bool) ([]int64, []int64, error) {
	caller := auth.FromContext(ctx)
	var userIDs, teamIDs []int64
	var emails []string
	var found []*store.User
	for _, n := range names {
		if strings.Contains(n, "@") {
			emails = append(emails, n)
			continue
		}
		u, err := access.VisibleUser(ctx, s.store, n, caller)
		if err != nil {
			return nil, nil, err
		}
		found = append(found, u)
	}
	if len(emails) > 0 {
		byEmail, err := s.store.UsersByEmails(ctx, emails)
		if err != nil {
			return nil, nil, err
		}
		for _, e := range emails {
			u := byEmail[strings.ToLower(e)]
			if u == nil {
				u = byEmail[e]
			}
			if u == nil {
				return nil, nil, access.UserNotFound(e)
			}
			seen, err := access.SeesUser(ctx, s.store, u, caller)
			if err != nil {
				return nil, nil, err
			}
			if !seen {
				return nil, nil, access.UserNotFound(e)
			}
			found = append(found, u)
		}
	}
	for _, u := range found {
		if adding {
			if u.ID == t.issue.PosterID {
				return nil, nil, errs.New(errs.Invalid, "poster of pr can't be reviewer")
			}
			mode, err := s.access.IssueUnitMode(ctx, t.repo.Repository, u, auth.UnitPulls)
			if err != nil {
				return nil, nil, err
			}
			if mode < store.AccessRead {
				return nil, nil, errs.New(errs.Invalid, "Reviewer can't read")
			}
		}
		userIDs = append(userIDs, u.ID)
	}
	for _, n := range teamNames {
		if t.repo.Owner.Type != store.UserTypeOrganization {
			return nil, nil, errs.New(errs.Invalid, "team reviewers are only for repositories of organizations")
		}
		team, err := s.store.TeamByName(ctx, t.repo.OwnerID, n)
		if errors.Is(err, store.ErrNotFound) {
			return nil, nil, errs.Newf(errs.NotFound, "team %q does not exist", n)
		}
		if err != nil {
			return nil, nil, err
		}
		teamIDs = append(teamIDs, team.ID)
	}
	return userIDs, teamIDs, nil
}

func (s *Server) CreateReviewRequests(ctx context.Context, req *reviewsv1.CreateReviewRequestsRequest) (*reviewsv1.CreateReviewRequestsResponse, error) {
	t, err := s.target(ctx)
	if err != nil {
		return nil, err
	}
	if t.issue.IsClosed {
		return nil, errClosedRequest
	}
	userIDs, teamIDs, err := s.reviewers(ctx, t, req.GetReviewers(), req.GetTeamReviewers(), true)
	if err != nil {
		return nil, err
	}
	list, err := s.store.RequestReviews(ctx, t.repo.ID, t.issue.ID, t.pr.HeadSHA, userIDs, teamIDs, auth.FromContext(ctx).ID())
	if err != nil {
		return nil, err
	}
	out, err := s.render(ctx, t, list)
	if err != nil {
		return nil, err
	}
	return &reviewsv1.CreateReviewRequestsResponse{Reviews: out}, nil
}

func (s *Server) DeleteReviewRequests(ctx context.Context, req *reviewsv1.DeleteReviewRequestsRequest) (*reviewsv1.DeleteReviewRequestsResponse, error) {
	t, err := s.target(ctx)
	if err != nil {
		return nil, err
	}
	if t.issue.IsClosed {
		return nil, errClosedRequest
	}
	userIDs, teamIDs, err := s.reviewers(ctx, t, req.GetReviewers(), req.GetTeamReviewers(), false)
	if err != nil {
		return nil, err
	}
	if err := s.store.WithdrawReviewRequests(ctx, t.issue.ID, userIDs, teamIDs, auth.FromContext(ctx).ID()); err != nil {
		return nil, err
	}
	return &reviewsv1.DeleteReviewRequestsResponse{}, nil
}

func (s *Server) ListReviewers(ctx context.Context, _ *reviewsv1.ListReviewersRequest) (*reviewsv1.ListReviewersResponse, error) {
	r, err := access.RepoFrom(ctx)
	if err != nil {
		return nil, err
	}
	caller := auth.FromContext(ctx)
	list, err := s.store.ReviewerCandidates(ctx, r.Repository, access.UserFilter(caller), maxReviewers)
	if err != nil {
		return nil, err
	}
	out := &reviewsv1.ListReviewersResponse{Users: make([]*usersv1.User, 0, len(list))}
	for i := range list {
		out.Users = append(out.Users, s.users.User(&list[i], caller))
	}
	if err := s.users.FillCounts(ctx, out.Users); err != nil {
		return nil, err
	}
	return out, nil
}

// ---- rendering

func ts(unix int64) *timestamppb.Timestamp { return timestamppb.New(time.Unix(unix, 0)) }

// ghost stands in for a reviewer whose account is gone or hidden.
var ghost = &store.User{ID: -1, Name: "Ghost", LowerName: "ghost"}

func (s *Server) user(m map[int64]*store.User, id int64) *usersv1.User {
	u := m[id]
	if u == nil {
		u = ghost
	}
	return s.users.User(u, nil)
}

// people loads accounts by id, those the caller may not see left out.
func (s *Server) people(ctx context.Context, ids []int64) (map[int64]*store.User, error) {
	found, err := s.store.UsersByID(ctx, ids)
	if err != nil {
		return nil, err
	}
	if err := access.DropHidden(ctx, s.store, auth.FromContext(ctx), found); err != nil {
		return nil, err
	}
	return found, nil
}

func (s *Server) pullURL(t *target) string {
	return s.root + t.repo.Owner.Name + "/" + t.repo.Name + "/pulls/" + strconv.FormatInt(t.issue.Index, 10)
}

func (s *Server) one(ctx context.Context, t *target, rv *store.Review) (*reviewsv1.PullReview, error) {
	out, err := s.render(ctx, t, []store.Review{*rv})
	if err != nil {
		return nil, err
	}
	return out[0], nil
}

// render renders reviews of t's pull request, loading their people and
// teams for the whole page at once.
func (s *Server) render(ctx context.Context, t *target, list []store.Review) ([]*reviewsv1.PullReview, error) {
	var ids, teamIDs []int64
	for _, rv := range list {
		if rv.ReviewerTeamID != 0 {
			teamIDs = append(teamIDs, rv.ReviewerTeamID)
		} else {
			ids = append(ids, rv.ReviewerID)
		}
	}
	people, err := s.people(ctx, ids)
	if err != nil {
		return nil, err
	}
	teams, err := s.store.ReviewTeams(ctx, teamIDs)
	if err != nil {
		return nil, err
	}
	caller := auth.FromContext(ctx)
	pull := s.pullURL(t)
	out := make([]*reviewsv1.PullReview, 0, len(list))
	for _, rv := range list {
		r := &reviewsv1.PullReview{
			Id: rv.ID, State: stateNames[rv.Type], Body: rv.Content, CommitId: rv.CommitID,
			// Stale: the head moved on since (computed, so a push needs
			// no work here).
			Stale:    rv.CommitID != t.pr.HeadSHA,
			Official: rv.Official, Dismissed: rv.Dismissed, CommentsCount: int64(rv.NumComments),
			SubmittedAt: ts(rv.CreatedUnix), UpdatedAt: ts(rv.UpdatedUnix),
			HtmlUrl: pull + "#issuecomment-" + strconv.FormatInt(rv.ID, 10), PullRequestUrl: pull,
		}
		if rv.ReviewerTeamID != 0 {
			if team := teams[rv.ReviewerTeamID]; team != nil {
				r.Team = s.teams.Team(team, nil, caller)
			}
		} else {
			r.User = s.user(people, rv.ReviewerID)
		}
		out = append(out, r)
	}
	return out, nil
}
