package app_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"code.gitea.io/sdk/gitea"
)

// byType indexes deliveries by X-Gitea-Event-Type (one each expected).
func byType(t *testing.T, got []delivery) map[string]delivery {
	t.Helper()
	out := map[string]delivery{}
	for _, d := range got {
		typ := d.Header.Get("X-Gitea-Event-Type")
		if _, dup := out[typ]; dup {
			t.Fatalf("two %s deliveries", typ)
		}
		out[typ] = d
	}
	return out
}

// TestWebhookTagEvents: a tag pushed over git is a push (refs/tags/...,
// no commits, the tagged commit as head) and a create (ref_type tag), as
// Gitea 1.22 sends them (an annotated tag's push has the tag object as
// after and its commit as head); a tag deleted by a push is a push to
// zeros and a delete (ref_type tag).
func TestWebhookTagEvents(t *testing.T) {
	t.Parallel()
	eachBackend(t, openLoopback, func(t *testing.T, s *testServer) {
		aliceTok := s.seedUser("alice", "alice-password", false)
		alice := s.sdk(gitea.SetToken(aliceTok))
		s.createRepo(t, aliceTok, "proj", true, false)
		rcv := newReceiver(t, 0)
		if _, _, err := alice.CreateRepoHook("alice", "proj", gitea.CreateHookOption{Type: gitea.HookTypeGitea, Active: true,
			Config: map[string]string{"url": rcv.URL, "content_type": "json"}, Events: []string{"create", "delete", "push"}}); err != nil {
			t.Fatal(err)
		}
		work := s.clone(t, "alice", "alice-password", "alice", "proj")
		head := strings.TrimSpace(gitCmd(t, work, "rev-parse", "HEAD"))
		gitCmd(t, work, "tag", "v1.0")
		gitCmd(t, work, "push", "-q", "origin", "v1.0")
		got := byType(t, rcv.wait(t, 2))
		push, create := got["push"], got["create"]
		var p struct {
			Ref, Before, After string
			Commits            []json.RawMessage
			HeadCommit         struct{ ID string } `json:"head_commit"`
			Pusher             struct{ Login string }
		}
		if err := json.Unmarshal(push.Body, &p); err != nil || push.Header.Get("X-Gitea-Event") != "push" || p.Ref != "refs/tags/v1.0" ||
			p.Before != strings.Repeat("0", 40) || p.After != head || len(p.Commits) != 0 || p.HeadCommit.ID != head || p.Pusher.Login != "alice" {
			t.Fatalf("tag push: %+v %v\n%s", p, err, push.Body)
		}
		var c struct {
			Sha, Ref string
			RefType  string `json:"ref_type"`
			Sender   struct{ Login string }
		}
		if err := json.Unmarshal(create.Body, &c); err != nil || create.Header.Get("X-Gitea-Event") != "create" || c.Ref != "v1.0" ||
			c.RefType != "tag" || c.Sha != head || c.Sender.Login != "alice" {
			t.Fatalf("tag create: %+v %v\n%s", c, err, create.Body)
		}

		// An annotated tag: after is the tag object, head_commit its commit.
		gitCmd(t, work, "-c", "user.name=alice", "-c", "user.email=alice@example.org", "tag", "-a", "-m", "two", "v2.0")
		gitCmd(t, work, "push", "-q", "origin", "v2.0")
		tagObj := strings.TrimSpace(gitCmd(t, work, "rev-parse", "v2.0"))
		got = byType(t, rcv.wait(t, 4)[2:])
		p.HeadCommit.ID = ""
		if err := json.Unmarshal(got["push"].Body, &p); err != nil || p.Ref != "refs/tags/v2.0" || p.After != tagObj || p.HeadCommit.ID != head {
			t.Fatalf("annotated tag push: %+v %v", p, err)
		}

		gitCmd(t, work, "push", "-q", "origin", ":refs/tags/v1.0")
		got = byType(t, rcv.wait(t, 6)[4:])
		checkTagDeleted(t, got, "alice/proj", "v1.0", head)
		time.Sleep(300 * time.Millisecond)
		if n := rcv.count(); n != 6 {
			t.Fatalf("%d deliveries, want 6", n)
		}
	})
}

