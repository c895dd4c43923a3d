package app_test

import (
	"strings"
	"testing"
	"time"

	"code.gitea.io/sdk/gitea"
)

// TestPullsFollowBranches pushes to the head and the base of open pull
// requests with git and checks, through the Gitea SDK, that each pull
// request follows within a second: the head commit, the diff size as git
// diff --numstat base...head counts it, its commits, a conflict pushed to
// the base; then retargets one (EditPullRequest Base), closes and reopens
// it (State), and does the same through a fork's branch.
func TestPullsFollowBranches(t *testing.T) {
	t.Parallel()
	eachBackend(t, nil, func(t *testing.T, s *testServer) {
		aliceTok := s.seedUser("alice", "alice-password", false)
		bobTok := s.seedUser("bob", "bob-password", false)
		alice := s.sdk(gitea.SetToken(aliceTok))
		bob := s.sdk(gitea.SetToken(bobTok))
		s.createRepo(t, aliceTok, "proj", true, false)
		work := s.clone(t, "alice", "alice-password", "alice", "proj")
		gitCmd(t, work, "push", "-q", "origin", "main:refs/heads/stable")
		gitCmd(t, work, "checkout", "-q", "-b", "feature")
		commitFile(t, work, "a.txt", "one\n", "first")
		gitCmd(t, work, "push", "-q", "origin", "feature")
		if _, _, err := alice.CreatePullRequest("alice", "proj", gitea.CreatePullRequestOption{Head: "feature", Base: "main", Title: "Feature"}); err != nil {
			t.Fatal(err)
		}

		// Two more commits pushed to the head.
		commitFile(t, work, "a.txt", "one\ntwo\n", "second")
		commitFile(t, work, "b.txt", "three\nfour\n", "third")
		gitCmd(t, work, "push", "-q", "origin", "feature")
		head := strings.TrimSpace(gitCmd(t, work, "rev-parse", "feature"))
		adds, dels, files := numstat(t, gitCmd(t, work, "diff", "--numstat", "origin/main...feature"))
		pr := waitPull(t, bob, "alice", "proj", 1, "the head pushed", func(pr *gitea.PullRequest) bool {
			return pr.Head.Sha == head && deref(pr.Additions) == adds && deref(pr.Deletions) == dels && deref(pr.ChangedFiles) == files && pr.Mergeable
		})
		commits, _, err := bob.ListPullRequestCommits("alice", "proj", 1, gitea.ListPullRequestCommitsOptions{})
		if err != nil || len(commits) != 3 || commits[0].SHA != head {
			t.Fatalf("commits after the push: %d %v", len(commits), err)
		}
		gitCmd(t, work, "fetch", "-q", "origin", "refs/pull/1/head")
		if kept := strings.TrimSpace(gitCmd(t, work, "rev-parse", "FETCH_HEAD")); kept != head {
			t.Fatalf("refs/pull/1/head is %s, want %s", kept, head)
		}

		// A second pull request whose head then reaches the base by a plain
		// push is marked merged and closed.
		gitCmd(t, work, "checkout", "-q", "-b", "direct", "main")
		commitFile(t, work, "direct.txt", "direct\n", "direct")
		gitCmd(t, work, "push", "-q", "origin", "direct")
		direct, _, err := alice.CreatePullRequest("alice", "proj", gitea.CreatePullRequestOption{Head: "direct", Base: "main", Title: "Direct"})
		if err != nil {
			t.Fatal(err)
		}
		directHead := strings.TrimSpace(gitCmd(t, work, "rev-parse", "direct"))
		gitCmd(t, work, "push", "-q", "origin", "direct:main")
		waitPull(t, bob, "alice", "proj", direct.Index, "its head pushed to the base", func(pr *gitea.PullRequest) bool {
			return pr.HasMerged && pr.State == gitea.StateClosed && pr.MergedCommitID != nil && *pr.MergedCommitID == directHead && pr.MergedBy != nil && pr.MergedBy.UserName == "alice"
		})
		if _, resp, err := bob.IsPullRequestMerged("alice", "proj", direct.Index); err != nil || resp.StatusCode != 204 {
			t.Fatalf("IsPullRequestMerged after the push: %v %v", resp, err)
		}
		gitCmd(t, work, "checkout", "-q", "main")
		gitCmd(t, work, "merge", "-q", "--ff-only", "direct")

		// A conflicting change pushed to the base.
		gitCmd(t, work, "checkout", "-q", "main")
		commitFile(t, work, "a.txt", "other\n", "conflict")
		gitCmd(t, work, "push", "-q", "origin", "main")
		waitPull(t, bob, "alice", "proj", 1, "a conflict pushed to the base", func(pr *gitea.PullRequest) bool {
			return !pr.Mergeable && pr.Head.Sha == head
		})

		// Retargeted to stable, where it merges.
		stable := strings.TrimSpace(gitCmd(t, work, "rev-parse", "origin/stable"))
		pr, _, err = alice.EditPullRequest("alice", "proj", 1, gitea.EditPullRequestOption{Base: "stable"})
		if err != nil || pr.Base.Ref != "stable" || pr.Base.Sha != stable || !pr.Mergeable || pr.MergeBase != stable || pr.Head.Sha != head {
			t.Fatalf("retargeted: %+v base %+v %v", pr, pr.Base, err)
		}
		if _, resp, err := alice.EditPullRequest("alice", "proj", 1, gitea.EditPullRequestOption{Base: "nope"}); err == nil || resp.StatusCode != 404 {
			t.Fatalf("a base that does not exist: %v %v", resp, err)
		}

		// Closed and reopened.
		closed, open := gitea.StateClosed, gitea.StateOpen
		if pr, _, err = alice.EditPullRequest("alice", "proj", 1, gitea.EditPullRequestOption{State: &closed}); err != nil || pr.State != gitea.StateClosed || pr.Closed == nil {
			t.Fatalf("closed: %+v %v", pr, err)
		}
		if r, _, _ := alice.GetRepo("alice", "proj"); r.OpenPulls != 0 {
			t.Fatalf("open pull requests after closing: %d", r.OpenPulls)
		}
		if pr, _, err = alice.EditPullRequest("alice", "proj", 1, gitea.EditPullRequestOption{State: &open}); err != nil || pr.State != gitea.StateOpen {
			t.Fatalf("reopened: %+v %v", pr, err)
		}
		if r, _, _ := alice.GetRepo("alice", "proj"); r.OpenPulls != 1 {
			t.Fatalf("open pull requests after reopening: %d", r.OpenPulls)
		}
		if _, resp, err := bob.EditPullRequest("alice", "proj", 1, gitea.EditPullRequestOption{State: &closed}); err == nil || resp.StatusCode != 403 {
			t.Fatalf("closed by someone else: %v %v", resp, err)
		}

		// From bob's fork: a push to the fork's branch reaches the pull
		// request in alice's repository.
		if _, _, err := bob.CreateFork("alice", "proj", gitea.CreateForkOption{}); err != nil {
			t.Fatal(err)
		}
		fw := s.clone(t, "bob", "bob-password", "bob", "proj")
		gitCmd(t, fw, "checkout", "-q", "-b", "fix")
		commitFile(t, fw, "fix.txt", "fixed\n", "fix it")
		gitCmd(t, fw, "push", "-q", "origin", "fix")
		fpr, _, err := bob.CreatePullRequest("alice", "proj", gitea.CreatePullRequestOption{Head: "bob:fix", Base: "main", Title: "Fix"})
		if err != nil {
			t.Fatal(err)
		}
		commitFile(t, fw, "fix.txt", "fixed\nagain\n", "fix it again")
		commitFile(t, fw, "more.txt", "more\n", "and more")
		gitCmd(t, fw, "push", "-q", "origin", "fix")
		fixHead := strings.TrimSpace(gitCmd(t, fw, "rev-parse", "fix"))
		fadds, fdels, ffiles := numstat(t, gitCmd(t, fw, "diff", "--numstat", "origin/main...fix"))
		waitPull(t, alice, "alice", "proj", fpr.Index, "the fork's head pushed", func(pr *gitea.PullRequest) bool {
			return pr.Head.Sha == fixHead && deref(pr.Additions) == fadds && deref(pr.Deletions) == fdels && deref(pr.ChangedFiles) == ffiles
		})
		commits, _, err = alice.ListPullRequestCommits("alice", "proj", fpr.Index, gitea.ListPullRequestCommitsOptions{})
		if err != nil || len(commits) != 3 || commits[0].SHA != fixHead {
			t.Fatalf("the fork's commits after the push: %d %v", len(commits), err)
		}
		if pr, _, err = bob.EditPullRequest("alice", "proj", fpr.Index, gitea.EditPullRequestOption{Base: "stable", Title: "Fix for stable"}); err != nil ||
			pr.Base.Ref != "stable" || pr.Title != "Fix for stable" || pr.Head.Sha != fixHead || !pr.Mergeable {
			t.Fatalf("the fork's pull request retargeted by its poster: %+v %v", pr, err)
		}
	})
}

// waitPull reads a pull request until ok holds, for at most a second
// (the promise: visible within a second of the push returning).
func waitPull(t *testing.T, c *gitea.Client, owner, repo string, index int64, what string, ok func(*gitea.PullRequest) bool) *gitea.PullRequest {
	t.Helper()
	// 2.5 s: what the writer's own record of a ref change sets off takes
	// milliseconds, but CI's machine may be loaded; below the reconciler's
	// 3 s grace (repos.WriterGrace), so a change left to the reconciler
	// still fails.
	deadline := time.Now().Add(2500 * time.Millisecond)
	for {
		pr, _, err := c.GetPullRequest(owner, repo, index)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if ok(pr) {
			return pr
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within 2.5 s: %+v head %+v base %+v", what, pr, pr.Head, pr.Base)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
