package git

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"testing"
)

func readFile(t *testing.T, s *Store, path, ref, p string) string {
	t.Helper()
	rc, _, err := s.OpenBlob(context.Background(), path, ref, p)
	if err != nil {
		t.Fatalf("OpenBlob(%s:%s): %v", ref, p, err)
	}
	defer rc.Close()
	b, err := io.ReadAll(rc)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestChangeFiles(t *testing.T) {
	ctx := context.Background()
	s := newTestStore(t)
	path := newRepo(t, s, "o", "r")

	// First commit into an empty repository: no parent.
	first := commitFiles(t, s, path, "", "first", create("a.txt", "a\n"), create("dir/b.txt", "b\n"))
	c, err := s.GetCommit(ctx, path, first)
	if err != nil || len(c.Parents) != 0 {
		t.Fatalf("first commit %+v, %v", c, err)
	}
	if br, _ := s.DefaultBranch(ctx, path); br != "main" {
		t.Fatalf("default branch %q", br)
	}
	a, _ := s.Stat(ctx, path, "main", "a.txt")
	b, _ := s.Stat(ctx, path, "main", "dir/b.txt")

	tests := []struct {
		name    string
		opts    ChangeFilesOptions
		wantErr error
	}{
		{"create existing", ChangeFilesOptions{Files: []FileChange{create("a.txt", "x")}}, ErrAlreadyExists},
		{"create over dir", ChangeFilesOptions{Files: []FileChange{create("dir", "x")}}, ErrAlreadyExists},
		{"create over dir, with a path inside it", ChangeFilesOptions{Files: []FileChange{create("dir", "x"), {Op: OpDelete, Path: "dir/b.txt"}}}, ErrAlreadyExists},
		{"create under file", ChangeFilesOptions{Files: []FileChange{create("a.txt/c", "x")}}, ErrInvalid},
		{"update wrong sha", ChangeFilesOptions{Files: []FileChange{{Op: OpUpdate, Path: "a.txt", SHA: b.SHA, Content: []byte("x")}}}, ErrConflict},
		{"update missing", ChangeFilesOptions{Files: []FileChange{{Op: OpUpdate, Path: "nope.txt", SHA: a.SHA}}}, ErrNotFound},
		{"update dir", ChangeFilesOptions{Files: []FileChange{{Op: OpUpdate, Path: "dir"}}}, ErrInvalid},
		{"delete missing", ChangeFilesOptions{Files: []FileChange{{Op: OpDelete, Path: "nope.txt"}}}, ErrNotFound},
		{"delete wrong sha", ChangeFilesOptions{Files: []FileChange{{Op: OpDelete, Path: "a.txt", SHA: b.SHA}}}, ErrConflict},
		{"rename onto existing", ChangeFilesOptions{Files: []FileChange{{Op: OpUpdate, FromPath: "a.txt", Path: "dir/b.txt", SHA: a.SHA}}}, ErrAlreadyExists},
		{"path twice", ChangeFilesOptions{Files: []FileChange{create("x", "1"), {Op: OpDelete, Path: "x"}}}, ErrInvalid},
		{"dotdot path", ChangeFilesOptions{Files: []FileChange{create("../x", "1")}}, ErrInvalid},
		{"dot git path", ChangeFilesOptions{Files: []FileChange{create(".git/config", "1")}}, ErrInvalid},
		{"bad op", ChangeFilesOptions{Files: []FileChange{{Op: "chmod", Path: "a.txt"}}}, ErrInvalid},
		{"no ops", ChangeFilesOptions{}, ErrInvalid},
		{"missing branch", ChangeFilesOptions{Branch: "nope", Files: []FileChange{create("x", "1")}}, ErrNotFound},
		{"stale head", ChangeFilesOptions{OldCommitSHA: ZeroSHA, Files: []FileChange{create("x", "1")}}, ErrConflict},
		{"new branch exists", ChangeFilesOptions{NewBranch: "main2", Files: []FileChange{create("x", "1")}}, nil},
		{"new branch exists again", ChangeFilesOptions{NewBranch: "main2", Files: []FileChange{create("y", "1")}}, ErrAlreadyExists},
		{"bad new branch", ChangeFilesOptions{NewBranch: "a..b", Files: []FileChange{create("y", "1")}}, ErrInvalid},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.opts.Author, tc.opts.Message = testAuthor, tc.name
			_, err := s.ChangeFiles(ctx, path, tc.opts)
			if tc.wantErr == nil && err != nil || tc.wantErr != nil && !errors.Is(err, tc.wantErr) {
				t.Fatalf("err %v, want %v", err, tc.wantErr)
			}
		})
	}
	if head, _ := s.ResolveRef(ctx, path, "main"); head != first {
		t.Fatalf("failed changes moved main to %s", head)
	}
	if got := readFile(t, s, path, "main2", "x"); got != "1" {
		t.Fatalf("main2:x = %q", got)
	}

	// A successful multi-operation commit: update, rename, delete, create.
	second, err := s.ChangeFiles(ctx, path, ChangeFilesOptions{
		Files: []FileChange{
			{Op: OpUpdate, Path: "a.txt", SHA: a.SHA, Content: []byte("a2\n")},
			{Op: OpUpdate, FromPath: "dir/b.txt", Path: "moved/b.txt", SHA: b.SHA, Content: []byte("b2\n")},
			create("new/deep/c.txt", "c\n"),
		},
		Author:    testAuthor,
		Committer: Signature{Name: "Committer", Email: "c@forge.invalid"},
		Message:   "second",
		Signoff:   true,
	})
	if err != nil {
		t.Fatal(err)
	}
	c, err = s.GetCommit(ctx, path, second)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Parents) != 1 || c.Parents[0] != first {
		t.Fatalf("parents %v", c.Parents)
	}
	if c.Author.Name != testAuthor.Name || !c.Author.When.Equal(testAuthor.When) || c.Committer.Name != "Committer" {
		t.Fatalf("signatures %+v / %+v", c.Author, c.Committer)
	}
	if _, off := c.Author.When.Zone(); off != 7200 {
		t.Fatalf("author zone offset %d", off)
	}
	if c.Message != "second\n\nSigned-off-by: Committer <c@forge.invalid>\n" {
		t.Fatalf("message %q", c.Message)
	}
	if got := readFile(t, s, path, "main", "a.txt"); got != "a2\n" {
		t.Fatalf("a.txt = %q", got)
	}
	if got := readFile(t, s, path, "main", "moved/b.txt"); got != "b2\n" {
		t.Fatalf("moved/b.txt = %q", got)
	}
	if _, err := s.Stat(ctx, path, "main", "dir/b.txt"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("dir/b.txt after rename: %v", err)
	}

	// Delete with the right sha; the old commit still has the file.
	a2, _ := s.Stat(ctx, path, "main", "a.txt")
	commitFiles(t, s, path, "main", "delete", FileChange{Op: OpDelete, Path: "a.txt", SHA: a2.SHA})
	if _, err := s.Stat(ctx, path, "main", "a.txt"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("a.txt after delete: %v", err)
	}
	if got := readFile(t, s, path, first, "a.txt"); got != "a\n" {
		t.Fatalf("a.txt at first = %q", got)
	}
	checkNoScratch(t, s)
}

