package app_test

import (
	"testing"
	"time"

	"code.gitea.io/sdk/gitea"
)

// TestWebhookCronRetryNow: webhook delivery is the scheduled task
// deliver_webhooks; a manual run (POST /admin/cron/deliver_webhooks) is
// counted and sends a delivery waiting for its retry at once, however
// long its backoff.
func TestWebhookCronRetryNow(t *testing.T) {
	t.Parallel()
	eachBackend(t, openLoopback, func(t *testing.T, s *testServer) {
		admin := s.sdk(gitea.SetToken(s.AdminToken))
		aliceTok := s.seedUser("alice", "alice-password", false)
		alice := s.sdk(gitea.SetToken(aliceTok))
		s.createRepo(t, aliceTok, "proj", true, false)
		rcv := newReceiver(t, 1)
		if _, _, err := alice.CreateRepoHook("alice", "proj", gitea.CreateHookOption{Type: gitea.HookTypeGitea, Active: true,
			Config: map[string]string{"url": rcv.URL, "content_type": "json"}, Events: []string{"issues"}}); err != nil {
			t.Fatal(err)
		}
		if _, _, err := alice.CreateIssue("alice", "proj", gitea.CreateIssueOption{Title: "Crash"}); err != nil {
			t.Fatal(err)
		}
		first := rcv.wait(t, 1)[0]
		var task struct {
			ID       int64
			Attempts int
			Done     bool
		}
		waitFor(t, 10*time.Second, "the failed attempt recorded", func() bool {
			s.App.Store.DB().Table("hook_tasks").Select("id, attempts, done").Take(&task)
			return task.Attempts == 1
		})
		if task.Done {
			t.Fatalf("after a 500: %+v", task)
		}
		// A long backoff: the schedule alone would not send it for an hour.
		s.App.Store.DB().Table("hook_tasks").Where("id = ?", task.ID).Update("next_unix", time.Now().Add(time.Hour).Unix())
		before := cronTasks(t, admin)["deliver_webhooks"]
		if before == nil || before.Schedule != "@every 1s" || before.ExecTimes < 1 {
			t.Fatalf("deliver_webhooks before: %+v", before)
		}
		time.Sleep(1500 * time.Millisecond) // scheduled rounds leave it waiting
		if n := rcv.count(); n != 1 {
			t.Fatalf("the retry was sent before its time: %d deliveries", n)
		}
		n := before.ExecTimes
		if _, err := admin.RunCronTasks("deliver_webhooks"); err != nil {
			t.Fatalf("RunCronTasks: %v", err)
		}
		second := rcv.wait(t, 2)[1]
		if second.Header.Get("X-Gitea-Delivery") != first.Header.Get("X-Gitea-Delivery") || second.Header.Get("X-Gitea-Event") != "issues" {
			t.Fatalf("the retry is another delivery: %v", second.Header)
		}
		waitFor(t, 10*time.Second, "the retry recorded as delivered", func() bool {
			var done struct {
				Attempts  int
				Done      bool
				Succeeded bool
			}
			s.App.Store.DB().Table("hook_tasks").Select("attempts, done, succeeded").Where("id = ?", task.ID).Take(&done)
			return done.Done && done.Succeeded && done.Attempts == 2
		})
		if after := cronTasks(t, admin)["deliver_webhooks"]; after.ExecTimes <= n || after.Prev.IsZero() {
			t.Fatalf("deliver_webhooks after a manual run: %+v (before %d)", after, n)
		}
	})
}
