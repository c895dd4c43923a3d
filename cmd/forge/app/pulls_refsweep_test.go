package app_test

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"code.gitea.io/sdk/gitea"
)

// TestPullRefSweep: refs/pull/<index>/head refs of pull requests that do
// not exist (a creation cut short after writing its ref: its number since
// taken by a plain issue, or never taken) are removed by the sweep a
// starting process runs; the refs of pull requests stay.
func TestPullRefSweep(t *testing.T) {
	t.Parallel()
	eachBackend(t, nil, func(t *testing.T, s *testServer) {
		tok := s.seedUser("alice", "alice-password", false)
		alice := s.sdk(gitea.SetToken(tok))
		s.createRepo(t, tok, "proj", true, false)
		work := s.clone(t, "alice", "alice-password", "alice", "proj")
		gitCmd(t, work, "checkout", "-q", "-b", "feature")
		commitFile(t, work, "feature.txt", "feature\n", "feature")
		gitCmd(t, work, "push", "-q", "origin", "feature")
		if _, _, err := alice.CreatePullRequest("alice", "proj", gitea.CreatePullRequestOption{Head: "feature", Base: "main", Title: "Feature"}); err != nil {
			t.Fatal(err)
		}
		if _, _, err := alice.CreateIssue("alice", "proj", gitea.CreateIssueOption{Title: "a plain issue"}); err != nil {
			t.Fatal(err)
		}
		dir := filepath.Join(s.Cfg.Repository.Root, "alice", "proj.git")
		refs := func() string {
			t.Helper()
			out, err := exec.Command("git", "--git-dir="+dir, "for-each-ref", "--format=%(refname)", "refs/pull/").Output()
			if err != nil {
				t.Fatal(err)
			}
			return strings.Join(strings.Fields(string(out)), ",")
		}
		head := strings.TrimSpace(gitCmd(t, work, "rev-parse", "feature"))
		for _, ref := range []string{"refs/pull/2/head", "refs/pull/9/head"} {
			if out, err := exec.Command("git", "--git-dir="+dir, "update-ref", ref, head).CombinedOutput(); err != nil {
				t.Fatalf("update-ref %s: %v %s", ref, err, out)
			}
		}
		if got := refs(); got != "refs/pull/1/head,refs/pull/2/head,refs/pull/9/head" {
			t.Fatalf("refs before the sweep: %s", got)
		}
		startPeer(t, s) // a process starting sweeps
		for deadline := time.Now().Add(10 * time.Second); refs() != "refs/pull/1/head"; {
			if time.Now().After(deadline) {
				t.Fatalf("refs after the sweep: %s, want refs/pull/1/head only", refs())
			}
			time.Sleep(50 * time.Millisecond)
		}
		pr, _, err := alice.GetPullRequest("alice", "proj", 1)
		if err != nil || pr.Head.Sha != head {
			t.Fatalf("the pull request after the sweep: %+v %v", pr, err)
		}
	})
}
