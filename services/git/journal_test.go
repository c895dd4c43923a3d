package git

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestRefJournalRecordsEveryRefMove: an API-style ref move (update-ref,
// branch create and delete) leaves committed entries naming the repository
// and the ref, and forgetting them empties the journal.
func TestRefJournalRecordsEveryRefMove(t *testing.T) {
	ctx := context.Background()
	s := newTestStore(t)
	path := newRepo(t, s, "Alice", "Proj")
	drain(t, s)
	sha := commitFiles(t, s, path, "main", "first", create("a.txt", "a"))
	if _, err := s.CreateBranch(ctx, path, "feature", "refs/heads/main"); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteBranch(ctx, path, "feature"); err != nil {
		t.Fatal(err)
	}
	entries, err := s.RefJournal()
	if err != nil {
		t.Fatal(err)
	}
	refs := map[string]bool{}
	for _, e := range entries {
		if !e.Committed || !e.Settled() || e.Owner != "alice" || e.Name != "proj" {
			t.Fatalf("entry %+v", e)
		}
		for _, r := range e.Refs {
			refs[r] = true
		}
	}
	if !refs["refs/heads/main"] || !refs["refs/heads/feature"] {
		t.Fatalf("journaled refs %v (commit %s)", refs, sha)
	}
	drain(t, s)
}

func drain(t *testing.T, s *Store) {
	t.Helper()
	entries, err := s.RefJournal()
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if err := s.ForgetJournalEntry(e); err != nil {
			t.Fatal(err)
		}
	}
	if entries, _ := s.RefJournal(); len(entries) != 0 {
		t.Fatalf("journal not empty: %+v", entries)
	}
}

// TestRefJournalPreparedEntries: a prepared entry (the refs may be moving)
// is settled only once the git process that wrote it is gone.
func TestRefJournalPreparedEntries(t *testing.T) {
	s := newTestStore(t)
	path := newRepo(t, s, "alice", "proj")
	drain(t, s)
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		t.Fatal(err)
	}
	line := real + "\n" + ZeroSHA + " " + strings.Repeat("a", 40) + " refs/heads/main\n"
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	for _, pid := range []int{os.Getpid(), dead.Process.Pid} {
		if err := os.WriteFile(filepath.Join(s.journalDir, "p-"+strconv.Itoa(pid)), []byte(line), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	entries, err := s.RefJournal()
	if err != nil || len(entries) != 2 {
		t.Fatalf("entries %+v %v", entries, err)
	}
	for _, e := range entries {
		alive := e.file == "p-"+strconv.Itoa(os.Getpid())
		if e.Committed || e.Settled() == alive || e.Owner != "alice" || e.Name != "proj" || len(e.Refs) != 1 || e.Refs[0] != "refs/heads/main" {
			t.Fatalf("entry %+v (alive %v)", e, alive)
		}
	}
}

// TestHousekeepLeavesTheJournalAlone: packing loose refs moves no ref, so
// it leaves nothing for the reconciler to read (git would otherwise run
// the journal hook for every loose ref it prunes), and every branch keeps
// its commit.
func TestHousekeepLeavesTheJournalAlone(t *testing.T) {
	ctx := context.Background()
	s := newTestStore(t)
	path := newRepo(t, s, "alice", "proj")
	sha := commitFiles(t, s, path, "main", "first", create("a.txt", "a"))
	for i := range 20 {
		if _, err := s.CreateBranch(ctx, path, "b"+strconv.Itoa(i), "refs/heads/main"); err != nil {
			t.Fatal(err)
		}
	}
	drain(t, s)
	if err := s.Housekeep(ctx, path); err != nil {
		t.Fatal(err)
	}
	if loose, _ := os.ReadDir(filepath.Join(path, "refs", "heads")); len(loose) != 0 {
		t.Fatalf("%d loose branches after Housekeep", len(loose))
	}
	if entries, _ := s.RefJournal(); len(entries) != 0 {
		t.Fatalf("Housekeep journaled %d ref transactions, first %+v", len(entries), entries[0])
	}
	branches, err := s.ListBranches(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if len(branches) != 21 {
		t.Fatalf("%d branches after Housekeep", len(branches))
	}
	for _, b := range branches {
		if b.Commit.SHA != sha {
			t.Fatalf("branch %s at %s, want %s", b.Name, b.Commit.SHA, sha)
		}
	}
}
