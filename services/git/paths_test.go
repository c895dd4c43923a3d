package git

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"testing"
	"time"
)

// dotGitAliases are names git's verify_path refuses with core.protectNTFS
// and core.protectHFS: each stands for the repository's .git directory on
// some file system.
var dotGitAliases = []string{
	".git", ".GIT", ".Git", "GIT~1", "git~1", "Git~1",
	".git ", ".git.", ".git. .", "git~1 ", "git~1.",
	".git::$INDEX_ALLOCATION", ".git:x", "git~1:stream",
	"x\\.git", "a\\b\\GIT~1", ".git\\x", "x\\.git.\\y",
	".git\u200c", ".\u200cgit", ".g\u200dit", ".gi\u200et", "\u200f.git", ".GIT\u202a", ".g\u202ei\u206at\u206f", ".git\ufeff",
	".git\xff", // HFS: malformed UTF-8 ends the name, as in git
}

// notDotGit are names that look alike but are ordinary.
var notDotGit = []string{
	"git", ".gitignore", ".github", ".gitmodules", ".git-blame-ignore-revs", ".gitx", "a.git", ".git~1",
	"git~2", "git~10", "git~1x", "xgit~1", "..git", ". git", ".g it", ".git\u200bx", ".g\u200bit", // U+200B is not ignored
	".gıt", ".gİt", ".g\u0130t", "\u212agit", "x\\y",
}

func TestDotGitAliases(t *testing.T) {
	for _, name := range dotGitAliases {
		if !isDotGitName(name) {
			t.Errorf("isDotGitName(%q) = false, want true", name)
		}
		if _, err := cleanWritePath("dir/" + name + "/config"); !errors.Is(err, ErrInvalid) {
			t.Errorf("cleanWritePath(dir/%q/config) = %v, want ErrInvalid", name, err)
		}
	}
	for _, name := range notDotGit {
		if isDotGitName(name) {
			t.Errorf("isDotGitName(%q) = true, want false", name)
		}
	}
}

// TestDotGitAliasesMatchGit feeds every name to git's own update-index with
// both protections on: git must drop exactly the names forge refuses.
func TestDotGitAliasesMatchGit(t *testing.T) {
	s := newTestStore(t)
	path := newRepo(t, s, "o", "r")
	ctx := context.Background()
	blob, err := s.hashObject(ctx, path, []byte("x"))
	if err != nil {
		t.Fatal(err)
	}
	idx, err := s.newIndex(ctx, path, "")
	if err != nil {
		t.Fatal(err)
	}
	defer idx.remove()
	names := append(append([]string{}, dotGitAliases...), notDotGit...)
	var in strings.Builder
	for _, n := range names {
		in.WriteString("100644 " + blob + "\t" + n + "/f\x00")
	}
	err = s.run(ctx, invocation{gitDir: path, env: idx.env(), stdin: strings.NewReader(in.String()),
		config: []string{"core.protectNTFS=true", "core.protectHFS=true"},
		args:   []string{"update-index", "-z", "--add", "--index-info"}})
	if err != nil {
		t.Fatal(err)
	}
	out, err := s.outputIn(ctx, path, nil, idx.env(), "ls-files", "-z")
	if err != nil {
		t.Fatal(err)
	}
	kept := map[string]bool{}
	for _, p := range strings.Split(string(out), "\x00") {
		kept[strings.TrimSuffix(p, "/f")] = true
	}
	for _, n := range names {
		if git, forge := !kept[n], isDotGitName(n); git != forge {
			t.Errorf("%q: git refuses %v, forge refuses %v", n, git, forge)
		}
	}
}

func TestCleanWritePathLimits(t *testing.T) {
	deep := strings.Repeat("d/", MaxPathDepth-1) + "f"
	long := strings.Repeat(strings.Repeat("x", MaxComponentBytes)+"/", 15) + strings.Repeat("y", MaxPathBytes-16*(MaxComponentBytes+1)+MaxComponentBytes)
	name := strings.Repeat("n", MaxComponentBytes)
	for _, p := range []string{deep, long, name, "/" + deep + "/"} {
		if _, err := cleanWritePath(p); err != nil {
			t.Errorf("cleanWritePath(%d bytes, %d levels) = %v, want ok", len(p), strings.Count(p, "/")+1, err)
		}
	}
	for _, tc := range []struct{ name, p, msg string }{
		{"too deep", deep + "/g", "too deep"},
		{"too long", long + "z", "too long"},
		{"name too long", name + "n", "component is too long"},
		{"very deep", strings.Repeat("a/", 300000) + "f", "too long"},
		{"deep but short", strings.Repeat("/a", MaxPathDepth+1), "too deep"},
	} {
		_, err := cleanWritePath(tc.p)
		if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%s: %v, want ErrInvalid with %q", tc.name, err, tc.msg)
		}
		if err != nil && len(err.Error()) > 300 {
			t.Errorf("%s: error echoes %d bytes", tc.name, len(err.Error()))
		}
	}
}

