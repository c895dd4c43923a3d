package app_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"code.gitea.io/sdk/gitea"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	reposv1 "forge/gen/forge/repos/v1"
	"forge/services/config"
)

// The transport hardening tests run on SQLite only: they exercise the HTTP
// and gRPC layers, not storage.
const transportBackend = "sqlite3"

// zeroReader is an endless body that counts what was read from it.
type zeroReader struct{ n atomic.Int64 }

func (z *zeroReader) Read(p []byte) (int, error) {
	clear(p)
	z.n.Add(int64(len(p)))
	return len(p), nil
}

// TestHardeningHugeBodyWithoutCredentials: an anonymous 800 MB body to a
// method that needs a signed-in caller is refused with 401 "token is
// required" before a byte of it is read; over the wire the server reads a
// bounded amount and its heap does not grow with the body.
func TestHardeningHugeBodyWithoutCredentials(t *testing.T) {
	s := startServer(t, transportBackend, nil)
	const size = 800 << 20

	// In process: exactly how much of the body the handler reads.
	body := &zeroReader{}
	req := httptest.NewRequest(http.MethodPost, "/api/v1/user/repos", io.LimitReader(body, size))
	req.ContentLength = size
	req.Header.Set("Content-Type", jsonCT)
	rec := httptest.NewRecorder()
	s.App.Handler().ServeHTTP(rec, req)
	if rec.Code != http.StatusUnauthorized || !strings.Contains(rec.Body.String(), `"message":"token is required"`) {
		t.Fatalf("in process: %d %s", rec.Code, rec.Body)
	}
	if n := body.n.Load(); n != 0 {
		t.Fatalf("in process: the handler read %d bytes of the body", n)
	}

	// Over the wire, declared length and chunked: the client streams until
	// the server stops reading and closes.
	for _, chunked := range []bool{false, true} {
		runtime.GC()
		var before runtime.MemStats
		runtime.ReadMemStats(&before)

		conn, err := net.Dial("tcp", strings.TrimPrefix(s.URL, "http://"))
		if err != nil {
			t.Fatal(err)
		}
		head := "POST /api/v1/user/repos HTTP/1.1\r\nHost: forge\r\nContent-Type: application/json\r\n"
		if chunked {
			head += "Transfer-Encoding: chunked\r\n\r\n"
		} else {
			head += fmt.Sprintf("Content-Length: %d\r\n\r\n", size)
		}
		if _, err := io.WriteString(conn, head); err != nil {
			t.Fatal(err)
		}
		var sent atomic.Int64
		writerDone := make(chan struct{})
		go func() {
			defer close(writerDone)
			chunk := make([]byte, 64<<10)
			prefix := []byte{}
			if chunked {
				prefix = []byte(fmt.Sprintf("%x\r\n", len(chunk)))
			}
			for sent.Load() < size {
				conn.SetWriteDeadline(time.Now().Add(10 * time.Second))
				if len(prefix) > 0 {
					if _, err := conn.Write(prefix); err != nil {
						return
					}
				}
				n, err := conn.Write(chunk)
				sent.Add(int64(n))
				if err != nil {
					return
				}
				if chunked {
					if _, err := conn.Write([]byte("\r\n")); err != nil {
						return
					}
				}
			}
		}()
		conn.SetReadDeadline(time.Now().Add(20 * time.Second))
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			t.Fatalf("chunked=%v: %v", chunked, err)
		}
		msg, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusUnauthorized || !strings.Contains(string(msg), "token is required") {
			t.Fatalf("chunked=%v: %d %s", chunked, resp.StatusCode, msg)
		}
		select {
		case <-writerDone:
		case <-time.After(15 * time.Second):
			t.Fatalf("chunked=%v: the server kept reading: %d bytes sent", chunked, sent.Load())
		}
		conn.Close()
		// What the client got out before the close includes the socket
		// buffers of both ends; it must stay far below the body.
		if n := sent.Load(); n > 32<<20 {
			t.Errorf("chunked=%v: the server took %d bytes of an anonymous body", chunked, n)
		}
		var after runtime.MemStats
		runtime.ReadMemStats(&after)
		if grow := int64(after.HeapAlloc) - int64(before.HeapAlloc); grow > 32<<20 {
			t.Errorf("chunked=%v: heap grew by %d bytes", chunked, grow)
		}
	}
}