func TestInitialCommit(t *testing.T) {
	ctx := context.Background()
	s := newTestStore(t)
	path := newRepo(t, s, "o", "r")
	files := map[string][]byte{"README.md": []byte("# r\n"), ".gitignore": []byte("*.o\n"), "LICENSE": []byte("MIT\n")}
	sha, err := s.InitialCommit(ctx, path, "trunk", files, testAuthor, "Initial commit")
	if err != nil {
		t.Fatal(err)
	}
	entries, err := s.ReadDir(ctx, path, "trunk", "")
	if err != nil || len(entries) != 3 {
		t.Fatalf("ReadDir = %v, %v", entries, err)
	}
	for _, e := range entries {
		if e.Type != EntryFile || e.Mode != "100644" || e.Size != int64(len(files[e.Name])) {
			t.Errorf("entry %+v", e)
		}
	}
	c, err := s.GetCommit(ctx, path, sha)
	if err != nil || c.Message != "Initial commit\n" || len(c.Parents) != 0 || c.Stats.Additions != 3 {
		t.Fatalf("commit %+v, %v", c, err)
	}
	if _, err := s.InitialCommit(ctx, path, "trunk", files, testAuthor, "again"); !errors.Is(err, ErrAlreadyExists) {
		t.Fatalf("second InitialCommit: %v", err)
	}
	if _, err := s.InitialCommit(ctx, path, "x", files, Signature{}, "no author"); !errors.Is(err, ErrInvalid) {
		t.Fatalf("no author: %v", err)
	}
}

// TestChangeFilesConcurrent: N updates of one branch from the same old
// state; exactly one wins, the others get ErrConflict, nothing is lost.
func TestChangeFilesConcurrent(t *testing.T) {
	ctx := context.Background()
	s := newTestStore(t)
	path := newRepo(t, s, "o", "r")
	base := commitFiles(t, s, path, "main", "base", create("f.txt", "base\n"))
	f, _ := s.Stat(ctx, path, "main", "f.txt")
	const n = 8

	run := func(t *testing.T, opts func(i int) ChangeFilesOptions) (wins []string) {
		var wg sync.WaitGroup
		var mu sync.Mutex
		errs := make([]error, n)
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				sha, err := s.ChangeFiles(ctx, path, opts(i))
				errs[i] = err
				if err == nil {
					mu.Lock()
					wins = append(wins, sha)
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
		for _, err := range errs {
			if err != nil && !errors.Is(err, ErrConflict) {
				t.Fatalf("unexpected error: %v", err)
			}
		}
		if len(wins) != 1 {
			t.Fatalf("%d winners, want 1 (errors %v)", len(wins), errs)
		}
		if head, _ := s.ResolveRef(ctx, path, "main"); head != wins[0] {
			t.Fatalf("main at %s, winner %s", head, wins[0])
		}
		return wins
	}

	t.Run("same file, same blob sha", func(t *testing.T) {
		wins := run(t, func(i int) ChangeFilesOptions {
			return ChangeFilesOptions{
				Files:  []FileChange{{Op: OpUpdate, Path: "f.txt", SHA: f.SHA, Content: []byte(fmt.Sprintf("writer %d\n", i))}},
				Author: testAuthor, Message: fmt.Sprint("writer ", i),
			}
		})
		c, _ := s.GetCommit(ctx, path, wins[0])
		if c.Parents[0] != base {
			t.Fatalf("winner's parent %s, want %s", c.Parents[0], base)
		}
	})
	t.Run("different files, same old commit", func(t *testing.T) {
		head, _ := s.ResolveRef(ctx, path, "main")
		run(t, func(i int) ChangeFilesOptions {
			return ChangeFilesOptions{
				OldCommitSHA: head,
				Files:        []FileChange{create(fmt.Sprintf("new-%d.txt", i), "x\n")},
				Author:       testAuthor, Message: fmt.Sprint("writer ", i),
			}
		})
	})
}
