package issues

import (
	"context"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"forge/services/access"
	"forge/services/auth"
	"forge/services/errs"
	"forge/services/store"
)

// errIssueNotFound is Gitea's bare 404 for an unknown issue or comment.
var errIssueNotFound = errs.New(errs.NotFound, "")

// ErrMergedState refuses a state given for a merged pull request, through
// the issue or the pull request (Gitea's 412).
var ErrMergedState = errs.New(errs.FailedPrecondition, "cannot change state of this pull request, it was already merged").
	WithHTTPStatus(http.StatusPreconditionFailed)

// NewIssue is Gitea's CreateIssueOption as the use case needs it.
type NewIssue struct {
	Title, Body string
	// Assignees are user names (the deprecated single assignee joined in).
	Assignees []string
	Closed    bool
	// Labels are label ids, put on the issue by the labels rules
	// (store.EditIssueLabels' exclusive scopes apply).
	Labels []int64
	// Ref is the branch or tag the issue is about.
	Ref string
	// Milestone is a milestone id of the repository (0: none; unknown:
	// 404). Due is the due date (zero: none).
	Milestone int64
	Due       time.Time
}

// Create opens an issue in r posted by caller. Assignees and labels come
// from writers only: the policy declares them writer fields, cleared for
// others as Gitea drops them silently. Each assignee must exist (422) and
// be able to write the repository (422). It returns what was stored:
// the issue with its number, and its assignees' ids in order, once each.
func (s *Service) Create(ctx context.Context, r *access.Repo, caller *auth.Principal, in NewIssue) (*store.NewIssue, error) {
	n := &store.NewIssue{Issue: store.Issue{
		RepoID: r.ID, PosterID: caller.ID(), Title: strings.TrimSpace(in.Title), Content: in.Body, IsClosed: in.Closed,
		Ref: in.Ref, MilestoneID: max(in.Milestone, 0),
	}}
	if !in.Due.IsZero() {
		n.DeadlineUnix = in.Due.Unix()
	}
	ids, err := s.assignees(ctx, r, caller, in.Assignees)
	if err != nil {
		return nil, err
	}
	n.AssigneeIDs = ids
	n.LabelIDs, n.LabelOrgID = in.Labels, r.OwnerID
	if err := s.store.CreateIssue(ctx, n); err != nil {
		return nil, errs.Replace(err, store.ErrNotFound, errIssueNotFound)
	}
	return n, nil
}

// assignees resolves user names to ids of users who may be assigned in r.
// Their number is bounded on the request (max_items, checked before the
// handler).
func (s *Service) assignees(ctx context.Context, r *access.Repo, caller *auth.Principal, names []string) ([]int64, error) {
	return Assignees(ctx, s.store, s.access, r, caller, names)
}

// Assignees resolves user names to the ids of users who may be assigned
// in r, once each, in order (for issues and pull requests alike): an
// unknown or hidden name, or one without access to r, is 422.
func Assignees(ctx context.Context, users access.VisibilityStore, c *access.Checker, r *access.Repo, caller *auth.Principal, names []string) ([]int64, error) {
	var ids []int64
	for _, name := range names {
		name = strings.TrimSpace(name)
		if name == "" {
			continue
		}
		u, err := access.VisibleUser(ctx, users, name, caller)
		if err != nil {
			if errs.KindOf(err) == errs.NotFound {
				return nil, errs.Newf(errs.Invalid, "Assignee does not exist: [name: %s]", name)
			}
			return nil, err
		}
		ok, err := c.CanBeAssigned(ctx, r, u)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, errs.Newf(errs.Invalid, "user does not have access to repo [user_id: %d, repo_name: %s]", u.ID, r.Name)
		}
		if !slices.Contains(ids, u.ID) { // named twice: assigned once
			ids = append(ids, u.ID)
		}
	}
	return ids, nil
}

