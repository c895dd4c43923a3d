package app_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"code.gitea.io/sdk/gitea"
)

// TestWebhookEvents: a git push, a pull request, a comment on it and a
// release reach the hooks that chose them, as Gitea's payloads.
func TestWebhookEvents(t *testing.T) {
	t.Parallel()
	eachBackend(t, openLoopback, func(t *testing.T, s *testServer) {
		aliceTok := s.seedUser("alice", "alice-password", false)
		alice := s.sdk(gitea.SetToken(aliceTok))
		s.createRepo(t, aliceTok, "proj", true, false)
		push, prs, rels := newReceiver(t, 0), newReceiver(t, 0), newReceiver(t, 0)
		for _, h := range []struct {
			url    string
			events []string
		}{{push.URL, []string{"push"}}, {prs.URL, []string{"pull_request"}}, {rels.URL, []string{"release"}}} {
			if _, _, err := alice.CreateRepoHook("alice", "proj", gitea.CreateHookOption{Type: gitea.HookTypeGitea, Active: true,
				Config: map[string]string{"url": h.url, "content_type": "json"}, Events: h.events}); err != nil {
				t.Fatal(err)
			}
		}

		work := s.clone(t, "alice", "alice-password", "alice", "proj")
		gitCmd(t, work, "checkout", "-q", "-b", "feature")
		commitFile(t, work, "a.txt", "one\n", "first")
		commitFile(t, work, "b.txt", "two\n", "second")
		gitCmd(t, work, "push", "-q", "origin", "feature")
		head := strings.TrimSpace(gitCmd(t, work, "rev-parse", "feature"))
		var p struct {
			Ref, Before, After string
			TotalCommits       int `json:"total_commits"`
			Commits            []struct {
				ID, Message string
				Added       []string
			}
		}
		d := push.wait(t, 1)[0]
		if err := json.Unmarshal(d.Body, &p); err != nil || p.Ref != "refs/heads/feature" || p.After != head ||
			p.TotalCommits != 2 || len(p.Commits) != 2 || p.Commits[0].ID != head || strings.TrimSpace(p.Commits[0].Message) != "second" ||
			len(p.Commits[0].Added) != 1 || p.Commits[0].Added[0] != "b.txt" {
			t.Fatalf("push payload: %+v %v\n%s", p, err, d.Body)
		}

		if _, _, err := alice.CreatePullRequest("alice", "proj", gitea.CreatePullRequestOption{Head: "feature", Base: "main", Title: "Feature"}); err != nil {
			t.Fatal(err)
		}
		d = prs.wait(t, 1)[0]
		var pp struct {
			Action      string
			Number      int64
			PullRequest struct {
				Title string
				Head  struct{ Ref, Sha string }
			} `json:"pull_request"`
		}
		if err := json.Unmarshal(d.Body, &pp); err != nil || pp.Action != "opened" || pp.Number != 1 || pp.PullRequest.Title != "Feature" ||
			pp.PullRequest.Head.Ref != "feature" || pp.PullRequest.Head.Sha != head || d.Header.Get("X-Gitea-Event") != "pull_request" {
			t.Fatalf("pull request payload: %+v %v\n%s", pp, err, d.Body)
		}
		if _, _, err := alice.CreateIssueComment("alice", "proj", 1, gitea.CreateIssueCommentOption{Body: "looks good"}); err != nil {
			t.Fatal(err)
		}
		d = prs.wait(t, 2)[1]
		if d.Header.Get("X-Gitea-Event") != "issue_comment" || d.Header.Get("X-Gitea-Event-Type") != "pull_request_comment" ||
			!strings.Contains(string(d.Body), `"is_pull":true`) {
			t.Fatalf("pull request comment: %v %s", d.Header, d.Body)
		}

		// New commits on the head: pull_request_sync.
		commitFile(t, work, "c.txt", "three\n", "third")
		gitCmd(t, work, "push", "-q", "origin", "feature")
		newHead := strings.TrimSpace(gitCmd(t, work, "rev-parse", "feature"))
		d = prs.wait(t, 3)[2]
		if err := json.Unmarshal(d.Body, &pp); err != nil || pp.Action != "synchronized" || pp.PullRequest.Head.Sha != newHead ||
			d.Header.Get("X-Gitea-Event-Type") != "pull_request_sync" || d.Header.Get("X-Gitea-Event") != "pull_request" {
			t.Fatalf("sync payload: %+v %v %v", pp, err, d.Header)
		}
		// A review.
		if _, _, err := alice.CreatePullReview("alice", "proj", 1, gitea.CreatePullReviewOptions{State: gitea.ReviewStateComment, Body: "nice"}); err != nil {
			t.Fatal(err)
		}
		d = prs.wait(t, 4)[3]
		var rv struct {
			Action string
			Review struct{ Type, Content string }
		}
		if err := json.Unmarshal(d.Body, &rv); err != nil || rv.Action != "reviewed" || rv.Review.Type != "pull_request_review_comment" ||
			rv.Review.Content != "nice" || d.Header.Get("X-Gitea-Event") != "pull_request_comment" {
			t.Fatalf("review payload: %+v %v %v", rv, err, d.Header)
		}

		if _, _, err := alice.CreateRelease("alice", "proj", gitea.CreateReleaseOption{TagName: "v1.0", Title: "One", IsDraft: true}); err != nil {
			t.Fatal(err)
		}
		if _, _, err := alice.CreateRelease("alice", "proj", gitea.CreateReleaseOption{TagName: "v2.0", Title: "Two"}); err != nil {
			t.Fatal(err)
		}
		d = rels.wait(t, 1)[0]
		var rp struct {
			Action  string
			Release struct {
				TagName string `json:"tag_name"`
				Author  struct{ Login string }
			}
		}
		if err := json.Unmarshal(d.Body, &rp); err != nil || rp.Action != "published" || rp.Release.TagName != "v2.0" ||
			rp.Release.Author.Login != "alice" || d.Header.Get("X-Gitea-Event") != "release" {
			t.Fatalf("release payload (the draft is not announced): %+v %v\n%s", rp, err, d.Body)
		}
		// The tag the published release made is pushed, as Gitea sends it
		// (the draft's tag is not made yet).
		d = push.wait(t, 3)[2]
		if !strings.Contains(string(d.Body), `"ref":"refs/tags/v2.0"`) {
			t.Fatalf("third push: %s", d.Body)
		}
		time.Sleep(300 * time.Millisecond)
		if n := push.count(); n != 3 {
			t.Fatalf("push hook got %d deliveries", n)
		}
	})
}

