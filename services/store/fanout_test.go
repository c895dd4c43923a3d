package store_test

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
	"testing"
	"time"

	"gorm.io/gorm"

	"forge/services/store"
	"forge/services/store/storetest"
)

// queue records activities without fanning them out.
func (w *notifyWorld) queue(t *testing.T, issue *store.Issue, kind, actor string, commentID, at int64) {
	t.Helper()
	a := &store.Activity{Kind: kind, RepoID: w.repo.ID, IssueID: issue.ID, CommentID: commentID, ActorID: w.users[actor].ID, CreatedUnix: at}
	if err := w.s.DB().Create(a).Error; err != nil {
		t.Fatal(err)
	}
}

// A batch leaves the threads that fanning its activities out one by one
// leaves: the first activity a user did not do gives a new or read thread
// its comment, the latest its time; an actor hears of the others'
// activities only, and nothing of a batch that is all theirs.
func TestActivityFanOutBatch(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		w := newNotifyWorld(t, s, "bob", "carol", "dave", "eve")
		if _, err := s.Watch(ctx, w.users["bob"].ID, w.repo.ID); err != nil {
			t.Fatal(err)
		}
		// The same story on two issues: one fanned out an activity at a
		// time, the other in one batch.
		story := func(issue *store.Issue) []int64 {
			// bob read his thread, eve pinned hers, before.
			for name, st := range map[string]int{"bob": store.NotificationRead, "eve": store.NotificationPinned} {
				n := &store.Notification{UserID: w.users[name].ID, RepoID: w.repo.ID, IssueID: issue.ID, Status: st, Source: store.NotificationSourceIssue, UpdatedUnix: 50, CreatedUnix: 50}
				if err := s.DB().Create(n).Error; err != nil {
					t.Fatal(err)
				}
			}
			if err := s.DB().Create(&store.IssueAssignee{RepoID: w.repo.ID, IssueID: issue.ID, AssigneeID: w.users["eve"].ID}).Error; err != nil {
				t.Fatal(err)
			}
			c1, c2, c3 := w.comment(t, issue, "dave"), w.comment(t, issue, "carol"), w.comment(t, issue, "dave")
			w.queue(t, issue, store.ActivityCommented, "dave", c1, 100)
			w.queue(t, issue, store.ActivityCommented, "carol", c2, 200)
			w.queue(t, issue, store.ActivityAssigned, "owner", 0, 150) // out of time order
			w.queue(t, issue, store.ActivityCommented, "dave", c3, 300)
			return []int64{c1, c2, c3}
		}
		// Comments as their place in the story, so both issues compare.
		render := func(issue *store.Issue, comments []int64) map[string]string {
			out := w.threads(t, issue)
			for name, v := range out {
				for i, c := range comments {
					v = replaceSuffix(v, fmt.Sprintf("#%d", c), fmt.Sprintf("#c%d", i+1))
				}
				out[name] = v
			}
			return out
		}
		one := w.newIssue(t, "carol", false)
		oneComments := story(one)
		for {
			n, err := s.FanOutActivities(ctx, 1)
			if err != nil {
				t.Fatal(err)
			}
			if n == 0 {
				break
			}
		}
		batch := w.newIssue(t, "carol", false)
		batchComments := story(batch)
		if n, err := s.FanOutActivities(ctx, 100); err != nil || n != 4 {
			t.Fatalf("batch: %d %v", n, err)
		}
		want := map[string]string{
			"owner": "1@300#c1", // the first activity not theirs, the latest time
			"bob":   "1@300#c1", // read: unread again at the first new comment
			"carol": "1@300#c1", // the poster; their own comment told no one to them
			"dave":  "1@200#c2", // carol's comment and the owner's assignment only
			"eve":   "3@300#0",  // pinned stays pinned, at its comment
		}
		if got := render(one, oneComments); !sameMap(got, want) {
			t.Fatalf("one by one: %v, want %v", got, want)
		}
		if got := render(batch, batchComments); !sameMap(got, want) {
			t.Fatalf("in a batch: %v, want %v", got, want)
		}

		// A batch that is all dave's tells dave nothing.
		solo := w.newIssue(t, "dave", false)
		w.queue(t, solo, store.ActivityIssueCreated, "dave", 0, 400)
		w.queue(t, solo, store.ActivityCommented, "dave", w.comment(t, solo, "dave"), 500)
		if n, err := s.FanOutActivities(ctx, 100); err != nil || n != 2 {
			t.Fatalf("solo batch: %d %v", n, err)
		}
		got := w.threads(t, solo)
		if _, told := got["dave"]; told || got["owner"] != "1@500#0" || got["bob"] != "1@500#0" {
			t.Fatalf("solo: %v", got)
		}
	})
}

