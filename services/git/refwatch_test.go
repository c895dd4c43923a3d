//go:build linux

package git

import (
	"context"
	"testing"
)

// TestRefMoves: the count changes with every ref forge's git moves
// (creating, moving, deleting a branch, a tag), in this process or any
// other, and stays while nothing moves, reading and housekeeping included.
func TestRefMoves(t *testing.T) {
	ctx := context.Background()
	s := newTestStore(t)
	path := newRepo(t, s, "owner", "repo")
	commitFiles(t, s, path, "main", "one", create("a.txt", "a"))

	last, ok := s.RefMoves()
	if !ok {
		t.Fatal("no ref watch on linux")
	}
	same := func(what string) {
		t.Helper()
		n, ok := s.RefMoves()
		if !ok || n != last {
			t.Fatalf("%s: count %d (ok %v), want it unchanged at %d", what, n, ok, last)
		}
	}
	moved := func(what string) {
		t.Helper()
		n, ok := s.RefMoves()
		if !ok || n == last {
			t.Fatalf("%s: count %d (ok %v) did not change", what, n, ok)
		}
		last = n
	}

	same("nothing")
	if _, err := s.ResolveRef(ctx, path, "main"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.ListBranches(ctx, path); err != nil {
		t.Fatal(err)
	}
	same("reads")
	if err := s.Housekeep(ctx, path); err != nil {
		t.Fatal(err)
	}
	same("housekeeping")

	if _, err := s.CreateBranch(ctx, path, "feature", "main"); err != nil {
		t.Fatal(err)
	}
	moved("branch created")
	commitFiles(t, s, path, "feature", "two", create("b.txt", "b"))
	moved("branch moved")
	if err := s.DeleteBranch(ctx, path, "feature"); err != nil {
		t.Fatal(err)
	}
	moved("branch deleted")
	if _, err := s.CreateTag(ctx, path, "v1", "main", "", testAuthor); err != nil {
		t.Fatal(err)
	}
	moved("tag created")

	// Another Store on the same root, as another forge process: the same
	// journal.
	other, err := New(s.Root)
	if err != nil {
		t.Fatal(err)
	}
	if err := other.DeleteTag(ctx, path, "v1"); err != nil {
		t.Fatal(err)
	}
	moved("tag deleted by another store")
	same("nothing since")
}

// TestRefMovesManyStores: a process may hold more Stores than the kernel
// allows inotify instances per user (128 by default), as a test binary
// running hundreds of servers does; every one of them is watched.
func TestRefMovesManyStores(t *testing.T) {
	for i := range 300 {
		s := newTestStore(t)
		if _, ok := s.RefMoves(); !ok {
			t.Fatalf("store %d has no ref watch", i)
		}
	}
}
