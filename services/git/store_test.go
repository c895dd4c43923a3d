package git

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestValidName(t *testing.T) {
	tests := []struct {
		name string
		ok   bool
	}{
		{"forge", true}, {"Forge-2_x.y", true}, {"a", true}, {".hidden", true}, {"x.gitx", true},
		{"", false}, {".", false}, {"..", false}, {"repo.git", false}, {"repo.GIT", false},
		{"a/b", false}, {`a\b`, false}, {"a b", false}, {"ü", false}, {"@forge", false}, {"a\x00", false},
		{strings.Repeat("x", 256), false},
	}
	for _, tc := range tests {
		if got := ValidName(tc.name); got != tc.ok {
			t.Errorf("ValidName(%q) = %v", tc.name, got)
		}
	}
}

func TestRepoPathAndLifecycle(t *testing.T) {
	ctx := context.Background()
	s := newTestStore(t)
	p, err := s.RepoPath("Owner", "My.Repo")
	if err != nil || p != filepath.Join(s.Root, "owner", "my.repo.git") {
		t.Fatalf("RepoPath = %q, %v", p, err)
	}
	for _, tc := range [][2]string{{"..", "x"}, {"o", ".."}, {"o", "x.git"}, {"o/..", "x"}, {"o", "../../etc"}} {
		if _, err := s.RepoPath(tc[0], tc[1]); !errors.Is(err, ErrInvalid) {
			t.Errorf("RepoPath(%q, %q): %v", tc[0], tc[1], err)
		}
	}

	if err := s.Init(ctx, p, "develop"); err != nil {
		t.Fatal(err)
	}
	if !s.Exists(p) {
		t.Fatal("Exists after Init = false")
	}
	if b, err := s.DefaultBranch(ctx, p); err != nil || b != "develop" {
		t.Fatalf("DefaultBranch = %q, %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(p, "hooks")); !os.IsNotExist(err) {
		t.Errorf("sample hooks copied: %v", err)
	}
	if err := s.Init(ctx, p, "main"); !errors.Is(err, ErrAlreadyExists) {
		t.Fatalf("second Init: %v", err)
	}
	q, _ := s.RepoPath("o", "bad")
	if err := s.Init(ctx, q, "a..b"); !errors.Is(err, ErrInvalid) {
		t.Fatalf("Init with bad branch: %v", err)
	}
	if err := s.Init(ctx, filepath.Join(s.Root, "..", "escape.git"), "main"); !errors.Is(err, ErrInvalid) {
		t.Fatalf("Init outside root: %v", err)
	}

	// Rename (e.g. a transfer to another owner).
	np, _ := s.RepoPath("other", "renamed")
	if err := s.Rename(p, np); err != nil {
		t.Fatal(err)
	}
	if s.Exists(p) || !s.Exists(np) {
		t.Fatal("rename did not move the repository")
	}
	if err := s.Rename(p, np); !errors.Is(err, ErrNotFound) {
		t.Fatalf("rename missing: %v", err)
	}
	third := newRepo(t, s, "o", "third")
	if err := s.Rename(third, np); !errors.Is(err, ErrAlreadyExists) {
		t.Fatalf("rename onto existing: %v", err)
	}

	// Delete.
	if err := s.Delete(np); err != nil {
		t.Fatal(err)
	}
	if err := s.Delete(np); !errors.Is(err, ErrNotFound) {
		t.Fatalf("second Delete: %v", err)
	}
	for _, bad := range []string{s.Root, filepath.Dir(s.Root), filepath.Join(s.Root, internalDir)} {
		if err := s.Delete(bad); !errors.Is(err, ErrInvalid) {
			t.Errorf("Delete(%q): %v", bad, err)
		}
	}
	if _, err := s.ListBranches(ctx, np); !errors.Is(err, ErrNotFound) {
		t.Fatalf("ListBranches on deleted repo: %v", err)
	}
	if err := s.Housekeep(ctx, third); err != nil {
		t.Fatal(err)
	}
}

// TestCleanEnvironment: user configuration must not leak into git.
func TestCleanEnvironment(t *testing.T) {
	home := t.TempDir()
	os.WriteFile(filepath.Join(home, ".gitconfig"), []byte("[user]\nname = Leaked\n[log]\nshowRoot = false\n"), 0o644)
	t.Setenv("HOME", home)
	t.Setenv("GIT_CONFIG_GLOBAL", filepath.Join(home, ".gitconfig"))
	t.Setenv("GIT_DIR", "/nonexistent")
	ctx := context.Background()
	s := newTestStore(t)
	path := newRepo(t, s, "o", "r")
	commitFiles(t, s, path, "main", "one", create("a", "a"))
	out, err := s.output(ctx, path, "config", "--get", "user.name")
	if err == nil || strings.TrimSpace(string(out)) != "" {
		t.Fatalf("git saw user config: %q", out)
	}
	cs, _, err := s.Log(ctx, path, LogOptions{Files: true})
	if err != nil || len(cs[0].Files) != 1 {
		t.Fatalf("root commit diff: %+v, %v", cs, err)
	}
}

// TestRelativeRoot: a relative Root works for commands that get the
// repository path as an argument (init, clone, upload/receive-pack).
func TestRelativeRoot(t *testing.T) {
	t.Chdir(t.TempDir())
	ctx := context.Background()
	s := &Store{Root: "repos"}
	path, err := s.RepoPath("o", "r")
	if err != nil || filepath.IsAbs(path) {
		t.Fatalf("RepoPath = %q, %v", path, err)
	}
	if err := s.Init(ctx, path, "main"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.InitialCommit(ctx, path, "main", map[string][]byte{"a": []byte("a")}, testAuthor, "init"); err != nil {
		t.Fatal(err)
	}
	var buf strings.Builder
	if err := s.AdvertiseRefs(ctx, path, ServiceUploadPack, "", &buf); err != nil || !strings.Contains(buf.String(), "refs/heads/main") {
		t.Fatalf("AdvertiseRefs = %q, %v", buf.String(), err)
	}
	mirror, _ := s.RepoPath("o", "mirror")
	if err := s.CloneMirror(ctx, Remote{URL: path}, mirror); err != nil {
		t.Fatal(err)
	}
	if _, err := s.GetBranch(ctx, mirror, "main"); err != nil {
		t.Fatal(err)
	}
}
