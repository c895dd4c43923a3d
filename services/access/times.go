package access

import (
	"context"
	"errors"
	"slices"

	"forge/services/auth"
	"forge/services/errs"
	"forge/services/store"
)

// Refusals of the time tracking rules.
const (
	TimeTrackingOffMessage   = "time tracking disabled"
	TimetrackerOffMessage    = "Timetracker is disabled"
	TimesByUserMessage       = "query by user not allowed; not enough rights"
	CannotTrackTimeMessage   = "the caller may not track time on this issue"
	DeleteOtherTimeMessage   = "only the user itself and site administrators may delete a tracked time"
	StopwatchNotAllowMessage = "the caller may not use a stopwatch on this issue"
)

// timeTracking is Gitea's [service] time tracking settings as the rules
// apply them (no per-repository setting is stored: every repository has
// the defaults).
type timeTracking struct {
	off, anyone bool
}

// WithTimeTracking sets [service] ENABLE_TIMETRACKING and
// DEFAULT_ENABLE_TIMETRACKING (both needed: enabled) and
// DEFAULT_ALLOW_ONLY_CONTRIBUTORS_TO_TRACK_TIME (contributorsOnly).
func (c *Checker) WithTimeTracking(enabled, contributorsOnly bool) *Checker {
	c.times = timeTracking{off: !enabled, anyone: !contributorsOnly}
	return c
}

func init() {
	// issue-times-reader: time tracking on (404), the issue (index) exists (404); writers of the issues unit and site administrators list anyone's times (user), others their own (403 for another user's).
	Rules["issue-times-reader"] = Rule{
		On: auth.RepositoryResource, Fields: []string{"index", "user"},
		decide: func(ctx context.Context, c *Checker, s *subject) (*Object, error) {
			if c.times.off {
				return nil, errs.New(errs.NotFound, TimetrackerOffMessage)
			}
			is, err := c.issue(ctx, s, errTargetNotFound)
			if err != nil {
				return nil, err
			}
			u, err := c.timesUser(ctx, s)
			if err != nil {
				return nil, err
			}
			return &Object{Issue: is, User: u}, nil
		},
	}
	// repo-times-reader: time tracking on (400); as issue-times-reader for the repository's times.
	Rules["repo-times-reader"] = Rule{
		On: auth.RepositoryResource, Fields: []string{"user"},
		decide: func(ctx context.Context, c *Checker, s *subject) (*Object, error) {
			if c.times.off {
				return nil, errs.New(errs.FailedPrecondition, TimeTrackingOffMessage)
			}
			u, err := c.timesUser(ctx, s)
			if err != nil {
				return nil, err
			}
			return &Object{User: u}, nil
		},
	}
	// time-tracker: the issue (index) exists (404); time tracking on (400) and the caller may track time there: anyone who reads it, or with contributors only (the default) a writer of its unit, its poster or an assignee (403).
	Rules["time-tracker"] = Rule{
		On: auth.RepositoryResource, Fields: []string{"index"},
		decide: func(ctx context.Context, c *Checker, s *subject) (*Object, error) {
			is, err := c.timeTracker(ctx, s)
			if err != nil {
				return nil, err
			}
			return &Object{Issue: is, User: s.caller.User}, nil
		},
	}
	// time-tracker-for-user: time-tracker; the time is the caller's, or the account user_name names when the caller administers the repository or the site (404 unknown).
	Rules["time-tracker-for-user"] = Rule{
		On: auth.RepositoryResource, Fields: []string{"index", "user_name"},
		decide: func(ctx context.Context, c *Checker, s *subject) (*Object, error) {
			is, err := c.timeTracker(ctx, s)
			if err != nil {
				return nil, err
			}
			u := s.caller.User
			name := stringField(s.req, "user_name")
			if name != "" && ((s.repo.Mode >= store.AccessAdmin && name != s.caller.User.Name) || s.caller.IsAdmin()) {
				if u, err = c.individual(ctx, name, s.caller); err != nil {
					return nil, err
				}
			}
			return &Object{Issue: is, User: u}, nil
		},
	}
	// time-deleter: time-tracker; the tracked time (id) of that issue exists (404) and is the caller's, or the caller is a site administrator (403).
	Rules["time-deleter"] = Rule{
		On: auth.RepositoryResource, Fields: []string{"index", "id"},
		decide: func(ctx context.Context, c *Checker, s *subject) (*Object, error) {
			is, err := c.timeTracker(ctx, s)
			if err != nil {
				return nil, err
			}
			t, err := c.store.TrackedTimeByID(ctx, is.ID, intField(s.req, "id"))
			if errors.Is(err, store.ErrNotFound) {
				return nil, errTargetNotFound
			}
			if err != nil {
				return nil, errs.Wrap(err, "load tracked time")
			}
			if t.UserID != s.caller.ID() && !s.caller.IsAdmin() {
				return nil, errs.New(errs.PermissionDenied, DeleteOtherTimeMessage)
			}
			return &Object{Issue: is, Time: t}, nil
		},
	}
	// stopwatch-user: the issue (index) exists (404); the caller writes its unit and may track time there (403).
	Rules["stopwatch-user"] = Rule{
		On: auth.RepositoryResource, Fields: []string{"index"},
		decide: func(ctx context.Context, c *Checker, s *subject) (*Object, error) {
			is, err := c.issue(ctx, s, errTargetNotFound)
			if err != nil {
				return nil, err
			}
			if s.repo.issueUnitMode(issueUnitOf(is)) < store.AccessWrite {
				return nil, errs.New(errs.PermissionDenied, StopwatchNotAllowMessage)
			}
			if ok, err := c.mayTrackTime(ctx, s, is); err != nil {
				return nil, err
			} else if !ok {
				return nil, errs.New(errs.PermissionDenied, StopwatchNotAllowMessage)
			}
			return &Object{Issue: is}, nil
		},
	}
}

