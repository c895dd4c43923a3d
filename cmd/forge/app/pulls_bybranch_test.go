package app_test

import (
	"net/http"
	"testing"

	"code.gitea.io/sdk/gitea"
)

// TestPullByBaseHead finds pull requests by their branches with the SDK's
// GetPullRequestByBaseHead: a branch of the repository (with a "/" in
// its name), owner:branch of a fork, and, among a closed pull request and
// a new one from the same branches, the open one; unknown branches are
// 404.
func TestPullByBaseHead(t *testing.T) {
	t.Parallel()
	eachBackend(t, nil, func(t *testing.T, s *testServer) {
		aliceTok := s.seedUser("alice", "alice-password", false)
		alice := s.sdk(gitea.SetToken(aliceTok))
		bob := s.sdk(gitea.SetToken(s.seedUser("bob", "bob-password", false)))
		s.createRepo(t, aliceTok, "proj", true, false)
		work := s.clone(t, "alice", "alice-password", "alice", "proj")
		gitCmd(t, work, "checkout", "-q", "-b", "feat/x", "origin/main")
		commitFile(t, work, "x.txt", "x\n", "add x")
		gitCmd(t, work, "push", "-q", "origin", "feat/x")
		open := func(c *gitea.Client, head string) int64 {
			t.Helper()
			pr, _, err := c.CreatePullRequest("alice", "proj", gitea.CreatePullRequestOption{Head: head, Base: "main", Title: "from " + head})
			if err != nil {
				t.Fatalf("open %s: %v", head, err)
			}
			return pr.Index
		}
		first := open(alice, "feat/x")
		closed := gitea.StateClosed
		if _, _, err := alice.EditPullRequest("alice", "proj", first, gitea.EditPullRequestOption{State: &closed}); err != nil {
			t.Fatal(err)
		}
		second := open(alice, "feat/x")

		if _, _, err := bob.CreateFork("alice", "proj", gitea.CreateForkOption{}); err != nil {
			t.Fatal(err)
		}
		fw := s.clone(t, "bob", "bob-password", "bob", "proj")
		gitCmd(t, fw, "checkout", "-q", "-b", "feat/x", "origin/feat/x") // the fork has the branch
		commitFile(t, fw, "y.txt", "y\n", "add y")
		gitCmd(t, fw, "push", "-q", "origin", "feat/x")
		fromFork := open(bob, "bob:feat/x")

		for head, want := range map[string]int64{"feat/x": second, "alice:feat/x": second, "bob:feat/x": fromFork, "bob/proj:feat/x": fromFork} {
			pr, _, err := bob.GetPullRequestByBaseHead("alice", "proj", "main", head)
			if err != nil || pr.Index != want || pr.State != gitea.StateOpen {
				t.Fatalf("by head %s: %+v %v, want %d", head, pr, err, want)
			}
		}
		for _, q := range [][2]string{{"main", "nope"}, {"main", "carol:feat/x"}, {"dev", "feat/x"}} {
			if _, resp, err := bob.GetPullRequestByBaseHead("alice", "proj", q[0], q[1]); err == nil || resp == nil || resp.StatusCode != http.StatusNotFound {
				t.Fatalf("by %s %s: %v %v, want 404", q[0], q[1], resp, err)
			}
		}
	})
}