// checkTagDeleted: the deliveries of tag name's deletion are a push to
// zeros (no commits, no head) and a delete with ref_type tag.
func checkTagDeleted(t *testing.T, got map[string]delivery, repo, name, old string) {
	t.Helper()
	push, d := got["push"], got["delete"]
	var p struct {
		Ref, Before, After string
		Commits            []json.RawMessage
		HeadCommit         *struct{ ID string } `json:"head_commit"`
	}
	if err := json.Unmarshal(push.Body, &p); err != nil || push.Header.Get("X-Gitea-Event") != "push" || p.Ref != "refs/tags/"+name ||
		p.Before != old || p.After != strings.Repeat("0", 40) || len(p.Commits) != 0 || p.HeadCommit != nil {
		t.Fatalf("tag deletion push: %+v %v\n%s", p, err, push.Body)
	}
	var del struct {
		Ref        string
		RefType    string `json:"ref_type"`
		PusherType string `json:"pusher_type"`
		Repository struct {
			FullName string `json:"full_name"`
		}
	}
	if err := json.Unmarshal(d.Body, &del); err != nil || d.Header.Get("X-Gitea-Event") != "delete" || del.Ref != name ||
		del.RefType != "tag" || del.PusherType != "user" || del.Repository.FullName != repo {
		t.Fatalf("tag delete: %+v %v\n%s", del, err, d.Body)
	}
}