func replaceSuffix(s, old, new string) string {
	if len(s) >= len(old) && s[len(s)-len(old):] == old {
		return s[:len(s)-len(old)] + new
	}
	return s
}

// The fan-out's cost does not grow with the activities of a batch: a
// backlog of many activities on a few issues is one transaction of a few
// statements, not a transaction per activity (which left thousands queued
// behind 50 writers, issue 16).
func TestActivityFanOutStatements(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		w := newNotifyWorld(t, s, "bob")
		var issues []*store.Issue
		for range 5 {
			issues = append(issues, w.newIssue(t, "bob", false))
		}
		for i := range 150 {
			w.queue(t, issues[i%len(issues)], store.ActivityCommented, "bob", 0, int64(i+1))
		}
		statements := countStatements(t, s)
		n, err := s.FanOutActivities(context.Background(), 200)
		if err != nil || n != 150 {
			t.Fatalf("fan-out: %d %v", n, err)
		}
		// Claim, issues with their repositories, delete, (on PostgreSQL)
		// the plan mode, threads.
		if got := statements(); got > 5 {
			t.Fatalf("%d statements for 150 activities, want at most 5", got)
		}
		for _, is := range issues {
			if got := w.threads(t, is)["owner"]; got == "" {
				t.Fatalf("no thread on issue %d", is.ID)
			}
		}
	})
}

// countStatements counts the SQL statements s runs from now on.
func countStatements(t *testing.T, s *store.Store) func() int {
	t.Helper()
	var mu sync.Mutex
	n := 0
	count := func(db *gorm.DB) {
		if db.DryRun { // a subquery being built, not run
			return
		}
		mu.Lock()
		n++
		mu.Unlock()
	}
	cb := s.DB().Callback()
	for name, err := range map[string]error{
		"create": cb.Create().After("gorm:create").Register("test:count", count),
		"query":  cb.Query().After("gorm:query").Register("test:count", count),
		"update": cb.Update().After("gorm:update").Register("test:count", count),
		"delete": cb.Delete().After("gorm:delete").Register("test:count", count),
		"raw":    cb.Raw().After("gorm:raw").Register("test:count", count),
		"row":    cb.Row().After("gorm:row").Register("test:count", count),
	} {
		if err != nil {
			t.Fatalf("count %s: %v", name, err)
		}
	}
	return func() int { mu.Lock(); defer mu.Unlock(); return n }
}

