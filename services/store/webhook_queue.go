package store

import (
	"context"
	"strings"
	"sync"
	"time"

	"gorm.io/gorm"
)

// HookEvent is the webhook outbox: something happened in a repository
// that hooks may hear of, recorded in the transaction of the change
// itself (EnqueueHookEvent), so it is never lost with a crash and never
// sent for a change that rolled back. The webhook worker claims it,
// renders its payload and turns it into one HookTask per hook.
type HookEvent struct {
	ID        int64
	Kind      string // the Gitea event type, e.g. issues, issue_label, push
	RepoID    int64
	IssueID   int64
	CommentID int64
	ReleaseID int64
	ActorID   int64
	// HookID: a test delivery for this one hook; 0 every matching hook.
	HookID       int64
	Ref          string
	OldSHA       string
	NewSHA       string
	Extra        string // JSON the kind defines (e.g. the action, a label)
	ClaimedUntil int64
	CreatedUnix  int64
}

func (HookEvent) TableName() string { return "hook_events" }

// HookTask is one delivery of one event to one hook; its request and
// response are kept after it is done.
type HookTask struct {
	ID            int64
	HookID        int64
	RepoID        int64
	UUID          string
	Event         string // X-Gitea-Event
	EventType     string // X-Gitea-Event-Type
	Payload       string // the rendered body, before the hook type's format
	Attempts      int
	Done          bool
	NextUnix      int64
	ClaimedUntil  int64
	Succeeded     bool
	RequestInfo   string
	ResponseInfo  string
	DeliveredUnix int64
	CreatedUnix   int64
}

func (HookTask) TableName() string { return "hook_tasks" }

// hookKicks are called after a hook event or task is queued by this
// process (OnHookEvent).
type hookKicks struct {
	mu  sync.Mutex
	fns []func()
}

// OnHookEvent calls fn after this process queues a hook event or task, so
// the in-process webhook worker starts at once rather than at its next
// poll. The row may not be committed yet when fn runs.
func (s *Store) OnHookEvent(fn func()) {
	k := &s.hooks
	k.mu.Lock()
	defer k.mu.Unlock()
	k.fns = append(k.fns, fn)
}

func (s *Store) kickHooks() {
	k := &s.hooks
	k.mu.Lock()
	fns := k.fns
	k.mu.Unlock()
	for _, fn := range fns {
		fn()
	}
}

// insertHookEvent records e inside the transaction tx of the change, only
// when an active hook may hear of it (the repository's, its owner's or a
// system hook): one statement, nothing written for the common repository
// without hooks. It reports whether it wrote.
func insertHookEvent(tx *gorm.DB, e HookEvent) (bool, error) {
	res := tx.Exec(insertHookEventSQL.sqlite, hookEventArgs(&e)...)
	return res.RowsAffected > 0, res.Error
}

// insertHookEventSQL is insertHookEvent's statement; hookEventArgs its
// arguments (and the event's time, when unset).
var insertHookEventSQL = newSQLText(`INSERT INTO hook_events (kind, repo_id, issue_id, comment_id, release_id, actor_id, hook_id, ref,
	old_sha, new_sha, extra, claimed_until, created_unix)
SELECT ?, ?, ?, ?, ?, ?, 0, ?, ?, ?, ?, 0, ?
WHERE EXISTS (SELECT 1 FROM webhooks WHERE active = ? AND (repo_id = ?
	OR (repo_id = 0 AND owner_id <> 0 AND owner_id = (SELECT owner_id FROM repositories WHERE id = ?))
	OR (repo_id = 0 AND owner_id = 0 AND is_system = ?)))`)

func hookEventArgs(e *HookEvent) []any {
	if e.CreatedUnix == 0 {
		e.CreatedUnix = time.Now().Unix()
	}
	return []any{e.Kind, e.RepoID, e.IssueID, e.CommentID, e.ReleaseID, e.ActorID, e.Ref, e.OldSHA, e.NewSHA, e.Extra, e.CreatedUnix,
		true, e.RepoID, e.RepoID, true}
}

// enqueueHookEvent is insertHookEvent, waking this process's worker.
func (s *Store) enqueueHookEvent(tx *gorm.DB, e HookEvent) error {
	wrote, err := insertHookEvent(tx, e)
	if wrote {
		s.kickHooks()
	}
	return err
}

