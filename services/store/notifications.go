package store

import (
	"cmp"
	"context"
	"database/sql/driver"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"strings"
	"sync"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// Notification is a user's thread about one issue or pull request: created
// by the first activity that concerns the user, then moved back to unread
// and to the top by later activity (one row per user and issue).
type Notification struct {
	ID          int64 `gorm:"primaryKey"`
	UserID      int64
	RepoID      int64
	IssueID     int64
	CommentID   int64
	Status      int // NotificationUnread, NotificationRead, NotificationPinned
	Source      int // NotificationSourceIssue, ...
	UpdatedUnix int64
	CreatedUnix int64
}

func (Notification) TableName() string { return "notifications" }

// Thread statuses, as Gitea numbers them.
const (
	NotificationUnread = 1
	NotificationRead   = 2
	NotificationPinned = 3
)

// Thread subjects, as Gitea numbers them. Only issues and pull requests
// produce threads today.
const (
	NotificationSourceIssue      = 1
	NotificationSourcePull       = 2
	NotificationSourceCommit     = 3
	NotificationSourceRepository = 4
)

// NotificationThread is a thread with what rendering it needs: its
// repository, its issue (nil when the issue is gone), the id of the
// issue's latest comment (0: none) and, for a pull request, whether it
// was merged (its subject's state).
type NotificationThread struct {
	Notification
	Repo          *Repository
	Issue         *Issue
	LastCommentID int64
	Merged        bool
}

// NotificationFilter selects a user's threads.
type NotificationFilter struct {
	UserID int64
	// ThreadID, when set, keeps one thread.
	ThreadID int64
	// RepoID, when set, keeps one repository's threads.
	RepoID int64
	// Statuses keeps threads in these statuses; empty keeps every status.
	Statuses []int
	// Sources keeps threads about these subjects; empty keeps every one.
	Sources []int
	// Since and Before bound updated_unix (inclusive); 0 is unbounded.
	Since, Before int64
	// Repos drops threads of repositories the user may no longer see
	// (access.Filter of the user), or whose subject's unit (issues, or
	// pull requests) they may no longer read, so a lost access hides old
	// titles.
	Repos RepoFilter
}

// where applies f to a query on notifications.
func (s *Store) notificationsWhere(q *gorm.DB, f NotificationFilter) *gorm.DB {
	q = q.Where("notifications.user_id = ?", f.UserID)
	if f.ThreadID != 0 {
		q = q.Where("notifications.id = ?", f.ThreadID)
	}
	if f.RepoID != 0 {
		q = q.Where("notifications.repo_id = ?", f.RepoID)
	}
	if len(f.Statuses) > 0 {
		q = q.Where("notifications.status IN ?", f.Statuses)
	}
	if len(f.Sources) > 0 {
		q = q.Where("notifications.source IN ?", f.Sources)
	}
	if f.Since != 0 {
		q = q.Where("notifications.updated_unix >= ?", f.Since)
	}
	if f.Before != 0 {
		q = q.Where("notifications.updated_unix <= ?", f.Before)
	}
	visible := s.applyRepoFilter(s.db.Model(&Repository{}).Select("repositories.id"), f.Repos)
	q = q.Where("notifications.repo_id IN (?)", visible)
	// The subject's unit too (issues, or pull requests): a team may give
	// code only.
	q = s.issueUnitCond(q, f.Repos, "notifications.repo_id", "notifications.source = "+strconv.Itoa(NotificationSourcePull))
	// A thread about a deleted issue is gone too (a fan-out racing the
	// delete may still write one).
	return q.Where("(notifications.issue_id = 0 OR notifications.issue_id IN (?))", s.db.Model(&Issue{}).Select("issues.id"))
}

// ListNotifications returns a page of the threads f selects, most
// recently updated first, and how many there are.
func (s *Store) ListNotifications(ctx context.Context, f NotificationFilter, offset, limit int) ([]NotificationThread, int64, error) {
	q := s.notificationsWhere(s.db.WithContext(ctx).Model(&Notification{}), f)
	var total int64
	if err := q.Count(&total).Error; err != nil {
		return nil, 0, err
	}
	var rows []Notification
	err := s.notificationsWhere(s.db.WithContext(ctx).Model(&Notification{}), f).
		Order("notifications.updated_unix DESC, notifications.id DESC").
		Offset(offset).Limit(limit).Find(&rows).Error
	if err != nil {
		return nil, 0, err
	}
	list, err := s.notificationDetails(ctx, rows)
	return list, total, err
}

// CountNotifications counts the threads f selects (GET /notifications/new).
func (s *Store) CountNotifications(ctx context.Context, f NotificationFilter) (int64, error) {
	var n int64
	err := s.notificationsWhere(s.db.WithContext(ctx).Model(&Notification{}), f).Count(&n).Error
	return n, err
}

// NotificationByID returns one thread; ErrNotFound when there is none.
func (s *Store) NotificationByID(ctx context.Context, id int64) (*NotificationThread, error) {
	var n Notification
	err := s.db.WithContext(ctx).Where("id = ?", id).Take(&n).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, err
	}
	list, err := s.notificationDetails(ctx, []Notification{n})
	if err != nil {
		return nil, err
	}
	if len(list) == 0 {
		return nil, ErrNotFound // its repository went in between
	}
	return &list[0], nil
}

