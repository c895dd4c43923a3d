package notify

import (
	"context"

	"forge/services/auth"
	"forge/services/store"
)

// Store is what the notification use cases read and write. *store.Store
// implements it (checked in cmd/forge/app). Errors other than the
// sentinels named are internal failures.
type Store interface {
	// ListNotifications returns a page of the threads f selects, most
	// recently updated first, and their total.
	ListNotifications(ctx context.Context, f store.NotificationFilter, offset, limit int) ([]store.NotificationThread, int64, error)
	// CountNotifications counts the threads f selects.
	CountNotifications(ctx context.Context, f store.NotificationFilter) (int64, error)
	// NotificationByID returns store.ErrNotFound for an unknown thread.
	NotificationByID(ctx context.Context, id int64) (*store.NotificationThread, error)
	// SetNotificationStatus returns store.ErrNotFound for an unknown
	// thread.
	SetNotificationStatus(ctx context.Context, id int64, status int, now int64) (*store.NotificationThread, error)
	// SetNotificationsStatus changes every thread f selects and returns
	// up to limit of them.
	SetNotificationsStatus(ctx context.Context, f store.NotificationFilter, status int, now int64, limit int) ([]store.NotificationThread, error)
	// UsersByID loads the users among ids; unknown ids are absent.
	UsersByID(ctx context.Context, ids []int64) (map[int64]*store.User, error)
}

// Service holds the notification rules apart from any transport; one file
// per use case (list.go, mark.go, thread.go).
type Service struct {
	store Store
	// now is the clock of status changes (tests pin it).
	now func() int64
	// maxAnswer bounds the threads a mark answers with.
	maxAnswer int
}

// NewService builds the use cases on st; a mark answers with at most
// maxAnswer threads.
func NewService(st Store, now func() int64, maxAnswer int) *Service {
	return &Service{store: st, now: now, maxAnswer: maxAnswer}
}

// mine is the filter of viewer's threads: their own, in repositories they
// can still see (access.Filter, the list visibility rule), about issues
// whose unit they may still read (the store applies the unit rule to
// every thread query).
func mine(viewer *auth.Principal, visible store.RepoFilter) store.NotificationFilter {
	return store.NotificationFilter{UserID: viewer.ID(), Repos: visible}
}