// EnqueueHookEvent records e on its own (a test delivery, or an event of
// a change that has no transaction of its own, such as a push).
func (s *Store) EnqueueHookEvent(ctx context.Context, e HookEvent) error {
	if e.HookID != 0 {
		if e.CreatedUnix == 0 {
			e.CreatedUnix = time.Now().Unix()
		}
		e.ID, e.ClaimedUntil = 0, 0
		if err := s.db.WithContext(ctx).Create(&e).Error; err != nil {
			return err
		}
		s.kickHooks()
		return nil
	}
	return s.enqueueHookEvent(s.db.WithContext(ctx), e)
}

// claimRows marks up to max due rows of table as claimed until now+lease and
// returns them: one statement, so two processes never claim one row (the
// outer condition is checked again on the locked row; PostgreSQL skips
// rows another claim holds).
func (s *Store) claimRows(ctx context.Context, table, due, order string, max int, lease time.Duration, args []any, dst any) error {
	now := time.Now()
	lock := ""
	if s.postgres {
		lock = " FOR UPDATE SKIP LOCKED"
	}
	q := `UPDATE ` + table + ` SET claimed_until = ? WHERE id IN (SELECT id FROM ` + table +
		` WHERE ` + due + ` AND claimed_until < ? ORDER BY ` + order + ` LIMIT ?` + lock + `) AND ` + due +
		` AND claimed_until < ? RETURNING *`
	all := []any{now.Add(lease).Unix()}
	all = append(all, args...)
	all = append(all, now.Unix(), max)
	all = append(all, args...)
	all = append(all, now.Unix())
	return s.db.WithContext(ctx).Raw(q, all...).Scan(dst).Error
}

// ClaimHookEvents claims up to max queued events for lease.
func (s *Store) ClaimHookEvents(ctx context.Context, max int, lease time.Duration) ([]HookEvent, error) {
	var out []HookEvent
	err := s.claimRows(ctx, "hook_events", "1 = 1", "id", max, lease, nil, &out)
	return out, err
}

// ResolveHookEvent replaces the claimed event id by its deliveries, in one
// transaction; an event whose claim expired and was taken by another
// worker meanwhile is left to that one (nothing written).
func (s *Store) ResolveHookEvent(ctx context.Context, id int64, tasks []HookTask) error {
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		res := tx.Where("id = ?", id).Delete(&HookEvent{})
		if res.Error != nil || res.RowsAffected == 0 {
			return res.Error
		}
		now := time.Now().Unix()
		for i := range tasks {
			tasks[i].ID = 0
			if tasks[i].CreatedUnix == 0 {
				tasks[i].CreatedUnix = now
			}
			if tasks[i].NextUnix == 0 {
				tasks[i].NextUnix = now
			}
		}
		if len(tasks) == 0 {
			return nil
		}
		return tx.Create(&tasks).Error
	})
	if err == nil && len(tasks) > 0 {
		s.kickHooks()
	}
	return err
}

// ClaimHookTasks claims up to max due deliveries for lease.
func (s *Store) ClaimHookTasks(ctx context.Context, max int, lease time.Duration) ([]HookTask, error) {
	var out []HookTask
	err := s.claimRows(ctx, "hook_tasks", "done = ? AND next_unix <= ?", "next_unix, id", max, lease,
		[]any{false, time.Now().Unix()}, &out)
	return out, err
}

// RetryHookTasksNow makes every pending delivery waiting for its retry
// due now (a manual run of the delivery task) and reports how many.
func (s *Store) RetryHookTasksNow(ctx context.Context) (int64, error) {
	now := time.Now().Unix()
	res := s.db.WithContext(ctx).Model(&HookTask{}).Where("done = ? AND next_unix > ?", false, now).
		Update("next_unix", now)
	return res.RowsAffected, res.Error
}

// HookTaskResult is the outcome of one delivery attempt.
type HookTaskResult struct {
	Succeeded    bool
	RequestInfo  string
	ResponseInfo string
	// RetryAt: try again then (unix seconds); 0 the task is done.
	RetryAt int64
}

