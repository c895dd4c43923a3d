package app_test

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"code.gitea.io/sdk/gitea"

	"forge/services/store"
)

// notifyWait bounds the wait for the notifier, which writes threads after
// the request that caused them.
const notifyWait = 10 * time.Second

func unreadCount(t *testing.T, c *gitea.Client) int64 {
	t.Helper()
	n, _, err := c.CheckNotifications()
	if err != nil {
		t.Fatalf("CheckNotifications: %v", err)
	}
	return n
}

func TestNotificationsSDK(t *testing.T) {
	t.Parallel()
	eachBackend(t, nil, func(t *testing.T, s *testServer) {
		aliceTok := s.seedUser("alice", "alice-password", false) // owner, watches by creating
		bobTok := s.seedUser("bob", "bob-password", false)       // watcher
		carolTok := s.seedUser("carol", "carol-password", false) // opens the issue
		daveTok := s.seedUser("dave", "dave-password", false)    // comments
		alice, bob := s.sdk(gitea.SetToken(aliceTok)), s.sdk(gitea.SetToken(bobTok))
		carol, dave := s.sdk(gitea.SetToken(carolTok)), s.sdk(gitea.SetToken(daveTok))
		s.createRepo(t, aliceTok, "proj", true, false)
		if _, err := bob.WatchRepo("alice", "proj"); err != nil {
			t.Fatal(err)
		}

		// carol opens an issue: the watchers get a thread, carol none.
		issue, _, err := carol.CreateIssue("alice", "proj", gitea.CreateIssueOption{Title: "Crash on start", Body: "boom"})
		if err != nil {
			t.Fatalf("CreateIssue: %v", err)
		}
		waitFor(t, notifyWait, "bob's thread", func() bool { return unreadCount(t, bob) == 1 })
		if n := unreadCount(t, alice); n != 1 {
			t.Fatalf("alice unread %d, want 1", n)
		}
		if n := unreadCount(t, carol); n != 0 {
			t.Fatalf("the actor got %d threads", n)
		}

		// dave comments: carol (the poster) joins, dave (the actor) does not.
		comment, _, err := dave.CreateIssueComment("alice", "proj", issue.Index, gitea.CreateIssueCommentOption{Body: "same here"})
		if err != nil {
			t.Fatalf("CreateIssueComment: %v", err)
		}
		waitFor(t, notifyWait, "carol's thread", func() bool { return unreadCount(t, carol) == 1 })
		if n := unreadCount(t, dave); n != 0 {
			t.Fatalf("the commenter got %d threads", n)
		}

		list, resp, err := bob.ListNotifications(gitea.ListNotificationOptions{})
		if err != nil || len(list) != 1 {
			t.Fatalf("ListNotifications: %d %v", len(list), err)
		}
		if resp.Header.Get("X-Total-Count") != "1" || resp.Header.Get("Link") != "" {
			t.Fatalf("list headers: total %q link %q", resp.Header.Get("X-Total-Count"), resp.Header.Get("Link"))
		}
		th := list[0]
		api := s.URL + "/api/v1/repos/alice/proj"
		html := fmt.Sprintf("%s/alice/proj/issues/%d", s.URL, issue.Index)
		if th.Subject == nil || th.Subject.Title != "Crash on start" || th.Subject.Type != gitea.NotifySubjectIssue ||
			th.Subject.State != gitea.NotifySubjectOpen || th.Subject.URL != fmt.Sprintf("%s/issues/%d", api, issue.Index) ||
			th.Subject.HTMLURL != html || th.Subject.LatestCommentURL != fmt.Sprintf("%s/issues/comments/%d", api, comment.ID) ||
			th.Subject.LatestCommentHTMLURL != fmt.Sprintf("%s#issuecomment-%d", html, comment.ID) {
			t.Fatalf("subject: %+v", th.Subject)
		}
		if !th.Unread || th.Pinned || th.Repository == nil || th.Repository.FullName != "alice/proj" || th.Repository.Permissions != nil ||
			th.URL != fmt.Sprintf("%s/api/v1/notifications/threads/%d", s.URL, th.ID) {
			t.Fatalf("thread: %+v", th)
		}

		// One thread, read through GetNotification, pinned and read.
		got, _, err := bob.GetNotification(th.ID)
		if err != nil || got.ID != th.ID || !got.Unread {
			t.Fatalf("GetNotification: %+v %v", got, err)
		}
		if _, _, err := carol.GetNotification(th.ID); err == nil {
			t.Fatal("carol read bob's thread")
		}
		pinned, resp, err := bob.ReadNotification(th.ID, gitea.NotifyStatusPinned)
		if err != nil || resp.StatusCode != http.StatusResetContent || !pinned.Pinned || pinned.Unread {
			t.Fatalf("ReadNotification pinned: %+v %v", pinned, err)
		}
		read, _, err := bob.ReadNotification(th.ID)
		if err != nil || read.Pinned || read.Unread {
			t.Fatalf("ReadNotification: %+v %v", read, err)
		}
		if n := unreadCount(t, bob); n != 0 {
			t.Fatalf("bob unread after read: %d", n)
		}
		if l, _, _ := bob.ListNotifications(gitea.ListNotificationOptions{Status: []gitea.NotifyStatus{gitea.NotifyStatusRead}}); len(l) != 1 {
			t.Fatalf("read threads: %d", len(l))
		}

		// Later activity revives the read thread.
		if _, _, err := dave.CreateIssueComment("alice", "proj", issue.Index, gitea.CreateIssueCommentOption{Body: "still"}); err != nil {
			t.Fatal(err)
		}
		waitFor(t, notifyWait, "bob's revived thread", func() bool { return unreadCount(t, bob) == 1 })

		// Per repository, then everything, marked read with 205 and the
		// changed threads.
		rl, resp, err := alice.ListRepoNotifications("alice", "proj", gitea.ListNotificationOptions{})
		if err != nil || len(rl) != 1 || resp.Header.Get("X-Total-Count") != "1" {
			t.Fatalf("ListRepoNotifications: %d %v", len(rl), err)
		}
		changed, resp, err := alice.ReadRepoNotifications("alice", "proj", gitea.MarkNotificationOptions{})
		if err != nil || resp.StatusCode != http.StatusResetContent || len(changed) != 1 || changed[0].Unread {
			t.Fatalf("ReadRepoNotifications: %+v %v", changed, err)
		}
		changed, resp, err = bob.ReadNotifications(gitea.MarkNotificationOptions{LastReadAt: time.Now().Add(time.Minute)})
		if err != nil || resp.StatusCode != http.StatusResetContent || len(changed) != 1 || changed[0].Unread {
			t.Fatalf("ReadNotifications: %+v %v", changed, err)
		}
		if unreadCount(t, alice)+unreadCount(t, bob) != 0 {
			t.Fatal("threads still unread after marking")
		}

		// An assignment made by the owner notifies the assignee (who must
		// be able to write to be assignable).
		write := gitea.AccessModeWrite
		if _, err := alice.AddCollaborator("alice", "proj", "dave", gitea.AddCollaboratorOption{Permission: &write}); err != nil {
			t.Fatal(err)
		}
		if _, _, err := alice.EditIssue("alice", "proj", issue.Index, gitea.EditIssueOption{Assignees: []string{"dave"}}); err != nil {
			t.Fatalf("assign: %v", err)
		}
		waitFor(t, notifyWait, "dave's thread", func() bool { return unreadCount(t, dave) == 1 })
		if n := unreadCount(t, alice); n != 0 {
			t.Fatalf("the assigning owner got %d threads", n)
		}
	})
}

