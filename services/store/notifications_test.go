package store_test

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"testing"
	"time"

	"gorm.io/gorm"

	"forge/services/store"
	"forge/services/store/storetest"
)

// notifyWorld is a repository with an issue and a few users.
type notifyWorld struct {
	s     *store.Store
	repo  *store.Repository
	issue *store.Issue
	users map[string]*store.User
}

func newNotifyWorld(t *testing.T, s *store.Store, names ...string) *notifyWorld {
	t.Helper()
	ctx := context.Background()
	w := &notifyWorld{s: s, repo: newRepo(t, s, "tracked"), users: map[string]*store.User{}}
	// Threads are for readers of the issues and pull requests units,
	// which must be on.
	w.repo.HasIssues, w.repo.HasPullRequests = true, true
	if err := s.DB().Model(w.repo).Select("has_issues", "has_pull_requests").Updates(w.repo).Error; err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		u := newUser(n, n+"@x.org", false)
		if err := s.CreateUser(ctx, u); err != nil {
			t.Fatal(err)
		}
		w.users[n] = u
	}
	owner, err := s.UserByID(ctx, w.repo.OwnerID)
	if err != nil {
		t.Fatal(err)
	}
	w.users["owner"] = owner
	return w
}

func (w *notifyWorld) newIssue(t *testing.T, poster string, pull bool) *store.Issue {
	t.Helper()
	i := &store.Issue{RepoID: w.repo.ID, Index: time.Now().UnixNano() % 1e9, PosterID: w.users[poster].ID, Title: "A bug", IsPull: pull,
		CreatedUnix: 1000, UpdatedUnix: 1000}
	if err := w.s.DB().Create(i).Error; err != nil {
		t.Fatal(err)
	}
	return i
}

// activity records what the issue writes record, and fans it out.
func (w *notifyWorld) activity(t *testing.T, issue *store.Issue, kind, actor string, commentID, at int64) {
	t.Helper()
	a := &store.Activity{Kind: kind, RepoID: w.repo.ID, IssueID: issue.ID, CommentID: commentID, ActorID: w.users[actor].ID, CreatedUnix: at}
	if err := w.s.DB().Create(a).Error; err != nil {
		t.Fatal(err)
	}
	w.drain(t)
}

func (w *notifyWorld) drain(t testing.TB) {
	t.Helper()
	for {
		n, err := w.s.FanOutActivities(context.Background(), 100)
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			return
		}
	}
}

func (w *notifyWorld) comment(t *testing.T, issue *store.Issue, poster string) int64 {
	t.Helper()
	c := &store.Comment{RepoID: w.repo.ID, IssueID: issue.ID, PosterID: w.users[poster].ID, Content: "hi"}
	if err := w.s.DB().Create(c).Error; err != nil {
		t.Fatal(err)
	}
	return c.ID
}

// threads maps user name to their thread on the issue ("" when none),
// written "status@updated#comment".
func (w *notifyWorld) threads(t *testing.T, issue *store.Issue) map[string]string {
	t.Helper()
	var rows []store.Notification
	if err := w.s.DB().Where("issue_id = ?", issue.ID).Find(&rows).Error; err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for name, u := range w.users {
		for _, n := range rows {
			if n.UserID == u.ID {
				out[name] = fmt.Sprintf("%d@%d#%d", n.Status, n.UpdatedUnix, n.CommentID)
			}
		}
	}
	return out
}

