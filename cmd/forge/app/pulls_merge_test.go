package app_test

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"code.gitea.io/sdk/gitea"
)

// TestPullMergeSDK merges pull requests through the Gitea SDK in every
// style forge builds and checks the base branch with git afterwards: a
// merge commit has the old base and the head as parents; a squash is one
// commit on the old base, authored by the poster, with a Co-authored-by
// trailer for the other author; fast-forward-only moves the base to the
// head itself; rebase replays the head's commits in a line on a base that
// moved meanwhile; rebase-merge replays them and merges. Each time the
// pull request reads merged (merged_at, merge_commit_sha = the new base,
// merged_by) and closed, its issue is closed, IsPullRequestMerged is
// true, and a second merge is 405. A fast-forward-only merge of a
// diverged head is 409 and moves nothing.
func TestPullMergeSDK(t *testing.T) {
	t.Parallel()
	eachBackend(t, nil, func(t *testing.T, s *testServer) {
		aliceTok := s.seedUser("alice", "alice-password", false)
		alice := s.sdk(gitea.SetToken(aliceTok))
		s.createRepo(t, aliceTok, "proj", true, false)
		work := s.clone(t, "alice", "alice-password", "alice", "proj")
		tip := func() string {
			gitCmd(t, work, "fetch", "-q", "origin")
			return strings.TrimSpace(gitCmd(t, work, "rev-parse", "origin/main"))
		}
		// open pushes branch (made from origin/main with the given
		// commits) and opens a pull request from it.
		var number int64
		open := func(branch string, commits ...func()) (int64, string) {
			t.Helper()
			gitCmd(t, work, "checkout", "-q", "-b", branch, tip())
			for _, c := range commits {
				c()
			}
			gitCmd(t, work, "push", "-q", "origin", branch)
			pr, _, err := alice.CreatePullRequest("alice", "proj", gitea.CreatePullRequestOption{Head: branch, Base: "main", Title: "Merge " + branch})
			if err != nil {
				t.Fatalf("open %s: %v", branch, err)
			}
			number++
			if pr.Index != number {
				t.Fatalf("pull request %d, want %d", pr.Index, number)
			}
			return pr.Index, strings.TrimSpace(gitCmd(t, work, "rev-parse", branch))
		}
		file := func(name string) func() {
			return func() { commitFile(t, work, name, name+"\n", "add "+name) }
		}
		advanceBase := func(name string) {
			t.Helper()
			gitCmd(t, work, "checkout", "-q", "-B", "advance", tip())
			commitFile(t, work, name, name+"\n", "base: "+name)
			gitCmd(t, work, "push", "-q", "origin", "advance:main")
		}
		merge := func(index int64, style gitea.MergeStyle) {
			t.Helper()
			ok, resp, err := alice.MergePullRequest("alice", "proj", index, gitea.MergePullRequestOption{Style: style})
			if err != nil || !ok || resp.StatusCode != http.StatusOK {
				t.Fatalf("merge %d (%s): %v %v", index, style, resp, err)
			}
		}
		// merged checks what a client reads after a merge.
		merged := func(index int64) {
			t.Helper()
			pr, _, err := alice.GetPullRequest("alice", "proj", index)
			if err != nil {
				t.Fatal(err)
			}
			main := tip()
			if !pr.HasMerged || pr.State != gitea.StateClosed || pr.Merged == nil || pr.Merged.IsZero() ||
				pr.MergedCommitID == nil || *pr.MergedCommitID != main || pr.MergedBy == nil || pr.MergedBy.UserName != "alice" {
				t.Fatalf("pull request %d after its merge: merged %v state %s at %v sha %v by %+v (main %s)",
					index, pr.HasMerged, pr.State, pr.Merged, pr.MergedCommitID, pr.MergedBy, main)
			}
			is, _, err := alice.GetIssue("alice", "proj", index)
			if err != nil || is.State != gitea.StateClosed {
				t.Fatalf("issue %d after its merge: %+v %v", index, is, err)
			}
			if yes, _, err := alice.IsPullRequestMerged("alice", "proj", index); err != nil || !yes {
				t.Fatalf("IsPullRequestMerged(%d): %v %v", index, yes, err)
			}
			again, resp, _ := alice.MergePullRequest("alice", "proj", index, gitea.MergePullRequestOption{Style: gitea.MergeStyleMerge})
			if again || resp == nil || resp.StatusCode != http.StatusMethodNotAllowed {
				t.Fatalf("merging %d again: %v %v", index, again, resp)
			}
		}
		parents := func(rev string) []string {
			return strings.Fields(gitCmd(t, work, "log", "-1", "--format=%P", rev))
		}

		// merge: a merge commit of the old base and the head.
		idx, head := open("m", file("m1.txt"), file("m2.txt"))
		if yes, _, err := alice.IsPullRequestMerged("alice", "proj", idx); err != nil || yes {
			t.Fatalf("IsPullRequestMerged before merging: %v %v", yes, err)
		}
		advanceBase("b1.txt")
		before := tip()
		merge(idx, gitea.MergeStyleMerge)
		if p := parents(tip()); len(p) != 2 || p[0] != before || p[1] != head {
			t.Fatalf("merge commit parents %v, want [%s %s]", p, before, head)
		}
		if subject := strings.TrimSpace(gitCmd(t, work, "log", "-1", "--format=%s|%cn|%ce", "origin/main")); subject != "Merge pull request 'Merge m' (#1) from m into main|alice|alice@example.org" {
			t.Fatalf("merge commit: %q", subject)
		}
		merged(idx)

		// squash: one commit on the old base, poster as author, the other
		// author as a trailer.
		idx, _ = open("s", file("s1.txt"), func() {
			gitCmd(t, work, "-c", "user.name=Carol", "-c", "user.email=carol@example.org", "commit", "-q", "--allow-empty", "--author=Carol <carol@example.org>", "-m", "carol's part")
			commitFile(t, work, "s2.txt", "s2\n", "add s2.txt")
		})
		before = tip()
		merge(idx, gitea.MergeStyleSquash)
		main := tip()
		if p := parents(main); len(p) != 1 || p[0] != before {
			t.Fatalf("squash parents %v, want [%s]", p, before)
		}
		msg := gitCmd(t, work, "log", "-1", "--format=%an <%ae>%n%B", main)
		if !strings.HasPrefix(msg, "alice <alice@example.org>\nMerge s (#2)") || !strings.Contains(msg, "\nCo-authored-by: Carol <carol@example.org>") ||
			strings.Contains(msg, "Co-authored-by: alice") {
			t.Fatalf("squash commit:\n%s", msg)
		}
		if files := gitCmd(t, work, "diff", "--name-only", before, main); files != "s1.txt\ns2.txt\n" {
			t.Fatalf("squash changes %q", files)
		}
		merged(idx)

		// fast-forward-only: the base becomes the head; a diverged one is
		// refused.
		idx, head = open("f", file("f1.txt"))
		merge(idx, gitea.MergeStyleFastForwardOnly)
		if main := tip(); main != head {
			t.Fatalf("fast-forward: main %s, want the head %s", main, head)
		}
		merged(idx)
		idx, _ = open("fd", file("fd.txt"))
		advanceBase("b2.txt")
		before = tip()
		ok, resp, _ := alice.MergePullRequest("alice", "proj", idx, gitea.MergePullRequestOption{Style: gitea.MergeStyleFastForwardOnly})
		if ok || resp == nil || resp.StatusCode != http.StatusConflict || tip() != before {
			t.Fatalf("fast-forward of a diverged head: %v %v, main %s (was %s)", ok, resp, tip(), before)
		}

		// rebase: the head's commits replayed in a line on the moved base.
		idx, _ = open("r", file("r1.txt"), file("r2.txt"))
		advanceBase("b3.txt")
		before = tip()
		merge(idx, gitea.MergeStyleRebase)
		main = tip()
		line := strings.Fields(gitCmd(t, work, "log", "--format=%H %P", before+".."+main))
		if len(line) != 4 || line[3] != before || line[1] != line[2] {
			t.Fatalf("rebase history %v over %s: want two commits in a line", line, before)
		}
		if subjects := gitCmd(t, work, "log", "--format=%s|%an|%cn", before+".."+main); subjects != "add r2.txt|Tester|alice\nadd r1.txt|Tester|alice\n" {
			t.Fatalf("rebased commits %q", subjects)
		}
		merged(idx)

		// rebase-merge: replayed, then a merge commit.
		idx, _ = open("rm", file("rm1.txt"))
		advanceBase("b4.txt")
		before = tip()
		merge(idx, gitea.MergeStyleRebaseMerge)
		main = tip()
		p := parents(main)
		if len(p) != 2 || p[0] != before || len(parents(p[1])) != 1 || parents(p[1])[0] != before {
			t.Fatalf("rebase-merge parents %v (second's %v), want [%s, a commit on it]", p, parents(p[1]), before)
		}
		merged(idx)

		// The fast-forward refused above still merges as a merge commit.
		merge(4, gitea.MergeStyleMerge)
		merged(4)
	})
}

