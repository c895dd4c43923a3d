package git

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestStagedCreate: a staged repository becomes visible at its path with
// one rename, replacing debris (a directory that is not a repository);
// Delete removes debris too.
func TestStagedCreate(t *testing.T) {
	ctx := context.Background()
	s := newTestStore(t)
	path, _ := s.RepoPath("o", "r")
	if err := os.MkdirAll(filepath.Join(path, "junk"), 0o750); err != nil {
		t.Fatal(err)
	}
	staged, err := s.InitStaged(ctx, "main")
	if err != nil {
		t.Fatal(err)
	}
	if s.Exists(path) {
		t.Fatal("debris is a repository")
	}
	if _, err := s.InitialCommit(ctx, staged, "main", map[string][]byte{"README.md": []byte("hi\n")}, testAuthor, "init"); err != nil {
		t.Fatal(err)
	}
	if err := s.Place(staged, path); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(path, "junk")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("debris kept: %v", err)
	}
	if b, err := s.GetBranch(ctx, path, "main"); err != nil || b.Name != "main" {
		t.Fatalf("placed repository: %+v %v", b, err)
	}
	if err := s.Place(path, path); !errors.Is(err, ErrInvalid) {
		t.Fatalf("placing a non-staged path: %v", err)
	}
	checkNoScratch(t, s)

	// A repository without a record (say, a rename was interrupted) is
	// never deleted: it is kept aside.
	staged, err = s.InitStaged(ctx, "main")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Place(staged, path); err != nil {
		t.Fatal(err)
	}
	aside, _ := filepath.Glob(filepath.Join(s.Root, "@forge", "lost", "o_r.git-*", "r.git"))
	if len(aside) != 1 || !s.Exists(aside[0]) {
		t.Fatalf("kept aside: %v", aside)
	}
	if b, err := s.GetBranch(ctx, aside[0], "main"); err != nil || b.Name != "main" {
		t.Fatalf("the kept repository: %+v %v", b, err)
	}
	if empty, err := s.IsEmpty(ctx, path); err != nil || !empty {
		t.Fatalf("the new repository: empty %v %v", empty, err)
	}

	os.RemoveAll(path)
	os.MkdirAll(path, 0o750) // a create killed after mkdir, before git init
	if err := s.Delete(path); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(path); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("Delete left %s: %v", path, err)
	}
	checkNoScratch(t, s)
}

// TestSweep: stale scratch files and push quarantines go, fresh ones (an
// operation that may still run) stay.
func TestSweep(t *testing.T) {
	s := newTestStore(t)
	path := newRepo(t, s, "o", "r")
	old := time.Now().Add(-2 * time.Hour)
	plant := func(p string, stale bool) string {
		if err := os.MkdirAll(filepath.Dir(p), 0o750); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x"), 0o640); err != nil {
			t.Fatal(err)
		}
		if stale {
			os.Chtimes(p, old, old)
			os.Chtimes(filepath.Dir(p), old, old)
		}
		return p
	}
	gone := []string{
		plant(filepath.Join(s.tmpDir, "push-1.log"), true),
		plant(filepath.Join(s.tmpDir, "index-1", "index"), true),
		plant(filepath.Join(path, "objects", "tmp_objdir-incoming-1", "pack"), true),
	}
	kept := []string{
		plant(filepath.Join(s.tmpDir, "push-2.log"), false),
		plant(filepath.Join(s.tmpDir, "index-2", "index"), false),
		plant(filepath.Join(path, "objects", "tmp_objdir-incoming-2", "pack"), false),
	}
	n, err := s.Sweep(context.Background(), DefaultScratchAge)
	if err != nil || n != 3 {
		t.Fatalf("Sweep: %d %v", n, err)
	}
	for _, p := range gone {
		if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s kept", p)
		}
	}
	for _, p := range kept {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s removed: %v", p, err)
		}
	}
}
