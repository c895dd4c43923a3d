package app_test

import (
	"fmt"
	"net/http"
	"os/exec"
	"strings"
	"testing"
	"time"

	"code.gitea.io/sdk/gitea"
)

// TestPullTenThousandCommits: a pull request of 10,000 commits is opened,
// becomes mergeable, lists its commits a page at a time (the first and the
// last page, with stats, and the total) and merges; nothing on the way
// reads the whole history into one answer. SQLite only: the work is git's,
// the same on both databases.
func TestPullTenThousandCommits(t *testing.T) {
	t.Parallel()
	const n = 10000
	s := startServer(t, "sqlite3", nil)
	tok := s.seedUser("alice", "alice-password", false)
	alice := s.sdk(gitea.SetToken(tok))
	s.createRepo(t, tok, "big", true, false)
	work := s.clone(t, "alice", "alice-password", "alice", "big")
	base := strings.TrimSpace(gitCmd(t, work, "rev-parse", "HEAD"))

	// 10,000 commits on "long", each changing one line of one file.
	var in strings.Builder
	for i := range n {
		msg := fmt.Sprintf("commit %d", i)
		fmt.Fprintf(&in, "commit refs/heads/long\ncommitter Tester <tester@example.org> %d +0000\ndata %d\n%s\n", 1_700_000_000+i, len(msg), msg)
		if i == 0 {
			fmt.Fprintf(&in, "from %s\n", base)
		}
		line := fmt.Sprintf("line %d\n", i)
		fmt.Fprintf(&in, "M 100644 inline counter.txt\ndata %d\n%s\n", len(line), line)
	}
	cmd := exec.Command("git", "fast-import", "--quiet")
	cmd.Dir = work
	cmd.Stdin = strings.NewReader(in.String())
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("fast-import: %v\n%s", err, out)
	}
	gitCmd(t, work, "push", "-q", "origin", "long")
	shas := strings.Fields(gitCmd(t, work, "rev-list", "main..long"))
	if len(shas) != n {
		t.Fatalf("%d commits on long, want %d", len(shas), n)
	}

	pr, _, err := alice.CreatePullRequest("alice", "big", gitea.CreatePullRequestOption{Head: "long", Base: "main", Title: "Long"})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, time.Minute, "the pull request to be mergeable", func() bool {
		got, _, err := alice.GetPullRequest("alice", "big", pr.Index)
		return err == nil && got.Mergeable && got.Head != nil && got.Head.Sha == shas[0]
	})

	// Newest first: the first page starts at the head, the last ends at
	// the first commit; each item carries its stats against its parent.
	first, resp, err := alice.ListPullRequestCommits("alice", "big", pr.Index, gitea.ListPullRequestCommitsOptions{ListOptions: gitea.ListOptions{Page: 1, PageSize: 50}})
	if err != nil || len(first) != 50 || resp.Header.Get("X-Total-Count") != fmt.Sprint(n) {
		t.Fatalf("first page: %d commits, total %q, %v", len(first), resp.Header.Get("X-Total-Count"), err)
	}
	for i, c := range first {
		if c.SHA != shas[i] || c.Stats == nil || c.Stats.Total != 2 || len(c.Files) != 1 {
			t.Fatalf("commit %d: %s %+v %d files, want %s with one line changed", i, c.SHA, c.Stats, len(c.Files), shas[i])
		}
	}
	last, _, err := alice.ListPullRequestCommits("alice", "big", pr.Index, gitea.ListPullRequestCommitsOptions{ListOptions: gitea.ListOptions{Page: n / 50, PageSize: 50}})
	if err != nil || len(last) != 50 || last[49].SHA != shas[n-1] || last[0].SHA != shas[n-50] {
		t.Fatalf("last page: %d commits, %v", len(last), err)
	}
	// The first commit adds the file: one line added.
	if c := last[49]; c.Stats == nil || c.Stats.Additions != 1 || c.Stats.Deletions != 0 {
		t.Fatalf("first commit stats %+v", c.Stats)
	}
	files, _, err := alice.ListPullRequestFiles("alice", "big", pr.Index, gitea.ListPullRequestFilesOptions{})
	if err != nil || len(files) != 1 || files[0].Filename != "counter.txt" || files[0].Additions != 1 {
		t.Fatalf("files: %+v %v", files, err)
	}

	ok, resp, err := alice.MergePullRequest("alice", "big", pr.Index, gitea.MergePullRequestOption{Style: gitea.MergeStyleMerge})
	if err != nil || !ok || resp.StatusCode != http.StatusOK {
		t.Fatalf("merge: %v %v", resp, err)
	}
	gitCmd(t, work, "fetch", "-q", "origin")
	parents := strings.Fields(gitCmd(t, work, "rev-list", "--parents", "-n", "1", "origin/main"))
	if len(parents) != 3 || parents[1] != base || parents[2] != shas[0] {
		t.Fatalf("main after the merge: %v, want a merge of %s and %s", parents, base, shas[0])
	}
	merged, _, err := alice.GetPullRequest("alice", "big", pr.Index)
	if err != nil || !merged.HasMerged || merged.MergedCommitID == nil || *merged.MergedCommitID != parents[0] {
		t.Fatalf("after the merge: %+v %v", merged, err)
	}
}
