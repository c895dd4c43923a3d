package app_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"code.gitea.io/sdk/gitea"

	"forge/services/config"
)

// delivery is one request a test receiver got.
type delivery struct {
	Header http.Header
	Body   []byte
}

// receiver is an httptest server on loopback recording deliveries; fail
// answers 500 to the first n.
type receiver struct {
	*httptest.Server
	mu   sync.Mutex
	got  []delivery
	fail int
}

func newReceiver(t *testing.T, fail int) *receiver {
	r := &receiver{fail: fail}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		b, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		r.got = append(r.got, delivery{Header: req.Header.Clone(), Body: b})
		failing := r.fail > 0
		if failing {
			r.fail--
		}
		r.mu.Unlock()
		if failing {
			http.Error(w, "boom", http.StatusInternalServerError)
			return
		}
		w.WriteHeader(http.StatusOK)
	}))
	t.Cleanup(r.Close)
	return r
}

// wait returns the deliveries once there are n, failing after a while.
func (r *receiver) wait(t *testing.T, n int) []delivery {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		r.mu.Lock()
		got := append([]delivery(nil), r.got...)
		r.mu.Unlock()
		if len(got) >= n {
			return got
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("receiver got %d deliveries, want %d", len(r.got), n)
	return nil
}

func (r *receiver) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.got)
}

func openLoopback(c *config.Config) { c.Webhook.AllowedHostList = "loopback" }

// TestWebhookDeliverySigned: an issue opened in a repository reaches its
// hook as Gitea's issues payload with the delivery headers and an
// HMAC-SHA256 signature of the body made with the hook's secret, and the
// Authorization header; a push reaches a push hook; a hook listening to
// other events hears nothing.
func TestWebhookDeliverySigned(t *testing.T) {
	t.Parallel()
	eachBackend(t, openLoopback, func(t *testing.T, s *testServer) {
		aliceTok := s.seedUser("alice", "alice-password", false)
		alice := s.sdk(gitea.SetToken(aliceTok))
		s.createRepo(t, aliceTok, "proj", true, false)
		issuesRcv, releaseRcv := newReceiver(t, 0), newReceiver(t, 0)
		const secret = "the-hook-secret"
		if _, _, err := alice.CreateRepoHook("alice", "proj", gitea.CreateHookOption{Type: gitea.HookTypeGitea, Active: true,
			Config: map[string]string{"url": issuesRcv.URL + "/in", "content_type": "json", "secret": secret},
			Events: []string{"issues"}, AuthorizationHeader: "Bearer tok"}); err != nil {
			t.Fatal(err)
		}
		if _, _, err := alice.CreateRepoHook("alice", "proj", gitea.CreateHookOption{Type: gitea.HookTypeGitea, Active: true,
			Config: map[string]string{"url": releaseRcv.URL, "content_type": "json"}, Events: []string{"release"}}); err != nil {
			t.Fatal(err)
		}
		if _, _, err := alice.CreateIssue("alice", "proj", gitea.CreateIssueOption{Title: "Crash", Body: "it broke"}); err != nil {
			t.Fatal(err)
		}
		d := issuesRcv.wait(t, 1)[0]
		mac := hmac.New(sha256.New, []byte(secret))
		mac.Write(d.Body)
		if sig := hex.EncodeToString(mac.Sum(nil)); d.Header.Get("X-Gitea-Signature") != sig ||
			d.Header.Get("X-Hub-Signature-256") != "sha256="+sig || d.Header.Get("X-Gogs-Signature") != sig {
			t.Fatalf("signature headers: %v", d.Header)
		}
		if d.Header.Get("X-Gitea-Event") != "issues" || d.Header.Get("X-Gitea-Event-Type") != "issues" ||
			len(d.Header.Get("X-Gitea-Delivery")) != 36 || d.Header.Get("Authorization") != "Bearer tok" ||
			d.Header.Get("Content-Type") != "application/json" {
			t.Fatalf("headers: %v", d.Header)
		}
		var p struct {
			Action     string
			Number     int64
			Issue      struct{ Title, Body string }
			Repository struct {
				FullName string `json:"full_name"`
			}
			Sender struct{ Login string }
		}
		if err := json.Unmarshal(d.Body, &p); err != nil || p.Action != "opened" || p.Number != 1 || p.Issue.Title != "Crash" ||
			p.Repository.FullName != "alice/proj" || p.Sender.Login != "alice" {
			t.Fatalf("payload: %+v %v\n%s", p, err, d.Body)
		}
		if strings.Contains(string(d.Body), secret) {
			t.Fatal("the secret is in the payload")
		}
		// A comment is issue_comment, which the issues choice includes.
		if _, _, err := alice.CreateIssueComment("alice", "proj", 1, gitea.CreateIssueCommentOption{Body: "me too"}); err != nil {
			t.Fatal(err)
		}
		d = issuesRcv.wait(t, 2)[1]
		if d.Header.Get("X-Gitea-Event") != "issue_comment" || !strings.Contains(string(d.Body), `"body":"me too"`) {
			t.Fatalf("comment delivery: %v %s", d.Header, d.Body)
		}
		time.Sleep(300 * time.Millisecond)
		if n := releaseRcv.count(); n != 0 {
			t.Fatalf("the release hook heard %d issue events", n)
		}
		if n := issuesRcv.count(); n != 2 {
			t.Fatalf("issues hook got %d deliveries, want 2", n)
		}
	})
}

