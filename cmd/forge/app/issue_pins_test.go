package app_test

import (
	"net/http"
	"strings"
	"testing"

	"code.gitea.io/sdk/gitea"
)

// pinOrders reads a pinned list as "title:pin_order ..." (the SDK's
// Issue has no pin_order).
func pinOrders(t *testing.T, s *testServer, path string) string {
	t.Helper()
	r := s.do("GET", path, "")
	expectStatus(t, r, http.StatusOK)
	var list []struct {
		Title    string `json:"title"`
		PinOrder int64  `json:"pin_order"`
	}
	r.json(t, &list)
	out := []string{}
	for _, is := range list {
		out = append(out, is.Title+":"+fmtInt(is.PinOrder))
	}
	return strings.Join(out, " ")
}

func issueTitles(list []*gitea.Issue) string {
	out := []string{}
	for _, is := range list {
		out = append(out, is.Title)
	}
	return strings.Join(out, " ")
}

// TestIssueLockSDK: a writer locks an issue (is_locked in its JSON, the
// reason in its timeline); a reader can then neither comment nor react
// while a writer can; unlocking opens it again. A reader cannot lock.
func TestIssueLockSDK(t *testing.T) {
	t.Parallel()
	eachBackend(t, nil, func(t *testing.T, s *testServer) {
		aliceTok := s.seedUser("alice", "alice-password", false)
		bobTok := s.seedUser("bob", "bob-password", false)
		alice := s.sdk(gitea.SetToken(aliceTok))
		bob := s.sdk(gitea.SetToken(bobTok))
		s.createRepo(t, aliceTok, "proj", false, false)
		is, _, err := bob.CreateIssue("alice", "proj", gitea.CreateIssueOption{Title: "heated"})
		if err != nil {
			t.Fatal(err)
		}
		if resp, err := bob.LockIssue("alice", "proj", is.Index, gitea.LockIssueOption{LockReason: "Too heated"}); resp == nil || resp.StatusCode != http.StatusForbidden {
			t.Fatalf("a reader locked an issue: %v", err)
		}
		if resp, err := alice.LockIssue("alice", "proj", is.Index, gitea.LockIssueOption{LockReason: "Too heated"}); err != nil || resp.StatusCode != http.StatusNoContent {
			t.Fatalf("LockIssue: %v", err)
		}
		if _, err := alice.LockIssue("alice", "proj", is.Index, gitea.LockIssueOption{}); err != nil {
			t.Fatalf("locking a locked issue: %v", err)
		}
		got, _, err := bob.GetIssue("alice", "proj", is.Index)
		if err != nil || !got.IsLocked {
			t.Fatalf("is_locked after LockIssue: %+v %v", got, err)
		}
		timeline, _, err := bob.ListIssueTimeline("alice", "proj", is.Index, gitea.ListIssueCommentOptions{})
		if err != nil || len(timeline) != 1 || timeline[0].Type != "lock" || timeline[0].Body != "Too heated" || timeline[0].Poster.UserName != "alice" {
			t.Fatalf("timeline after LockIssue: %v", err)
		}
		if _, resp, err := bob.CreateIssueComment("alice", "proj", is.Index, gitea.CreateIssueCommentOption{Body: "but"}); resp == nil || resp.StatusCode != http.StatusForbidden {
			t.Fatalf("a reader commented on a locked issue: %v", err)
		}
		if _, resp, err := bob.PostIssueReaction("alice", "proj", is.Index, "-1"); resp == nil || resp.StatusCode != http.StatusForbidden || !strings.Contains(err.Error(), "no permission to change reaction") {
			t.Fatalf("a reader reacted on a locked issue: %v", err)
		}
		if _, _, err := alice.CreateIssueComment("alice", "proj", is.Index, gitea.CreateIssueCommentOption{Body: "calm down"}); err != nil {
			t.Fatalf("a writer comments on a locked issue: %v", err)
		}
		if _, _, err := alice.PostIssueReaction("alice", "proj", is.Index, "+1"); err != nil {
			t.Fatalf("a writer reacts on a locked issue: %v", err)
		}
		if resp, err := alice.UnlockIssue("alice", "proj", is.Index); err != nil || resp.StatusCode != http.StatusNoContent {
			t.Fatalf("UnlockIssue: %v", err)
		}
		if got, _, _ := bob.GetIssue("alice", "proj", is.Index); got.IsLocked {
			t.Fatal("still locked after UnlockIssue")
		}
		if _, _, err := bob.PostIssueReaction("alice", "proj", is.Index, "-1"); err != nil {
			t.Fatalf("a reader reacts after UnlockIssue: %v", err)
		}
		if _, resp, _ := alice.PostIssueReaction("alice", "proj", 99, "-1"); resp == nil || resp.StatusCode != http.StatusNotFound {
			t.Fatal("reaction on an unknown issue")
		}
		if resp, _ := alice.LockIssue("alice", "proj", 99, gitea.LockIssueOption{}); resp == nil || resp.StatusCode != http.StatusNotFound {
			t.Fatal("lock of an unknown issue")
		}
	})
}

