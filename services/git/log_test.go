package git

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
)

// logFixture builds a linear history with known diffs:
//
//	c1 (root) add a.txt (3 lines), b.txt (1 line)
//	c2        a.txt: delete 1 line, add 3 lines
//	c3        delete b.txt
//	c4        rename a.txt -> docs/a.txt (unchanged content)
//	c5        add bin.dat (binary) and docs/c.txt (2 lines)
func logFixture(t *testing.T) (*Store, string, []string) {
	ctx := context.Background()
	s := newTestStore(t)
	path := newRepo(t, s, "o", "r")
	c1 := commitFiles(t, s, path, "main", "c1\n\nroot commit", create("a.txt", "l1\nl2\nl3\n"), create("b.txt", "b\n"))
	a, _ := s.Stat(ctx, path, "main", "a.txt")
	c2 := commitFiles(t, s, path, "main", "c2", FileChange{Op: OpUpdate, Path: "a.txt", SHA: a.SHA, Content: []byte("l1\nl3\nn1\nn2\nn3\n")})
	c3 := commitFiles(t, s, path, "main", "c3", FileChange{Op: OpDelete, Path: "b.txt"})
	a, _ = s.Stat(ctx, path, "main", "a.txt")
	c4 := commitFiles(t, s, path, "main", "c4", FileChange{Op: OpUpdate, FromPath: "a.txt", Path: "docs/a.txt", SHA: a.SHA, Content: []byte("l1\nl3\nn1\nn2\nn3\n")})
	c5 := commitFiles(t, s, path, "main", "c5", create("bin.dat", "\x00\x01\x02binary"), create("docs/c.txt", "c1\nc2\n"))
	return s, path, []string{c1, c2, c3, c4, c5}
}

