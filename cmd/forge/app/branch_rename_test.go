package app_test

import (
	"strings"
	"testing"
	"time"

	"code.gitea.io/sdk/gitea"
)

// Renaming and moving branches through the API (Gitea 1.24's PATCH and
// PUT /repos/{o}/{r}/branches/{branch}), with the SDK's RenameRepoBranch
// (which the SDK sends only to servers reporting 1.24 or later) and
// UpdateRepoBranchRef, checked with real git.
func TestBranchRenameAndUpdate(t *testing.T) {
	t.Parallel()
	eachBackend(t, nil, func(t *testing.T, s *testServer) {
		const pw = "alice-password"
		aliceTok := s.seedUser("alice", pw, false)
		bobTok := s.seedUser("bob", "bob-password", false)
		alice := s.sdk(gitea.SetToken(aliceTok))
		bob := s.sdk(gitea.SetToken(bobTok))
		s.createRepo(t, aliceTok, "proj", false, false)
		if _, err := alice.AddCollaborator("alice", "proj", "bob", gitea.AddCollaboratorOption{Permission: ptr(gitea.AccessModeWrite)}); err != nil {
			t.Fatal(err)
		}

		work := s.clone(t, "alice", pw, "alice", "proj")
		gitCmd(t, work, "checkout", "-q", "-b", "main")
		c1 := commitAs(t, work, "alice@example.org", 1_700_000_000, "a.txt", "1\n", "c1")
		gitCmd(t, work, "branch", "side")
		gitCmd(t, work, "branch", "release/1")
		gitCmd(t, work, "branch", "locked")
		c2 := commitAs(t, work, "alice@example.org", 1_700_000_100, "a.txt", "2\n", "c2")
		gitCmd(t, work, "checkout", "-q", "-b", "feature", c1)
		c3 := commitAs(t, work, "alice@example.org", 1_700_000_200, "b.txt", "3\n", "c3")
		gitCmd(t, work, "checkout", "-q", "-b", "extra")
		c4 := commitAs(t, work, "alice@example.org", 1_700_000_300, "c.txt", "4\n", "c4")
		gitCmd(t, work, "push", "-q", "origin", "main", "side", "release/1", "locked", "feature", "extra")

		pr, _, err := alice.CreatePullRequest("alice", "proj", gitea.CreatePullRequestOption{Head: "feature", Base: "main", Title: "Feature"})
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range []gitea.CreateBranchProtectionOption{
			{RuleName: "feature", EnablePush: true},
			{RuleName: "release/*"},
			{RuleName: "locked"},
		} {
			if _, _, err := alice.CreateBranchProtection("alice", "proj", o); err != nil {
				t.Fatal(err)
			}
		}

		// Refusals: a writer renaming the default or a protected branch,
		// anyone renaming a branch under a pattern rule, a taken name, a
		// missing branch.
		status := func(ok bool, resp *gitea.Response, err error) int {
			if resp == nil {
				t.Fatalf("no response: %v", err)
			}
			return resp.StatusCode
		}
		if st := status(bob.RenameRepoBranch("alice", "proj", "main", gitea.RenameRepoBranchOption{Name: "trunk"})); st != 403 {
			t.Fatalf("writer renames the default branch: %d", st)
		}
		if st := status(bob.RenameRepoBranch("alice", "proj", "feature", gitea.RenameRepoBranchOption{Name: "x"})); st != 403 {
			t.Fatalf("writer renames a protected branch: %d", st)
		}
		// Gitea judges the names before the caller: a writer renaming
		// the default branch onto itself hears 422, not 403.
		r := s.do("PATCH", "/api/v1/repos/alice/proj/branches/main", `{"name":"main"}`, "Authorization", "token "+bobTok, "Content-Type", jsonCT)
		if r.Status != 422 || !strings.Contains(r.message(t), "already exists") {
			t.Fatalf("writer renames the default branch onto itself: %d %s", r.Status, r.Body)
		}
		r = s.do("PATCH", "/api/v1/repos/alice/proj/branches/release/1", `{"name":"rel"}`, "Authorization", "token "+aliceTok, "Content-Type", jsonCT)
		if r.Status != 403 || r.message(t) != "Branch is protected by glob-based protection rules." {
			t.Fatalf("pattern-protected rename: %d %s", r.Status, r.Body)
		}
		r = s.do("PATCH", "/api/v1/repos/alice/proj/branches/side", `{"name":"main"}`, "Authorization", "token "+aliceTok, "Content-Type", jsonCT)
		if r.Status != 422 || !strings.Contains(r.message(t), "already exists") {
			t.Fatalf("rename onto a branch: %d %s", r.Status, r.Body)
		}
		if st := status(alice.RenameRepoBranch("alice", "proj", "nope", gitea.RenameRepoBranchOption{Name: "x"})); st != 404 {
			t.Fatalf("rename a missing branch: %d", st)
		}

		// The owner renames the pull request's head (its rule follows)
		// and the default branch (the repository, HEAD and the pull
		// request's base follow); a writer renames a plain branch.
		if ok, _, err := alice.RenameRepoBranch("alice", "proj", "feature", gitea.RenameRepoBranchOption{Name: "topic"}); !ok || err != nil {
			t.Fatalf("rename feature: %v %v", ok, err)
		}
		if ok, _, err := alice.RenameRepoBranch("alice", "proj", "main", gitea.RenameRepoBranchOption{Name: "trunk"}); !ok || err != nil {
			t.Fatalf("rename main: %v %v", ok, err)
		}
		if ok, _, err := bob.RenameRepoBranch("alice", "proj", "side", gitea.RenameRepoBranchOption{Name: "side2"}); !ok || err != nil {
			t.Fatalf("writer renames side: %v %v", ok, err)
		}
		repo, _, err := alice.GetRepo("alice", "proj")
		if err != nil || repo.DefaultBranch != "trunk" {
			t.Fatalf("default branch %q %v", repo.DefaultBranch, err)
		}
		got, _, err := alice.GetPullRequest("alice", "proj", pr.Index)
		if err != nil || got.Head.Ref != "topic" || got.Base.Ref != "trunk" {
			t.Fatalf("pull request head %q base %q %v", got.Head.Ref, got.Base.Ref, err)
		}
		if bp, _, err := alice.GetBranchProtection("alice", "proj", "topic"); err != nil || bp.RuleName != "topic" {
			t.Fatalf("protection rule follows: %v %v", bp, err)
		}
		list, _, err := alice.ListRepoBranches("alice", "proj", gitea.ListRepoBranchesOptions{})
		if err != nil || branchNames(list) != "extra topic trunk locked release/1 side2" {
			t.Fatalf("branches %q %v", branchNames(list), err)
		}
		heads := strings.Join(s.remoteHeads(t, "alice", "proj", "alice", pw), " ")
		if heads != "extra@"+c4[:7]+" locked@"+c1[:7]+" release/1@"+c1[:7]+" side2@"+c1[:7]+" topic@"+c3[:7]+" trunk@"+c2[:7] {
			t.Fatalf("git heads: %s", heads)
		}
		fresh := s.clone(t, "alice", pw, "alice", "proj")
		if b := strings.TrimSpace(gitCmd(t, fresh, "rev-parse", "--abbrev-ref", "HEAD")); b != "trunk" {
			t.Fatalf("clone checks out %q", b)
		}

		// PUT: a fast-forward, a refused and a forced rewind, a stale
		// old_commit_id, a missing commit, a protected branch.
		update := func(c *gitea.Client, branch string, o gitea.UpdateRepoBranchRefOption) int {
			_, resp, _ := c.UpdateRepoBranchRef("alice", "proj", branch, o)
			if resp == nil {
				t.Fatal("no response")
			}
			return resp.StatusCode
		}
		if st := update(bob, "side2", gitea.UpdateRepoBranchRefOption{NewCommitID: c2, OldCommitID: c1}); st != 204 {
			t.Fatalf("fast-forward: %d", st)
		}
		if st := update(bob, "side2", gitea.UpdateRepoBranchRefOption{NewCommitID: c3}); st != 409 {
			t.Fatalf("not a fast-forward: %d", st)
		}
		if st := update(bob, "side2", gitea.UpdateRepoBranchRefOption{NewCommitID: c3, OldCommitID: c1, Force: true}); st != 409 {
			t.Fatalf("stale old_commit_id: %d", st)
		}
		if st := update(bob, "side2", gitea.UpdateRepoBranchRefOption{NewCommitID: "topic", OldCommitID: c2, Force: true}); st != 204 {
			t.Fatalf("forced: %d", st)
		}
		if st := update(bob, "side2", gitea.UpdateRepoBranchRefOption{NewCommitID: strings.Repeat("ab", 20)}); st != 422 {
			t.Fatalf("missing commit: %d", st)
		}
		if st := update(alice, "locked", gitea.UpdateRepoBranchRefOption{NewCommitID: c2}); st != 403 {
			t.Fatalf("protected branch: %d", st)
		}
		if st := update(alice, "nope", gitea.UpdateRepoBranchRefOption{NewCommitID: c2}); st != 404 {
			t.Fatalf("missing branch: %d", st)
		}
		// The pull request's head moves with its branch.
		if st := update(bob, "topic", gitea.UpdateRepoBranchRefOption{NewCommitID: c4}); st != 204 {
			t.Fatalf("move the head: %d", st)
		}
		heads = strings.Join(s.remoteHeads(t, "alice", "proj", "alice", pw), " ")
		if !strings.Contains(heads, "side2@"+c3[:7]) || !strings.Contains(heads, "topic@"+c4[:7]) || !strings.Contains(heads, "locked@"+c1[:7]) {
			t.Fatalf("git heads after updates: %s", heads)
		}
		if b, _, err := alice.GetRepoBranch("alice", "proj", "side2"); err != nil || b.Commit.ID != c3 {
			t.Fatalf("side2 record: %v %v", b, err)
		}
		deadline := time.Now().Add(10 * time.Second)
		for {
			got, _, err = alice.GetPullRequest("alice", "proj", pr.Index)
			if err == nil && got.Head.Sha == c4 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("pull request head %v %v", got.Head.Sha, err)
			}
			time.Sleep(50 * time.Millisecond)
		}
	})
}
