package git

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestMirror(t *testing.T) {
	ctx := context.Background()
	s := newTestStore(t)
	src := newRepo(t, s, "up", "stream")
	c1 := commitFiles(t, s, src, "main", "one", create("a", "a"))
	if _, err := s.CreateBranch(ctx, src, "doomed", c1); err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateTag(ctx, src, "v1", c1, "one", testAuthor); err != nil {
		t.Fatal(err)
	}

	mirror, _ := s.RepoPath("me", "mirror")
	if err := s.CloneMirror(ctx, Remote{URL: src}, mirror); err != nil {
		t.Fatal(err)
	}
	want, _ := s.refSnapshot(ctx, src)
	got, _ := s.refSnapshot(ctx, mirror)
	if len(got) != 3 || len(got) != len(want) {
		t.Fatalf("mirror refs %v, source %v", got, want)
	}
	for name, sha := range want {
		if got[name] != sha {
			t.Fatalf("mirror %s = %s, want %s", name, got[name], sha)
		}
	}
	if err := s.CloneMirror(ctx, Remote{URL: src}, mirror); !errors.Is(err, ErrAlreadyExists) {
		t.Fatalf("second clone: %v", err)
	}

	// Nothing changed: no updates.
	if ups, err := s.FetchMirror(ctx, mirror, Remote{URL: src}); err != nil || len(ups) != 0 {
		t.Fatalf("idle fetch = %v, %v", ups, err)
	}
	// Update main, delete a branch, add a tag and a branch.
	c2 := commitFiles(t, s, src, "main", "two", create("b", "b"))
	if err := s.DeleteBranch(ctx, src, "doomed"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateTag(ctx, src, "v2", c2, "", Signature{}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateBranch(ctx, src, "fresh", c1); err != nil {
		t.Fatal(err)
	}
	ups, err := s.FetchMirror(ctx, mirror, Remote{URL: src})
	if err != nil {
		t.Fatal(err)
	}
	checkUpdates(t, ups, []RefUpdate{
		{"refs/heads/doomed", c1, ZeroSHA},
		{"refs/heads/fresh", ZeroSHA, c1},
		{"refs/heads/main", c1, c2},
		{"refs/tags/v2", ZeroSHA, c2},
	})

	// Push the mirror to an empty repository.
	target := newRepo(t, s, "down", "stream")
	if err := s.PushMirror(ctx, mirror, Remote{URL: target}); err != nil {
		t.Fatal(err)
	}
	want, _ = s.refSnapshot(ctx, mirror)
	got, _ = s.refSnapshot(ctx, target)
	if len(got) != len(want) {
		t.Fatalf("pushed refs %v, want %v", got, want)
	}
	// A deletion propagates on the next push.
	if err := s.DeleteBranch(ctx, mirror, "fresh"); err != nil {
		t.Fatal(err)
	}
	if err := s.PushMirror(ctx, mirror, Remote{URL: target}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.GetBranch(ctx, target, "fresh"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("deleted branch still in push target: %v", err)
	}

	if err := s.CloneMirror(ctx, Remote{URL: "--upload-pack=touch /tmp/pwned"}, mirror+"2"); !errors.Is(err, ErrInvalid) {
		t.Fatalf("option-like URL: %v", err)
	}
	if err := s.CloneMirror(ctx, Remote{URL: "ext::sh -c touch% /tmp/pwned"}, mirror+"3"); err == nil {
		t.Fatal("ext:: transport allowed")
	}
}

// TestMirrorErrorsRedacted: credentials in URLs never show up in errors.
func TestMirrorErrorsRedacted(t *testing.T) {
	ctx := context.Background()
	s := newTestStore(t)
	notFound := httptest.NewServer(http.NotFoundHandler())
	defer notFound.Close()
	denied := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("WWW-Authenticate", `Basic realm="x"`)
		http.Error(w, "no", http.StatusUnauthorized)
	}))
	defer denied.Close()
	host404 := strings.TrimPrefix(notFound.URL, "http://")
	host401 := strings.TrimPrefix(denied.URL, "http://")
	urls := []string{
		"http://alice:s3cr3t-pass@" + host404 + "/o/r.git",
		"http://tok3n-only-user-123@" + host404 + "/o/r.git",
		"http://alice:s3cr3t-pass@" + host401 + "/o/r.git",
		"http://alice:s3cr3t-pass@127.0.0.1:1/o/r.git",
	}
	for i, u := range urls {
		path, _ := s.RepoPath("o", "m"+string(rune('a'+i)))
		err := s.CloneMirror(ctx, Remote{URL: u}, path)
		if err == nil {
			t.Fatalf("clone of %s succeeded", RedactURL(u))
		}
		for _, secret := range []string{"s3cr3t", "tok3n", "alice"} {
			if strings.Contains(err.Error(), secret) {
				t.Errorf("error leaks %q: %v", secret, err)
			}
		}
		if s.Exists(path) {
			t.Errorf("failed clone left %s behind", path)
		}
	}
	// PushMirror too.
	repo := newRepo(t, s, "o", "r")
	commitFiles(t, s, repo, "main", "one", create("a", "a"))
	if err := s.PushMirror(ctx, repo, Remote{URL: urls[2]}); err == nil || strings.Contains(err.Error(), "s3cr3t") {
		t.Fatalf("PushMirror error: %v", err)
	}
}

func TestRedactURL(t *testing.T) {
	tests := []struct{ in, want string }{
		{"https://user:pass@example.com/o/r.git", "https://example.com/o/r.git"},
		{"https://token@example.com/o/r.git", "https://example.com/o/r.git"},
		{"https://example.com/o/r.git", "https://example.com/o/r.git"},
		{"http://u:p%40ss@host:8080/x?y=1", "http://host:8080/x?y=1"},
		{"ssh://git@example.com/o/r.git", "ssh://example.com/o/r.git"},
		{"git@example.com:o/r.git", "git@example.com:o/r.git"},
		{"/srv/repos/o/r.git", "/srv/repos/o/r.git"},
		{"not a url https://u:p@h/x and more", "not a url https://h/x and more"},
		{"https://u:p@exa mple.com/", "https://exa mple.com/"},
	}
	for _, tc := range tests {
		if got := RedactURL(tc.in); got != tc.want {
			t.Errorf("RedactURL(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	if got := redactText("fatal: unable to access 'https://u:hunter22@h/x/': 403", "https://u:hunter22@h/x"); strings.Contains(got, "hunter22") {
		t.Errorf("redactText = %q", got)
	}
}