// TestChangeFilesRefusesDotGitAliases: git drops such paths from the index
// and still exits 0, so without the check the branch moved to a commit
// without the file. Nothing may be committed.
func TestChangeFilesRefusesDotGitAliases(t *testing.T) {
	ctx := context.Background()
	s := newTestStore(t)
	path := newRepo(t, s, "o", "r")
	head := commitFiles(t, s, path, "", "first", create("a.txt", "a\n"))
	for _, name := range dotGitAliases {
		_, err := s.ChangeFiles(ctx, path, ChangeFilesOptions{Author: testAuthor, Files: []FileChange{create(name+"/config", "x")}})
		mustIs(t, err, ErrInvalid)
		if sha, _ := s.refSHA(ctx, path, "refs/heads/main"); sha != head {
			t.Fatalf("%q: main moved to %s", name, sha)
		}
	}
}

// TestWriteTreeRefusesDroppedPath bypasses the name check: if git drops a
// path anyway, writeTree must say so instead of returning a partial tree.
func TestWriteTreeRefusesDroppedPath(t *testing.T) {
	ctx := context.Background()
	s := newTestStore(t)
	path := newRepo(t, s, "o", "r")
	blob, err := s.hashObject(ctx, path, []byte("x"))
	if err != nil {
		t.Fatal(err)
	}
	idx, err := s.newIndex(ctx, path, "")
	if err != nil {
		t.Fatal(err)
	}
	defer idx.remove()
	_, err = idx.writeTree(ctx, []string{"100644 " + blob + "\tok.txt", "100644 " + blob + "\tgit~1/config"})
	mustIs(t, err, ErrInvalid)
}

func TestChangeFilesPathsInTheWay(t *testing.T) {
	ctx := context.Background()
	s := newTestStore(t)
	path := newRepo(t, s, "o", "r")
	head := commitFiles(t, s, path, "", "first", create("a/b/file", "a\n"), create("top", "t\n"))
	for _, files := range [][]FileChange{
		{create("a/b/file/c/d/e", "x")},
		{create("top/x/y/z", "x")},
		{create("n", "1"), create("n/m", "2")}, // one op puts a file where the other needs a dir
		{create("a/b/new", "1"), create("a/b/new/x", "2")},
	} {
		_, err := s.ChangeFiles(ctx, path, ChangeFilesOptions{Author: testAuthor, Files: files})
		mustIs(t, err, ErrInvalid)
		if sha, _ := s.refSHA(ctx, path, "refs/heads/main"); sha != head {
			t.Fatalf("%v: main moved", files[0].Path)
		}
	}
	// A nested write into existing and new directories still works.
	commitFiles(t, s, path, "main", "nested", create("a/b/c/d/new.txt", "n\n"), create("a/x/y.txt", "y\n"))
	if got := readFile(t, s, path, "main", "a/b/c/d/new.txt"); got != "n\n" {
		t.Fatalf("content %q", got)
	}
}

// TestChangeFilesDeepPathBounded: a path of many levels used to be passed to
// git once per leading directory (memory and argv growing with depth²). It
// is now refused before any such work, quickly and cheaply.
func TestChangeFilesDeepPathBounded(t *testing.T) {
	ctx := context.Background()
	s := newTestStore(t)
	path := newRepo(t, s, "o", "r")
	head := commitFiles(t, s, path, "", "first", create("a.txt", "a\n"))
	for _, p := range []string{
		strings.Repeat("a/", 20000) + "f",        // 40 KB: gigabytes of arguments before
		strings.Repeat("a/", 300000) + "f",       // 600 KB
		strings.Repeat("a/", MaxPathDepth) + "f", // short but too deep for git's recursion
	} {
		for _, fc := range []FileChange{
			create(p, "x"),
			{Op: OpUpdate, Path: "b.txt", FromPath: p, Content: []byte("x")},
			{Op: OpUpdate, Path: p, FromPath: "a.txt", Content: []byte("x")},
		} {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			start := time.Now()
			_, err := s.ChangeFiles(ctx, path, ChangeFilesOptions{Author: testAuthor, Files: []FileChange{fc}})
			elapsed := time.Since(start)
			runtime.ReadMemStats(&after)
			mustIs(t, err, ErrInvalid)
			// The input itself is up to 600 KB; allow a small multiple.
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 8<<20 {
				t.Errorf("%d-byte path: allocated %d bytes", len(p), alloc)
			}
			if elapsed > 2*time.Second {
				t.Errorf("%d-byte path: took %v", len(p), elapsed)
			}
		}
	}
	if sha, _ := s.refSHA(ctx, path, "refs/heads/main"); sha != head {
		t.Fatal("main moved")
	}
	// The deepest allowed path works, and so do later writes (git read-tree
	// of the new tree).
	deep := strings.Repeat("d/", MaxPathDepth-1) + "f"
	commitFiles(t, s, path, "main", "deep", create(deep, "deep\n"))
	commitFiles(t, s, path, "main", "after", create("later.txt", "l\n"))
	if got := readFile(t, s, path, "main", deep); got != "deep\n" {
		t.Fatalf("content %q", got)
	}
}