// timesUser is the user whose times a list shows: the request's user
// (404 unknown), restricted to the caller unless they write the issues
// unit or administer the site.
func (c *Checker) timesUser(ctx context.Context, s *subject) (*store.User, error) {
	var u *store.User
	if name := stringField(s.req, "user"); name != "" {
		var err error
		if u, err = c.individual(ctx, name, s.caller); err != nil {
			return nil, err
		}
	}
	if s.caller.IsAdmin() || s.repo.UnitMode(auth.UnitIssues) >= store.AccessWrite || (u != nil && u.ID == s.caller.ID()) {
		return u, nil
	}
	if u != nil {
		return nil, errs.New(errs.PermissionDenied, TimesByUserMessage)
	}
	return s.caller.User, nil
}

// timeTracker loads the request's issue and checks the caller may track
// time on it.
func (c *Checker) timeTracker(ctx context.Context, s *subject) (*store.Issue, error) {
	is, err := c.issue(ctx, s, errTargetNotFound)
	if err != nil {
		return nil, err
	}
	ok, err := c.mayTrackTime(ctx, s, is)
	if err != nil {
		return nil, err
	}
	if !ok {
		if c.times.off {
			return nil, errs.New(errs.FailedPrecondition, TimeTrackingOffMessage)
		}
		return nil, errs.New(errs.PermissionDenied, CannotTrackTimeMessage)
	}
	return is, nil
}

// mayTrackTime is Gitea's CanUseTimetracker: tracking on, and anyone may
// track or the caller writes the issue's unit, posted it or is assigned.
func (c *Checker) mayTrackTime(ctx context.Context, s *subject, is *store.Issue) (bool, error) {
	if c.times.off {
		return false, nil
	}
	if c.times.anyone || s.repo.issueUnitMode(issueUnitOf(is)) >= store.AccessWrite || is.PosterID == s.caller.ID() {
		return true, nil
	}
	as, err := c.store.IssueAssignees(ctx, []int64{is.ID})
	if err != nil {
		return false, errs.Wrap(err, "load assignees")
	}
	return slices.Contains(as[is.ID], s.caller.ID()), nil
}