// TestWebhookLevelsFire: an event in a repository reaches the repository's
// hooks, its owner's (organization or user) hooks and the system hooks,
// and not another owner's; default hooks reach only repositories created
// after them.
func TestWebhookLevelsFire(t *testing.T) {
	t.Parallel()
	eachBackend(t, openLoopback, func(t *testing.T, s *testServer) {
		aliceTok := s.seedUser("alice", "alice-password", false)
		bobTok := s.seedUser("bob", "bob-password", false)
		alice := s.sdk(gitea.SetToken(aliceTok))
		bob := s.sdk(gitea.SetToken(bobTok))
		root := s.sdk(gitea.SetToken(s.AdminToken))
		if _, _, err := alice.CreateOrg(gitea.CreateOrgOption{Name: "acme"}); err != nil {
			t.Fatal(err)
		}
		if _, _, err := alice.CreateOrgRepo("acme", gitea.CreateRepoOption{Name: "tool"}); err != nil {
			t.Fatal(err)
		}
		s.createRepo(t, bobTok, "own", false, false)
		orgRcv, userRcv, sysRcv, bobRcv := newReceiver(t, 0), newReceiver(t, 0), newReceiver(t, 0), newReceiver(t, 0)
		opt := func(url string) gitea.CreateHookOption {
			return gitea.CreateHookOption{Type: gitea.HookTypeGitea, Active: true, Events: []string{"issues"},
				Config: map[string]string{"url": url, "content_type": "json"}}
		}
		if _, _, err := alice.CreateOrgHook("acme", opt(orgRcv.URL)); err != nil {
			t.Fatal(err)
		}
		if _, _, err := alice.CreateMyHook(opt(userRcv.URL)); err != nil {
			t.Fatal(err)
		}
		if _, _, err := bob.CreateMyHook(opt(bobRcv.URL)); err != nil {
			t.Fatal(err)
		}
		if _, _, err := root.CreateAdminHook(opt(sysRcv.URL)); err != nil {
			t.Fatal(err)
		}
		if _, _, err := alice.CreateIssue("acme", "tool", gitea.CreateIssueOption{Title: "in the org"}); err != nil {
			t.Fatal(err)
		}
		orgRcv.wait(t, 1)
		sysRcv.wait(t, 1)
		if _, _, err := bob.CreateIssue("bob", "own", gitea.CreateIssueOption{Title: "bob's"}); err != nil {
			t.Fatal(err)
		}
		bobRcv.wait(t, 1)
		sysRcv.wait(t, 2)
		time.Sleep(300 * time.Millisecond)
		if orgRcv.count() != 1 || userRcv.count() != 0 || bobRcv.count() != 1 || sysRcv.count() != 2 {
			t.Fatalf("org %d, alice %d, bob %d, system %d", orgRcv.count(), userRcv.count(), bobRcv.count(), sysRcv.count())
		}
	})
}

