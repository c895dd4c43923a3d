package notify

import (
	"context"
	"net/http"

	"forge/services/access"
	"forge/services/auth"
	"forge/services/errs"
	"forge/services/store"
)

// MarkQuery is the query of PUT /notifications and PUT
// /repos/{o}/{r}/notifications.
type MarkQuery struct {
	RepoID      int64 // 0: every repository
	LastReadAt  string
	All         bool
	StatusTypes []string
	ToStatus    string
}

// Mark moves viewer's threads that q selects (unread ones by default,
// updated at or before last_read_at) to q.ToStatus (read by default) and
// returns the changed threads, at most maxAnswer of them.
func (s *Service) Mark(ctx context.Context, viewer *auth.Principal, q MarkQuery) ([]store.NotificationThread, error) {
	f := mine(viewer, access.Filter(viewer))
	f.RepoID = q.RepoID
	var err error
	if f.Before, err = parseTime(q.LastReadAt); err != nil {
		return nil, errs.New(errs.Invalid, err.Error()).WithHTTPStatus(http.StatusBadRequest)
	}
	if !q.All {
		f.Statuses = statuses(q.StatusTypes, store.NotificationUnread)
	}
	list, err := s.store.SetNotificationsStatus(ctx, f, toStatus(q.ToStatus), s.now(), s.maxAnswer)
	return list, errs.Wrap(err, "mark notifications")
}

// toStatus is the target status of a change: read unless to-status names
// another.
func toStatus(name string) int {
	if st := status(name); st != 0 {
		return st
	}
	return store.NotificationRead
}