// SetNotificationStatus moves one thread to status, at now (Gitea moves
// updated_unix on every status change). ErrNotFound when there is none.
func (s *Store) SetNotificationStatus(ctx context.Context, id int64, status int, now int64) (*NotificationThread, error) {
	res := s.db.WithContext(ctx).Model(&Notification{}).Where("id = ?", id).
		Updates(map[string]any{"status": status, "updated_unix": now})
	if res.Error != nil {
		return nil, res.Error
	}
	if res.RowsAffected == 0 {
		return nil, ErrNotFound
	}
	return s.NotificationByID(ctx, id)
}

// SetNotificationsStatus moves every thread f selects to status, at now,
// in one statement, and returns up to limit of the changed threads, most
// recently updated first (PUT /notifications). A thread changed by a
// concurrent request is changed once more, as Gitea does.
func (s *Store) SetNotificationsStatus(ctx context.Context, f NotificationFilter, status int, now int64, limit int) ([]NotificationThread, error) {
	var changed []Notification
	q := s.db.WithContext(ctx).Model(&changed)
	if s.postgres {
		// The notifier revives a batch's threads in (issue, user) order
		// (FanOutActivities); the user's threads are locked in issue
		// order here too, so the two never wait for each other (a
		// deadlock PostgreSQL would answer by failing one of them).
		sel := s.notificationsWhere(s.db.Model(&Notification{}).Select("notifications.id"), f).
			Order("notifications.issue_id").Clauses(clause.Locking{Strength: "UPDATE"})
		q = q.Where("id IN (?)", sel)
	} else {
		q = s.notificationsWhere(q, f)
	}
	err := q.Clauses(clause.Returning{}).
		Updates(map[string]any{"status": status, "updated_unix": now}).Error
	if err != nil {
		return nil, err
	}
	// updated_unix is now the same for all; the id breaks the tie as the
	// list does.
	slices.SortFunc(changed, func(a, b Notification) int { return cmp.Compare(b.ID, a.ID) })
	if len(changed) > limit {
		changed = changed[:limit]
	}
	return s.notificationDetails(ctx, changed)
}

// notificationDetails loads the repositories, issues and latest comments
// of rows, keeping their order; a row whose repository is gone is left
// out.
func (s *Store) notificationDetails(ctx context.Context, rows []Notification) ([]NotificationThread, error) {
	if len(rows) == 0 {
		return []NotificationThread{}, nil
	}
	repoIDs := make([]int64, 0, len(rows))
	issueIDs := make([]int64, 0, len(rows))
	for _, n := range rows {
		repoIDs = append(repoIDs, n.RepoID)
		if n.IssueID != 0 {
			issueIDs = append(issueIDs, n.IssueID)
		}
	}
	db := s.db.WithContext(ctx)
	var repos []Repository
	if err := db.Where("id IN ?", repoIDs).Find(&repos).Error; err != nil {
		return nil, err
	}
	byRepo := make(map[int64]*Repository, len(repos))
	for i := range repos {
		byRepo[repos[i].ID] = &repos[i]
	}
	byIssue := map[int64]*Issue{}
	lastComment := map[int64]int64{}
	merged := map[int64]bool{}
	var issues []Issue
	if len(issueIDs) > 0 {
		if err := db.Where("id IN ?", issueIDs).Find(&issues).Error; err != nil {
			return nil, err
		}
		for i := range issues {
			byIssue[issues[i].ID] = &issues[i]
		}
		var last []struct {
			IssueID int64
			ID      int64
		}
		err := db.Model(&Comment{}).Select("issue_id, MAX(id) AS id").
			Where("issue_id IN ? AND type = 0", issueIDs).Group("issue_id").Scan(&last).Error
		if err != nil {
			return nil, err
		}
		for _, l := range last {
			lastComment[l.IssueID] = l.ID
		}
		var pullIssues []int64
		for _, is := range issues {
			if is.IsPull {
				pullIssues = append(pullIssues, is.ID)
			}
		}
		if len(pullIssues) > 0 {
			var ids []int64
			err := db.Model(&PullRequest{}).Where("issue_id IN ? AND has_merged = ?", pullIssues, true).Pluck("issue_id", &ids).Error
			if err != nil {
				return nil, err
			}
			for _, id := range ids {
				merged[id] = true
			}
		}
	}
	out := make([]NotificationThread, 0, len(rows))
	for _, n := range rows {
		r := byRepo[n.RepoID]
		if r == nil {
			continue
		}
		out = append(out, NotificationThread{Notification: n, Repo: r, Issue: byIssue[n.IssueID], LastCommentID: lastComment[n.IssueID],
			Merged: merged[n.IssueID]})
	}
	return out, nil
}

