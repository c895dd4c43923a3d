package git

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestForkStaged: a fork has the parent's branches, tags and default
// branch, no remote, object files shared with the parent (hard links, no
// copy), and keeps working once the parent is deleted.
func TestForkStaged(t *testing.T) {
	ctx := context.Background()
	s := newTestStore(t)
	parent := newRepo(t, s, "alice", "proj")
	c1 := commitFiles(t, s, parent, "main", "one", create("a", "a"))
	if _, err := s.CreateBranch(ctx, parent, "dev", "main"); err != nil {
		t.Fatal(err)
	}
	c2 := commitFiles(t, s, parent, "dev", "two", create("b", "b"))
	if _, err := s.CreateTag(ctx, parent, "v1", c1, "", testAuthor); err != nil {
		t.Fatal(err)
	}
	gitCmd(t, parent, "repack", "-a", "-d", "-q")

	staged, err := s.ForkStaged(ctx, parent)
	if err != nil {
		t.Fatal(err)
	}
	fork, _ := s.RepoPath("bob", "proj")
	if err := s.Place(staged, fork); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"main": c1, "dev": c2} {
		if b, err := s.GetBranch(ctx, fork, name); err != nil || b.Commit.SHA != want {
			t.Fatalf("fork branch %s: %+v %v", name, b, err)
		}
	}
	if tags, err := s.ListTags(ctx, fork); err != nil || len(tags) != 1 || tags[0].Name != "v1" {
		t.Fatalf("fork tags: %+v %v", tags, err)
	}
	if b, err := s.DefaultBranch(ctx, fork); err != nil || b != "main" {
		t.Fatalf("fork default branch: %q %v", b, err)
	}
	if out, _ := gitCmdErr(t, fork, nil, "remote"); out != "" {
		t.Fatalf("fork remotes: %q", out)
	}
	if n := sharedPacks(t, parent, fork); n == 0 {
		t.Fatal("the fork copied the parent's packs instead of sharing them")
	}

	if err := s.Delete(parent); err != nil {
		t.Fatal(err)
	}
	gitCmd(t, fork, "fsck", "--strict", "--no-progress")
	if b, err := s.GetBranch(ctx, fork, "dev"); err != nil || b.Commit.SHA != c2 {
		t.Fatalf("fork after the parent's delete: %+v %v", b, err)
	}

	if _, err := s.ForkStaged(ctx, parent); !isErr(err, ErrNotFound) {
		t.Fatalf("fork of a deleted repository: %v", err)
	}
	checkNoScratch(t, s)
}

// sharedPacks counts the pack files of fork that are the same file (same
// inode) as one of parent's.
func sharedPacks(t *testing.T, parent, fork string) int {
	t.Helper()
	inodes := map[uint64]bool{}
	packs, _ := filepath.Glob(filepath.Join(parent, "objects", "pack", "*.pack"))
	for _, p := range packs {
		st, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		inodes[st.Sys().(*syscall.Stat_t).Ino] = true
	}
	n := 0
	packs, _ = filepath.Glob(filepath.Join(fork, "objects", "pack", "*.pack"))
	for _, p := range packs {
		st, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if inodes[st.Sys().(*syscall.Stat_t).Ino] {
			n++
		}
	}
	return n
}