// A notifier that dies before its commit (kill -9, a lost connection)
// leaves its batch queued and no thread written: the next run delivers
// each activity once.
func TestActivityFanOutCrash(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		w := newNotifyWorld(t, s, "bob")
		issue := w.newIssue(t, "bob", false)
		for i := range 3 {
			w.queue(t, issue, store.ActivityCommented, "bob", 0, int64(100*(i+1)))
		}
		crash := true
		err := s.DB().Callback().Delete().Before("gorm:delete").Register("test:crash", func(db *gorm.DB) {
			if crash && db.Statement.Table == "activities" {
				db.AddError(errors.New("killed"))
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.FanOutActivities(ctx, 100); err == nil {
			t.Fatal("the crashed fan-out reported success")
		}
		if got := w.threads(t, issue); len(got) != 0 {
			t.Fatalf("threads written by a fan-out that did not commit: %v", got)
		}
		crash = false
		if n, err := s.FanOutActivities(ctx, 100); err != nil || n != 3 {
			t.Fatalf("after the crash: %d %v", n, err)
		}
		if got := w.threads(t, issue); !sameMap(got, map[string]string{"owner": "1@300#0"}) {
			t.Fatalf("threads: %v", got)
		}
		if n, err := s.FanOutActivities(ctx, 100); err != nil || n != 0 {
			t.Fatalf("queue after delivery: %d %v", n, err)
		}
	})
}

// Two forge processes on one PostgreSQL database share the queue: each
// activity is claimed by one of them once, and every user has one thread
// per issue at the issue's latest activity.
func TestActivityFanOutTwoProcesses(t *testing.T) {
	cfg := storetest.Database(t, "postgres")
	var stores []*store.Store
	for range 2 {
		s, err := store.Open(cfg)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		stores = append(stores, s)
	}
	ctx := context.Background()
	w := newNotifyWorld(t, stores[0], "bob", "carol", "dave")
	for _, u := range []string{"bob", "carol"} {
		if _, err := stores[0].Watch(ctx, w.users[u].ID, w.repo.ID); err != nil {
			t.Fatal(err)
		}
	}
	var issues []*store.Issue
	for range 10 {
		issues = append(issues, w.newIssue(t, "dave", false))
	}
	const n = 400
	// latest is each user's thread time on each issue: the latest
	// activity there that is not theirs.
	type key struct{ user, issue int64 }
	latest := map[key]int64{}
	actors := []string{"owner", "bob", "dave"}
	for i := range n {
		is := issues[i%len(issues)]
		actor := actors[i%len(actors)]
		w.queue(t, is, store.ActivityCommented, actor, 0, int64(i+1))
		for _, u := range w.users {
			if u.ID != w.users[actor].ID {
				latest[key{u.ID, is.ID}] = int64(i + 1)
			}
		}
	}
	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		claimed int
		failed  []error
	)
	for _, s := range stores {
		for range 2 { // two notifiers per process
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					// Small batches, so the notifiers meet.
					got, err := s.FanOutActivities(ctx, 7)
					mu.Lock()
					claimed += got
					if err != nil {
						failed = append(failed, err)
					}
					mu.Unlock()
					if got == 0 || err != nil {
						return
					}
				}
			}()
		}
	}
	wg.Wait()
	if len(failed) > 0 {
		t.Fatalf("fan-out errors: %v", failed)
	}
	if claimed != n {
		t.Fatalf("claimed %d activities, want %d", claimed, n)
	}
	var rows []store.Notification
	if err := stores[1].DB().Find(&rows).Error; err != nil {
		t.Fatal(err)
	}
	// owner, bob, carol (watchers) and dave (poster) on every issue.
	if len(rows) != 4*len(issues) {
		t.Fatalf("%d threads, want %d", len(rows), 4*len(issues))
	}
	for _, r := range rows {
		if want := latest[key{r.UserID, r.IssueID}]; r.UpdatedUnix != want {
			t.Errorf("user %d issue %d: updated %d, want %d", r.UserID, r.IssueID, r.UpdatedUnix, want)
		}
	}
}

// A user marking all their threads read while the notifier revives them
// on many issues at once: both lock the user's threads in issue order, so
// neither fails with a deadlock (PostgreSQL aborts one of two
// transactions that wait for each other; the user would see a 500).
func TestActivityFanOutWhileMarking(t *testing.T) {
	s := storetest.Open(t, "postgres")
	ctx := context.Background()
	w := newNotifyWorld(t, s, "bob")
	owner := w.users["owner"]
	var issues []*store.Issue
	for range 30 {
		issues = append(issues, w.newIssue(t, "bob", false))
	}
	const rounds = 60
	var wg sync.WaitGroup
	var mu sync.Mutex
	var failed []error
	fail := func(err error) { mu.Lock(); failed = append(failed, err); mu.Unlock() }
	wg.Add(2)
	go func() {
		defer wg.Done()
		for r := range rounds {
			// Newest issue first, so the queue order is not the lock order.
			for i := len(issues) - 1; i >= 0; i-- {
				a := &store.Activity{Kind: store.ActivityCommented, RepoID: w.repo.ID, IssueID: issues[i].ID, ActorID: w.users["bob"].ID, CreatedUnix: int64(r + 1)}
				if err := s.DB().Create(a).Error; err != nil {
					fail(err)
					return
				}
			}
			if _, err := s.FanOutActivities(ctx, 200); err != nil {
				fail(fmt.Errorf("fan-out: %w", err))
				return
			}
		}
	}()
	go func() {
		defer wg.Done()
		f := store.NotificationFilter{UserID: owner.ID, Repos: seenBy(owner, false)}
		for r := range rounds {
			if _, err := s.SetNotificationsStatus(ctx, f, store.NotificationRead, int64(r+1), 1); err != nil {
				fail(fmt.Errorf("mark: %w", err))
				return
			}
		}
	}()
	wg.Wait()
	if len(failed) > 0 {
		t.Fatal(failed)
	}
}