// The activity queue (table activities) is written by the issue writes in
// their own transactions; FanOutActivities turns rows into notification
// threads, many at a time. The request that caused the activity pays one
// INSERT; the fan-out is four statements (five on PostgreSQL: the plan
// mode) and one commit per batch,
// whatever the number of activities, issues and watchers in it: one
// transaction per activity (a commit, an fsync on PostgreSQL, and the
// SQLite write lock taken again each time) could not keep up with 50
// concurrent writers (issue 16).

// FanOutActivities claims up to max of the oldest activities, creates or
// revives the threads of everyone they concern and deletes them, in one
// transaction, and returns how many it claimed (0: the queue is empty, or
// every row is claimed by another notifier). A crash before the commit
// leaves the activities queued and writes nothing; threads are keyed by
// (user, issue), so no thread is ever duplicated. Threads are locked in
// (issue, user) order, as SetNotificationsStatus locks a user's, so two
// notifiers, or a notifier and a user marking their threads read, never
// wait for each other. Several processes may
// call it at once: on PostgreSQL a claimed row is locked and skipped by
// the others (FOR UPDATE SKIP LOCKED), on SQLite the transaction holds the
// one write lock, so an activity is delivered exactly once.
//
// Who is concerned: the repository's watchers, the issue's poster,
// commenters, assignees, the users its text mentions and those who
// subscribed to it (issue_watches), less those who unsubscribed from it,
// never the actor,
// and only those who may read the issue's unit (issues, or pull requests;
// unitReaderIDs). A thread already unread or pinned keeps its status and
// the comment it pointed to (so the first unread comment is not lost); a
// read one becomes unread at the new comment; every one moves to the
// activity's time unless it is later already (two notifiers may finish one
// issue's activities out of order). The activities of one issue in a
// batch are written as one, with the result of writing them one by one in
// order (activityGroup).
func (s *Store) FanOutActivities(ctx context.Context, max int) (int, error) {
	claimed := 0
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		q := tx.Order("id").Limit(max)
		if s.postgres {
			q = q.Clauses(clause.Locking{Strength: "UPDATE", Options: "SKIP LOCKED"})
		}
		var acts []Activity
		if err := q.Find(&acts).Error; err != nil || len(acts) == 0 {
			return err
		}
		claimed = len(acts)
		groups := groupActivities(acts)
		issueIDs := make([]int64, 0, len(groups))
		for _, g := range groups {
			issueIDs = append(issueIDs, g.issueID)
		}
		// The issues and their repositories in one statement, and of a
		// repository only what the unit rule reads (unitReaderIDs): an
		// issue or repository that went before we got here has nothing to
		// say, and the join leaves it out. Scanned by hand: gorm's Scan
		// into structs cost ~16 allocations a row.
		const cols = "issues.id, issues.is_pull, issues.repo_id, repositories.owner_id, repositories.is_private, repositories.has_issues, repositories.has_pull_requests"
		read := tx.Table("issues").Select(cols).
			Joins("JOIN repositories ON repositories.id = issues.repo_id").
			Where(s.idsIn("issues.id", issueIDs))
		if s.postgres {
			// One index lookup per id. As a plain IN, PostgreSQL scanned
			// the whole table while its statistics still described it
			// small (a new database's, until autovacuum analyses it):
			// every issue of the site read on each batch. OFFSET 0 keeps
			// the planner from turning the lookups back into that scan.
			read = tx.Raw(`SELECT `+cols+` FROM unnest(CAST(? AS BIGINT[])) AS v (id)
CROSS JOIN LATERAL (SELECT id, is_pull, repo_id FROM issues WHERE issues.id = v.id OFFSET 0) issues
JOIN repositories ON repositories.id = issues.repo_id`, pgIDs(issueIDs))
		}
		rows, err := read.Rows()
		if err != nil {
			return err
		}
		issues := make([]Issue, 0, len(issueIDs)) // never grown: pointers into it stay valid
		issueByID := make(map[int64]*Issue, len(issueIDs))
		repoByID := map[int64]*Repository{}
		var id, repoID, ownerID int64
		var isPull, isPrivate, hasIssues, hasPulls bool
		for rows.Next() {
			if err := rows.Scan(&id, &isPull, &repoID, &ownerID, &isPrivate, &hasIssues, &hasPulls); err != nil {
				rows.Close()
				return err
			}
			if repoByID[repoID] == nil {
				repoByID[repoID] = &Repository{ID: repoID, OwnerID: ownerID, IsPrivate: isPrivate, HasIssues: hasIssues, HasPullRequests: hasPulls}
			}
			issues = append(issues, Issue{ID: id, RepoID: repoID, IsPull: isPull})
			issueByID[id] = &issues[len(issues)-1]
		}
		if err := rows.Close(); err != nil {
			return err
		}
		if err := rows.Err(); err != nil {
			return err
		}
		live := groups[:0]
		for _, g := range groups {
			if is := issueByID[g.issueID]; is != nil {
				g.issue, g.repo = is, repoByID[is.RepoID]
				live = append(live, g)
			}
		}
		ids := make([]int64, len(acts))
		for i := range acts {
			ids[i] = acts[i].ID
		}
		if err := tx.Where(s.idsIn("id", ids)).Delete(&Activity{}).Error; err != nil {
			return err
		}
		if len(live) == 0 {
			return nil
		}
		if s.postgres {
			// A generic plan for the threads statement, built once per
			// connection: planning it costs more than running it (~2.5 ms
			// against ~1 ms for 20 issues, issue 16), and its parameters
			// tell the planner nothing a custom plan could use (a JSON
			// array is 100 rows to it whatever it holds). Its reads go
			// issue by issue through the indexes (concernedCTE), which a
			// small table does not turn into scans. Set last: the claim,
			// the issues read and the delete keep PostgreSQL's default.
			if err := tx.Exec("SET LOCAL plan_cache_mode = force_generic_plan").Error; err != nil {
				return err
			}
		}
		return s.writeThreads(tx, live)
	})
	return claimed, err
}

