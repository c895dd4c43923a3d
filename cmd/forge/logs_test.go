package main

import (
	"bytes"
	"context"
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

// TestServeLogsToFiles: with [log] MODE = file, the server's lines go to
// ROOT_PATH/forge.log (start-up and the shutdown that finished its work)
// and, with ENABLE_ACCESS_LOG, one line per request to access.log, whose
// request id the answer carries and where no query token appears.
func TestServeLogsToFiles(t *testing.T) {
	httpPort := freePort(t)
	c := newCLI(t, "GITEA__SERVER__HTTP_PORT="+strconv.Itoa(httpPort), "FORGE__SERVER__GRPC_ADDR=127.0.0.1:0",
		"GITEA__LOG__MODE=file", "GITEA__LOG__ROOT_PATH=logs", "GITEA__LOG__ENABLE_ACCESS_LOG=true", "GITEA__LOG__LEVEL=debug")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	srv := exec.CommandContext(ctx, c.bin, "serve")
	srv.Dir, srv.Env = c.dir, c.env
	var console bytes.Buffer
	srv.Stdout, srv.Stderr = &console, &console
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	base := "http://127.0.0.1:" + strconv.Itoa(httpPort)
	for deadline := time.Now().Add(30 * time.Second); ; {
		resp, err := http.Get(base + "/api/v1/version")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("server did not answer: %v\n%s", err, console.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	resp, err := http.Get(base + "/api/v1/user?token=secret-query-token")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	id := resp.Header.Get("X-Request-Id")
	srv.Process.Signal(syscall.SIGTERM)
	if err := srv.Wait(); err != nil {
		t.Fatalf("serve exit: %v\n%s", err, console.String())
	}
	mainLog, err := os.ReadFile(filepath.Join(c.dir, "logs", "forge.log"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"forge listening", "forge stopped", "finished"} {
		if !bytes.Contains(mainLog, []byte(want)) {
			t.Errorf("forge.log lacks %q:\n%s", want, mainLog)
		}
	}
	access, err := os.ReadFile(filepath.Join(c.dir, "logs", "access.log"))
	if err != nil {
		t.Fatal(err)
	}
	if id == "" || !bytes.Contains(access, []byte("request_id="+id)) || !bytes.Contains(access, []byte("route=/api/v1/user")) || !bytes.Contains(access, []byte("status=401")) {
		t.Fatalf("access.log has no line for request %q:\n%s", id, access)
	}
	if bytes.Contains(access, []byte("secret-query-token")) || bytes.Contains(mainLog, []byte("secret-query-token")) {
		t.Fatal("a query token in the logs")
	}
	if strings.Contains(console.String(), "forge listening") {
		t.Fatalf("file mode still writes to the console:\n%s", console.String())
	}
}

// TestUnsupportedLogSettingsNameTheKey: a log mode forge does not have,
// or an access-log template, stops start-up with the key's name.
func TestUnsupportedLogSettingsNameTheKey(t *testing.T) {
	for env, key := range map[string]string{
		"GITEA__LOG__MODE=conn":                            "[log] MODE",
		"GITEA__LOG__ACCESS_LOG_TEMPLATE={{.Ctx.Req.URL}}": "[log] ACCESS_LOG_TEMPLATE",
	} {
		c := newCLI(t, env)
		if _, errOut, code := c.run("serve"); code == 0 || !strings.Contains(errOut, key) {
			t.Errorf("%s: exit %d, %q does not name %s", env, code, errOut, key)
		}
	}
}
