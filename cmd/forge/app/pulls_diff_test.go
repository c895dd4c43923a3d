package app_test

import (
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"

	"code.gitea.io/sdk/gitea"
)

// TestPullDiffSDK opens, through real git pushes, a pull request that
// adds, changes, deletes and renames files and changes a binary file,
// after the base branch moved on (so the merge base is not the base
// tip), and reads what it changes through the Gitea SDK: the changed
// files (names, statuses, line counts as git diff --numstat -M from the
// merge base to the head gives them; a binary file 0/0), in pages with
// Gitea's headers; the .diff and .patch text byte for byte as git diff
// and git format-patch print it; one commit's .diff and .patch (the root
// commit's too) and 404 for an unknown commit.
func TestPullDiffSDK(t *testing.T) {
	t.Parallel()
	eachBackend(t, nil, func(t *testing.T, s *testServer) {
		aliceTok := s.seedUser("alice", "alice-password", false)
		bobTok := s.seedUser("bob", "bob-password", false)
		alice := s.sdk(gitea.SetToken(aliceTok))
		bob := s.sdk(gitea.SetToken(bobTok))
		s.createRepo(t, aliceTok, "proj", true, false)
		work := s.clone(t, "alice", "alice-password", "alice", "proj")
		long := strings.Repeat("a line that stays the same\n", 20)
		commitFile(t, work, "keep.txt", "one\ntwo\nthree\n", "keep")
		commitFile(t, work, "gone.txt", "bye\n", "gone")
		commitFile(t, work, "old.txt", long, "old")
		commitFile(t, work, "img.bin", "\x00\x01\x02binary", "binary")
		gitCmd(t, work, "push", "-q", "origin", "HEAD:main")

		gitCmd(t, work, "checkout", "-q", "-b", "feature")
		commitFile(t, work, "keep.txt", "one\n2\nthree\nfour\n", "change keep")
		gitCmd(t, work, "rm", "-q", "gone.txt")
		if err := os.MkdirAll(work+"/dir", 0o755); err != nil {
			t.Fatal(err)
		}
		gitCmd(t, work, "mv", "old.txt", "dir/new.txt")
		if err := os.WriteFile(work+"/dir/new.txt", []byte(long+"one more\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		gitCmd(t, work, "add", "-A")
		gitCmd(t, work, "commit", "-q", "-m", "delete and rename")
		commitFile(t, work, "added.txt", "new\nfile\n", "add")
		commitFile(t, work, "img.bin", "\x00\x03\x04other binary", "binary change")
		gitCmd(t, work, "push", "-q", "origin", "feature")
		// The base moves on: the merge base stays where feature branched.
		gitCmd(t, work, "checkout", "-q", "main")
		commitFile(t, work, "main-only.txt", "later\n", "later on main")
		gitCmd(t, work, "push", "-q", "origin", "main")

		head := strings.TrimSpace(gitCmd(t, work, "rev-parse", "feature"))
		base := strings.TrimSpace(gitCmd(t, work, "merge-base", "main", "feature"))
		pr, _, err := alice.CreatePullRequest("alice", "proj", gitea.CreatePullRequestOption{Head: "feature", Base: "main", Title: "Feature"})
		if err != nil || pr.MergeBase != base || pr.Head.Sha != head {
			t.Fatalf("CreatePullRequest: %+v %v (want merge base %s head %s)", pr, err, base, head)
		}

		// The files, against git's own count.
		want := gitFiles(t, work, base, head)
		files, resp, err := bob.ListPullRequestFiles("alice", "proj", pr.Index, gitea.ListPullRequestFilesOptions{ListOptions: gitea.ListOptions{PageSize: 50}})
		if err != nil || resp.Header.Get("X-Total-Count") != strconv.Itoa(len(want)) {
			t.Fatalf("ListPullRequestFiles: %d files, total %q, %v", len(files), resp.Header.Get("X-Total-Count"), err)
		}
		if len(files) != len(want) {
			t.Fatalf("%d files, want %d: %+v", len(files), len(want), want)
		}
		statuses := map[string]bool{}
		for i, f := range files {
			w := want[i]
			if f.Filename != w.Filename || f.Status != w.Status || f.Additions != w.Additions || f.Deletions != w.Deletions ||
				f.Changes != w.Additions+w.Deletions || f.PreviousFilename != "" ||
				f.ContentsURL != s.URL+"/api/v1/repos/alice/proj/contents/"+f.Filename+"?ref="+head ||
				f.HTMLURL != s.URL+"/alice/proj/src/commit/"+head+"/"+f.Filename ||
				f.RawURL != s.URL+"/alice/proj/raw/commit/"+head+"/"+f.Filename {
				t.Errorf("file %d: %+v, want %+v", i, f, w)
			}
			statuses[f.Status] = true
		}
		for _, st := range []string{"added", "changed", "deleted", "renamed", "unchanged"} {
			if !statuses[st] {
				t.Errorf("no %s file among %+v", st, files)
			}
		}
		// Pages of two: the last page holds the rest, with Gitea's headers.
		last := (len(want) + 1) / 2
		page, resp, err := bob.ListPullRequestFiles("alice", "proj", pr.Index, gitea.ListPullRequestFilesOptions{ListOptions: gitea.ListOptions{Page: last, PageSize: 2}})
		if err != nil || len(page) != len(want)-2*(last-1) || page[0].Filename != want[2*(last-1)].Filename ||
			resp.Header.Get("X-Page") != strconv.Itoa(last) || resp.Header.Get("X-PerPage") != "2" ||
			resp.Header.Get("X-PageCount") != strconv.Itoa(last) || resp.Header.Get("X-HasMore") != "false" ||
			!strings.Contains(resp.Header.Get("Link"), `rel="first"`) {
			t.Fatalf("last page of 2: %d files, headers %v, %v", len(page), resp.Header, err)
		}
		_, resp, _ = bob.ListPullRequestFiles("alice", "proj", pr.Index, gitea.ListPullRequestFilesOptions{ListOptions: gitea.ListOptions{Page: 1, PageSize: 2}})
		if resp.Header.Get("X-HasMore") != "true" || !strings.Contains(resp.Header.Get("Link"), `rel="next"`) {
			t.Fatalf("first page of 2: headers %v", resp.Header)
		}

		// The text, byte for byte.
		same := func(what string, got []byte, resp *gitea.Response, err error, want string) {
			t.Helper()
			if err != nil || resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/plain") {
				t.Fatalf("%s: %v %v", what, resp, err)
			}
			if string(got) != want {
				t.Fatalf("%s:\n%s\nwant (git):\n%s", what, got, want)
			}
		}
		diff, resp, err := bob.GetPullRequestDiff("alice", "proj", pr.Index, gitea.PullRequestDiffOptions{})
		same(".diff", diff, resp, err, gitCmd(t, work, "diff", base, head))
		// (The SDK sends no binary option to the API route: asked by hand.)
		req, _ := http.NewRequest(http.MethodGet, s.URL+"/api/v1/repos/alice/proj/pulls/1.diff?binary=true", nil)
		req.Header.Set("Authorization", "token "+bobTok)
		hresp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		diff, err = io.ReadAll(hresp.Body)
		hresp.Body.Close()
		same(".diff?binary=true", diff, &gitea.Response{Response: hresp}, err, gitCmd(t, work, "diff", "--binary", base, head))
		patch, resp, err := bob.GetPullRequestPatch("alice", "proj", pr.Index)
		same(".patch", patch, resp, err, gitCmd(t, work, "format-patch", "--stdout", "--binary", base+".."+head))

		// One commit against its first parent; the root commit against
		// nothing.
		mid := strings.TrimSpace(gitCmd(t, work, "rev-parse", "feature~2"))
		diff, resp, err = bob.GetCommitDiff("alice", "proj", mid)
		same("commit .diff", diff, resp, err, gitCmd(t, work, "diff", mid+"^", mid))
		patch, resp, err = bob.GetCommitPatch("alice", "proj", mid)
		same("commit .patch", patch, resp, err, gitCmd(t, work, "format-patch", "--stdout", "--binary", "-1", mid))
		root := strings.TrimSpace(gitCmd(t, work, "rev-list", "--max-parents=0", "main"))
		diff, resp, err = bob.GetCommitDiff("alice", "proj", root)
		same("root commit .diff", diff, resp, err, gitCmd(t, work, "show", "--format=", root))
		if _, resp, err := bob.GetCommitDiff("alice", "proj", strings.Repeat("0", 40)); err == nil || resp.StatusCode != http.StatusNotFound {
			t.Fatalf("an unknown commit: %v %v", resp, err)
		}
		if _, resp, err := bob.GetPullRequestDiff("alice", "proj", 99, gitea.PullRequestDiffOptions{}); err == nil || resp.StatusCode != http.StatusNotFound {
			t.Fatalf("an unknown pull request: %v %v", resp, err)
		}
	})
}

// gitFiles is what git diff --numstat -M says from base to head, with
// Gitea's statuses from git diff --name-status -M.
func gitFiles(t *testing.T, dir, base, head string) []gitea.ChangedFile {
	t.Helper()
	var out []gitea.ChangedFile
	for _, line := range strings.Split(strings.TrimSpace(gitCmd(t, dir, "diff", "--name-status", "-M", base, head)), "\n") {
		f := strings.Split(line, "\t")
		cf := gitea.ChangedFile{Filename: f[len(f)-1]}
		switch f[0][0] {
		case 'A':
			cf.Status = "added"
		case 'D':
			cf.Status = "deleted"
		case 'R':
			cf.Status = "renamed"
		default:
			cf.Status = "changed"
		}
		out = append(out, cf)
	}
	tokens := strings.Split(strings.TrimSuffix(gitCmd(t, dir, "diff", "--numstat", "-z", "-M", base, head), "\x00"), "\x00")
	for i, n := 0, 0; i < len(tokens); n++ {
		f := strings.SplitN(tokens[i], "\t", 3)
		i++
		if f[2] == "" { // a rename: old and new names follow
			i += 2
		}
		out[n].Additions, _ = strconv.Atoi(f[0]) // "-" for a binary file: 0
		out[n].Deletions, _ = strconv.Atoi(f[1])
		if out[n].Status == "changed" && out[n].Additions == 0 && out[n].Deletions == 0 {
			out[n].Status = "unchanged" // Gitea's word for a change without lines
		}
	}
	return out
}