func filesString(fs []ChangedFile) string {
	var parts []string
	for _, f := range fs {
		s := fmt.Sprintf("%s %s +%d -%d", f.Status, f.Filename, f.Additions, f.Deletions)
		if f.PreviousFilename != "" {
			s += " from " + f.PreviousFilename
		}
		if f.Binary {
			s += " binary"
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, "; ")
}

func TestLog(t *testing.T) {
	ctx := context.Background()
	s, path, c := logFixture(t)
	wantFiles := map[string]string{
		c[0]: "added a.txt +3 -0; added b.txt +1 -0",
		c[1]: "modified a.txt +3 -1",
		c[2]: "deleted b.txt +0 -1",
		c[3]: "renamed docs/a.txt +0 -0 from a.txt",
		c[4]: "added bin.dat +0 -0 binary; added docs/c.txt +2 -0",
	}
	wantStats := map[string]Stats{
		c[0]: {4, 4, 0}, c[1]: {4, 3, 1}, c[2]: {1, 0, 1}, c[3]: {0, 0, 0}, c[4]: {2, 2, 0},
	}

	all, total, err := s.Log(ctx, path, LogOptions{Files: true, Stats: true})
	if err != nil {
		t.Fatal(err)
	}
	if total != 5 || len(all) != 5 {
		t.Fatalf("total %d, len %d", total, len(all))
	}
	for i, cm := range all {
		if want := c[4-i]; cm.SHA != want {
			t.Fatalf("commit %d is %s, want %s", i, cm.SHA, want)
		}
		if got := filesString(cm.Files); got != wantFiles[cm.SHA] {
			t.Errorf("%s files: %s\nwant %s", cm.Message, got, wantFiles[cm.SHA])
		}
		if cm.Stats == nil || *cm.Stats != wantStats[cm.SHA] {
			t.Errorf("%s stats %+v, want %+v", cm.Message, cm.Stats, wantStats[cm.SHA])
		}
		if cm.Author != (Signature{testAuthor.Name, testAuthor.Email, cm.Author.When}) || !cm.Author.When.Equal(testAuthor.When) {
			t.Errorf("author %+v", cm.Author)
		}
		if _, off := cm.Committer.When.Zone(); off != 7200 {
			t.Errorf("committer zone offset %d", off)
		}
		if cm.Tree == "" {
			t.Errorf("no tree")
		}
	}
	root := all[4]
	if len(root.Parents) != 0 || root.Message != "c1\n\nroot commit\n" {
		t.Errorf("root commit %+v", root)
	}
	if all[0].Parents[0] != c[3] {
		t.Errorf("c5 parent %v", all[0].Parents)
	}

	tests := []struct {
		name      string
		opts      LogOptions
		wantSHAs  []string
		wantTotal int
	}{
		{"page 2 of size 2", LogOptions{Skip: 2, Limit: 2}, []string{c[2], c[1]}, 5},
		{"past the end", LogOptions{Skip: 10, Limit: 2}, nil, 5},
		{"from an older sha", LogOptions{Ref: c[1]}, []string{c[1], c[0]}, 2},
		{"short sha", LogOptions{Ref: c[2][:7], Limit: 1}, []string{c[2]}, 3},
		{"path filter", LogOptions{Path: "a.txt"}, []string{c[3], c[1], c[0]}, 3},
		{"dir filter", LogOptions{Path: "docs"}, []string{c[4], c[3]}, 2},
		{"not", LogOptions{Not: []string{c[2]}}, []string{c[4], c[3]}, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, total, err := s.Log(ctx, path, tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			var shas []string
			for _, cm := range got {
				shas = append(shas, cm.SHA)
				if cm.Files != nil || cm.Stats != nil {
					t.Errorf("files/stats filled without asking")
				}
			}
			if fmt.Sprint(shas) != fmt.Sprint(tc.wantSHAs) || total != tc.wantTotal {
				t.Fatalf("got %v total %d, want %v total %d", shas, total, tc.wantSHAs, tc.wantTotal)
			}
		})
	}

	// A path filter must not hide the commit's other files.
	got, _, err := s.Log(ctx, path, LogOptions{Path: "docs/c.txt", Files: true})
	if err != nil || len(got) != 1 || filesString(got[0].Files) != wantFiles[c[4]] || got[0].Stats != nil {
		t.Fatalf("path-filtered files: %+v, %v", got, err)
	}
	// Stats only.
	got, _, err = s.Log(ctx, path, LogOptions{Limit: 1, Stats: true})
	if err != nil || got[0].Files != nil || *got[0].Stats != wantStats[c[4]] {
		t.Fatalf("stats only: %+v, %v", got, err)
	}
	// Renames as delete + add.
	got, _, err = s.Log(ctx, path, LogOptions{Ref: c[3], Limit: 1, Files: true, NoRenames: true})
	if err != nil || filesString(got[0].Files) != "deleted a.txt +0 -5; added docs/a.txt +5 -0" {
		t.Fatalf("no renames: %s, %v", filesString(got[0].Files), err)
	}

	if _, _, err := s.Log(ctx, path, LogOptions{Ref: "nope"}); !isErr(err, ErrNotFound) {
		t.Fatalf("missing ref: %v", err)
	}
	empty := newRepo(t, s, "o", "empty")
	if _, _, err := s.Log(ctx, empty, LogOptions{}); !isErr(err, ErrNotFound) {
		t.Fatalf("empty repo: %v", err)
	}
}

func TestGetCommitMerge(t *testing.T) {
	ctx := context.Background()
	s, path, c := logFixture(t)
	// A commit "side" on top of c5 adding side.txt; main is reset to c5 and
	// a merge of c5 and side is made with plumbing. The merge's files are
	// its diff against the first parent (c5).
	side := commitFiles(t, s, path, "main", "side", create("side.txt", "s\n"))
	if err := s.casRef(ctx, path, "refs/heads/main", c[4], side); err != nil {
		t.Fatal(err)
	}
	tree := gitCmd(t, path, "rev-parse", side+"^{tree}")
	merge := gitCmd(t, path, "commit-tree", tree, "-p", c[4], "-p", side, "-m", "merge")
	cm, err := s.GetCommit(ctx, path, merge)
	if err != nil {
		t.Fatal(err)
	}
	if len(cm.Parents) != 2 || filesString(cm.Files) != "added side.txt +1 -0" || *cm.Stats != (Stats{1, 1, 0}) {
		t.Fatalf("merge commit %v files %s stats %+v", cm.Parents, filesString(cm.Files), cm.Stats)
	}
	if _, err := s.GetCommit(ctx, path, strings.Repeat("1", 40)); !isErr(err, ErrNotFound) {
		t.Fatalf("missing commit: %v", err)
	}
}

// After new commits on a branch whose history was counted, the page's
// total follows without a git process (it is the counted ancestor's plus
// one per commit on top); across a merge it is still the number of
// commits git counts.
func TestLogTotalAfterNewCommits(t *testing.T) {
	ctx := context.Background()
	s, path, c := logFixture(t)
	total := func(ref string) int {
		t.Helper()
		_, n, err := s.Log(ctx, path, LogOptions{Ref: ref, Limit: 2})
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := total("main"); n != len(c) {
		t.Fatalf("total %d, want %d", n, len(c))
	}
	commitFiles(t, s, path, "main", "c6", create("six.txt", "6\n"))
	commitFiles(t, s, path, "main", "c7", create("seven.txt", "7\n"))
	starts := countGit(t)
	if n := total("main"); n != len(c)+2 {
		t.Fatalf("total after two commits %d, want %d", n, len(c)+2)
	}
	if n := starts(); n != 0 {
		t.Fatalf("%d git processes for the total after two commits, want 0", n)
	}

	// A merge of main with a side line off c2, then two commits on top.
	head := gitCmd(t, path, "rev-parse", "main")
	tree := gitCmd(t, path, "rev-parse", head+"^{tree}")
	side := gitCmd(t, path, "commit-tree", tree, "-p", c[1], "-m", "side")
	merge := gitCmd(t, path, "commit-tree", tree, "-p", head, "-p", side, "-m", "merge")
	next := gitCmd(t, path, "commit-tree", tree, "-p", merge, "-m", "after merge")
	last := gitCmd(t, path, "commit-tree", tree, "-p", next, "-m", "after that")
	for _, sha := range []string{next, last, merge, side} {
		want, _ := strconv.Atoi(gitCmd(t, path, "rev-list", "--count", sha))
		if n := total(sha); n != want {
			t.Fatalf("total from %s %d, want %d", sha, n, want)
		}
	}
}
