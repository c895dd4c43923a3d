package timetrack

import (
	"context"
	"fmt"
	"strings"
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"

	issuesv1 "forge/gen/forge/issues/v1"
	"forge/services/access"
	"forge/services/auth"
	"forge/services/errs"
	"forge/services/paging"
	"forge/services/store"
)

// Store is what the time tracking area reads and writes.
type Store interface {
	// AddTrackedTime stores a time; store.ErrNotFound when the issue is
	// gone.
	AddTrackedTime(ctx context.Context, t store.TrackedTime) (*store.TrackedTime, error)
	// ListTrackedTimes lists and counts the times not deleted.
	ListTrackedTimes(ctx context.Context, o store.TrackedTimeOptions) ([]store.TrackedTime, int64, error)
	// DeleteTrackedTime and DeleteUserTimes mark times deleted;
	// store.ErrNotFound when there is none.
	DeleteTrackedTime(ctx context.Context, id int64) error
	DeleteUserTimes(ctx context.Context, issueID, userID int64) error
	// StartStopwatch returns store.ErrStopwatchRunning, StopStopwatch
	// store.ErrStopwatchMissing (409).
	StartStopwatch(ctx context.Context, repoID, issueID, userID int64) error
	StopStopwatch(ctx context.Context, issueID, userID int64, add bool) error
	ListStopwatches(ctx context.Context, userID int64, offset, limit int) ([]store.Stopwatch, int64, error)
	// UsersByID, IssuesByID and RepositoriesByID load a page's rows at
	// once; unknown ids are absent.
	UsersByID(ctx context.Context, ids []int64) (map[int64]*store.User, error)
	IssuesByID(ctx context.Context, ids []int64) (map[int64]*store.Issue, error)
	RepositoriesByID(ctx context.Context, ids []int64) (map[int64]*store.Repository, error)
}

// Renderer renders issues as the issues area does.
type Renderer interface {
	Issues(ctx context.Context, viewer *auth.Principal, list []store.Issue, repoOf func(repoID int64) (owner, name string)) ([]*issuesv1.Issue, error)
}

// Server implements issuesv1.TimeServiceServer. Who may do what was
// decided by the policies' rules (time-tracker, issue-times-reader, ...).
type Server struct {
	issuesv1.UnimplementedTimeServiceServer
	store  Store
	render Renderer
	limits paging.Limits
}

var _ issuesv1.TimeServiceServer = (*Server)(nil)

// NewServer returns the time tracking service.
func NewServer(s Store, r Renderer, limits paging.Limits) *Server {
	return &Server{store: s, render: r, limits: limits}
}

// unixArg parses an RFC 3339 query bound (empty: unbounded).
func unixArg(name, v string) (int64, error) {
	if v == "" {
		return 0, nil
	}
	t, err := time.Parse(time.RFC3339, v)
	if err != nil {
		return 0, errs.Newf(errs.Invalid, "%s: %q is not an RFC 3339 time", name, v)
	}
	return t.Unix(), nil
}

type timesQuery interface {
	GetSince() string
	GetBefore() string
	GetPage() int32
	GetLimit() int32
}

// list lists the times o selects with q's bounds and page, rendered.
func (s *Server) list(ctx context.Context, o store.TrackedTimeOptions, q timesQuery) ([]*issuesv1.TrackedTime, int64, error) {
	var err error
	if o.Since, err = unixArg("since", q.GetSince()); err != nil {
		return nil, 0, err
	}
	if o.Before, err = unixArg("before", q.GetBefore()); err != nil {
		return nil, 0, err
	}
	page := s.limits.Normalize(int(q.GetPage()), int(q.GetLimit()))
	o.Offset, o.Limit = page.Offset(), page.Size
	list, total, err := s.store.ListTrackedTimes(ctx, o)
	if err != nil {
		return nil, 0, err
	}
	out, err := s.renderTimes(ctx, list)
	return out, total, err
}

// renderTimes renders tracked times with their users and issues, loaded
// for the page at once.
func (s *Server) renderTimes(ctx context.Context, list []store.TrackedTime) ([]*issuesv1.TrackedTime, error) {
	userIDs, issueIDs := make([]int64, len(list)), make([]int64, len(list))
	for i := range list {
		userIDs[i], issueIDs[i] = list[i].UserID, list[i].IssueID
	}
	users, err := s.store.UsersByID(ctx, userIDs)
	if err != nil {
		return nil, errs.Wrap(err, "load users")
	}
	issues, err := s.store.IssuesByID(ctx, issueIDs)
	if err != nil {
		return nil, errs.Wrap(err, "load issues")
	}
	var page []store.Issue
	var repoIDs []int64
	for _, is := range issues {
		page = append(page, *is)
		repoIDs = append(repoIDs, is.RepoID)
	}
	repos, err := s.store.RepositoriesByID(ctx, repoIDs)
	if err != nil {
		return nil, errs.Wrap(err, "load repositories")
	}
	rendered, err := s.render.Issues(ctx, auth.FromContext(ctx), page, func(id int64) (string, string) {
		if r, ok := repos[id]; ok {
			return r.OwnerName, r.Name
		}
		return "", ""
	})
	if err != nil {
		return nil, err
	}
	byID := make(map[int64]*issuesv1.Issue, len(rendered))
	for _, r := range rendered {
		byID[r.Id] = r
	}
	out := make([]*issuesv1.TrackedTime, 0, len(list))
	for _, t := range list {
		tt := &issuesv1.TrackedTime{Id: t.ID, Created: timestamppb.New(time.Unix(t.CreatedUnix, 0)), Time: t.Time,
			UserId: t.UserID, IssueId: t.IssueID, Issue: byID[t.IssueID]}
		if u, ok := users[t.UserID]; ok {
			tt.UserName = u.Name
		}
		out = append(out, tt)
	}
	return out, nil
}