// TestIssuePinsSDK: an administrator pins issues (pin_order 1, 2, 3, at
// most [repository.issue] MAX_PINNED, then 400), moves and unpins them
// (the others close up); pull requests are pinned apart and listed by
// /pulls/pinned; a writer cannot pin.
func TestIssuePinsSDK(t *testing.T) {
	t.Parallel()
	eachBackend(t, nil, func(t *testing.T, s *testServer) {
		aliceTok := s.seedUser("alice", "alice-password", false)
		bobTok := s.seedUser("bob", "bob-password", false)
		alice := s.sdk(gitea.SetToken(aliceTok))
		bob := s.sdk(gitea.SetToken(bobTok))
		anon := s.sdk()
		s.createRepo(t, aliceTok, "proj", true, false)
		if _, err := alice.AddCollaborator("alice", "proj", "bob", gitea.AddCollaboratorOption{Permission: ptr(gitea.AccessModeWrite)}); err != nil {
			t.Fatal(err)
		}
		for _, title := range []string{"a", "b", "c", "d"} {
			if _, _, err := alice.CreateIssue("alice", "proj", gitea.CreateIssueOption{Title: title}); err != nil {
				t.Fatal(err)
			}
		}
		if resp, err := bob.PinIssue("alice", "proj", 1); resp == nil || resp.StatusCode != http.StatusForbidden {
			t.Fatalf("a writer pinned an issue: %v", err)
		}
		for _, n := range []int64{1, 2, 3, 3} {
			if _, err := alice.PinIssue("alice", "proj", n); err != nil {
				t.Fatalf("PinIssue %d: %v", n, err)
			}
		}
		if resp, _ := alice.PinIssue("alice", "proj", 4); resp == nil || resp.StatusCode != http.StatusBadRequest {
			t.Fatalf("a fourth pin: %v", resp)
		}
		pinned, _, err := anon.ListRepoPinnedIssues("alice", "proj")
		if err != nil || issueTitles(pinned) != "a b c" || pinOrders(t, s, "/api/v1/repos/alice/proj/issues/pinned") != "a:1 b:2 c:3" {
			t.Fatalf("ListRepoPinnedIssues: %s %v", issueTitles(pinned), err)
		}
		if _, err := alice.MoveIssuePin("alice", "proj", 3, 1); err != nil {
			t.Fatal(err)
		}
		if pinned, _, _ = anon.ListRepoPinnedIssues("alice", "proj"); issueTitles(pinned) != "c a b" {
			t.Fatalf("after moving c first: %s", issueTitles(pinned))
		}
		if _, err := alice.MoveIssuePin("alice", "proj", 3, 10); err != nil {
			t.Fatal(err)
		}
		if got := pinOrders(t, s, "/api/v1/repos/alice/proj/issues/pinned"); got != "a:1 b:2 c:3" {
			t.Fatalf("after moving c beyond the last: %s", got)
		}
		if _, err := alice.UnpinIssue("alice", "proj", 1); err != nil {
			t.Fatal(err)
		}
		if got := pinOrders(t, s, "/api/v1/repos/alice/proj/issues/pinned"); got != "b:1 c:2" {
			t.Fatalf("after unpinning a: %s", got)
		}
		if got := s.do("GET", "/api/v1/repos/alice/proj/issues/1", ""); !strings.Contains(string(got.Body), `"pin_order":0`) {
			t.Fatalf("pin_order of an unpinned issue: %s", got.Body)
		}

		// Pull requests have pins of their own.
		if _, _, err := alice.CreateBranch("alice", "proj", gitea.CreateBranchOption{BranchName: "dev"}); err != nil {
			t.Fatal(err)
		}
		if _, _, err := alice.CreateFile("alice", "proj", "x.txt", gitea.CreateFileOptions{FileOptions: gitea.FileOptions{BranchName: "dev"}, Content: "eA=="}); err != nil {
			t.Fatal(err)
		}
		pr, _, err := alice.CreatePullRequest("alice", "proj", gitea.CreatePullRequestOption{Head: "dev", Base: "main", Title: "pr"})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := alice.PinIssue("alice", "proj", pr.Index); err != nil {
			t.Fatalf("pinning a pull request: %v", err)
		}
		prs, _, err := anon.ListRepoPinnedPullRequests("alice", "proj")
		if err != nil || len(prs) != 1 || prs[0].Title != "pr" || pinOrders(t, s, "/api/v1/repos/alice/proj/pulls/pinned") != "pr:1" {
			t.Fatalf("ListRepoPinnedPullRequests: %v %v", prs, err)
		}
		if pinned, _, _ = anon.ListRepoPinnedIssues("alice", "proj"); issueTitles(pinned) != "b c" {
			t.Fatalf("a pinned pull request listed with the issues: %s", issueTitles(pinned))
		}
	})
}
