package app_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"code.gitea.io/sdk/gitea"

	"forge/services/config"
)

// TestWebhookOnceAcrossProcesses: three forge processes on one database
// each run a webhook worker; every event is delivered exactly once.
func TestWebhookOnceAcrossProcesses(t *testing.T) {
	t.Parallel()
	eachBackend(t, openLoopback, func(t *testing.T, s *testServer) {
		startPeer(t, s)
		startPeer(t, s)
		aliceTok := s.seedUser("alice", "alice-password", false)
		alice := s.sdk(gitea.SetToken(aliceTok))
		s.createRepo(t, aliceTok, "proj", false, false)
		rcv := newReceiver(t, 0)
		if _, _, err := alice.CreateRepoHook("alice", "proj", gitea.CreateHookOption{Type: gitea.HookTypeGitea, Active: true,
			Config: map[string]string{"url": rcv.URL, "content_type": "json"}, Events: []string{"issues"}}); err != nil {
			t.Fatal(err)
		}
		const n = 10
		for i := 0; i < n; i++ {
			if _, _, err := alice.CreateIssue("alice", "proj", gitea.CreateIssueOption{Title: "issue"}); err != nil {
				t.Fatal(err)
			}
		}
		got := rcv.wait(t, n)
		time.Sleep(1500 * time.Millisecond) // every worker has polled at least once more
		seen := map[string]bool{}
		for _, d := range rcv.wait(t, n) {
			id := d.Header.Get("X-Gitea-Delivery")
			if seen[id] {
				t.Fatalf("delivery %s sent twice", id)
			}
			seen[id] = true
		}
		if len(got) != n || rcv.count() != n {
			t.Fatalf("%d deliveries for %d events", rcv.count(), n)
		}
	})
}

// TestWebhookSlowReceiver: a receiver that takes longer than the request
// does not slow the request that caused the event, and a delivery that
// outlasts DELIVER_TIMEOUT is recorded as failed.
func TestWebhookSlowReceiver(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(func() { close(release); slow.Close() })
	s := startServer(t, "sqlite3", func(c *config.Config) {
		openLoopback(c)
		c.Webhook.DeliverTimeout = 5 // far above a request's time on a loaded machine
	})
	aliceTok := s.seedUser("alice", "alice-password", false)
	alice := s.sdk(gitea.SetToken(aliceTok))
	s.createRepo(t, aliceTok, "proj", false, false)
	if _, _, err := alice.CreateRepoHook("alice", "proj", gitea.CreateHookOption{Type: gitea.HookTypeGitea, Active: true,
		Config: map[string]string{"url": slow.URL, "content_type": "json"}, Events: []string{"issues"}}); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		start := time.Now()
		if _, _, err := alice.CreateIssue("alice", "proj", gitea.CreateIssueOption{Title: "issue"}); err != nil {
			t.Fatal(err)
		}
		if d := time.Since(start); d > 2*time.Second {
			t.Fatalf("creating an issue took %v with a slow receiver", d)
		}
	}
	var task struct {
		Attempts     int
		Succeeded    bool
		ResponseInfo string
	}
	deadline := time.Now().Add(15 * time.Second)
	for task.Attempts == 0 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
		s.App.Store.DB().Table("hook_tasks").Select("attempts, succeeded, response_info").Order("id").Take(&task)
	}
	if task.Attempts != 1 || task.Succeeded || task.ResponseInfo == "" {
		t.Fatalf("timed-out delivery: %+v", task)
	}
}

// TestWebhookQueueSurvivesRestart: events queued while no worker runs
// (the process stopped before sending) are delivered by the next process.
func TestWebhookQueueSurvivesRestart(t *testing.T) {
	t.Parallel()
	s := startServer(t, "postgres", func(c *config.Config) {
		openLoopback(c)
		c.Webhook.Disabled = true // this process queues but never sends
	})
	aliceTok := s.seedUser("alice", "alice-password", false)
	alice := s.sdk(gitea.SetToken(aliceTok))
	s.createRepo(t, aliceTok, "proj", false, false)
	rcv := newReceiver(t, 0)
	// The hook is made through the store: the API refuses hooks while
	// webhooks are disabled.
	r := s.do("POST", "/api/v1/repos/alice/proj/hooks", `{"type":"gitea","config":{"url":"`+rcv.URL+`","content_type":"json"},"events":["issues"],"active":true}`,
		"Authorization", "token "+aliceTok, "Content-Type", jsonCT)
	if r.Status != http.StatusForbidden || !strings.Contains(string(r.Body), "webhooks disabled by administrator") {
		t.Fatalf("create with webhooks disabled: %d %s", r.Status, r.Body)
	}
	s.App.Store.DB().Exec(`INSERT INTO webhooks (repo_id, owner_id, is_system, type, url, http_method, content_type, events, branch_filter, meta, active, created_unix, updated_unix)
SELECT id, 0, false, 'gitea', ?, 'POST', 1, 'issues', '', '', true, 0, 0 FROM repositories WHERE name = 'proj'`, rcv.URL)
	if _, _, err := alice.CreateIssue("alice", "proj", gitea.CreateIssueOption{Title: "queued"}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond)
	if rcv.count() != 0 {
		t.Fatal("a disabled process delivered")
	}
	cfg := *s.Cfg
	cfg.Webhook.Disabled = false
	serveConfig(t, &cfg, nil) // the next process
	rcv.wait(t, 1)
}
