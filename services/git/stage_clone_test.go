package git

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

// TestCloneStaged: a migration's clone is built in scratch space and
// becomes visible only when placed; a failed clone leaves nothing, and its
// message does not name the scratch directory.
func TestCloneStaged(t *testing.T) {
	ctx := context.Background()
	s := newTestStore(t)
	src := newRepo(t, s, "up", "stream")
	c1 := commitFiles(t, s, src, "main", "one", create("a", "a"))

	staged, err := s.CloneStaged(ctx, Remote{URL: src})
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Dir(staged) != s.tmpDir {
		t.Fatalf("clone outside the scratch space: %s", staged)
	}
	path, _ := s.RepoPath("me", "copy")
	if s.Exists(path) {
		t.Fatal("the clone is visible before it is placed")
	}
	if err := s.Place(staged, path); err != nil {
		t.Fatal(err)
	}
	if b, err := s.GetBranch(ctx, path, "main"); err != nil || b.Commit.SHA != c1 {
		t.Fatalf("placed clone: %+v %v", b, err)
	}
	checkNoScratch(t, s)

	missing := filepath.Join(t.TempDir(), "missing.git")
	_, err = s.CloneStaged(ctx, Remote{URL: missing})
	var ge *Error
	if !errors.As(err, &ge) || strings.Contains(ge.Stderr, s.tmpDir) {
		t.Fatalf("failed clone: %v", err)
	}
	if _, err := s.CloneStaged(ctx, Remote{URL: "--upload-pack=x"}); !errors.Is(err, ErrInvalid) {
		t.Fatalf("option as a remote: %v", err)
	}
	checkNoScratch(t, s)
}