func object(ctx context.Context) (*access.Object, error) { return access.ObjectFrom(ctx) }

func (s *Server) ListIssueTrackedTimes(ctx context.Context, req *issuesv1.ListIssueTrackedTimesRequest) (*issuesv1.ListIssueTrackedTimesResponse, error) {
	o, err := object(ctx)
	if err != nil {
		return nil, err
	}
	opts := store.TrackedTimeOptions{RepoID: o.Issue.RepoID, IssueID: o.Issue.ID}
	if o.User != nil {
		opts.UserID = o.User.ID
	}
	out, total, err := s.list(ctx, opts, req)
	if err != nil {
		return nil, err
	}
	return &issuesv1.ListIssueTrackedTimesResponse{Times: out, TotalCount: total}, nil
}

func (s *Server) ListRepoTrackedTimes(ctx context.Context, req *issuesv1.ListRepoTrackedTimesRequest) (*issuesv1.ListRepoTrackedTimesResponse, error) {
	r, err := access.RepoFrom(ctx)
	if err != nil {
		return nil, err
	}
	o, err := object(ctx)
	if err != nil {
		return nil, err
	}
	opts := store.TrackedTimeOptions{RepoID: r.ID}
	if o.User != nil {
		opts.UserID = o.User.ID
	}
	out, total, err := s.list(ctx, opts, req)
	if err != nil {
		return nil, err
	}
	return &issuesv1.ListRepoTrackedTimesResponse{Times: out, TotalCount: total}, nil
}

// maxUserTimes bounds the unpaged list of a user's times.
const maxUserTimes = 5000

func (s *Server) ListUserTrackedTimes(ctx context.Context, req *issuesv1.ListUserTrackedTimesRequest) (*issuesv1.ListUserTrackedTimesResponse, error) {
	r, err := access.RepoFrom(ctx)
	if err != nil {
		return nil, err
	}
	o, err := object(ctx)
	if err != nil {
		return nil, err
	}
	if o.User == nil {
		return nil, errs.New(errs.NotFound, "")
	}
	list, _, err := s.store.ListTrackedTimes(ctx, store.TrackedTimeOptions{RepoID: r.ID, UserID: o.User.ID, Limit: maxUserTimes})
	if err != nil {
		return nil, err
	}
	out, err := s.renderTimes(ctx, list)
	if err != nil {
		return nil, err
	}
	return &issuesv1.ListUserTrackedTimesResponse{Times: out}, nil
}

func (s *Server) ListMyTrackedTimes(ctx context.Context, req *issuesv1.ListMyTrackedTimesRequest) (*issuesv1.ListMyTrackedTimesResponse, error) {
	out, total, err := s.list(ctx, store.TrackedTimeOptions{UserID: auth.FromContext(ctx).ID()}, req)
	if err != nil {
		return nil, err
	}
	return &issuesv1.ListMyTrackedTimesResponse{Times: out, TotalCount: total}, nil
}

func (s *Server) AddTime(ctx context.Context, req *issuesv1.AddTimeRequest) (*issuesv1.AddTimeResponse, error) {
	o, err := object(ctx)
	if err != nil {
		return nil, err
	}
	if req.GetTime() == 0 {
		return nil, errs.New(errs.Invalid, "[Time]: Required")
	}
	t := store.TrackedTime{RepoID: o.Issue.RepoID, IssueID: o.Issue.ID, UserID: o.User.ID, Time: req.GetTime()}
	if c := req.GetCreated(); c != nil && c.AsTime().Unix() > 0 {
		t.CreatedUnix = c.AsTime().Unix()
	}
	added, err := s.store.AddTrackedTime(ctx, t)
	if err != nil {
		return nil, errs.Replace(err, store.ErrNotFound, errs.New(errs.NotFound, ""))
	}
	out, err := s.renderTimes(ctx, []store.TrackedTime{*added})
	if err != nil {
		return nil, err
	}
	return &issuesv1.AddTimeResponse{Time: out[0]}, nil
}

func (s *Server) ResetIssueTime(ctx context.Context, req *issuesv1.ResetIssueTimeRequest) (*issuesv1.ResetIssueTimeResponse, error) {
	o, err := object(ctx)
	if err != nil {
		return nil, err
	}
	if err := s.store.DeleteUserTimes(ctx, o.Issue.ID, auth.FromContext(ctx).ID()); err != nil {
		return nil, errs.Replace(err, store.ErrNotFound, errs.New(errs.NotFound, ""))
	}
	return &issuesv1.ResetIssueTimeResponse{}, nil
}

