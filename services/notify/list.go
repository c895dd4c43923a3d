package notify

import (
	"context"
	"strings"
	"time"

	"forge/services/access"
	"forge/services/auth"
	"forge/services/errs"
	"forge/services/store"
)

// ListQuery is the filter of GET /notifications and GET
// /repos/{o}/{r}/notifications as Gitea reads it.
type ListQuery struct {
	RepoID        int64 // 0: every repository
	All           bool
	StatusTypes   []string
	SubjectTypes  []string
	Since, Before string
	Offset, Limit int
}

// List returns a page of viewer's threads and their total.
func (s *Service) List(ctx context.Context, viewer *auth.Principal, q ListQuery) ([]store.NotificationThread, int64, error) {
	f := mine(viewer, access.Filter(viewer))
	f.RepoID = q.RepoID
	var err error
	if f.Since, err = parseTime(q.Since); err != nil {
		return nil, 0, errs.New(errs.Invalid, err.Error())
	}
	if f.Before, err = parseTime(q.Before); err != nil {
		return nil, 0, errs.New(errs.Invalid, err.Error())
	}
	if !q.All {
		f.Statuses = statuses(q.StatusTypes, store.NotificationUnread, store.NotificationPinned)
	}
	f.Sources = sources(q.SubjectTypes)
	list, total, err := s.store.ListNotifications(ctx, f, q.Offset, q.Limit)
	if err != nil {
		return nil, 0, errs.Wrap(err, "list notifications")
	}
	return list, total, nil
}

// CountNew is the number of viewer's unread threads.
func (s *Service) CountNew(ctx context.Context, viewer *auth.Principal) (int64, error) {
	f := mine(viewer, access.Filter(viewer))
	f.Statuses = []int{store.NotificationUnread}
	n, err := s.store.CountNotifications(ctx, f)
	return n, errs.Wrap(err, "count notifications")
}

// parseTime reads an RFC 3339 query time as Unix seconds; empty is 0 (no
// bound). The error is Go's parse error, which Gitea answers as is.
func parseTime(v string) (int64, error) {
	if v = strings.TrimSpace(v); v == "" {
		return 0, nil
	}
	t, err := time.Parse(time.RFC3339, v)
	if err != nil || t.IsZero() {
		return 0, err
	}
	return t.Unix(), nil
}

// statuses maps status-types to thread statuses, def when none is given.
// An unknown name matches nothing, as in Gitea.
func statuses(names []string, def ...int) []int {
	if len(names) == 0 {
		return def
	}
	out := make([]int, 0, len(names))
	for _, n := range names {
		out = append(out, status(n))
	}
	return out
}

// status is a status name's number; 0 for an unknown name.
func status(name string) int {
	switch strings.ToLower(strings.TrimSpace(name)) {
	case "unread":
		return store.NotificationUnread
	case "read":
		return store.NotificationRead
	case "pinned":
		return store.NotificationPinned
	}
	return 0
}

// sources maps subject-type values (any case) to thread sources; unknown
// values are dropped, and none left means no filter, as in Gitea.
func sources(names []string) []int {
	var out []int
	for _, n := range names {
		switch strings.ToLower(strings.TrimSpace(n)) {
		case "issue":
			out = append(out, store.NotificationSourceIssue)
		case "pull":
			out = append(out, store.NotificationSourcePull)
		case "commit":
			out = append(out, store.NotificationSourceCommit)
		case "repository":
			out = append(out, store.NotificationSourceRepository)
		}
	}
	return out
}