// TestHardeningBodyLimit: an authenticated body over MAX_REQUEST_BODY_SIZE
// gets 413 with Gitea's error body, with or without a declared length; the
// same limit holds for gRPC messages; requests under it are unchanged.
func TestHardeningBodyLimit(t *testing.T) {
	s := startServer(t, transportBackend, func(c *config.Config) { c.Limits.MaxRequestBodySize = 1 << 20 })
	big := `{"name":"big","description":"` + strings.Repeat("d", 2<<20) + `"}`
	for _, declared := range []bool{true, false} {
		req, _ := http.NewRequest(http.MethodPost, s.URL+"/api/v1/user/repos", strings.NewReader(big))
		if !declared {
			req, _ = http.NewRequest(http.MethodPost, s.URL+"/api/v1/user/repos", io.MultiReader(strings.NewReader(big)))
		}
		req.Header.Set("Authorization", "token "+s.AdminToken)
		req.Header.Set("Content-Type", jsonCT)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		r := response{Status: resp.StatusCode, Header: resp.Header, Body: b}
		expectStatus(t, r, http.StatusRequestEntityTooLarge)
		if msg := r.message(t); !strings.Contains(msg, "request body too large") {
			t.Errorf("declared=%v: message %q", declared, msg)
		}
	}
	if _, _, err := s.sdk(gitea.SetToken(s.AdminToken)).GetRepo("root", "big"); err == nil {
		t.Fatal("the over-limit request created the repository")
	}

	// gRPC: the same limit through grpc.MaxRecvMsgSize.
	client := reposv1.NewRepositoryServiceClient(s.grpcConn())
	_, err := client.CreateCurrentUserRepo(withToken(context.Background(), s.AdminToken),
		&reposv1.CreateCurrentUserRepoRequest{Name: "big", Description: strings.Repeat("d", 2<<20)})
	if status.Code(err) != codes.ResourceExhausted {
		t.Fatalf("gRPC over the limit: %v", err)
	}

	// Without credentials the call is refused from its headers, before the
	// (over-limit) message is received.
	_, err = client.CreateCurrentUserRepo(context.Background(),
		&reposv1.CreateCurrentUserRepoRequest{Name: "big", Description: strings.Repeat("d", 2<<20)})
	if status.Code(err) != codes.Unauthenticated || status.Convert(err).Message() != "token is required" {
		t.Fatalf("anonymous gRPC over the limit: %v", err)
	}
	// Public methods still answer anonymous gRPC callers.
	if _, err := client.GetRepo(context.Background(), &reposv1.GetRepoRequest{Owner: "root", Repo: "nothing"}); status.Code(err) != codes.NotFound {
		t.Fatalf("anonymous public call: %v", err)
	}

	// Normal requests are unchanged.
	repo, _, err := s.sdk(gitea.SetToken(s.AdminToken)).CreateRepo(gitea.CreateRepoOption{Name: "small", AutoInit: true})
	if err != nil || repo.Name != "small" {
		t.Fatalf("normal create: %v", err)
	}
}

