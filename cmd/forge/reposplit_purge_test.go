package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestAdminCLIDeletePurge: `forge admin user delete --purge` removes the
// user's repositories, records and files, through the same use case as
// DELETE /admin/users/{username}?purge=true (repos.Purger), and without
// --purge it refuses a user who still owns repositories.
func TestAdminCLIDeletePurge(t *testing.T) {
	httpPort, grpcPort := freePort(t), freePort(t)
	c := newCLI(t,
		"FORGE__SERVER__HTTP_PORT="+strconv.Itoa(httpPort),
		"FORGE__SERVER__GRPC_ADDR=127.0.0.1:"+strconv.Itoa(grpcPort))
	out, errOut, code := c.run("admin", "user", "create", "--username", "root", "--password", "root-password",
		"--email", "root@example.org", "--admin", "--must-change-password=false", "--access-token")
	if code != 0 {
		t.Fatalf("create root: %d %q %q", code, out, errOut)
	}
	token := lastWord(out)
	if _, errOut, code := c.run("admin", "user", "create", "--username", "bob", "--password", "bob-password",
		"--email", "bob@example.org", "--must-change-password=false"); code != 0 {
		t.Fatalf("create bob: %q", errOut)
	}

	// The repository is made through the API: the CLI has no command for it.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	srv := exec.CommandContext(ctx, c.bin, "serve")
	srv.Dir, srv.Env = c.dir, c.env
	var srvLog bytes.Buffer
	srv.Stdout, srv.Stderr = &srvLog, &srvLog
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	base := "http://127.0.0.1:" + strconv.Itoa(httpPort)
	do := func(method, path, body string) (int, string) {
		req, _ := http.NewRequest(method, base+path, strings.NewReader(body))
		req.Header.Set("Authorization", "token "+token)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return 0, err.Error()
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if code, _ := do("GET", "/api/v1/version", ""); code == 200 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("server did not answer; log:\n%s", srvLog.String())
		}
	}
	if code, body := do("POST", "/api/v1/admin/users/bob/repos", `{"name":"tool","auto_init":true}`); code != 201 {
		t.Fatalf("create bob/tool: %d %s", code, body)
	}
	files := filepath.Join(c.dir, "data", "repositories", "bob", "tool.git")
	if _, err := os.Stat(files); err != nil {
		t.Fatalf("repository files: %v", err)
	}

	if _, errOut, code := c.run("admin", "user", "delete", "--username", "bob"); code == 0 {
		t.Fatalf("delete without --purge of a user owning a repository succeeded: %q", errOut)
	}
	if out, errOut, code := c.run("admin", "user", "delete", "--username", "bob", "--purge"); code != 0 || !strings.Contains(out, "has been deleted") {
		t.Fatalf("delete --purge: %d %q %q", code, out, errOut)
	}
	if code, body := do("GET", "/api/v1/repos/bob/tool", ""); code != 404 {
		t.Fatalf("purged repository still answers: %d %s", code, body)
	}
	if _, err := os.Stat(files); !os.IsNotExist(err) {
		t.Fatalf("purged repository files remain: %v", err)
	}

	srv.Process.Signal(syscall.SIGTERM)
	if err := srv.Wait(); err != nil {
		t.Fatalf("serve exit: %v\n%s", err, srvLog.String())
	}
}