func sameMap(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func TestActivityFanOut(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		w := newNotifyWorld(t, s, "bob", "carol", "dave", "eve", "stranger")
		if _, err := s.Watch(ctx, w.users["bob"].ID, w.repo.ID); err != nil {
			t.Fatal(err)
		}
		issue := w.newIssue(t, "carol", false)

		// Opened by carol: the watchers (owner, bob); never the actor.
		w.activity(t, issue, store.ActivityIssueCreated, "carol", 0, 2000)
		want := map[string]string{"owner": "1@2000#0", "bob": "1@2000#0"}
		if got := w.threads(t, issue); !sameMap(got, want) {
			t.Fatalf("after open: %v, want %v", got, want)
		}

		// bob reads his; dave comments: the poster joins, bob's thread is
		// unread again at dave's comment, the owner's (still unread) keeps
		// pointing at the first unread thing.
		if _, err := s.SetNotificationStatus(ctx, threadID(t, s, w.users["bob"].ID, issue.ID), store.NotificationRead, 2100); err != nil {
			t.Fatal(err)
		}
		c1 := w.comment(t, issue, "dave")
		w.activity(t, issue, store.ActivityCommented, "dave", c1, 3000)
		want = map[string]string{"owner": "1@3000#0", "bob": fmt.Sprintf("1@3000#%d", c1), "carol": fmt.Sprintf("1@3000#%d", c1)}
		if got := w.threads(t, issue); !sameMap(got, want) {
			t.Fatalf("after comment: %v, want %v", got, want)
		}

		// carol pins hers; eve is assigned by the owner: the commenter and
		// the assignee join, a pinned thread stays pinned.
		if _, err := s.SetNotificationStatus(ctx, threadID(t, s, w.users["carol"].ID, issue.ID), store.NotificationPinned, 3100); err != nil {
			t.Fatal(err)
		}
		if err := s.DB().Create(&store.IssueAssignee{RepoID: w.repo.ID, IssueID: issue.ID, AssigneeID: w.users["eve"].ID}).Error; err != nil {
			t.Fatal(err)
		}
		w.activity(t, issue, store.ActivityAssigned, "owner", 0, 4000)
		want = map[string]string{"owner": "1@3000#0", "bob": fmt.Sprintf("1@4000#%d", c1), "carol": fmt.Sprintf("3@4000#%d", c1),
			"dave": "1@4000#0", "eve": "1@4000#0"}
		if got := w.threads(t, issue); !sameMap(got, want) {
			t.Fatalf("after assign: %v, want %v", got, want)
		}

		// A mentioned user joins.
		if err := s.DB().Create(&store.IssueMention{RepoID: w.repo.ID, IssueID: issue.ID, UserID: w.users["stranger"].ID}).Error; err != nil {
			t.Fatal(err)
		}
		w.activity(t, issue, store.ActivityCommented, "owner", 0, 4500)
		if got := w.threads(t, issue)["stranger"]; got != "1@4500#0" {
			t.Fatalf("mentioned user's thread: %q", got)
		}

		// The queue is empty; an activity on a deleted issue is dropped.
		gone := &store.Activity{Kind: store.ActivityCommented, RepoID: w.repo.ID, IssueID: 987654, ActorID: 1, CreatedUnix: 5000}
		if err := s.DB().Create(gone).Error; err != nil {
			t.Fatal(err)
		}
		w.drain(t)
		var left int64
		if err := s.DB().Model(&store.Activity{}).Count(&left).Error; err != nil || left != 0 {
			t.Fatalf("activities left: %d %v", left, err)
		}

		// A pull request is a Pull thread.
		pr := w.newIssue(t, "bob", true)
		w.activity(t, pr, store.ActivityIssueCreated, "bob", 0, 6000)
		list, total, err := s.ListNotifications(ctx, store.NotificationFilter{UserID: w.users["owner"].ID, Sources: []int{store.NotificationSourcePull},
			Repos: seenBy(w.users["owner"], false)}, 0, 10)
		if err != nil || total != 1 || len(list) != 1 || list[0].IssueID != pr.ID || list[0].Source != store.NotificationSourcePull {
			t.Fatalf("pull threads: %+v total %d err %v", list, total, err)
		}
	})
}

func threadID(t *testing.T, s *store.Store, userID, issueID int64) int64 {
	t.Helper()
	var n store.Notification
	if err := s.DB().Where("user_id = ? AND issue_id = ?", userID, issueID).Take(&n).Error; err != nil {
		t.Fatal(err)
	}
	return n.ID
}