// Get returns the issue numbered index of r.
func (s *Service) Get(ctx context.Context, r *access.Repo, index int64) (*store.Issue, error) {
	is, err := s.store.IssueByIndex(ctx, r.ID, index)
	if err != nil {
		return nil, errs.Replace(err, store.ErrNotFound, errIssueNotFound)
	}
	return is, nil
}

// IssueChange is Gitea's EditIssueOption: nil fields stay as they are, an
// empty title too.
type IssueChange struct {
	Title string
	Body  *string
	// State "closed" closes, anything else reopens.
	State *string
	// Assignees replace the current ones when ReplaceAssignees is set.
	Assignees        []string
	ReplaceAssignees bool
	Ref              *string
	// Milestone: a milestone id of the repository, 0 takes the issue off
	// its milestone.
	Milestone *int64
	// Due sets the due date to the end of its day (UTC: the offset the
	// client sent is not kept by the request); UnsetDue removes it.
	Due      *time.Time
	UnsetDue bool
}

// Edit changes an issue: title, body and state by its poster or a writer
// (the policy's rule issue-poster-or-writer), assignees by writers only
// (a writer field: others' are dropped, as Gitea). Setting the state an
// issue already has is a no-op.
func (s *Service) Edit(ctx context.Context, r *access.Repo, caller *auth.Principal, index int64, ch IssueChange) (*store.Issue, error) {
	var (
		assignees []int64
		err       error
	)
	replace := ch.ReplaceAssignees
	if replace {
		if assignees, err = s.assignees(ctx, r, caller, ch.Assignees); err != nil {
			return nil, err
		}
	}
	is, err := s.store.UpdateIssue(ctx, r.ID, index, caller.ID(), func(e *store.IssueEdit) error {
		if t := strings.TrimSpace(ch.Title); t != "" {
			e.Title = t
		}
		if ch.Body != nil {
			e.Content = *ch.Body
		}
		if ch.State != nil {
			if e.Merged {
				return ErrMergedState
			}
			e.IsClosed = *ch.State == "closed"
		}
		if ch.Ref != nil {
			e.Ref = *ch.Ref
		}
		if ch.Milestone != nil {
			e.MilestoneID = max(*ch.Milestone, 0)
		}
		if ch.Due != nil && !ch.Due.IsZero() {
			d := ch.Due.UTC()
			e.DeadlineUnix = time.Date(d.Year(), d.Month(), d.Day(), 23, 59, 59, 0, time.UTC).Unix()
		}
		if ch.UnsetDue {
			e.DeadlineUnix = 0
		}
		e.AssigneeIDs, e.ReplaceAssignees = assignees, replace
		return nil
	})
	if err != nil {
		return nil, errs.Replace(err, store.ErrNotFound, errIssueNotFound)
	}
	return is, nil
}

// Delete deletes an issue with its comments (the policy asks for
// repository admins).
func (s *Service) Delete(ctx context.Context, r *access.Repo, index int64) error {
	err := s.store.DeleteIssue(ctx, r.ID, index)
	return errs.Replace(err, store.ErrNotFound, errIssueNotFound)
}

// Query is Gitea's issue list query (GET .../issues and the search).
type Query struct {
	State, Labels, Q, Type, Since, Before string
	// CreatedBy, AssignedBy, MentionedBy are user names; an unknown one is
	// 404 as in Gitea.
	CreatedBy, AssignedBy, MentionedBy string
	// Owner limits a search to one owner's repositories.
	Owner string
	// Milestones are comma-separated milestone names or ids of the
	// repository (not for the search).
	Milestones  string
	Page, Limit int
}