// TestHardeningAPIReadTimeout: an API body that trickles is cut off at
// READ_TIMEOUT instead of holding the connection.
func TestHardeningAPIReadTimeout(t *testing.T) {
	s := startServer(t, transportBackend, func(c *config.Config) { c.Limits.APIReadTimeout = 1 })
	conn, err := net.Dial("tcp", strings.TrimPrefix(s.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "POST /api/v1/user/repos HTTP/1.1\r\nHost: forge\r\nAuthorization: token %s\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"name\":", s.AdminToken)
	start := time.Now()
	conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusRequestTimeout {
		t.Errorf("status %d %s, want 408", resp.StatusCode, b)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("connection held for %v", d)
	}
	// A body sent at once is unaffected, and the deadline is lifted once
	// it is read: the keep-alive connection serves the next request after
	// the first one's deadline has passed.
	c := s.sdk(gitea.SetToken(s.AdminToken))
	if _, _, err := c.CreateRepo(gitea.CreateRepoOption{Name: "quick", AutoInit: true}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(1500 * time.Millisecond)
	if _, _, err := c.CreateRepo(gitea.CreateRepoOption{Name: "later", AutoInit: true}); err != nil {
		t.Fatal(err)
	}
}

// TestHardeningIdleKeepAlive: an idle keep-alive connection is closed
// after IDLE_TIMEOUT.
func TestHardeningIdleKeepAlive(t *testing.T) {
	s := startServer(t, transportBackend, func(c *config.Config) { c.Limits.IdleTimeout = 1 })
	conn, err := net.Dial("tcp", strings.TrimPrefix(s.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	io.WriteString(conn, "GET /api/v1/version HTTP/1.1\r\nHost: forge\r\n\r\n")
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Close {
		t.Fatalf("first answer: %d, close=%v", resp.StatusCode, resp.Close)
	}
	start := time.Now()
	conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := br.ReadByte(); err != io.EOF {
		t.Fatalf("idle connection: %v, want EOF", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("closed after %v", d)
	}
}

// uploadPackRequest starts an anonymous POST git-upload-pack over a raw
// connection (an http.Client would wait for its body writer forever) with
// a chunked body of which only first is sent. The channel is closed when
// the server has answered and closed, or dropped, the connection.
func uploadPackRequest(t *testing.T, s *testServer, repo, first string) (net.Conn, <-chan struct{}) {
	t.Helper()
	conn, err := net.Dial("tcp", strings.TrimPrefix(s.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	fmt.Fprintf(conn, "POST /root/%s.git/git-upload-pack HTTP/1.1\r\nHost: forge\r\n"+
		"Content-Type: application/x-git-upload-pack-request\r\nTransfer-Encoding: chunked\r\n\r\n", repo)
	if first != "" {
		fmt.Fprintf(conn, "%x\r\n%s\r\n", len(first), first)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		io.Copy(io.Discard, conn)
	}()
	return conn, done
}

// waitFor polls cond for up to d.
func waitFor(t testing.TB, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// gitProcesses lists running processes whose command line mentions dir.
func gitProcesses(dir string) []string {
	var out []string
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil {
			continue
		}
		cmd := strings.ReplaceAll(string(b), "\x00", " ")
		if strings.Contains(cmd, "upload-pack") && strings.Contains(cmd, dir) {
			out = append(out, e.Name()+": "+cmd)
		}
	}
	return out
}

// TestHardeningGitProgressDeadline: an upload-pack request whose body
// trickles (a few bytes, then nothing) is ended after the progress
// deadline, and its git process is gone.
func TestHardeningGitProgressDeadline(t *testing.T) {
	// Two seconds: long enough to see the process on a loaded machine
	// before the deadline ends it.
	s := startServer(t, transportBackend, func(c *config.Config) { c.Limits.GitProgressTimeout = 2 })
	s.createRepo(t, s.AdminToken, "slow", true, false)
	_, done := uploadPackRequest(t, s, "slow", "0032want ") // part of a pkt-line, then silence
	waitFor(t, 10*time.Second, "upload-pack to start", func() bool {
		return s.App.Git.Running() == 1 && len(gitProcesses(s.Cfg.Repository.Root)) > 0
	})
	start := time.Now()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the stalled transfer was not ended")
	}
	if d := time.Since(start); d > 8*time.Second {
		t.Errorf("ended after %v", d)
	}
	waitFor(t, 10*time.Second, "the git process to be reaped", func() bool { return s.App.Git.Running() == 0 })
	waitFor(t, 5*time.Second, "the git process to exit", func() bool { return len(gitProcesses(s.Cfg.Repository.Root)) == 0 })

	// A transfer that keeps moving is not cut: a clone works.
	dir := t.TempDir()
	gitCmd(t, dir, "clone", "-q", s.gitURL("", "", "root", "slow"), "c")
}

// TestHardeningGitProcessCap: with MAX_PROCESSES transfers running, the
// next smart-HTTP request gets 503 with Retry-After and Gitea's error
// body, and API calls that need git get 503 too; once they end, git is
// served again.
func TestHardeningGitProcessCap(t *testing.T) {
	const max = 2
	s := startServer(t, transportBackend, func(c *config.Config) { c.Limits.GitMaxProcesses = max })
	s.createRepo(t, s.AdminToken, "busy", true, false)
	var conns []net.Conn
	var dones []<-chan struct{}
	for range max {
		conn, done := uploadPackRequest(t, s, "busy", "")
		conns, dones = append(conns, conn), append(dones, done)
	}
	waitFor(t, 10*time.Second, "the transfers to start", func() bool { return s.App.Git.Running() == max })

	r := s.do("GET", "/root/busy.git/info/refs?service=git-upload-pack", "")
	expectStatus(t, r, http.StatusServiceUnavailable)
	if r.Header.Get("Retry-After") == "" {
		t.Error("no Retry-After")
	}
	if msg := r.message(t); !strings.Contains(msg, "too many git processes") {
		t.Errorf("message %q", msg)
	}
	r = s.do("GET", "/api/v1/repos/root/busy/contents", "", "Authorization", "token "+s.AdminToken)
	expectStatus(t, r, http.StatusServiceUnavailable)
	if r.Header.Get("Retry-After") == "" || !strings.Contains(r.message(t), "too many git processes") {
		t.Errorf("API answer: %v %s", r.Header, r.Body)
	}

	for i, conn := range conns {
		conn.Close()
		<-dones[i]
	}
	waitFor(t, 10*time.Second, "the slots to free", func() bool { return s.App.Git.Running() == 0 })
	r = s.do("GET", "/root/busy.git/info/refs?service=git-upload-pack", "")
	expectStatus(t, r, http.StatusOK)
}
