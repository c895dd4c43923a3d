package app_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"code.gitea.io/sdk/gitea"
	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"

	"forge/cmd/forge/app"
	usersv1 "forge/gen/forge/users/v1"
	"forge/services/config"
	"forge/services/store/storetest"
)

// logCapture keeps every line a logger writes, as JSON records.
type logCapture struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (c *logCapture) Write(b []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.buf.Write(b)
}

func (c *logCapture) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.buf.String()
}

func (c *logCapture) logger() *slog.Logger {
	return slog.New(slog.NewJSONHandler(c, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// records are the captured lines, decoded.
func (c *logCapture) records(t *testing.T) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(c.String()), "\n") {
		if line == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("not a JSON record: %q", line)
		}
		out = append(out, m)
	}
	return out
}

// find waits briefly for an access line with all the given fields (lines
// are written when a request ends, which may be just after the client has
// its answer) and returns it.
func (c *logCapture) find(t *testing.T, want map[string]string) map[string]any {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		for _, r := range c.records(t) {
			if r["msg"] != "access" {
				continue
			}
			ok := true
			for k, v := range want {
				if s, _ := r[k].(string); s != v {
					ok = false
					break
				}
			}
			if ok {
				return r
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no access line with %v in:\n%s", want, c.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func withAccessLog(c *config.Config) { c.Log.EnableAccessLog = true }

// TestAccessLog: one line per request over every transport (REST, gRPC's
// port, git over HTTP, git over SSH), with the route pattern, the path
// without query tokens, the status, the bytes, the caller, the remote
// address and the request id, which the answer's X-Request-Id carries (a
// client's sane one is kept).
func TestAccessLog(t *testing.T) {
	t.Parallel()
	for _, kind := range storetest.Backends {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			logs := &logCapture{}
			s := startServerWith(t, kind, func(c *config.Config) { withAccessLog(c); withSSH(c) }, app.WithAccessLog(logs.logger()))

			r := s.do("GET", "/api/v1/version", "", "X-Request-Id", "client-id-42")
			expectStatus(t, r, 200)
			if r.Header.Get("X-Request-Id") != "client-id-42" {
				t.Fatalf("X-Request-Id %q, want the client's", r.Header.Get("X-Request-Id"))
			}
			line := logs.find(t, map[string]string{"request_id": "client-id-42"})
			if line["route"] != "/api/v1/version" || line["method"] != "GET" || line["status"] != "200" ||
				line["user"] != "-" || line["bytes"].(float64) != float64(len(r.Body)) || !strings.HasPrefix(line["remote"].(string), "127.0.0.1:") {
				t.Fatalf("version line %v", line)
			}

			const queryToken = "query-token-value"
			r = s.do("GET", "/api/v1/user?token="+s.AdminToken+"&x="+queryToken, "", "X-Request-Id", "bad id\twith spaces")
			expectStatus(t, r, 200)
			id := r.Header.Get("X-Request-Id")
			if id == "" || strings.Contains(id, " ") {
				t.Fatalf("an insane client id is replaced: %q", id)
			}
			line = logs.find(t, map[string]string{"request_id": id})
			if line["route"] != "/api/v1/user" || line["user"] != "root" || strings.Contains(line["path"].(string), s.AdminToken) ||
				!strings.Contains(line["path"].(string), "token=REDACTED") {
				t.Fatalf("query-token line %v", line)
			}

			r = s.do("GET", "/api/v1/repos/root/missing", "", "Authorization", "token "+s.AdminToken)
			expectStatus(t, r, 404)
			logs.find(t, map[string]string{"request_id": r.Header.Get("X-Request-Id"), "route": "/api/v1/repos/{owner}/{repo}",
				"path": "/api/v1/repos/root/missing", "status": "404", "user": "root"})

			// gRPC over its own port.
			ctx := metadata.AppendToOutgoingContext(withToken(context.Background(), s.AdminToken), "x-request-id", "grpc-client-id")
			var header metadata.MD
			if _, err := usersv1.NewUserServiceClient(s.grpcConn()).GetAuthenticatedUser(ctx, &usersv1.GetAuthenticatedUserRequest{}, grpc.Header(&header)); err != nil {
				t.Fatal(err)
			}
			if got := header.Get("x-request-id"); len(got) != 1 || got[0] != "grpc-client-id" {
				t.Fatalf("x-request-id answer metadata %v", got)
			}
			logs.find(t, map[string]string{"transport": "grpc", "route": usersv1.UserService_GetAuthenticatedUser_FullMethodName,
				"status": "OK", "user": "root", "request_id": "grpc-client-id"})
			// A refused call is logged too, without a user.
			if _, err := usersv1.NewUserServiceClient(s.grpcConn()).GetAuthenticatedUser(context.Background(), &usersv1.GetAuthenticatedUserRequest{}); err == nil {
				t.Fatal("anonymous GetAuthenticatedUser succeeded")
			}
			logs.find(t, map[string]string{"transport": "grpc", "status": "Unauthenticated", "user": "-"})

			// git over HTTP.
			s.createRepo(t, s.AdminToken, "proj", true, true) // private: git sends the credentials
			gitCmd(t, t.TempDir(), "clone", "-q", s.gitURL("root", s.AdminToken, "root", "proj"), "work")
			logs.find(t, map[string]string{"transport": "http", "route": "/{owner}/{repo}/info/refs", "path": "/root/proj.git/info/refs?service=git-upload-pack",
				"status": "200", "user": "root"})
			logs.find(t, map[string]string{"transport": "http", "route": "/{owner}/{repo}/git-upload-pack", "status": "200", "user": "root"})

			// git over SSH.
			if _, err := exec.LookPath("ssh"); err == nil {
				key, line := sshKey(t, t.TempDir(), "root")
				if _, _, err := s.sdk(gitea.SetToken(s.AdminToken)).CreatePublicKey(gitea.CreateKeyOption{Title: "k", Key: line}); err != nil {
					t.Fatal(err)
				}
				dir := t.TempDir()
				if out, err := s.sshGit(dir, key, "clone", "-q", s.sshURL("root", "proj"), filepath.Join(dir, "w")); err != nil {
					t.Fatalf("ssh clone: %v\n%s", err, out)
				}
				l := logs.find(t, map[string]string{"transport": "ssh", "method": "SSH", "route": "git-upload-pack", "path": "/root/proj",
					"status": "0", "user": "root"})
				if l["bytes"].(float64) < 100 {
					t.Fatalf("ssh clone line counts no bytes: %v", l)
				}
			}
			if strings.Contains(logs.String(), s.AdminToken) {
				t.Fatal("a token in the access log")
			}
		})
	}
}
