package repos

import (
	"context"
	"time"
)

// ReconcileAt is Reconcile as it would run at now: tests pass a time
// past the writers' grace for a pass that takes every entry at once.
func (s *Syncer) ReconcileAt(ctx context.Context, now time.Time) error {
	return s.reconcile(ctx, now)
}