// activityGroup is the activities of one issue in a batch, oldest first.
type activityGroup struct {
	issueID int64
	acts    []Activity
	issue   *Issue
	repo    *Repository
}

// groupActivities groups acts (oldest first) by issue, in issue order.
func groupActivities(acts []Activity) []*activityGroup {
	byIssue := map[int64]*activityGroup{}
	var groups []*activityGroup
	for _, a := range acts {
		g := byIssue[a.IssueID]
		if g == nil {
			g = &activityGroup{issueID: a.IssueID}
			byIssue[a.IssueID] = g
			groups = append(groups, g)
		}
		g.acts = append(g.acts, a)
	}
	slices.SortFunc(groups, func(a, b *activityGroup) int { return cmp.Compare(a.issueID, b.issueID) })
	return groups
}

// delivery is what a group's activities leave on one user's thread, as if
// written one by one: the first activity the user did not do gives the
// thread its comment (when it is new or read) and its creation time, the
// latest one its update time.
type delivery struct {
	commentID, created, updated int64
}

// deliveries are g's delivery to users who did none of its activities
// (all), and to each actor who did some but not all (byActor); silent
// are the actors who did them all: nothing to tell them.
func (g *activityGroup) deliveries() (all delivery, byActor map[int64]delivery, silent []int64) {
	var actors []int64
	for _, a := range g.acts {
		if !slices.Contains(actors, a.ActorID) {
			actors = append(actors, a.ActorID)
		}
	}
	byActor = map[int64]delivery{}
	for i, a := range g.acts {
		if i == 0 {
			all = delivery{commentID: a.CommentID, created: a.CreatedUnix}
		}
		all.updated = max(all.updated, a.CreatedUnix)
		for _, x := range actors {
			if x == a.ActorID {
				continue
			}
			d, ok := byActor[x]
			if !ok {
				d = delivery{commentID: a.CommentID, created: a.CreatedUnix}
			}
			d.updated = max(d.updated, a.CreatedUnix)
			byActor[x] = d
		}
	}
	for _, x := range actors {
		if _, ok := byActor[x]; !ok {
			silent = append(silent, x)
		}
	}
	return all, byActor, silent
}

