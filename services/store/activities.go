package store

import (
	"database/sql"
	"time"

	"gorm.io/gorm"
)

// enqueueActivity records something that notifies people, and the webhook
// event of it when a hook may hear it, inside the transaction tx of the
// change itself: the notifier (services/notify)
// fans the row out later and deletes it, so an activity is never lost
// with a crash and never recorded for a change that rolled back.
func (s *Store) enqueueActivity(tx *gorm.DB, a Activity) error {
	hook := newActivity(&a)
	if err := tx.Create(&a).Error; err != nil {
		return err
	}
	// The same change, for webhooks (services/webhooks renders it); the
	// webhook worker is woken only when a hook may hear of it.
	return s.enqueueHookEvent(tx, hook)
}

// newActivity readies a for its insert (a new row, its time when unset)
// and returns the webhook event of the same change.
func newActivity(a *Activity) HookEvent {
	a.ID = 0
	if a.CreatedUnix == 0 {
		a.CreatedUnix = time.Now().Unix()
	}
	return HookEvent{Kind: a.Kind, RepoID: a.RepoID, IssueID: a.IssueID, CommentID: a.CommentID,
		ActorID: a.ActorID, CreatedUnix: a.CreatedUnix}
}

// hookEventsWritten wakes the webhook worker when res (an insert of
// webhook events) wrote any: at once, or after the commit when the
// transaction defers its wake-ups (withDeferredWakes).
func (r rawTx) hookEventsWritten(res sql.Result) {
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return
	}
	if w, _ := r.ctx.Value(deferredWakesKey{}).(*deferredWakes); w != nil {
		w.hooks = true
		return
	}
	r.s.kickHooks()
}
