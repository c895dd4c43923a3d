package git

import (
	"context"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// TestReportRefMoves: a Store told to report ref moves calls the report
// once for each git command that moved refs (a branch created, a commit,
// a branch deleted, a tag, a push of two branches over smart HTTP),
// before the call that ran the command returns, and never for reads,
// housekeeping or a push that moved nothing; no marker file is left in
// the scratch directory.
func TestReportRefMoves(t *testing.T) {
	ctx := context.Background()
	s := newTestStore(t)
	var reports atomic.Int64
	s.ReportRefMoves(func(context.Context) { reports.Add(1) })
	path := newRepo(t, s, "owner", "repo")

	last := reports.Load()
	expect := func(what string, moved bool) {
		t.Helper()
		n := reports.Load()
		switch {
		case moved && n != last+1:
			t.Fatalf("%s: %d reports, want 1", what, n-last)
		case !moved && n != last:
			t.Fatalf("%s: %d reports, want none", what, n-last)
		}
		last = n
		checkNoMarkers(t, s)
	}

	commitFiles(t, s, path, "main", "one", create("a.txt", "a"))
	expect("first commit", true)
	if _, err := s.ListBranches(ctx, path); err != nil {
		t.Fatal(err)
	}
	if _, err := s.ResolveRef(ctx, path, "main"); err != nil {
		t.Fatal(err)
	}
	expect("reads", false)
	if err := s.Housekeep(ctx, path); err != nil {
		t.Fatal(err)
	}
	expect("housekeeping", false)
	if _, err := s.CreateBranch(ctx, path, "feature", "main"); err != nil {
		t.Fatal(err)
	}
	expect("branch created", true)
	if err := s.DeleteBranch(ctx, path, "feature"); err != nil {
		t.Fatal(err)
	}
	expect("branch deleted", true)
	if _, err := s.CreateTag(ctx, path, "v1", "main", "", testAuthor); err != nil {
		t.Fatal(err)
	}
	expect("tag created", true)

	// A push is one receive-pack, one ref transaction for all its refs.
	_, base := startGitServer(t, s)
	work := filepath.Join(t.TempDir(), "work")
	gitCmd(t, "", "clone", "--quiet", base+"/owner/repo.git", work)
	expect("clone", false)
	writeFile(t, work, "b.txt", "b\n")
	gitCmd(t, work, "add", "b.txt")
	gitCmd(t, work, "commit", "-q", "-m", "b")
	gitCmd(t, work, "branch", "second")
	gitCmd(t, work, "push", "--quiet", "origin", "main", "second")
	expect("push of two branches", true)
	gitCmd(t, work, "push", "--quiet", "origin", "main")
	expect("push with nothing to move", false)
}

func checkNoMarkers(t *testing.T, s *Store) {
	t.Helper()
	left, err := filepath.Glob(filepath.Join(s.tmpDir, "moved-*"))
	if err != nil || len(left) != 0 {
		t.Fatalf("marker files left: %v %v", left, err)
	}
	if !strings.HasPrefix(s.movedPrefix, "moved-") {
		t.Fatalf("marker prefix %q", s.movedPrefix)
	}
}
