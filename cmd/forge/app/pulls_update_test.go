package app_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"code.gitea.io/sdk/gitea"
)

// TestPullUpdate brings pull requests' head branches up to date with
// their base over POST .../pulls/{index}/update (the SDK has no call for
// it), and checks the branches with git and the pull requests through the
// API: style merge (the default) adds a merge commit whose parents are
// the old head and the base's tip; style rebase replays the head's
// commits on the base; a conflict is 409 and leaves the head alone; a head
// already containing the base stays as it is; a bad style is 422. A pull
// request from a fork updates the fork's branch, by the fork's owner, and
// by a writer of the base only once the poster allows maintainers to edit.
// Each time the pull request's head sha and mergeability follow.
func TestPullUpdate(t *testing.T) {
	t.Parallel()
	eachBackend(t, nil, func(t *testing.T, s *testServer) {
		aliceTok := s.seedUser("alice", "alice-password", false)
		bobTok := s.seedUser("bob", "bob-password", false)
		alice := s.sdk(gitea.SetToken(aliceTok))
		bob := s.sdk(gitea.SetToken(bobTok))
		s.createRepo(t, aliceTok, "proj", true, false)
		work := s.clone(t, "alice", "alice-password", "alice", "proj")
		rev := func(dir, ref string) string {
			gitCmd(t, dir, "fetch", "-q", "origin")
			return strings.TrimSpace(gitCmd(t, dir, "rev-parse", ref))
		}
		parents := func(dir, sha string) []string {
			return strings.Fields(gitCmd(t, dir, "log", "-1", "--format=%P", sha))
		}
		advanceBase := func(name, content string) string {
			t.Helper()
			gitCmd(t, work, "checkout", "-q", "-B", "advance", rev(work, "origin/main"))
			commitFile(t, work, name, content, "base: "+name)
			gitCmd(t, work, "push", "-q", "origin", "advance:main")
			return rev(work, "origin/main")
		}
		open := func(c *gitea.Client, dir, head, branch string, files ...string) int64 {
			t.Helper()
			gitCmd(t, dir, "checkout", "-q", "-b", branch, rev(dir, "origin/main"))
			for _, f := range files {
				commitFile(t, dir, f, branch+"\n", "add "+f)
			}
			gitCmd(t, dir, "push", "-q", "origin", branch)
			pr, _, err := c.CreatePullRequest("alice", "proj", gitea.CreatePullRequestOption{Head: head, Base: "main", Title: "Update " + branch})
			if err != nil {
				t.Fatalf("open %s: %v", branch, err)
			}
			return pr.Index
		}
		update := func(tok string, index int64, query string, want int) string {
			t.Helper()
			r := s.do("POST", "/api/v1/repos/alice/proj/pulls/"+itoa(index)+"/update"+query, "", "Authorization", "token "+tok)
			if r.Status != want {
				t.Fatalf("update %d%s: %d %s, want %d", index, query, r.Status, r.Body, want)
			}
			if want != http.StatusOK {
				return r.message(t)
			}
			return ""
		}
		// follows waits until the pull request reads head sha and
		// mergeable.
		follows := func(index int64, sha string) {
			t.Helper()
			var pr *gitea.PullRequest
			waitFor(t, 10*time.Second, "the pull request to follow its head", func() bool {
				var err error
				pr, _, err = alice.GetPullRequest("alice", "proj", index)
				return err == nil && pr.Head.Sha == sha && pr.Mergeable
			})
		}

		// merge: the base merged into the head.
		m := open(alice, work, "m", "m", "m1.txt")
		oldHead := rev(work, "origin/m")
		base := advanceBase("b1.txt", "b1\n")
		update(aliceTok, m, "", http.StatusOK)
		head := rev(work, "origin/m")
		if p := parents(work, head); len(p) != 2 || p[0] != oldHead || p[1] != base {
			t.Fatalf("update merge parents %v, want [%s %s]", p, oldHead, base)
		}
		if subject := strings.TrimSpace(gitCmd(t, work, "log", "-1", "--format=%s|%cn", head)); subject != "Merge branch 'main' into m|alice" {
			t.Fatalf("update merge commit: %q", subject)
		}
		follows(m, head)
		// Up to date already: nothing moves.
		update(aliceTok, m, "?style=merge", http.StatusOK)
		if again := rev(work, "origin/m"); again != head {
			t.Fatalf("updating an up-to-date head moved it to %s", again)
		}

		// rebase: the head's commits replayed on the base.
		r := open(alice, work, "r", "r", "r1.txt", "r2.txt")
		base = advanceBase("b2.txt", "b2\n")
		update(aliceTok, r, "?style=rebase", http.StatusOK)
		head = rev(work, "origin/r")
		if log := gitCmd(t, work, "log", "--format=%s", base+".."+head); log != "add r2.txt\nadd r1.txt\n" {
			t.Fatalf("rebased head's commits: %q", log)
		}
		if p := parents(work, head+"~1"); len(p) != 1 || p[0] != base {
			t.Fatalf("rebased head's first commit has parents %v, want [%s]", p, base)
		}
		follows(r, head)

		// A bad style.
		update(aliceTok, r, "?style=squash", http.StatusUnprocessableEntity)

		// Conflicts: 409, the head stays.
		c := open(alice, work, "c", "c", "clash.txt")
		advanceBase("clash.txt", "from main\n")
		head = rev(work, "origin/c")
		if msg := update(aliceTok, c, "", http.StatusConflict); msg != "merge failed because of conflict" {
			t.Fatalf("merge conflict: %q", msg)
		}
		if msg := update(aliceTok, c, "?style=rebase", http.StatusConflict); msg != "rebase failed because of conflict" {
			t.Fatalf("rebase conflict: %q", msg)
		}
		if now := rev(work, "origin/c"); now != head {
			t.Fatalf("a conflicting update moved the head to %s", now)
		}

		// From bob's fork: bob updates his branch; alice, who writes only
		// the base, once he allows maintainers to edit.
		if _, _, err := bob.CreateFork("alice", "proj", gitea.CreateForkOption{}); err != nil {
			t.Fatal(err)
		}
		fw := s.clone(t, "bob", "bob-password", "bob", "proj")
		f := open(bob, fw, "bob:fix", "fix", "fix.txt")
		oldHead = rev(fw, "origin/fix")
		base = advanceBase("b3.txt", "b3\n")
		if msg := update(aliceTok, f, "", http.StatusForbidden); msg != "User not allowed to update PR" {
			t.Fatalf("a maintainer without allow_maintainer_edit: %q", msg)
		}
		update(bobTok, f, "", http.StatusOK)
		head = rev(fw, "origin/fix")
		if p := parents(fw, head); len(p) != 2 || p[0] != oldHead || p[1] != base {
			t.Fatalf("fork update parents %v, want [%s %s]", p, oldHead, base)
		}
		follows(f, head)
		allow := true
		if _, _, err := bob.EditPullRequest("alice", "proj", f, gitea.EditPullRequestOption{AllowMaintainerEdit: &allow}); err != nil {
			t.Fatal(err)
		}
		base = advanceBase("b4.txt", "b4\n")
		update(aliceTok, f, "?style=rebase", http.StatusOK)
		head = rev(fw, "origin/fix")
		if p := parents(fw, head); len(p) != 1 || p[0] != base {
			t.Fatalf("fork rebase: parents %v, want a line on %s", p, base)
		}
		follows(f, head)
	})
}