func TestNotificationLists(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		w := newNotifyWorld(t, s, "bob")
		owner := w.users["owner"]
		var issues []*store.Issue
		for i := range 3 {
			is := w.newIssue(t, "bob", false)
			w.activity(t, is, store.ActivityIssueCreated, "bob", 0, int64(1000*(i+1)))
			issues = append(issues, is)
		}
		c := w.comment(t, issues[0], "bob")
		f := store.NotificationFilter{UserID: owner.ID, Repos: seenBy(owner, false)}
		list, total, err := s.ListNotifications(ctx, f, 0, 2)
		if err != nil || total != 3 || len(list) != 2 || list[0].IssueID != issues[2].ID || list[1].IssueID != issues[1].ID {
			t.Fatalf("page 1: %+v total %d err %v", list, total, err)
		}
		if list[0].Repo == nil || list[0].Repo.ID != w.repo.ID || list[0].Issue == nil || list[0].Issue.Title != "A bug" {
			t.Fatalf("details: %+v", list[0])
		}
		list, _, _ = s.ListNotifications(ctx, f, 2, 2)
		if len(list) != 1 || list[0].IssueID != issues[0].ID || list[0].LastCommentID != c {
			t.Fatalf("page 2: %+v (comment %d)", list, c)
		}
		f.Since, f.Before = 2000, 2000
		if _, total, _ := s.ListNotifications(ctx, f, 0, 10); total != 1 {
			t.Fatalf("since/before inclusive: %d", total)
		}
		f.Since, f.Before = 0, 0

		// Mark everything up to 2000 read, at 9000.
		mark := f
		mark.Statuses, mark.Before = []int{store.NotificationUnread}, 2000
		changed, err := s.SetNotificationsStatus(ctx, mark, store.NotificationRead, 9000, 50)
		if err != nil || len(changed) != 2 || changed[0].Status != store.NotificationRead || changed[0].UpdatedUnix != 9000 {
			t.Fatalf("mark: %+v %v", changed, err)
		}
		f.Statuses = []int{store.NotificationUnread}
		if n, err := s.CountNotifications(ctx, f); err != nil || n != 1 {
			t.Fatalf("unread after mark: %d %v", n, err)
		}
		// The answer is bounded; the change is not.
		mark.Statuses, mark.Before = nil, 0
		if changed, err := s.SetNotificationsStatus(ctx, mark, store.NotificationPinned, 9100, 1); err != nil || len(changed) != 1 {
			t.Fatalf("bounded mark: %d %v", len(changed), err)
		}
		f.Statuses = []int{store.NotificationPinned}
		if n, _ := s.CountNotifications(ctx, f); n != 3 {
			t.Fatalf("pinned: %d", n)
		}

		// A repository the user can no longer see hides its threads.
		if _, err := s.UpdateRepository(ctx, w.repo.ID, func(r *store.Repository) error { r.IsPrivate = true; return nil }); err != nil {
			t.Fatal(err)
		}
		bob := w.users["bob"]
		if err := s.DB().Create(&store.Notification{UserID: bob.ID, RepoID: w.repo.ID, IssueID: issues[0].ID, Status: 1, Source: 1}).Error; err != nil {
			t.Fatal(err)
		}
		if n, _ := s.CountNotifications(ctx, store.NotificationFilter{UserID: bob.ID, Repos: seenBy(bob, false)}); n != 0 {
			t.Fatalf("threads of an invisible repository counted: %d", n)
		}
		if n, _ := s.CountNotifications(ctx, store.NotificationFilter{UserID: owner.ID, Repos: seenBy(owner, true)}); n != 0 {
			t.Fatalf("a public-only token sees private threads: %d", n)
		}
		// A thread about a deleted issue is not listed.
		if err := s.DeleteIssue(ctx, w.repo.ID, issues[1].Index); err != nil {
			t.Fatal(err)
		}
		if n, _ := s.CountNotifications(ctx, store.NotificationFilter{UserID: owner.ID, Repos: seenBy(owner, false)}); n != 2 {
			t.Fatalf("threads after an issue delete: %d, want 2", n)
		}
		if _, err := s.NotificationByID(ctx, 424242); err != store.ErrNotFound {
			t.Fatalf("missing thread: %v", err)
		}
	})
}

// Several notifiers (goroutines here, processes in production) drain one
// queue: every activity is claimed once and every user has one thread.
func TestActivityFanOutConcurrent(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		w := newNotifyWorld(t, s, "bob", "carol")
		ctx := context.Background()
		for _, u := range []string{"bob", "carol"} {
			if _, err := s.Watch(ctx, w.users[u].ID, w.repo.ID); err != nil {
				t.Fatal(err)
			}
		}
		var issues []*store.Issue
		for range 4 {
			issues = append(issues, w.newIssue(t, "owner", false))
		}
		const n = 40
		for i := range n {
			a := &store.Activity{Kind: store.ActivityCommented, RepoID: w.repo.ID, IssueID: issues[i%len(issues)].ID, ActorID: w.users["owner"].ID, CreatedUnix: int64(i + 1)}
			if err := s.DB().Create(a).Error; err != nil {
				t.Fatal(err)
			}
		}
		var (
			wg      sync.WaitGroup
			mu      sync.Mutex
			claimed int
			errs    []error
		)
		for range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					// Small batches, so the notifiers meet.
					n, err := s.FanOutActivities(ctx, 3)
					mu.Lock()
					if err != nil {
						errs = append(errs, err)
					}
					if err == nil {
						claimed += n
					}
					mu.Unlock()
					if n == 0 || err != nil {
						return
					}
				}
			}()
		}
		wg.Wait()
		if len(errs) > 0 {
			t.Fatalf("fan-out errors: %v", errs)
		}
		if claimed != n {
			t.Fatalf("claimed %d activities, want %d", claimed, n)
		}
		var rows []store.Notification
		if err := s.DB().Order("user_id, issue_id").Find(&rows).Error; err != nil {
			t.Fatal(err)
		}
		if len(rows) != 2*len(issues) {
			t.Fatalf("%d threads, want %d", len(rows), 2*len(issues))
		}
		// Each thread carries its issue's latest activity time.
		latest := map[int64]int64{}
		for i := range n {
			latest[issues[i%len(issues)].ID] = int64(i + 1)
		}
		var bad []string
		for _, r := range rows {
			if r.UpdatedUnix != latest[r.IssueID] {
				bad = append(bad, fmt.Sprintf("issue %d: %d", r.IssueID, r.UpdatedUnix))
			}
		}
		sort.Strings(bad)
		if len(bad) > 0 {
			t.Fatalf("thread times: %v", bad)
		}
	})
}