// writeThreads creates or revives the threads of groups in one statement:
// g is the groups' issues and what they tell users who did none of their
// activities, o what they tell (or not, silent) their actors, c everyone
// concerned by each issue (with g's columns, so no join back to g).
func (s *Store) writeThreads(tx *gorm.DB, groups []*activityGroup) error {
	// g and o come as JSON arrays of rows (jsonArg), so the statement's
	// text does not grow with the batch and stays prepared.
	gRows := make([][6]int64, 0, len(groups))
	oRows := [][6]int64{} // [] rather than null: PostgreSQL expands no scalar
	// The unit rule: users who may read the issues unit, or the pull
	// requests one, of each repository (a watcher may read its code only);
	// the lists check again when a thread is read.
	type class struct {
		repo *Repository
		unit int
	}
	var classes []class
	issuesOf := map[class][]int64{}
	for _, g := range groups {
		source, unit := NotificationSourceIssue, UnitTypeIssues
		if g.issue.IsPull {
			source, unit = NotificationSourcePull, UnitTypePullRequests
		}
		k := class{g.repo, unit}
		if _, ok := issuesOf[k]; !ok {
			classes = append(classes, k)
		}
		issuesOf[k] = append(issuesOf[k], g.issueID)
		all, byActor, silent := g.deliveries()
		gRows = append(gRows, [6]int64{g.issueID, g.repo.ID, int64(source), all.commentID, all.created, all.updated})
		for x, d := range byActor {
			oRows = append(oRows, [6]int64{g.issueID, x, 0, d.commentID, d.created, d.updated})
		}
		for _, x := range silent {
			oRows = append(oRows, [6]int64{g.issueID, x, 1, 0, 0, 0})
		}
	}
	// The text still varies with the classes (one condition each, whose
	// shape depends on the repository), which are few: one for a batch
	// of one repository's issues.
	var readable []string
	var readArgs []any
	for _, k := range classes {
		in, ids := s.idsIn("c.issue_id", issuesOf[k])
		readable = append(readable, "("+in+" AND c.uid IN (?))")
		readArgs = append(readArgs, ids, s.unitReaderIDs(k.repo, k.unit))
	}
	args := []any{jsonArg{gRows}, jsonArg{oRows}, NotificationUnread}
	args = append(args, readArgs...)
	args = append(args, NotificationRead, NotificationUnread, NotificationRead)
	// A recipient's account is held (FOR KEY SHARE) until the threads
	// commit: a deletion of that user, which locks the account before it
	// removes the user's threads, either finishes first (and the join
	// leaves the user out) or waits for this batch (and removes its
	// thread). SQLite has one writer at a time.
	lockUsers := ""
	if s.postgres {
		lockUsers = " FOR KEY SHARE OF users"
	}
	// ORDER BY: concurrent notifiers lock the threads in the same order
	// (no deadlock). WHERE before ON CONFLICT also keeps SQLite's parser
	// from reading ON as a join constraint.
	return tx.Exec(`WITH g (issue_id, repo_id, source, comment_id, created_unix, updated_unix) AS MATERIALIZED (`+s.jsonRows(6)+`),
o (issue_id, user_id, silent, comment_id, created_unix, updated_unix) AS MATERIALIZED (`+s.jsonRows(6)+`),
`+s.concernedCTE()+`
INSERT INTO notifications (user_id, repo_id, issue_id, comment_id, status, source, updated_unix, created_unix)
SELECT c.uid, c.repo_id, c.issue_id, COALESCE(o.comment_id, c.comment_id), ?, c.source,
  COALESCE(o.updated_unix, c.updated_unix), COALESCE(o.created_unix, c.created_unix)
FROM c JOIN users ON users.id = c.uid LEFT JOIN o ON o.issue_id = c.issue_id AND o.user_id = c.uid
WHERE c.uid > 0 AND COALESCE(o.silent, 0) = 0
  AND NOT EXISTS (SELECT 1 FROM issue_watches u WHERE u.issue_id = c.issue_id AND u.user_id = c.uid AND u.is_watching = FALSE)
  AND (`+strings.Join(readable, " OR ")+`)
ORDER BY c.issue_id, c.uid`+lockUsers+`
ON CONFLICT (user_id, issue_id) DO UPDATE SET
  status = CASE WHEN notifications.status = ? THEN ? ELSE notifications.status END,
  comment_id = CASE WHEN notifications.status = ? THEN excluded.comment_id ELSE notifications.comment_id END,
  updated_unix = CASE WHEN excluded.updated_unix > notifications.updated_unix THEN excluded.updated_unix ELSE notifications.updated_unix END`,
		args...).Error
}

