package notify

import (
	"context"
	"errors"
	"fmt"

	"forge/services/access"
	"forge/services/auth"
	"forge/services/errs"
	"forge/services/store"
)

// Thread returns one thread: missing is 404, another user's 403 unless
// viewer is a site administrator (access.MayReadThread), and a thread of
// a repository viewer can no longer see is answered as missing.
func (s *Service) Thread(ctx context.Context, viewer *auth.Principal, id int64) (*store.NotificationThread, error) {
	t, err := s.store.NotificationByID(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return nil, threadNotFound(id)
	}
	if err != nil {
		return nil, errs.Wrap(err, "get notification")
	}
	if err := access.MayReadThread(t.ID, t.UserID, viewer); err != nil {
		return nil, err
	}
	n, err := s.store.CountNotifications(ctx, store.NotificationFilter{UserID: t.UserID, ThreadID: id, Repos: access.Filter(viewer)})
	if err != nil {
		return nil, errs.Wrap(err, "get notification")
	}
	if n == 0 {
		return nil, threadNotFound(id)
	}
	return t, nil
}

// MarkThread moves one thread (as Thread finds it) to toStatus, read by
// default.
func (s *Service) MarkThread(ctx context.Context, viewer *auth.Principal, id int64, to string) (*store.NotificationThread, error) {
	if _, err := s.Thread(ctx, viewer, id); err != nil {
		return nil, err
	}
	t, err := s.store.SetNotificationStatus(ctx, id, toStatus(to), s.now())
	if errors.Is(err, store.ErrNotFound) {
		return nil, threadNotFound(id) // deleted in between
	}
	return t, errs.Wrap(err, "mark notification")
}

func threadNotFound(id int64) error {
	return errs.New(errs.NotFound, fmt.Sprintf("notification does not exist [id: %d]", id))
}