// BenchmarkActivityFanOut is the notifier's work for one activity on a
// repository with 1,000 watchers (threads created the first time, revived
// after), and BenchmarkActivityInsert what the request that caused it
// pays: one INSERT in its transaction.
//
//	go test -run '^$' -bench 'Activity' -benchmem ./services/store/
func BenchmarkActivityFanOut(b *testing.B) {
	for _, kind := range storetest.Backends {
		b.Run(kind, func(b *testing.B) {
			s := storetest.Open(b, kind)
			repo, issue, actor := benchWatchedIssue(b, s, 1000)
			ctx := context.Background()
			b.ResetTimer()
			for i := range b.N {
				a := &store.Activity{Kind: store.ActivityCommented, RepoID: repo.ID, IssueID: issue.ID, ActorID: actor, CreatedUnix: int64(i + 1)}
				if err := s.DB().Create(a).Error; err != nil {
					b.Fatal(err)
				}
				if n, err := s.FanOutActivities(ctx, 1); err != nil || n != 1 {
					b.Fatal(n, err)
				}
			}
			b.StopTimer()
			var n int64
			s.DB().Model(&store.Notification{}).Where("issue_id = ?", issue.ID).Count(&n)
			if n != 1000 {
				b.Fatalf("%d threads, want 1000", n)
			}
		})
	}
}

// BenchmarkActivityInsert is the request's transaction (an issue update)
// without and with the activity insert; the difference is what the
// request pays for notifications, whatever the number of watchers.
func BenchmarkActivityInsert(b *testing.B) {
	for _, kind := range storetest.Backends {
		for _, with := range []bool{false, true} {
			name := kind + "/without"
			if with {
				name = kind + "/with"
			}
			b.Run(name, func(b *testing.B) {
				s := storetest.Open(b, kind)
				repo, issue, actor := benchWatchedIssue(b, s, 1000)
				b.ResetTimer()
				for i := range b.N {
					err := s.DB().Transaction(func(tx *gorm.DB) error {
						if err := tx.Model(&store.Issue{}).Where("id = ?", issue.ID).Update("updated_unix", i+1).Error; err != nil || !with {
							return err
						}
						return tx.Create(&store.Activity{Kind: store.ActivityTitleChanged, RepoID: repo.ID, IssueID: issue.ID, ActorID: actor, CreatedUnix: int64(i + 1)}).Error
					})
					if err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// benchWatchedIssue is a repository watched by n users (besides its owner,
// the actor) and an issue in it.
func benchWatchedIssue(b *testing.B, s *store.Store, n int) (*store.Repository, *store.Issue, int64) {
	b.Helper()
	ctx := context.Background()
	owner := newUser("owner", "owner@x.org", false)
	if err := s.CreateUser(ctx, owner); err != nil {
		b.Fatal(err)
	}
	repo := &store.Repository{OwnerID: owner.ID, OwnerName: owner.Name, Name: "watched", IsEmpty: true}
	if err := s.CreateRepository(ctx, repo, 0); err != nil {
		b.Fatal(err)
	}
	watches := make([]store.Watch, n)
	for i := range watches {
		u := newUser(fmt.Sprintf("w%04d", i), fmt.Sprintf("w%04d@x.org", i), false)
		if err := s.CreateUser(ctx, u); err != nil {
			b.Fatal(err)
		}
		watches[i] = store.Watch{UserID: u.ID, RepoID: repo.ID}
	}
	if err := s.DB().CreateInBatches(watches, 200).Error; err != nil {
		b.Fatal(err)
	}
	issue := &store.Issue{RepoID: repo.ID, Index: 1, PosterID: owner.ID, Title: "hot"}
	if err := s.DB().Create(issue).Error; err != nil {
		b.Fatal(err)
	}
	return repo, issue, owner.ID
}

// OnActivity is called for an activity insert (the notifier's kick), not
// for other inserts.
func TestOnActivity(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		var mu sync.Mutex
		calls := 0
		s.OnActivity(func() { mu.Lock(); calls++; mu.Unlock() })
		w := newNotifyWorld(t, s)
		issue := w.newIssue(t, "owner", false)
		w.comment(t, issue, "owner")
		mu.Lock()
		before := calls
		mu.Unlock()
		if before != 0 {
			t.Fatalf("kicked %d times by other inserts", before)
		}
		w.activity(t, issue, store.ActivityCommented, "owner", 0, 1)
		mu.Lock()
		defer mu.Unlock()
		if calls != 1 {
			t.Fatalf("kicked %d times by one activity insert", calls)
		}
	})
}