// TestNotificationsTwoProcesses: two forge processes on one PostgreSQL
// database run a notifier each; comments made through both at once give
// every user exactly one thread, and the queue drains.
func TestNotificationsTwoProcesses(t *testing.T) {
	s := startServer(t, "postgres", nil)
	peer := startPeer(t, s)
	ownerTok := s.seedUser("alice", "alice-password", false)
	s.createRepo(t, ownerTok, "proj", true, false)
	var watchers []*gitea.Client
	for i := range 20 {
		tok := s.seedUser(fmt.Sprintf("w%02d", i), "w-password", false)
		c := s.sdk(gitea.SetToken(tok))
		if _, err := c.WatchRepo("alice", "proj"); err != nil {
			t.Fatal(err)
		}
		watchers = append(watchers, c)
	}
	issue, _, err := s.sdk(gitea.SetToken(ownerTok)).CreateIssue("alice", "proj", gitea.CreateIssueOption{Title: "Busy"})
	if err != nil {
		t.Fatal(err)
	}
	// Twenty writers per process, more than each pool's connections:
	// comments on one issue queue on its row and must all get through
	// (gorm's statement cache once deadlocked the pool here; see
	// TestPoolExhaustionDoesNotStall).
	var wg sync.WaitGroup
	errc := make(chan error, 40)
	for w := range 40 {
		srv := s
		if w%2 == 1 {
			srv = peer
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := srv.sdk(gitea.SetToken(ownerTok))
			for range 2 {
				if _, _, err := c.CreateIssueComment("alice", "proj", issue.Index, gitea.CreateIssueCommentOption{Body: "again"}); err != nil {
					errc <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errc)
	for err := range errc {
		t.Fatal(err)
	}
	db := s.App.Store.DB().WithContext(context.Background())
	waitFor(t, notifyWait, "the queue to drain", func() bool {
		var n int64
		db.Model(&store.Activity{}).Count(&n)
		return n == 0
	})
	var rows []store.Notification
	if err := db.Where("issue_id IN (SELECT id FROM issues)").Find(&rows).Error; err != nil {
		t.Fatal(err)
	}
	if len(rows) != len(watchers) {
		t.Fatalf("%d threads, want one per watcher (%d)", len(rows), len(watchers))
	}
	for _, c := range watchers {
		if n := unreadCount(t, c); n != 1 {
			t.Fatalf("a watcher has %d unread threads", n)
		}
	}

	// Activity queued without waking anyone (another program, or a
	// process that died before its notifier ran) is found by the poll.
	owner, err := s.App.Store.UserByName(context.Background(), "alice")
	if err != nil {
		t.Fatal(err)
	}
	later := time.Now().Add(time.Hour).Unix()
	err = db.Exec("INSERT INTO activities (kind, repo_id, issue_id, comment_id, actor_id, created_unix) SELECT ?, repo_id, id, 0, ?, ? FROM issues",
		store.ActivityTitleChanged, owner.ID, later).Error
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, notifyWait, "the poll to deliver", func() bool {
		var n int64
		db.Model(&store.Notification{}).Where("updated_unix = ?", later).Count(&n)
		return n == int64(len(watchers))
	})
}
