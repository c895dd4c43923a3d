package git

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// countGit puts a git in front of PATH that logs each start, and returns a
// function reporting how many git processes started so far. It sees every
// process, however the package starts it.
func countGit(t *testing.T) func() int {
	t.Helper()
	real, err := exec.LookPath("git")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	log := filepath.Join(dir, "starts")
	script := fmt.Sprintf("#!/bin/sh\necho x >>'%s'\nexec '%s' \"$@\"\n", log, real)
	if err := os.WriteFile(filepath.Join(dir, "git"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	return func() int {
		b, _ := os.ReadFile(log)
		return strings.Count(string(b), "x")
	}
}

// Reading a repository's contents, branches and a page of commits again
// and again starts no git process: objects come through pooled readers
// and caches, refs from disk.
func TestRepeatedReadsStartNoProcess(t *testing.T) {
	ctx := context.Background()
	s := newTestStore(t)
	path := newRepo(t, s, "o", "r")
	files := map[string][]byte{}
	for i := range 10 {
		files[fmt.Sprintf("f%d", i)] = []byte(fmt.Sprintf("%d\n", i))
	}
	if _, err := s.InitialCommit(ctx, path, "main", files, testAuthor, "init"); err != nil {
		t.Fatal(err)
	}
	for i := range 12 {
		e, err := s.Stat(ctx, path, "main", "f0")
		if err != nil {
			t.Fatal(err)
		}
		commitFiles(t, s, path, "main", fmt.Sprintf("c%d", i), FileChange{Op: OpUpdate, Path: "f0", SHA: e.SHA, Content: []byte(fmt.Sprint(i))})
	}
	starts := countGit(t)
	read := func() {
		t.Helper()
		if cs, total, err := s.Log(ctx, path, LogOptions{Ref: "main", Limit: 10, Stats: true, Files: true}); err != nil || len(cs) != 10 || total != 13 {
			t.Fatal(len(cs), total, err)
		}
		entries, err := s.ReadDir(ctx, path, "main", "")
		if err != nil || len(entries) != 10 {
			t.Fatal(len(entries), err)
		}
		for _, e := range entries {
			if _, err := s.Stat(ctx, path, "main", e.Path); err != nil {
				t.Fatal(err)
			}
			if _, err := s.LastCommitForPath(ctx, path, "main", e.Path); err != nil {
				t.Fatal(err)
			}
			rc, _, err := s.OpenBlob(ctx, path, "main", e.Path)
			if err != nil {
				t.Fatal(err)
			}
			rc.Close()
		}
		if bs, err := s.BranchesByName(ctx, path, []string{"main"}); err != nil || len(bs) != 1 {
			t.Fatal(bs, err)
		}
		if _, err := s.GetCommit(ctx, path, "main"); err != nil {
			t.Fatal(err)
		}
	}
	read()
	first := starts()
	read()
	read()
	if n := starts() - first; n != 0 {
		t.Fatalf("reading 10 files, 10 commits and a branch twice more started %d git processes, want 0 (the first pass started %d)", n, first)
	}
}

// Listing tags and paging through a path's history again and again starts
// no git process either: tag refs come from disk, a path's history is
// walked over cached commits and trees and its total is cached.
func TestTagsAndPathHistoryStartNoProcess(t *testing.T) {
	ctx := context.Background()
	s := newTestStore(t)
	path := newRepo(t, s, "o", "r")
	pathHistoryRepo(t, path, 30, 1)
	gitCmd(t, path, "tag", "light", "line0")
	gitCmd(t, path, "tag", "-a", "-m", "release", "v1", "line0~2")
	gitCmd(t, path, "pack-refs", "--all", "--prune")
	gitCmd(t, path, "tag", "-a", "-m", "loose", "v2", "line0")
	starts := countGit(t)
	read := func() {
		t.Helper()
		if tags, err := s.ListTags(ctx, path); err != nil || len(tags) != 3 {
			t.Fatal(tags, err)
		}
		for _, p := range []string{"a", "d/b", "x"} {
			for skip := 0; skip < 6; skip += 3 {
				if _, total, err := s.Log(ctx, path, LogOptions{Ref: "line0", Path: p, Skip: skip, Limit: 3, Stats: true, Files: true}); err != nil || total == 0 {
					t.Fatal(p, total, err)
				}
			}
		}
	}
	read()
	first := starts()
	read()
	read()
	if n := starts() - first; n != 0 {
		t.Fatalf("listing tags and pages of 3 paths' histories twice more started %d git processes, want 0 (the first pass started %d)", n, first)
	}
}

// A pull request's commits (a range, head ^base) read again start no git
// process and give the same answer; a new head commit is a new answer.
func TestRangeLogRepeatedStartsNoProcess(t *testing.T) {
	ctx := context.Background()
	s := newTestStore(t)
	path := newRepo(t, s, "o", "r")
	if _, err := s.InitialCommit(ctx, path, "main", map[string][]byte{"f": []byte("0\n")}, testAuthor, "init"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateBranch(ctx, path, "topic", "main"); err != nil {
		t.Fatal(err)
	}
	change := func(i int) {
		t.Helper()
		e, err := s.Stat(ctx, path, "topic", "f")
		if err != nil {
			t.Fatal(err)
		}
		commitFiles(t, s, path, "topic", fmt.Sprintf("c%d", i), FileChange{Op: OpUpdate, Path: "f", SHA: e.SHA, Content: []byte(fmt.Sprintf("%d\n", i))})
	}
	for i := range 3 {
		change(i + 1)
	}
	page := func() string {
		t.Helper()
		cs, total, err := s.Log(ctx, path, LogOptions{Ref: "topic", Not: []string{"main"}, Limit: 10, Stats: true, Files: true})
		if err != nil {
			t.Fatal(err)
		}
		// The caller may change what it got: the next answer is unchanged.
		defer func() {
			for i := range cs {
				cs[i].Message, cs[i].Parents[0], cs[i].Files[0].Additions, cs[i].Stats.Total = "changed", "x", -1, -1
			}
		}()
		out := fmt.Sprint(total)
		for _, c := range cs {
			out += fmt.Sprintf(" %s %v %q %+v %+v", c.SHA, c.Parents, c.Message, c.Files, *c.Stats)
		}
		return out
	}
	starts := countGit(t)
	first := page()
	n := starts()
	if again := page(); again != first {
		t.Fatalf("second answer\n%s\nfirst\n%s", again, first)
	}
	if page(); starts() != n {
		t.Fatalf("reading the range again started %d git processes", starts()-n)
	}
	change(4)
	if got := page(); got == first || !strings.HasPrefix(got, "4 ") {
		t.Fatalf("after a new commit: %s", got)
	}
}