// A user deleted while a batch names them keeps no thread: the deletion
// locks the account first and removes the user's threads before the
// account; a fan-out that read the watch before the deletion committed
// must wait for it and then leave the user out, or the thread it wrote
// would outlive the user (PostgreSQL; SQLite has one writer at a time).
func TestActivityFanOutRacingUserDeletion(t *testing.T) {
	s := storetest.Open(t, "postgres")
	ctx := context.Background()
	w := newNotifyWorld(t, s, "bob", "carol")
	bob := w.users["bob"]
	if _, err := s.Watch(ctx, bob.ID, w.repo.ID); err != nil {
		t.Fatal(err)
	}
	issue := w.newIssue(t, "carol", false)
	w.queue(t, issue, store.ActivityCommented, "carol", w.comment(t, issue, "carol"), 100)

	// The deletion, held open after it removed bob's threads (as
	// DeleteUser does: account locked, owned rows, then the account).
	del := s.DB().Begin()
	defer del.Rollback()
	for _, q := range []string{
		"SELECT id FROM users WHERE id = ? FOR UPDATE",
		"DELETE FROM notifications WHERE user_id = ?",
	} {
		if err := del.Exec(q, bob.ID).Error; err != nil {
			t.Fatal(err)
		}
	}
	done := make(chan error, 1)
	go func() {
		_, err := s.FanOutActivities(ctx, 10)
		done <- err
	}()
	// Give the fan-out time to reach bob's row (it must wait there).
	select {
	case err := <-done:
		done <- err
	case <-time.After(500 * time.Millisecond):
	}
	for _, q := range []string{
		"DELETE FROM watches WHERE user_id = ?",
		"DELETE FROM users WHERE id = ?",
	} {
		if err := del.Exec(q, bob.ID).Error; err != nil {
			t.Fatal(err)
		}
	}
	if err := del.Commit().Error; err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	var orphans int64
	if err := s.DB().Model(&store.Notification{}).Where("user_id = ?", bob.ID).Count(&orphans).Error; err != nil {
		t.Fatal(err)
	}
	if orphans != 0 {
		t.Errorf("%d notification threads outlived their deleted user", orphans)
	}
}

// A batch over several repositories, issues and pull requests, with an
// issue deleted and a repository gone since their activity, writes each
// thread with its issue's repository and subject (issue or pull request),
// and nothing for what went: the fan-out reads the issues and their
// repositories in one statement.
func TestActivityFanOutAcrossRepositories(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		w := newNotifyWorld(t, s, "bob", "carol")
		other := newRepo(t, s, "other")
		other.HasIssues, other.HasPullRequests = true, true
		if err := s.DB().Model(other).Select("has_issues", "has_pull_requests").Updates(other).Error; err != nil {
			t.Fatal(err)
		}
		gone := newRepo(t, s, "gone")
		gone.HasIssues = true
		if err := s.DB().Model(gone).Select("has_issues").Updates(gone).Error; err != nil {
			t.Fatal(err)
		}
		for _, r := range []*store.Repository{w.repo, other, gone} {
			if _, err := s.Watch(ctx, w.users["bob"].ID, r.ID); err != nil {
				t.Fatal(err)
			}
		}
		newIssue := func(repo *store.Repository, index int64, pull bool) *store.Issue {
			is := &store.Issue{RepoID: repo.ID, Index: index, PosterID: w.users["carol"].ID, Title: "t", IsPull: pull}
			if err := s.DB().Create(is).Error; err != nil {
				t.Fatal(err)
			}
			a := &store.Activity{Kind: store.ActivityIssueCreated, RepoID: repo.ID, IssueID: is.ID, ActorID: w.users["carol"].ID, CreatedUnix: 100 + index}
			if err := s.DB().Create(a).Error; err != nil {
				t.Fatal(err)
			}
			return is
		}
		issue, pull := newIssue(w.repo, 1, false), newIssue(w.repo, 2, true)
		otherIssue, otherPull := newIssue(other, 3, false), newIssue(other, 4, true)
		deleted, orphan := newIssue(w.repo, 5, false), newIssue(gone, 6, false)
		if err := s.DB().Delete(&store.Issue{}, deleted.ID).Error; err != nil {
			t.Fatal(err)
		}
		if err := s.DB().Delete(&store.Repository{}, gone.ID).Error; err != nil {
			t.Fatal(err)
		}
		if n, err := s.FanOutActivities(ctx, 100); err != nil || n != 6 {
			t.Fatalf("fan-out: %d %v", n, err)
		}
		var rows []store.Notification
		if err := s.DB().Where("user_id = ?", w.users["bob"].ID).Order("issue_id").Find(&rows).Error; err != nil {
			t.Fatal(err)
		}
		got := map[int64]string{}
		for _, n := range rows {
			got[n.IssueID] = fmt.Sprintf("repo %d source %d at %d", n.RepoID, n.Source, n.UpdatedUnix)
		}
		want := map[int64]string{
			issue.ID:      fmt.Sprintf("repo %d source %d at %d", w.repo.ID, store.NotificationSourceIssue, 101),
			pull.ID:       fmt.Sprintf("repo %d source %d at %d", w.repo.ID, store.NotificationSourcePull, 102),
			otherIssue.ID: fmt.Sprintf("repo %d source %d at %d", other.ID, store.NotificationSourceIssue, 103),
			otherPull.ID:  fmt.Sprintf("repo %d source %d at %d", other.ID, store.NotificationSourcePull, 104),
		}
		if len(got) != len(want) {
			t.Fatalf("bob's threads %v, want %v (none on issues %d, %d)", got, want, deleted.ID, orphan.ID)
		}
		for id, v := range want {
			if got[id] != v {
				t.Fatalf("bob's thread on issue %d: %q, want %q", id, got[id], v)
			}
		}
		var queued int64
		if err := s.DB().Model(&store.Activity{}).Count(&queued).Error; err != nil || queued != 0 {
			t.Fatalf("%d activities left (%v)", queued, err)
		}
	})
}