func (s *Server) DeleteTime(ctx context.Context, req *issuesv1.DeleteTimeRequest) (*issuesv1.DeleteTimeResponse, error) {
	o, err := object(ctx)
	if err != nil {
		return nil, err
	}
	if err := s.store.DeleteTrackedTime(ctx, o.Time.ID); err != nil {
		return nil, errs.Replace(err, store.ErrNotFound, errs.Newf(errs.NotFound, "tracked time [%d] already deleted", o.Time.ID))
	}
	return &issuesv1.DeleteTimeResponse{}, nil
}

func (s *Server) StartStopwatch(ctx context.Context, req *issuesv1.StartStopwatchRequest) (*issuesv1.StartStopwatchResponse, error) {
	o, err := object(ctx)
	if err != nil {
		return nil, err
	}
	if err := s.store.StartStopwatch(ctx, o.Issue.RepoID, o.Issue.ID, auth.FromContext(ctx).ID()); err != nil {
		return nil, err
	}
	return &issuesv1.StartStopwatchResponse{}, nil
}

func (s *Server) StopStopwatch(ctx context.Context, req *issuesv1.StopStopwatchRequest) (*issuesv1.StopStopwatchResponse, error) {
	o, err := object(ctx)
	if err != nil {
		return nil, err
	}
	if err := s.store.StopStopwatch(ctx, o.Issue.ID, auth.FromContext(ctx).ID(), true); err != nil {
		return nil, err
	}
	return &issuesv1.StopStopwatchResponse{}, nil
}

func (s *Server) DeleteStopwatch(ctx context.Context, req *issuesv1.DeleteStopwatchRequest) (*issuesv1.DeleteStopwatchResponse, error) {
	o, err := object(ctx)
	if err != nil {
		return nil, err
	}
	if err := s.store.StopStopwatch(ctx, o.Issue.ID, auth.FromContext(ctx).ID(), false); err != nil {
		return nil, err
	}
	return &issuesv1.DeleteStopwatchResponse{}, nil
}

func (s *Server) ListMyStopwatches(ctx context.Context, req *issuesv1.ListMyStopwatchesRequest) (*issuesv1.ListMyStopwatchesResponse, error) {
	page := s.limits.Normalize(int(req.GetPage()), int(req.GetLimit()))
	list, total, err := s.store.ListStopwatches(ctx, auth.FromContext(ctx).ID(), page.Offset(), page.Size)
	if err != nil {
		return nil, err
	}
	issueIDs, repoIDs := make([]int64, len(list)), make([]int64, len(list))
	for i := range list {
		issueIDs[i], repoIDs[i] = list[i].IssueID, list[i].RepoID
	}
	issues, err := s.store.IssuesByID(ctx, issueIDs)
	if err != nil {
		return nil, errs.Wrap(err, "load issues")
	}
	repos, err := s.store.RepositoriesByID(ctx, repoIDs)
	if err != nil {
		return nil, errs.Wrap(err, "load repositories")
	}
	now := time.Now().Unix()
	out := make([]*issuesv1.StopWatch, 0, len(list))
	for _, sw := range list {
		is, r := issues[sw.IssueID], repos[sw.RepoID]
		if is == nil || r == nil {
			continue
		}
		secs := max(now-sw.CreatedUnix, 0)
		out = append(out, &issuesv1.StopWatch{Created: timestamppb.New(time.Unix(sw.CreatedUnix, 0)), Seconds: secs,
			Duration: Duration(secs), IssueIndex: is.Index, IssueTitle: is.Title, RepoOwnerName: r.OwnerName, RepoName: r.Name})
	}
	return &issuesv1.ListMyStopwatchesResponse{Stopwatches: out, TotalCount: total}, nil
}

// Duration words seconds as Gitea does: the two largest units that
// matter ("1 minute 6 seconds", "14 hours 33 minutes", "2 weeks 4 days").
func Duration(secs int64) string {
	days := secs / 86400
	years := days / 365
	days -= years * 365
	months := days * 12 / 365
	days -= months * 365 / 12
	weeks := days / 7
	days -= weeks * 7
	hours, minutes, seconds := (secs/3600)%24, (secs/60)%60, secs%60
	var parts []string
	add := func(v int64, unit string) {
		switch {
		case v == 1:
			parts = append(parts, "1 "+unit)
		case v > 1:
			parts = append(parts, fmt.Sprintf("%d %ss", v, unit))
		}
	}
	switch {
	case years > 0:
		add(years, "year")
		add(months, "month")
	case months > 0:
		add(months, "month")
		add(weeks, "week")
	case weeks > 0:
		add(weeks, "week")
		add(days, "day")
	case days > 0:
		add(days, "day")
		add(hours, "hour")
	case hours > 0:
		add(hours, "hour")
		add(minutes, "minute")
	default:
		add(minutes, "minute")
		add(seconds, "second")
	}
	return strings.Join(parts, " ")
}