// FinishHookTaskAttempt records an attempt of the claimed task id and
// releases it.
func (s *Store) FinishHookTaskAttempt(ctx context.Context, id int64, r HookTaskResult) error {
	now := time.Now().Unix()
	up := map[string]any{"attempts": gorm.Expr("attempts + 1"), "succeeded": r.Succeeded,
		"request_info": r.RequestInfo, "response_info": r.ResponseInfo, "delivered_unix": now, "claimed_until": 0}
	if r.RetryAt != 0 {
		up["next_unix"] = r.RetryAt
	} else {
		up["done"] = true
	}
	return s.db.WithContext(ctx).Model(&HookTask{}).Where("id = ?", id).Updates(up).Error
}

// HookTasks returns a page of hook id's deliveries, newest first.
func (s *Store) HookTasks(ctx context.Context, hookID int64, offset, limit int) ([]HookTask, error) {
	var out []HookTask
	err := s.db.WithContext(ctx).Where("hook_id = ?", hookID).Order("id DESC").Offset(offset).Limit(limit).Find(&out).Error
	return out, err
}

// Outbox kinds of branch changes (SyncBranchHeads): a branch created
// (a create event and a push), moved (a push) or deleted.
const (
	HookKindPush   = "push"
	HookKindCreate = "create"
	HookKindDelete = "delete"
	// A release published (created, or a draft made public) or updated.
	HookKindReleasePublished = "release_published"
	HookKindReleaseUpdated   = "release_updated"
	// New commits on a pull request's head (pull_request_sync).
	HookKindPullSync = "pull_sync"
	// A review submitted; Extra holds the review's id.
	HookKindReview = "review"
	// A repository created (repository event).
	HookKindRepoCreated = "repository_created"
	// A fork made of RepoID; Extra holds the fork's id.
	HookKindFork = "fork"
	// A release deleted; Extra holds the release as it was (JSON).
	HookKindReleaseDeleted = "release_deleted"
	// A repository deleted; Extra holds its row as it was (JSON). It goes
	// to its owner's and the system hooks (its own went with it).
	HookKindRepoDeleted = "repository_deleted"
	// Review requested of / withdrawn from a person on pull request
	// IssueID; Extra holds the person's id.
	HookKindReviewRequested      = "review_requested"
	HookKindReviewRequestRemoved = "review_request_removed"
	// Assignees removed from issue IssueID (issues / pull_request
	// "unassigned"; their addition is the activity "assigned").
	HookKindUnassigned = "unassigned"
)

// HookRefTag in a push, create or delete event's Extra: the ref is a tag
// (Ref its short name), not a branch.
const HookRefTag = "tag"

// TagHookEvents are the webhook events of tag name moving from old to
// new (either "" or zeros when absent), by actorID, as Gitea 1.22 sends
// them: a new tag is a push and a create, a moved tag a push, a deleted
// tag a push (to zeros) and a delete.
func TagHookEvents(repoID, actorID int64, name, old, new string) []HookEvent {
	zero := func(sha string) bool { return sha == "" || strings.Trim(sha, "0") == "" }
	e := HookEvent{RepoID: repoID, ActorID: actorID, Ref: name, Extra: HookRefTag}
	if !zero(old) {
		e.OldSHA = old
	}
	if !zero(new) {
		e.NewSHA = new
	}
	push, other := e, e
	push.Kind = HookKindPush
	switch {
	case zero(new):
		other.Kind = HookKindDelete
	case zero(old):
		other.Kind = HookKindCreate
	default:
		return []HookEvent{push}
	}
	return []HookEvent{push, other}
}

// HooksForOwner returns the active hooks of owner ownerID and the system
// hooks, in that order: where an event of a deleted repository goes.
func (s *Store) HooksForOwner(ctx context.Context, ownerID int64) ([]Webhook, error) {
	var out []Webhook
	err := s.db.WithContext(ctx).Where(`active = ? AND repo_id = 0 AND ((owner_id <> 0 AND owner_id = ?)
	OR (owner_id = 0 AND is_system = ?))`, true, ownerID, true).
		Order("CASE WHEN owner_id <> 0 THEN 1 ELSE 2 END, id").Find(&out).Error
	return out, err
}
