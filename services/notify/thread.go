package notify

import (
	"context"
	"errors"

	"forge/services/access"
	"forge/services/auth"
	"forge/services/errs"
	"forge/services/store"
)

// Thread returns t, the thread the policy's rule thread-owner-or-admin
// loaded (missing is 404, another user's 403 unless viewer is a site
// administrator), unless it is of a repository viewer can no longer see
// or about an issue whose unit (issues, or pull requests) they may no
// longer read, which is answered as missing.
func (s *Service) Thread(ctx context.Context, viewer *auth.Principal, t *store.NotificationThread) (*store.NotificationThread, error) {
	id := t.ID
	n, err := s.store.CountNotifications(ctx, store.NotificationFilter{UserID: t.UserID, ThreadID: id, Repos: access.Filter(viewer)})
	if err != nil {
		return nil, errs.Wrap(err, "get notification")
	}
	if n == 0 {
		return nil, access.ThreadNotFound(id)
	}
	return t, nil
}

// MarkThread moves one thread (as Thread finds it) to toStatus, read by
// default.
func (s *Service) MarkThread(ctx context.Context, viewer *auth.Principal, t *store.NotificationThread, to string) (*store.NotificationThread, error) {
	if _, err := s.Thread(ctx, viewer, t); err != nil {
		return nil, err
	}
	id := t.ID
	t, err := s.store.SetNotificationStatus(ctx, id, toStatus(to), s.now())
	if errors.Is(err, store.ErrNotFound) {
		return nil, access.ThreadNotFound(id) // deleted in between
	}
	return t, errs.Wrap(err, "mark notification")
}