// On PostgreSQL the threads statement runs on a generic plan from its
// first run on a connection: planning it with its parameters (a custom
// plan, PostgreSQL's choice for a prepared statement's first five runs)
// cost more than running it, on every connection of the pool (issue 16).
func TestActivityFanOutGenericPlan(t *testing.T) {
	s := storeWithConns(t, "postgres", 1) // one connection: one plan cache to look at
	ctx := context.Background()
	w := newNotifyWorld(t, s, "bob")
	issue := w.newIssue(t, "bob", false)
	for i := range 3 {
		w.queue(t, issue, store.ActivityCommented, "bob", 0, int64(i+1))
		if n, err := s.FanOutActivities(ctx, 100); err != nil || n != 1 {
			t.Fatalf("fan-out %d: %d %v", i, n, err)
		}
	}
	if got := w.threads(t, issue)["owner"]; got != "1@3#0" {
		t.Fatalf("owner's thread %q", got)
	}
	var custom, generic int64
	err := s.DB().Raw("SELECT custom_plans, generic_plans FROM pg_prepared_statements WHERE statement LIKE 'WITH g (%'").
		Row().Scan(&custom, &generic)
	if err != nil {
		t.Fatal(err)
	}
	if custom != 0 || generic != 3 {
		t.Fatalf("threads statement: %d custom plans, %d runs on a generic plan; want 0 and 3", custom, generic)
	}
}