// TestWebhookDeliveryRetry: a receiver that answers 500 gets the delivery
// again once it is due; the history keeps both attempts' outcome.
func TestWebhookDeliveryRetry(t *testing.T) {
	t.Parallel()
	eachBackend(t, openLoopback, func(t *testing.T, s *testServer) {
		aliceTok := s.seedUser("alice", "alice-password", false)
		alice := s.sdk(gitea.SetToken(aliceTok))
		s.createRepo(t, aliceTok, "proj", true, false)
		rcv := newReceiver(t, 1)
		if _, _, err := alice.CreateRepoHook("alice", "proj", gitea.CreateHookOption{Type: gitea.HookTypeGitea, Active: true,
			Config: map[string]string{"url": rcv.URL, "content_type": "form"}, Events: []string{"issues"}}); err != nil {
			t.Fatal(err)
		}
		if _, _, err := alice.CreateIssue("alice", "proj", gitea.CreateIssueOption{Title: "Crash"}); err != nil {
			t.Fatal(err)
		}
		first := rcv.wait(t, 1)[0]
		if first.Header.Get("Content-Type") != "application/x-www-form-urlencoded" || !strings.HasPrefix(string(first.Body), "payload=") {
			t.Fatalf("form delivery: %v %s", first.Header, first.Body)
		}
		// The retry waits its backoff; make it due now.
		var task struct {
			ID       int64
			Attempts int
			Done     bool
		}
		deadline := time.Now().Add(10 * time.Second)
		for {
			s.App.Store.DB().Table("hook_tasks").Select("id, attempts, done").Take(&task)
			if task.Attempts == 1 || time.Now().After(deadline) {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		if task.Attempts != 1 || task.Done {
			t.Fatalf("after a 500: %+v", task)
		}
		s.App.Store.DB().Table("hook_tasks").Where("id = ?", task.ID).Update("next_unix", 0)
		second := rcv.wait(t, 2)[1]
		if second.Header.Get("X-Gitea-Delivery") != first.Header.Get("X-Gitea-Delivery") || string(second.Body) != string(first.Body) {
			t.Fatalf("the retry is another delivery: %v", second.Header)
		}
		deadline = time.Now().Add(10 * time.Second)
		var done struct {
			Attempts  int
			Done      bool
			Succeeded bool
		}
		for {
			s.App.Store.DB().Table("hook_tasks").Select("attempts, done, succeeded").Where("id = ?", task.ID).Take(&done)
			if done.Done || time.Now().After(deadline) {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		if !done.Done || !done.Succeeded || done.Attempts != 2 {
			t.Fatalf("after the retry: %+v", done)
		}
	})
}

// TestWebhookBranchFilter: a push hook with a branch filter hears pushes
// to matching branches only; create hears the new branch.
func TestWebhookBranchFilter(t *testing.T) {
	t.Parallel()
	eachBackend(t, openLoopback, func(t *testing.T, s *testServer) {
		aliceTok := s.seedUser("alice", "alice-password", false)
		alice := s.sdk(gitea.SetToken(aliceTok))
		s.createRepo(t, aliceTok, "proj", true, false)
		rcv := newReceiver(t, 0)
		if _, _, err := alice.CreateRepoHook("alice", "proj", gitea.CreateHookOption{Type: gitea.HookTypeGitea, Active: true,
			Config: map[string]string{"url": rcv.URL, "content_type": "json"}, Events: []string{"push"},
			BranchFilter: "release/*"}); err != nil {
			t.Fatal(err)
		}
		for _, b := range []string{"feature", "release/v1"} {
			if _, _, err := alice.CreateBranch("alice", "proj", gitea.CreateBranchOption{BranchName: b, OldBranchName: "main"}); err != nil {
				t.Fatal(err)
			}
		}
		d := rcv.wait(t, 1)[0]
		var p struct {
			Ref, Before, After string
			Commits            []struct{ ID string }
			HeadCommit         struct{ ID string } `json:"head_commit"`
			Pusher             struct{ Login string }
		}
		if err := json.Unmarshal(d.Body, &p); err != nil || p.Ref != "refs/heads/release/v1" || p.Before != strings.Repeat("0", 40) ||
			len(p.After) != 40 || p.HeadCommit.ID != p.After || p.Pusher.Login != "alice" || d.Header.Get("X-Gitea-Event") != "push" {
			t.Fatalf("push payload: %+v %v\n%s", p, err, d.Body)
		}
		time.Sleep(300 * time.Millisecond)
		if n := rcv.count(); n != 1 {
			t.Fatalf("%d deliveries, want 1 (feature is filtered out)", n)
		}
	})
}

// TestWebhookSSRFRefused: with the default ALLOWED_HOST_LIST (external), a
// delivery to a loopback receiver is refused at connection time and
// recorded as failed; the receiver never sees it.
func TestWebhookSSRFRefused(t *testing.T) {
	t.Parallel()
	s := startServer(t, "sqlite3", nil)
	aliceTok := s.seedUser("alice", "alice-password", false)
	alice := s.sdk(gitea.SetToken(aliceTok))
	s.createRepo(t, aliceTok, "proj", true, false)
	rcv := newReceiver(t, 0)
	if _, _, err := alice.CreateRepoHook("alice", "proj", gitea.CreateHookOption{Type: gitea.HookTypeGitea, Active: true,
		Config: map[string]string{"url": rcv.URL, "content_type": "json"}, Events: []string{"issues"}}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := alice.CreateIssue("alice", "proj", gitea.CreateIssueOption{Title: "Crash"}); err != nil {
		t.Fatal(err)
	}
	var task struct {
		Attempts     int
		ResponseInfo string
	}
	deadline := time.Now().Add(10 * time.Second)
	for task.Attempts == 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
		s.App.Store.DB().Table("hook_tasks").Select("attempts, response_info").Take(&task)
	}
	if task.Attempts != 1 || !strings.Contains(task.ResponseInfo, "ALLOWED_HOST_LIST") || rcv.count() != 0 {
		t.Fatalf("task %+v, receiver got %d", task, rcv.count())
	}
}

// TestWebhookTestDelivery: POST /hooks/{id}/tests sends a push of the
// default branch's head to that hook, whatever its events.
func TestWebhookTestDelivery(t *testing.T) {
	t.Parallel()
	eachBackend(t, openLoopback, func(t *testing.T, s *testServer) {
		aliceTok := s.seedUser("alice", "alice-password", false)
		alice := s.sdk(gitea.SetToken(aliceTok))
		s.createRepo(t, aliceTok, "proj", true, false)
		rcv := newReceiver(t, 0)
		h, _, err := alice.CreateRepoHook("alice", "proj", gitea.CreateHookOption{Type: gitea.HookTypeGitea,
			Config: map[string]string{"url": rcv.URL, "content_type": "json"}, Events: []string{"release"}})
		if err != nil {
			t.Fatal(err)
		}
		r := s.do("POST", "/api/v1/repos/alice/proj/hooks/"+itoa(h.ID)+"/tests", "", "Authorization", "token "+aliceTok)
		if r.Status != http.StatusNoContent {
			t.Fatalf("test: %d %s", r.Status, r.Body)
		}
		d := rcv.wait(t, 1)[0]
		var p struct {
			Ref        string
			After      string
			HeadCommit struct{ ID string } `json:"head_commit"`
		}
		if err := json.Unmarshal(d.Body, &p); err != nil || p.Ref != "refs/heads/main" || p.HeadCommit.ID == "" ||
			p.After != p.HeadCommit.ID || d.Header.Get("X-Gitea-Event") != "push" {
			t.Fatalf("test payload: %+v %v %s", p, err, d.Body)
		}
	})
}