// TestWebhookAPITagEvents: a release that creates its tag sends the
// tag's push and create, as a pushed tag does; DELETE
// /repos/{o}/{r}/tags/{tag} sends its push to zeros and delete.
func TestWebhookAPITagEvents(t *testing.T) {
	t.Parallel()
	eachBackend(t, openLoopback, func(t *testing.T, s *testServer) {
		aliceTok := s.seedUser("alice", "alice-password", false)
		alice := s.sdk(gitea.SetToken(aliceTok))
		s.createRepo(t, aliceTok, "proj", true, false)
		rcv := newReceiver(t, 0)
		if _, _, err := alice.CreateRepoHook("alice", "proj", gitea.CreateHookOption{Type: gitea.HookTypeGitea, Active: true,
			Config: map[string]string{"url": rcv.URL, "content_type": "json"}, Events: []string{"create", "delete", "push"}}); err != nil {
			t.Fatal(err)
		}
		br, _, err := alice.GetRepoBranch("alice", "proj", "main")
		if err != nil {
			t.Fatal(err)
		}
		head := br.Commit.ID
		rel, _, err := alice.CreateRelease("alice", "proj", gitea.CreateReleaseOption{TagName: "v1", Target: "main", Title: "One"})
		if err != nil {
			t.Fatal(err)
		}
		got := byType(t, rcv.wait(t, 2))
		var c struct {
			Sha, Ref string
			RefType  string `json:"ref_type"`
		}
		if err := json.Unmarshal(got["create"].Body, &c); err != nil || c.Ref != "v1" || c.RefType != "tag" || c.Sha != head {
			t.Fatalf("create: %+v %v", c, err)
		}
		var p struct {
			Ref        string
			HeadCommit struct{ ID string } `json:"head_commit"`
		}
		if err := json.Unmarshal(got["push"].Body, &p); err != nil || p.Ref != "refs/tags/v1" || p.HeadCommit.ID != head {
			t.Fatalf("push: %+v %v", p, err)
		}
		if _, err := alice.DeleteRelease("alice", "proj", rel.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := alice.DeleteTag("alice", "proj", "v1"); err != nil {
			t.Fatal(err)
		}
		checkTagDeleted(t, byType(t, rcv.wait(t, 4)[2:]), "alice/proj", "v1", head)
	})
}

// TestWebhookReleaseDeleted: deleting a published release is a release
// event with action deleted and the release as it was.
func TestWebhookReleaseDeleted(t *testing.T) {
	t.Parallel()
	eachBackend(t, openLoopback, func(t *testing.T, s *testServer) {
		aliceTok := s.seedUser("alice", "alice-password", false)
		alice := s.sdk(gitea.SetToken(aliceTok))
		s.createRepo(t, aliceTok, "proj", true, false)
		rcv := newReceiver(t, 0)
		if _, _, err := alice.CreateRepoHook("alice", "proj", gitea.CreateHookOption{Type: gitea.HookTypeGitea, Active: true,
			Config: map[string]string{"url": rcv.URL, "content_type": "json"}, Events: []string{"release"}}); err != nil {
			t.Fatal(err)
		}
		rel, _, err := alice.CreateRelease("alice", "proj", gitea.CreateReleaseOption{TagName: "v1", Target: "main", Title: "One"})
		if err != nil {
			t.Fatal(err)
		}
		rcv.wait(t, 1)
		if _, err := alice.DeleteRelease("alice", "proj", rel.ID); err != nil {
			t.Fatal(err)
		}
		d := rcv.wait(t, 2)[1]
		var p struct {
			Action  string
			Release struct {
				ID      int64
				TagName string `json:"tag_name"`
				Name    string
			}
			Repository struct {
				FullName string `json:"full_name"`
			}
			Sender struct{ Login string }
		}
		if err := json.Unmarshal(d.Body, &p); err != nil || d.Header.Get("X-Gitea-Event") != "release" || p.Action != "deleted" ||
			p.Release.ID != rel.ID || p.Release.TagName != "v1" || p.Release.Name != "One" || p.Repository.FullName != "alice/proj" ||
			p.Sender.Login != "alice" {
			t.Fatalf("release deleted: %+v %v\n%s", p, err, d.Body)
		}
	})
}

// TestWebhookRepositoryDeleted: deleting a repository reaches its
// organization's and the system hooks (its own hooks go with it) as a
// repository event with action deleted.
func TestWebhookRepositoryDeleted(t *testing.T) {
	t.Parallel()
	eachBackend(t, openLoopback, func(t *testing.T, s *testServer) {
		aliceTok := s.seedUser("alice", "alice-password", false)
		alice := s.sdk(gitea.SetToken(aliceTok))
		root := s.sdk(gitea.SetToken(s.AdminToken))
		if _, _, err := alice.CreateOrg(gitea.CreateOrgOption{Name: "acme"}); err != nil {
			t.Fatal(err)
		}
		orgRcv, sysRcv, repoRcv := newReceiver(t, 0), newReceiver(t, 0), newReceiver(t, 0)
		opt := func(url string) gitea.CreateHookOption {
			return gitea.CreateHookOption{Type: gitea.HookTypeGitea, Active: true, Events: []string{"repository"},
				Config: map[string]string{"url": url, "content_type": "json"}}
		}
		if _, _, err := alice.CreateOrgHook("acme", opt(orgRcv.URL)); err != nil {
			t.Fatal(err)
		}
		if _, _, err := root.CreateAdminHook(opt(sysRcv.URL)); err != nil {
			t.Fatal(err)
		}
		if _, _, err := alice.CreateOrgRepo("acme", gitea.CreateRepoOption{Name: "tool", AutoInit: true}); err != nil {
			t.Fatal(err)
		}
		orgRcv.wait(t, 1)
		sysRcv.wait(t, 1)
		if _, _, err := alice.CreateRepoHook("acme", "tool", opt(repoRcv.URL)); err != nil {
			t.Fatal(err)
		}
		if _, err := alice.DeleteRepo("acme", "tool"); err != nil {
			t.Fatal(err)
		}
		for name, rcv := range map[string]*receiver{"organization": orgRcv, "system": sysRcv} {
			d := rcv.wait(t, 2)[1]
			var p struct {
				Action     string
				Repository struct {
					FullName string `json:"full_name"`
				}
				Organization struct{ Login string }
				Sender       struct{ Login string }
			}
			if err := json.Unmarshal(d.Body, &p); err != nil || d.Header.Get("X-Gitea-Event") != "repository" || p.Action != "deleted" ||
				p.Repository.FullName != "acme/tool" || p.Organization.Login != "acme" || p.Sender.Login != "alice" {
				t.Fatalf("%s hook: %+v %v\n%s", name, p, err, d.Body)
			}
		}
		time.Sleep(300 * time.Millisecond)
		if n := repoRcv.count(); n != 0 {
			t.Fatalf("the deleted repository's own hook got %d deliveries", n)
		}
	})
}

// TestWebhookReviewRequests: asking a person for a review and withdrawing
// the request are pull_request_review_request events (X-Gitea-Event
// pull_request) with actions review_requested and review_request_removed
// and the person as requested_reviewer; a request already open is not
// sent again.
func TestWebhookReviewRequests(t *testing.T) {
	t.Parallel()
	eachBackend(t, openLoopback, func(t *testing.T, s *testServer) {
		aliceTok := s.seedUser("alice", "alice-password", false)
		s.seedUser("bob", "bob-password", false)
		alice := s.sdk(gitea.SetToken(aliceTok))
		s.createRepo(t, aliceTok, "proj", true, false)
		mode := gitea.AccessModeWrite
		if _, err := alice.AddCollaborator("alice", "proj", "bob", gitea.AddCollaboratorOption{Permission: &mode}); err != nil {
			t.Fatal(err)
		}
		if _, _, err := alice.CreateFile("alice", "proj", "f.txt", gitea.CreateFileOptions{Content: "aGk=",
			FileOptions: gitea.FileOptions{NewBranchName: "feature"}}); err != nil {
			t.Fatal(err)
		}
		pr, _, err := alice.CreatePullRequest("alice", "proj", gitea.CreatePullRequestOption{Head: "feature", Base: "main", Title: "Feature"})
		if err != nil {
			t.Fatal(err)
		}
		rcv := newReceiver(t, 0)
		if _, _, err := alice.CreateRepoHook("alice", "proj", gitea.CreateHookOption{Type: gitea.HookTypeGitea, Active: true,
			Config: map[string]string{"url": rcv.URL, "content_type": "json"}, Events: []string{"pull_request_review_request"}}); err != nil {
			t.Fatal(err)
		}
		for range 2 { // the second asks again: nothing new
			if _, err := alice.CreateReviewRequests("alice", "proj", pr.Index, gitea.PullReviewRequestOptions{Reviewers: []string{"bob"}}); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := alice.DeleteReviewRequests("alice", "proj", pr.Index, gitea.PullReviewRequestOptions{Reviewers: []string{"bob"}}); err != nil {
			t.Fatal(err)
		}
		got := rcv.wait(t, 2)
		seen := map[string]bool{}
		for i, d := range got {
			var p struct {
				Action            string
				Number            int64
				PullRequest       struct{ Title string } `json:"pull_request"`
				RequestedReviewer struct{ Login string } `json:"requested_reviewer"`
				Sender            struct{ Login string }
			}
			if err := json.Unmarshal(d.Body, &p); err != nil || d.Header.Get("X-Gitea-Event") != "pull_request" ||
				d.Header.Get("X-Gitea-Event-Type") != "pull_request_review_request" || seen[p.Action] || p.Number != pr.Index ||
				p.PullRequest.Title != "Feature" || p.RequestedReviewer.Login != "bob" || p.Sender.Login != "alice" {
				t.Fatalf("delivery %d: %+v %v %v\n%s", i, p, err, d.Header, d.Body)
			}
			seen[p.Action] = true
		}
		if !seen["review_requested"] || !seen["review_request_removed"] {
			t.Fatalf("actions: %v", seen)
		}
		time.Sleep(300 * time.Millisecond)
		if n := rcv.count(); n != 2 {
			t.Fatalf("%d deliveries, want 2", n)
		}
	})
}

// TestWebhookAssignment: assigning a person is an issues event (type
// issue_assign) with action assigned; removing every assignee is one
// with action unassigned.
func TestWebhookAssignment(t *testing.T) {
	t.Parallel()
	eachBackend(t, openLoopback, func(t *testing.T, s *testServer) {
		aliceTok := s.seedUser("alice", "alice-password", false)
		s.seedUser("bob", "bob-password", false)
		alice := s.sdk(gitea.SetToken(aliceTok))
		s.createRepo(t, aliceTok, "proj", true, false)
		mode := gitea.AccessModeWrite
		if _, err := alice.AddCollaborator("alice", "proj", "bob", gitea.AddCollaboratorOption{Permission: &mode}); err != nil {
			t.Fatal(err)
		}
		rcv := newReceiver(t, 0)
		if _, _, err := alice.CreateRepoHook("alice", "proj", gitea.CreateHookOption{Type: gitea.HookTypeGitea, Active: true,
			Config: map[string]string{"url": rcv.URL, "content_type": "json"}, Events: []string{"issues"}}); err != nil {
			t.Fatal(err)
		}
		is, _, err := alice.CreateIssue("alice", "proj", gitea.CreateIssueOption{Title: "Crash"})
		if err != nil {
			t.Fatal(err)
		}
		rcv.wait(t, 1)
		if _, _, err := alice.EditIssue("alice", "proj", is.Index, gitea.EditIssueOption{Assignees: []string{"bob"}}); err != nil {
			t.Fatal(err)
		}
		rcv.wait(t, 2)
		path := "/api/v1/repos/alice/proj/issues/1"
		if r := s.do("PATCH", path, `{"assignee":""}`, "Authorization", "token "+aliceTok, "Content-Type", jsonCT); r.Status != 201 {
			t.Fatalf("unassign: %d %s", r.Status, r.Body)
		}
		got := rcv.wait(t, 3)
		for i, want := range []string{"assigned", "unassigned"} {
			d := got[i+1]
			var p struct {
				Action string
				Number int64
				Issue  struct {
					Assignees []struct{ Login string }
				}
			}
			if err := json.Unmarshal(d.Body, &p); err != nil || d.Header.Get("X-Gitea-Event") != "issues" ||
				d.Header.Get("X-Gitea-Event-Type") != "issue_assign" || p.Action != want || p.Number != is.Index {
				t.Fatalf("delivery %d: %+v %v %v\n%s", i+1, p, err, d.Header, d.Body)
			}
		}
	})
}