// TestWebhookRepositoryAndFork: a repository created in an organization
// reaches the organization's repository hooks; a fork reaches the
// parent's fork hooks.
func TestWebhookRepositoryAndFork(t *testing.T) {
	t.Parallel()
	eachBackend(t, openLoopback, func(t *testing.T, s *testServer) {
		aliceTok := s.seedUser("alice", "alice-password", false)
		bobTok := s.seedUser("bob", "bob-password", false)
		alice := s.sdk(gitea.SetToken(aliceTok))
		bob := s.sdk(gitea.SetToken(bobTok))
		if _, _, err := alice.CreateOrg(gitea.CreateOrgOption{Name: "acme"}); err != nil {
			t.Fatal(err)
		}
		repoRcv, forkRcv := newReceiver(t, 0), newReceiver(t, 0)
		if _, _, err := alice.CreateOrgHook("acme", gitea.CreateHookOption{Type: gitea.HookTypeGitea, Active: true,
			Events: []string{"repository"}, Config: map[string]string{"url": repoRcv.URL, "content_type": "json"}}); err != nil {
			t.Fatal(err)
		}
		if _, _, err := alice.CreateOrgRepo("acme", gitea.CreateRepoOption{Name: "tool", AutoInit: true}); err != nil {
			t.Fatal(err)
		}
		d := repoRcv.wait(t, 1)[0]
		var rp struct {
			Action     string
			Repository struct {
				FullName string `json:"full_name"`
			}
			Organization struct{ Login string }
			Sender       struct{ Login string }
		}
		if err := json.Unmarshal(d.Body, &rp); err != nil || rp.Action != "created" || rp.Repository.FullName != "acme/tool" ||
			rp.Organization.Login != "acme" || rp.Sender.Login != "alice" || d.Header.Get("X-Gitea-Event") != "repository" {
			t.Fatalf("repository payload: %+v %v %s", rp, err, d.Body)
		}
		if _, _, err := alice.CreateRepoHook("acme", "tool", gitea.CreateHookOption{Type: gitea.HookTypeGitea, Active: true,
			Events: []string{"fork"}, Config: map[string]string{"url": forkRcv.URL, "content_type": "json"}}); err != nil {
			t.Fatal(err)
		}
		if _, _, err := bob.CreateFork("acme", "tool", gitea.CreateForkOption{}); err != nil {
			t.Fatal(err)
		}
		d = forkRcv.wait(t, 1)[0]
		var fp struct {
			Forkee struct {
				FullName string `json:"full_name"`
			}
			Repository struct {
				FullName string `json:"full_name"`
			}
			Sender struct{ Login string }
		}
		if err := json.Unmarshal(d.Body, &fp); err != nil || fp.Forkee.FullName != "bob/tool" || fp.Repository.FullName != "acme/tool" ||
			fp.Sender.Login != "bob" || d.Header.Get("X-Gitea-Event") != "fork" {
			t.Fatalf("fork payload: %+v %v %s", fp, err, d.Body)
		}
	})
}