// concernedCTE is writeThreads' c: g's columns and each user concerned by
// g's issue (uid).
func (s *Store) concernedCTE() string {
	if !s.postgres {
		return `c (issue_id, repo_id, source, comment_id, created_unix, updated_unix, uid) AS (
  SELECT g.*, watches.user_id FROM g JOIN watches ON watches.repo_id = g.repo_id
  UNION SELECT g.*, issues.poster_id FROM g JOIN issues ON issues.id = g.issue_id
  UNION SELECT g.*, comments.poster_id FROM g JOIN comments ON comments.issue_id = g.issue_id AND comments.type = 0
  UNION SELECT g.*, issue_assignees.assignee_id FROM g JOIN issue_assignees ON issue_assignees.issue_id = g.issue_id
  UNION SELECT g.*, issue_mentions.user_id FROM g JOIN issue_mentions ON issue_mentions.issue_id = g.issue_id
  UNION SELECT g.*, issue_watches.user_id FROM g JOIN issue_watches ON issue_watches.issue_id = g.issue_id AND issue_watches.is_watching = TRUE
)`
	}
	// The same rows, an issue at a time (LATERAL), so each table is read
	// through its index on the issue (or repository) for the batch's
	// issues only. Joined to g, PostgreSQL hashed g and read the tables
	// whole (g is 100 rows to the planner, whatever the batch holds): a
	// cost that grew with the issues, mentions and comments of the whole
	// database (~1.3 ms for a batch of 18 new issues among 2,000; 0.45 ms
	// this way, issue 16). MATERIALIZED keeps the joins below (users, o)
	// out of the per-issue loop.
	return `c (issue_id, repo_id, source, comment_id, created_unix, updated_unix, uid) AS MATERIALIZED (
  SELECT g.*, r.uid FROM g CROSS JOIN LATERAL (
    SELECT watches.user_id FROM watches WHERE watches.repo_id = g.repo_id
    UNION SELECT issues.poster_id FROM issues WHERE issues.id = g.issue_id
    UNION SELECT comments.poster_id FROM comments WHERE comments.issue_id = g.issue_id AND comments.type = 0
    UNION SELECT issue_assignees.assignee_id FROM issue_assignees WHERE issue_assignees.issue_id = g.issue_id
    UNION SELECT issue_mentions.user_id FROM issue_mentions WHERE issue_mentions.issue_id = g.issue_id
    UNION SELECT issue_watches.user_id FROM issue_watches WHERE issue_watches.issue_id = g.issue_id AND issue_watches.is_watching = TRUE
  ) r (uid)
)`
}

// activityHooks are called after an activity row is inserted (see
// OnActivity).
type activityHooks struct {
	mu  sync.Mutex
	fns []func()
}

// OnActivity calls fn after every insert of Activity rows (through
// gorm's tx.Create or issue creation's statements), so the in-process
// notifier can start at once instead of at its next poll. The insert may not be committed yet when fn runs: the
// notifier retries briefly, and polls anyway. Issue creation calls fn
// once after its transaction commits instead (deferredWakes).
func (s *Store) OnActivity(fn func()) {
	s.activity.mu.Lock()
	defer s.activity.mu.Unlock()
	if len(s.activity.fns) == 0 {
		err := s.db.Callback().Create().After("gorm:create").Register("forge:activity", func(db *gorm.DB) {
			if db.Error != nil || db.Statement.Table != "activities" {
				return
			}
			s.activityInsertedIn(db.Statement.Context)
		})
		if err != nil {
			panic(err) // a programming error: the name is registered twice
		}
	}
	s.activity.fns = append(s.activity.fns, fn)
}