// Who is concerned is decided issue by issue within a batch: each issue's
// poster, commenters (of comments, not of events), assignees, mentioned
// users and subscribers, and its repository's watchers less those who
// unsubscribed from it, hear of that issue only.
func TestActivityFanOutConcernedPerIssue(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		w := newNotifyWorld(t, s, "poster", "commenter", "eventer", "assignee", "mentioned", "subscriber", "watcher", "quitter", "otherwatcher", "actor")
		other := newRepo(t, s, "other")
		other.HasIssues = true
		if err := s.DB().Model(other).Select("has_issues").Updates(other).Error; err != nil {
			t.Fatal(err)
		}
		otherOwner, err := s.UserByID(ctx, other.OwnerID)
		if err != nil {
			t.Fatal(err)
		}
		w.users["otherowner"] = otherOwner
		for _, name := range []string{"watcher", "quitter"} {
			if _, err := s.Watch(ctx, w.users[name].ID, w.repo.ID); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := s.Watch(ctx, w.users["otherwatcher"].ID, other.ID); err != nil {
			t.Fatal(err)
		}
		create := func(t *testing.T, v any) {
			t.Helper()
			if err := s.DB().Create(v).Error; err != nil {
				t.Fatal(err)
			}
		}
		a := w.newIssue(t, "poster", false)
		b := w.newIssue(t, "actor", false)
		c := &store.Issue{RepoID: other.ID, Index: 1, PosterID: w.users["actor"].ID, Title: "elsewhere"}
		create(t, c)
		// Everyone's part in a only.
		create(t, &store.Comment{RepoID: w.repo.ID, IssueID: a.ID, PosterID: w.users["commenter"].ID, Content: "hi"})
		create(t, &store.Comment{RepoID: w.repo.ID, IssueID: a.ID, PosterID: w.users["eventer"].ID, Type: 7}) // an event, not a comment
		create(t, &store.IssueAssignee{RepoID: w.repo.ID, IssueID: a.ID, AssigneeID: w.users["assignee"].ID})
		create(t, &store.IssueMention{RepoID: w.repo.ID, IssueID: a.ID, UserID: w.users["mentioned"].ID})
		if err := s.SetIssueWatch(ctx, a, w.users["subscriber"].ID, true); err != nil {
			t.Fatal(err)
		}
		if err := s.SetIssueWatch(ctx, a, w.users["quitter"].ID, false); err != nil {
			t.Fatal(err)
		}
		for i, is := range []*store.Issue{a, b, c} {
			create(t, &store.Activity{Kind: store.ActivityCommented, RepoID: is.RepoID, IssueID: is.ID, ActorID: w.users["actor"].ID, CreatedUnix: int64(100 + i)})
		}
		if n, err := s.FanOutActivities(ctx, 100); err != nil || n != 3 {
			t.Fatalf("fan-out: %d %v", n, err)
		}
		told := func(is *store.Issue) []string {
			var rows []store.Notification
			if err := s.DB().Where("issue_id = ?", is.ID).Find(&rows).Error; err != nil {
				t.Fatal(err)
			}
			var names []string
			for name, u := range w.users {
				for _, n := range rows {
					if n.UserID == u.ID {
						names = append(names, name)
					}
				}
			}
			sort.Strings(names)
			return names
		}
		for _, tc := range []struct {
			name  string
			issue *store.Issue
			want  string
		}{
			{"a", a, "[assignee commenter mentioned owner poster subscriber watcher]"},
			{"b", b, "[owner quitter watcher]"},
			{"c", c, "[otherowner otherwatcher]"},
		} {
			if got := fmt.Sprint(told(tc.issue)); got != tc.want {
				t.Errorf("issue %s: told %s, want %s", tc.name, got, tc.want)
			}
		}
	})
}

// The fan-out's cost does not grow with the issues it does not deliver:
// on PostgreSQL its statements keep reading the issues through their index
// when the table grows after their plans were first made on a small table
// (a generic plan built then stays a sequential scan for the connection's
// life; a fresh database's tables are small until autovacuum analyses
// them, which forge bench and the first minutes of a new site run into).
func TestActivityFanOutIssueReadsStayIndexed(t *testing.T) {
	s := storeWithConns(t, "postgres", 1) // one connection: the plans made on the small table are the ones reused
	w := newNotifyWorld(t, s, "bob", "alice")
	for i := range 8 {
		w.queue(t, w.newIssue(t, "bob", false), store.ActivityCommented, "alice", 0, int64(i+1))
		w.drain(t)
	}
	const grown = 20000
	if err := s.DB().Exec(`INSERT INTO issues (repo_id, "index", poster_id, title, content, created_unix, updated_unix)
		SELECT ?, 1000000 + g, ?, 'filler', '', 1, 1 FROM generate_series(1, ?) g`, w.repo.ID, w.users["bob"].ID, grown).Error; err != nil {
		t.Fatal(err)
	}
	seqRead := func() int64 {
		t.Helper()
		if err := s.DB().Exec("SELECT pg_stat_force_next_flush()").Error; err != nil {
			t.Fatal(err)
		}
		var n int64
		if err := s.DB().Raw("SELECT COALESCE(SUM(seq_tup_read), 0) FROM pg_stat_user_tables WHERE relname = 'issues'").Row().Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	before := seqRead()
	issue := w.newIssue(t, "bob", false)
	w.queue(t, issue, store.ActivityCommented, "alice", 0, 100)
	w.drain(t)
	if got := w.threads(t, issue)["bob"]; got != "1@100#0" {
		t.Fatalf("bob's thread %q", got)
	}
	if read := seqRead() - before; read >= grown {
		t.Fatalf("the fan-out of one activity read %d issue rows sequentially (the table has %d)", read, grown+9)
	}
}
