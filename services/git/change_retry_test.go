package git

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestChangeFilesRetriesMovedBranch: writers that do not hold LockRef (as
// in separate processes) and change different files all land: a lost
// compare-and-swap is rebuilt on the new head. A real conflict is still
// refused, with Gitea's message.
func TestChangeFilesRetriesMovedBranch(t *testing.T) {
	ctx := context.Background()
	s := newTestStore(t)
	path := newRepo(t, s, "o", "r")
	base := commitFiles(t, s, path, "main", "base", create("f.txt", "base\n"))
	const n = 12
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = s.ChangeFiles(ctx, path, ChangeFilesOptions{
				Files:  []FileChange{create(fmt.Sprintf("new-%d.txt", i), "x\n")},
				Author: testAuthor, Message: fmt.Sprint("writer ", i),
			})
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("writer %d: %v", i, err)
		}
	}
	if got := strings.TrimSpace(gitCmd(t, path, "rev-list", "--count", base+"..main")); got != fmt.Sprint(n) {
		t.Fatalf("%s commits on top of base, want %d", got, n)
	}
	checkNoScratch(t, s)

	// Creating an existing file and updating with a stale sha are real
	// conflicts, refused with Gitea's texts.
	_, err := s.ChangeFiles(ctx, path, ChangeFilesOptions{Files: []FileChange{create("new-1.txt", "y\n")}, Author: testAuthor})
	if !errors.Is(err, ErrAlreadyExists) || err.Error() != "repository file already exists [path: new-1.txt]" {
		t.Fatalf("create existing: %v", err)
	}
	old, _ := s.Stat(ctx, path, base, "f.txt")
	commitFiles(t, s, path, "main", "change f", FileChange{Op: OpUpdate, Path: "f.txt", SHA: old.SHA, Content: []byte("v2\n")})
	cur, _ := s.Stat(ctx, path, "main", "f.txt")
	_, err = s.ChangeFiles(ctx, path, ChangeFilesOptions{Author: testAuthor,
		Files: []FileChange{{Op: OpUpdate, Path: "f.txt", SHA: old.SHA, Content: []byte("v3\n")}}})
	want := "sha does not match [given: " + old.SHA + ", expected: " + cur.SHA + "]"
	if !errors.Is(err, ErrConflict) || err.Error() != want {
		t.Fatalf("stale sha: %v, want %q", err, want)
	}
}

// TestLockRef: one holder per repository and ref; other refs are free; a
// waiter gives up when its context ends.
func TestLockRef(t *testing.T) {
	s := newTestStore(t)
	ctx := context.Background()
	unlock, err := s.LockRef(ctx, "/x/r.git", "refs/heads/main")
	if err != nil {
		t.Fatal(err)
	}
	other, err := s.LockRef(ctx, "/x/r.git", "refs/heads/dev")
	if err != nil {
		t.Fatal(err)
	}
	other()
	short, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel()
	if _, err := s.LockRef(short, "/x/r.git", "refs/heads/main"); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("second holder: %v", err)
	}
	got := make(chan struct{})
	go func() {
		u, err := s.LockRef(ctx, "/x/r.git", "refs/heads/main")
		if err == nil {
			u()
		}
		close(got)
	}()
	unlock()
	unlock() // idempotent
	<-got
	if len(s.refLocks.m) != 0 {
		t.Fatalf("locks not dropped: %v", s.refLocks.m)
	}
}