// options turns q into store options (without the repository part).
func (s *Service) options(ctx context.Context, caller *auth.Principal, q Query) (store.IssueListOptions, error) {
	page := s.limits.Normalize(q.Page, q.Limit)
	o := store.IssueListOptions{State: q.State, Keyword: strings.TrimSpace(q.Q), Offset: page.Offset(), Limit: page.Size}
	switch q.State {
	case "", "open", "closed", "all":
	default:
		o.State = "open" // Gitea reads anything else as open
	}
	switch q.Type {
	case "issues":
		f := false
		o.IsPull = &f
	case "pulls":
		t := true
		o.IsPull = &t
	}
	for _, name := range strings.Split(q.Labels, ",") {
		if name = strings.TrimSpace(name); name != "" {
			o.LabelNames = append(o.LabelNames, name)
		}
	}
	var err error
	if o.Since, err = unixArg(q.Since); err != nil {
		return o, err
	}
	if o.Before, err = unixArg(q.Before); err != nil {
		return o, err
	}
	for _, f := range []struct {
		name string
		set  func(u *store.User)
	}{
		{q.CreatedBy, func(u *store.User) { o.PosterID = u.ID }},
		{q.AssignedBy, func(u *store.User) { o.AssigneeID = u.ID }},
		{q.MentionedBy, func(u *store.User) { o.MentionedID = u.ID }},
	} {
		if f.name == "" {
			continue
		}
		u, err := access.VisibleUser(ctx, s.store, f.name, caller)
		if err != nil {
			return o, err
		}
		f.set(u)
	}
	return o, nil
}

// unixArg parses an RFC 3339 since/before bound; "" is no bound. A bad
// value is 422, as Gitea.
func unixArg(v string) (int64, error) {
	if v == "" {
		return 0, nil
	}
	t, err := time.Parse(time.RFC3339, v)
	if err != nil {
		return 0, errs.Newf(errs.Invalid, "parsing time %q as RFC 3339", v)
	}
	return t.Unix(), nil
}

// List lists r's issues matching q, newest first.
func (s *Service) List(ctx context.Context, r *access.Repo, caller *auth.Principal, q Query) ([]store.Issue, int64, error) {
	o, err := s.options(ctx, caller, q)
	if err != nil {
		return nil, 0, err
	}
	o.RepoID = r.ID
	if o.MilestoneIDs, err = s.milestoneIDs(ctx, r.ID, q.Milestones); err != nil {
		return nil, 0, err
	}
	o.ByMilestone = len(o.MilestoneIDs) > 0
	list, total, err := s.store.ListIssues(ctx, o)
	return list, total, err
}

// errOwnerNotFound is Gitea's answer to a search by an unknown owner.
var errOwnerNotFound = errs.New(errs.FailedPrecondition, "Owner not found")

// Search lists the issues of every repository the caller may read
// (access.Filter), newest first.
func (s *Service) Search(ctx context.Context, caller *auth.Principal, q Query) ([]store.Issue, int64, error) {
	o, err := s.options(ctx, caller, q)
	if err != nil {
		return nil, 0, err
	}
	o.Repos = access.Filter(caller)
	if q.Owner != "" {
		u, err := access.VisibleUser(ctx, s.store, q.Owner, caller)
		if err != nil {
			if errs.KindOf(err) == errs.NotFound {
				return nil, 0, errOwnerNotFound
			}
			return nil, 0, err
		}
		o.OwnerID = u.ID
	}
	list, total, err := s.store.ListIssues(ctx, o)
	return list, total, err
}

// milestoneIDs resolves Gitea's milestones filter: each part is a
// milestone name of the repository or else a number taken as an id;
// parts that are neither are dropped (and when all are, nothing is
// filtered, as Gitea).
func (s *Service) milestoneIDs(ctx context.Context, repoID int64, filter string) ([]int64, error) {
	var names []string
	for _, part := range strings.Split(filter, ",") {
		if part = strings.TrimSpace(part); part != "" && len(names) < 50 {
			names = append(names, part)
		}
	}
	if len(names) == 0 {
		return nil, nil
	}
	named, err := s.store.MilestonesByNames(ctx, repoID, names)
	if err != nil {
		return nil, err
	}
	var ids []int64
	for _, n := range names {
		if id, ok := named[strings.ToLower(n)]; ok {
			ids = append(ids, id)
		} else if id, err := strconv.ParseInt(n, 10, 64); err == nil && id > 0 {
			ids = append(ids, id)
		}
	}
	return ids, nil
}