// activityInsertedIn calls the OnActivity functions after an insert
// (through gorm or without it, rawtx.go) in a statement run on ctx, or,
// when ctx defers wake-ups (withDeferredWakes), notes it for after the
// commit.
func (s *Store) activityInsertedIn(ctx context.Context) {
	if ctx != nil {
		if w, _ := ctx.Value(deferredWakesKey{}).(*deferredWakes); w != nil {
			w.n++
			return
		}
	}
	s.activityInserted()
}

// deferredWakes counts the activity inserts of a transaction whose
// wake-ups wait for its commit (issue creation, issue_batch.go): a
// transaction that rolls back, or runs again, wakes nobody for rows that
// were never committed. It is used by the one goroutine running the
// transaction.
type deferredWakes struct {
	n     int  // activities inserted
	hooks bool // webhook events inserted
}

type deferredWakesKey struct{}

func withDeferredWakes(ctx context.Context, w *deferredWakes) context.Context {
	return context.WithValue(ctx, deferredWakesKey{}, w)
}

// fire calls the OnActivity functions once if the committed transaction
// inserted any activity: they are wake-ups, one is enough.
func (w *deferredWakes) fire(s *Store) {
	if w.n > 0 {
		w.n = 0
		s.activityInserted()
	}
	if w.hooks {
		w.hooks = false
		s.kickHooks()
	}
}

// activityInserted calls the OnActivity functions.
func (s *Store) activityInserted() {
	s.activity.mu.Lock()
	fns := s.activity.fns
	s.activity.mu.Unlock()
	for _, f := range fns {
		f()
	}
}

// jsonArg passes a list to SQL as one parameter, its JSON text, which
// jsonIDs and jsonRows expand: gorm would expand a slice into one
// placeholder per element, and a statement whose text changes with a
// batch's size is parsed again on every run (SQLite) and kept by no
// statement cache (sqlitestmt.go's maxCachedQuery; pgx's cache would churn).
type jsonArg struct{ v any }

func (j jsonArg) Value() (driver.Value, error) {
	b, err := json.Marshal(j.v)
	return string(b), err
}

// jsonElems is the table of the elements (column value) of a JSON array
// parameter.
func (s *Store) jsonElems() string {
	if s.postgres {
		return "jsonb_array_elements(CAST(? AS jsonb))"
	}
	return "json_each(?)"
}

// jsonIDs is "(subquery)" of the ids in a jsonArg of []int64, for IN.
func (s *Store) jsonIDs() string {
	return "(SELECT CAST(value AS BIGINT) FROM " + s.jsonElems() + ")"
}

// idsIn is the condition "col is one of ids" and its one parameter, for
// the fan-out's lists: the text does not change with the list's length
// (jsonArg). On PostgreSQL the list is an array, compared with = ANY: the
// planner takes a parameter array for 10 elements and reads an index,
// while it takes a JSON array for 100 rows whatever it holds and, below
// some thousands of rows, hashes it against the whole table (reading 18
// of 2,000 issues: 0.05 ms against 0.65 ms, issue 16).
func (s *Store) idsIn(col string, ids []int64) (string, any) {
	if s.postgres {
		return col + " = ANY(CAST(? AS BIGINT[]))", pgIDs(ids)
	}
	return col + " IN " + s.jsonIDs(), jsonArg{ids}
}

// pgIDs is a list of ids as one PostgreSQL bigint[] parameter, whatever
// its length: gorm passes a value with a Value method as is, where it
// would expand a plain slice into one placeholder per element. Value
// returns the []int64 itself, which is no driver.Value: pgx's database/sql
// driver takes any argument (Conn.CheckNamedValue) and encodes the slice
// as an array, in binary; a "{1,2,3}" text it would parse into an array
// first (~8 allocations an element).
type pgIDs []int64

func (p pgIDs) Value() (driver.Value, error) { return []int64(p), nil }

// jsonRows is a SELECT of the rows of a jsonArg of [][n]int64, as n
// BIGINT columns.
func (s *Store) jsonRows(n int) string {
	cols := make([]string, n)
	for i := range cols {
		cols[i] = "CAST(value->>" + strconv.Itoa(i) + " AS BIGINT)"
	}
	return "SELECT " + strings.Join(cols, ", ") + " FROM " + s.jsonElems()
}
