package store

import (
	"database/sql"
	"sync/atomic"
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

// enqueueActivity is enqueueActivity on the transaction's connection
// (rawtx.go). On PostgreSQL the activity's insert and the webhook event's
// are one statement (a data-modifying CTE runs whether or not the rest
// reads it): one round trip instead of two.
func (r rawTx) enqueueActivity(tx *gorm.DB, a Activity) error {
	event := newActivity(&a)
	hook := hookEventArgs(&event)
	if ins := r.inserterFor(tx, &a); ins != nil && r.s.postgres {
		text := activityAndHookEventPG.Load()
		if text == nil {
			t := newSQLText("WITH a AS (INSERT INTO " + ins.into + " (" + ins.cols + ") VALUES (" +
				placeholders(len(ins.fields)) + "))\n" + insertHookEventSQL.sqlite)
			text = &t
			activityAndHookEventPG.Store(text)
		}
		res, err := r.exec(*text, append(ins.args(r.ctx, &a), hook...)...)
		if err != nil {
			return err
		}
		r.s.activityInsertedIn(r.ctx)
		r.hookEventsWritten(res) // the statement's rows are the webhook event's
		return nil
	}
	if err := r.insert(tx, &a); err != nil {
		return err
	}
	res, err := r.exec(insertHookEventSQL, hook...)
	if err != nil {
		return err
	}
	r.hookEventsWritten(res)
	return nil
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

// activityAndHookEventPG is enqueueActivity's statement on PostgreSQL.
var activityAndHookEventPG atomic.Pointer[sqlText]
