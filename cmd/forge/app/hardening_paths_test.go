package app_test

import (
	"context"
	"encoding/json"
	"net/url"
	"runtime"
	"strings"
	"testing"
	"time"

	"code.gitea.io/sdk/gitea"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	contentsv1 "forge/gen/forge/contents/v1"
	"forge/services/store/storetest"
)

// escapePath percent-encodes each segment of a repository path for a URL.
func escapePath(p string) string {
	segs := strings.Split(p, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return strings.Join(segs, "/")
}

// headOf is the commit main points at, through the API.
func headOf(t *testing.T, c *gitea.Client, owner, repo string) string {
	t.Helper()
	b, _, err := c.GetRepoBranch(owner, repo, "main")
	if err != nil {
		t.Fatal(err)
	}
	return b.Commit.ID
}

// TestHardeningContentsDotGitAliases: names that git drops from the index
// (its NTFS and HFS+ aliases of .git) used to answer 500 and still move
// the branch to a commit without the file. Each is a 422 now, by path and
// by from_path, with the branch left alone.
func TestHardeningContentsDotGitAliases(t *testing.T) {
	s := startServer(t, storetest.Backends[0], nil)
	tok := s.seedUser("alice", "alice-password", false)
	s.createRepo(t, tok, "proj", true, false)
	alice := s.sdk(gitea.SetToken(tok))
	head := headOf(t, alice, "alice", "proj")
	readme, _, err := alice.GetContents("alice", "proj", "main", "README.md")
	if err != nil {
		t.Fatal(err)
	}
	auth := []string{"Authorization", "token " + tok, "Content-Type", jsonCT}
	for _, p := range []string{
		".git/config", "git~1/config", "GIT~1/config", ".git /x", ".git./x", ".GIT", "a/.Git/b",
		".git\u200c/config", ".g\u200dit/hooks/x", "\ufeff.git/x", ".git::$INDEX_ALLOCATION/x", "x\\.git/y",
	} {
		r := s.do("POST", "/api/v1/repos/alice/proj/contents/"+escapePath(p), `{"content":"`+b64("x")+`"}`, auth...)
		expectStatus(t, r, 422)
		if msg := r.message(t); !strings.Contains(msg, "malformed path component") {
			t.Errorf("%q: message %q", p, msg)
		}
		body, _ := json.Marshal(map[string]string{"content": b64("x"), "sha": readme.SHA, "from_path": "README.md"})
		expectStatus(t, s.do("PUT", "/api/v1/repos/alice/proj/contents/"+escapePath(p), string(body), auth...), 422)
		if got := headOf(t, alice, "alice", "proj"); got != head {
			t.Fatalf("%q: main moved from %s to %s", p, head, got)
		}
	}
	// Look-alikes are ordinary files.
	for _, p := range []string{".gitignore", ".github/workflows/ci.yml", "git~2/x", "docs/.git-notes"} {
		if _, resp, err := alice.CreateFile("alice", "proj", p, gitea.CreateFileOptions{Content: b64("ok\n")}); err != nil || resp.StatusCode != 201 {
			t.Fatalf("%q: %v", p, err)
		}
	}
}

// TestHardeningContentsDeepPaths: a path of hundreds of thousands of levels
// used to exhaust memory (every leading directory became a git argument),
// one of 10,000 levels was committed and broke every later write. Both are
// refused with 422 before any work proportional to the depth, over REST
// (path and from_path) and gRPC; a normal nested write still works.
func TestHardeningContentsDeepPaths(t *testing.T) {
	s := startServer(t, storetest.Backends[0], nil)
	tok := s.seedUser("alice", "alice-password", false)
	s.createRepo(t, tok, "proj", true, false)
	alice := s.sdk(gitea.SetToken(tok))
	head := headOf(t, alice, "alice", "proj")
	readme, _, err := alice.GetContents("alice", "proj", "main", "README.md")
	if err != nil {
		t.Fatal(err)
	}
	auth := []string{"Authorization", "token " + tok, "Content-Type", jsonCT}

	deep := strings.Repeat("a/", 10000) + "f"    // committed and broke the repository before
	huge := strings.Repeat("a/", 300000) + "f"   // 600 KB: killed the process before
	tooDeep := strings.Repeat("d/", 256) + "f"   // short, but deeper than MaxPathDepth
	longName := strings.Repeat("n", 256) + "/f"  // a component longer than 255 bytes
	longPath := strings.Repeat("p/", 2100) + "f" // over 4096 bytes
	for _, p := range []string{deep, huge, tooDeep, longName, longPath} {
		r := s.do("POST", "/api/v1/repos/alice/proj/contents/"+p, `{"content":"`+b64("x")+`"}`, auth...)
		expectStatus(t, r, 422)
		if msg := r.message(t); len(msg) > 300 || !strings.Contains(msg, "path") {
			t.Fatalf("message of %d bytes: %.300q", len(msg), msg)
		}
	}
	// The huge path travels in the body (from_path), where no URL limit
	// stops it; the server is in this process, so its allocations show.
	body, _ := json.Marshal(map[string]string{"content": b64("x"), "sha": readme.SHA, "from_path": huge})
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	start := time.Now()
	r := s.do("PUT", "/api/v1/repos/alice/proj/contents/moved.md", string(body), auth...)
	elapsed := time.Since(start)
	runtime.ReadMemStats(&after)
	expectStatus(t, r, 422)
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 64<<20 {
		t.Errorf("a %d-byte from_path allocated %d MB", len(huge), alloc>>20)
	}
	if elapsed > 5*time.Second {
		t.Errorf("a %d-byte from_path took %v", len(huge), elapsed)
	}

	// gRPC ContentService, both fields.
	ctx := withToken(context.Background(), tok)
	contents := contentsv1.NewContentServiceClient(s.grpcConn())
	if _, err := contents.UpdateFile(ctx, &contentsv1.UpdateFileRequest{Owner: "alice", Repo: "proj", Filepath: "moved.md", FromPath: huge, Sha: readme.SHA, Content: b64("x")}); status.Code(err) != codes.InvalidArgument {
		t.Fatalf("gRPC from_path: %v", err)
	}
	if _, err := contents.CreateFile(ctx, &contentsv1.CreateFileRequest{Owner: "alice", Repo: "proj", Filepath: huge, Content: b64("x")}); status.Code(err) != codes.InvalidArgument {
		t.Fatalf("gRPC path: %v", err)
	}
	if got := headOf(t, alice, "alice", "proj"); got != head {
		t.Fatalf("main moved from %s to %s", head, got)
	}

	// Nested writes, at the deepest level allowed too, and writes after them.
	okDeep := strings.Repeat("d/", 255) + "f"
	for _, p := range []string{"docs/guide/intro.md", okDeep, "later.md"} {
		if _, resp, err := alice.CreateFile("alice", "proj", p, gitea.CreateFileOptions{Content: b64("ok\n")}); err != nil || resp.StatusCode != 201 {
			t.Fatalf("create %.40q: %v", p, err)
		}
	}
	if _, _, err := alice.UpdateFile("alice", "proj", "README.md", gitea.UpdateFileOptions{Content: b64("new\n"), SHA: readme.SHA, FromPath: "README.md"}); err != nil {
		t.Fatalf("update after deep write: %v", err)
	}
}
