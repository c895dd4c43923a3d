package git

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

var testAuthor = Signature{
	Name:  "Forge Tester",
	Email: "tester@forge.invalid",
	When:  time.Date(2024, 5, 6, 7, 8, 9, 0, time.FixedZone("", 2*3600)),
}

func newTestStore(t testing.TB) *Store {
	t.Helper()
	s, err := New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// newRepo creates an empty repository owner/name with default branch main.
func newRepo(t testing.TB, s *Store, owner, name string) string {
	t.Helper()
	path, err := s.RepoPath(owner, name)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Init(context.Background(), path, "main"); err != nil {
		t.Fatal(err)
	}
	return path
}

// clientEnv is the environment of the "user's" git in tests.
func clientEnv(t testing.TB) []string {
	home := t.TempDir()
	return []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + home,
		"LC_ALL=C",
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_CONFIG_GLOBAL=/dev/null",
		"GIT_TERMINAL_PROMPT=0",
		"GIT_AUTHOR_NAME=Client", "GIT_AUTHOR_EMAIL=client@example.com",
		"GIT_COMMITTER_NAME=Client", "GIT_COMMITTER_EMAIL=client@example.com",
	}
}

// gitCmd runs the test's own git in dir and returns trimmed stdout.
func gitCmd(t testing.TB, dir string, args ...string) string {
	t.Helper()
	out, err := gitCmdErr(t, dir, nil, args...)
	if err != nil {
		t.Fatalf("git %s: %v", strings.Join(args, " "), err)
	}
	return out
}

func gitCmdErr(t testing.TB, dir string, stdin *strings.Reader, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = clientEnv(t)
	if stdin != nil {
		cmd.Stdin = stdin
	}
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return stdout.String(), errors.New(err.Error() + ": " + stderr.String())
	}
	return strings.TrimSpace(stdout.String()), nil
}

// commitFiles makes a commit on branch through ChangeFiles and returns it.
func commitFiles(t testing.TB, s *Store, path, branch, msg string, files ...FileChange) string {
	t.Helper()
	sha, err := s.ChangeFiles(context.Background(), path, ChangeFilesOptions{
		Branch: branch, Files: files, Author: testAuthor, Message: msg,
	})
	if err != nil {
		t.Fatalf("ChangeFiles(%s): %v", msg, err)
	}
	return sha
}

func create(p, content string) FileChange {
	return FileChange{Op: OpCreate, Path: p, Content: []byte(content)}
}

func mustIs(t testing.TB, err, target error) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Fatalf("error %v, want %v", err, target)
	}
}

// gitServer is a minimal smart HTTP front end over a Store, for tests:
// GET /{owner}/{repo}.git/info/refs, POST .../git-upload-pack and
// .../git-receive-pack. Auth and permissions are not this package's job.
type gitServer struct {
	s *Store

	mu        sync.Mutex
	pushes    [][]RefUpdate
	gzipped   int
	protocols map[string]bool
}

func startGitServer(t testing.TB, s *Store) (*gitServer, string) {
	g := &gitServer{s: s, protocols: map[string]bool{}}
	srv := httptest.NewServer(g)
	t.Cleanup(srv.Close)
	return g, srv.URL
}

func (g *gitServer) lastPush() []RefUpdate {
	g.mu.Lock()
	defer g.mu.Unlock()
	if len(g.pushes) == 0 {
		return nil
	}
	return g.pushes[len(g.pushes)-1]
}

func (g *gitServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	parts := strings.SplitN(strings.TrimPrefix(r.URL.Path, "/"), "/", 3)
	if len(parts) != 3 {
		http.NotFound(w, r)
		return
	}
	path, err := g.s.RepoPath(parts[0], strings.TrimSuffix(parts[1], ".git"))
	if err != nil || !g.s.Exists(path) {
		http.Error(w, "Repository not found", http.StatusNotFound)
		return
	}
	proto := r.Header.Get("Git-Protocol")
	g.mu.Lock()
	g.protocols[proto] = true
	g.mu.Unlock()
	ctx := r.Context()
	switch {
	case r.Method == http.MethodGet && parts[2] == "info/refs":
		svc, err := ParseService(r.URL.Query().Get("service"))
		if err != nil {
			http.Error(w, "dumb protocol not supported", http.StatusForbidden)
			return
		}
		w.Header().Set("Content-Type", svc.AdvertisementContentType())
		w.Header().Set("Cache-Control", "no-cache")
		if err := g.s.AdvertiseRefs(ctx, path, svc, proto, w); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
		}
	case r.Method == http.MethodPost && (parts[2] == "git-upload-pack" || parts[2] == "git-receive-pack"):
		svc := Service(parts[2])
		if r.Header.Get("Content-Type") != svc.RequestContentType() {
			http.Error(w, "bad content type", http.StatusUnsupportedMediaType)
			return
		}
		if r.Header.Get("Content-Encoding") == "gzip" {
			g.mu.Lock()
			g.gzipped++
			g.mu.Unlock()
		}
		body, err := DecodeRequestBody(r.Body, r.Header.Get("Content-Encoding"))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		defer body.Close()
		w.Header().Set("Content-Type", svc.ResultContentType())
		w.Header().Set("Cache-Control", "no-cache")
		if svc == ServiceUploadPack {
			if err := g.s.UploadPack(ctx, path, body, w, proto); err != nil {
				panic(http.ErrAbortHandler)
			}
			return
		}
		updates, err := g.s.ReceivePack(ctx, path, body, w, proto)
		g.mu.Lock()
		g.pushes = append(g.pushes, updates)
		g.mu.Unlock()
		if err != nil {
			panic(http.ErrAbortHandler)
		}
	default:
		http.NotFound(w, r)
	}
}

func writeFile(t testing.TB, dir, name, content string) {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func isErr(err, target error) bool { return errors.Is(err, target) }

// checkNoScratch fails if a call left files in the store's scratch dir.
func checkNoScratch(t testing.TB, s *Store) {
	t.Helper()
	left, err := os.ReadDir(s.tmpDir)
	if err != nil || len(left) != 0 {
		t.Errorf("scratch files left behind: %v, %v", left, err)
	}
}