// TestPullMergeConcurrentPush races a push to the base branch with a
// merge, several times: whichever lands first, nothing is lost. A push
// that git accepted is in the base's history afterwards, and so is a
// merge answered 200 (its head and its merge commit); a merge that lost
// the race for good is 409, and a push that lost is refused by git.
func TestPullMergeConcurrentPush(t *testing.T) {
	t.Parallel()
	eachBackend(t, nil, func(t *testing.T, s *testServer) {
		tok := s.seedUser("alice", "alice-password", false)
		alice := s.sdk(gitea.SetToken(tok))
		s.createRepo(t, tok, "race", true, false)
		work := s.clone(t, "alice", "alice-password", "alice", "race")
		pusher := s.clone(t, "alice", "alice-password", "alice", "race")
		// The merge starts a little later each round, so that the push
		// lands before it, while it computes, or after it.
		for round := range 10 {
			branch := fmt.Sprintf("c%d", round)
			gitCmd(t, work, "fetch", "-q", "origin")
			gitCmd(t, work, "checkout", "-q", "-b", branch, "origin/main")
			commitFile(t, work, branch+".txt", "x\n", "head "+branch)
			gitCmd(t, work, "push", "-q", "origin", branch)
			head := strings.TrimSpace(gitCmd(t, work, "rev-parse", branch))
			pr, _, err := alice.CreatePullRequest("alice", "race", gitea.CreatePullRequestOption{Head: branch, Base: "main", Title: branch})
			if err != nil {
				t.Fatal(err)
			}
			gitCmd(t, pusher, "fetch", "-q", "origin")
			gitCmd(t, pusher, "checkout", "-q", "-B", "main", "origin/main")
			commitFile(t, pusher, "push"+branch+".txt", "y\n", "pushed "+branch)
			pushed := strings.TrimSpace(gitCmd(t, pusher, "rev-parse", "HEAD"))

			var wg sync.WaitGroup
			var pushErr error
			var ok bool
			var resp *gitea.Response
			var mergeErr error
			wg.Add(2)
			go func() {
				defer wg.Done()
				var out string
				out, pushErr = gitTry(pusher, "push", "-q", "origin", "main")
				if pushErr != nil {
					pushErr = fmt.Errorf("%w: %s", pushErr, out)
				}
			}()
			go func() {
				defer wg.Done()
				time.Sleep(time.Duration(round) * 25 * time.Millisecond)
				ok, resp, mergeErr = alice.MergePullRequest("alice", "race", pr.Index, gitea.MergePullRequestOption{Style: gitea.MergeStyleMerge})
			}()
			wg.Wait()

			t.Logf("round %d: push error %v, merged %v", round, pushErr, ok)
			gitCmd(t, work, "fetch", "-q", "origin")
			inMain := func(sha string) bool {
				_, err := gitTry(work, "merge-base", "--is-ancestor", sha, "origin/main")
				return err == nil
			}
			if pushErr == nil && !inMain(pushed) {
				t.Fatalf("round %d: the accepted push %s is not in main", round, pushed)
			}
			switch {
			case ok:
				got, _, err := alice.GetPullRequest("alice", "race", pr.Index)
				if err != nil || !got.HasMerged || got.MergedCommitID == nil || !inMain(*got.MergedCommitID) || !inMain(head) {
					t.Fatalf("round %d: merged, but the merge is not in main: %+v %v", round, got, err)
				}
			case resp != nil && resp.StatusCode == http.StatusConflict:
				if inMain(head) {
					t.Fatalf("round %d: 409, yet the head is in main", round)
				}
			default:
				status := 0
				if resp != nil {
					status = resp.StatusCode
				}
				t.Fatalf("round %d: merge answered %d %v", round, status, mergeErr)
			}
			if pushErr != nil && !ok {
				t.Fatalf("round %d: neither the push nor the merge landed: %v", round, pushErr)
			}
		}
	})
}
