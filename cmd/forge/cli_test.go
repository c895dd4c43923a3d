package main

import (
	"bytes"
	"context"
	"io"
	"net"
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

// cli runs the built forge binary in dir with extra environment.
type cli struct {
	t   *testing.T
	bin string
	dir string
	env []string
}

func newCLI(t *testing.T, extraEnv ...string) *cli {
	return &cli{t: t, bin: buildForge(t), dir: t.TempDir(), env: append(os.Environ(), extraEnv...)}
}

func (c *cli) run(args ...string) (stdout, stderr string, code int) {
	c.t.Helper()
	cmd := exec.Command(c.bin, args...)
	cmd.Dir, cmd.Env = c.dir, c.env
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		return out.String(), errb.String(), ee.ExitCode()
	} else if err != nil {
		c.t.Fatal(err)
	}
	return out.String(), errb.String(), 0
}

func lastWord(s string) string {
	f := strings.Fields(s)
	if len(f) == 0 {
		return ""
	}
	return f[len(f)-1]
}

func freePort(t *testing.T) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// TestAdminCLIAndServe follows README: create an admin with a token on the
// embedded default (SQLite under ./data), serve, use the token, manage users
// from the command line while the server runs.
func TestAdminCLIAndServe(t *testing.T) {
	httpPort, grpcPort := freePort(t), freePort(t)
	c := newCLI(t,
		"FORGE__SERVER__HTTP_PORT="+strconv.Itoa(httpPort),
		"FORGE__SERVER__GRPC_ADDR=127.0.0.1:"+strconv.Itoa(grpcPort))

	out, errOut, code := c.run("admin", "user", "create", "--username", "root", "--password", "root-password",
		"--email", "root@example.org", "--admin", "--must-change-password=false", "--access-token")
	token := lastWord(out)
	if code != 0 || len(token) != 40 {
		t.Fatalf("create: code %d, out %q, err %q", code, out, errOut)
	}
	if _, err := os.Stat(filepath.Join(c.dir, "data", "forge.db")); err != nil {
		t.Fatalf("database not under ./data: %v", err)
	}
	if _, errOut, code := c.run("admin", "user", "create", "--username", "ROOT", "--password", "x-password", "--email", "o@example.org"); code == 0 || !strings.Contains(errOut, "already exists") {
		t.Fatalf("duplicate create: %d %q", code, errOut)
	}
	if _, errOut, code := c.run("admin", "user", "delete", "--username", "root"); code == 0 || !strings.Contains(errOut, "last active admin") {
		t.Fatalf("deleting the last admin: %d %q", code, errOut)
	}
	if out, _, code := c.run("migrate"); code != 0 || !strings.Contains(out, "up to date") {
		t.Fatalf("migrate: %d %q", code, out)
	}

	// Serve, and wait until /api/v1/version answers.
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
	get := func(path, token string) (int, string) {
		req, _ := http.NewRequest("GET", base+path, nil)
		if token != "" {
			req.Header.Set("Authorization", "token "+token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return 0, err.Error()
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		if code, _ := get("/api/v1/version", ""); code == 200 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("server did not answer; log:\n%s", srvLog.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if code, body := get("/api/v1/user", token); code != 200 || !strings.Contains(body, `"login":"root"`) {
		t.Fatalf("GET /user with the CLI token: %d %s", code, body)
	}

	// The CLI works on the same database while the server runs.
	out, _, code = c.run("admin", "user", "create", "--username", "alice", "--password", "alice-password",
		"--email", "alice@example.org", "--must-change-password=false", "--access-token", "--access-token-scopes", "read:user")
	if code != 0 {
		t.Fatalf("create while serving: %q", out)
	}
	aliceToken := lastWord(out)
	if code, body := get("/api/v1/user", aliceToken); code != 200 || !strings.Contains(body, `"login":"alice"`) {
		t.Fatalf("alice: %d %s", code, body)
	}
	if out, _, code := c.run("admin", "user", "list"); code != 0 || !strings.Contains(out, "alice") || !strings.Contains(out, "root") {
		t.Fatalf("list: %q", out)
	}
	if _, _, code := c.run("admin", "user", "change-password", "--username", "alice", "--password", "new-alice-password"); code != 0 {
		t.Fatal("change-password failed")
	}
	out, _, code = c.run("admin", "user", "totp", "enable", "--username", "alice")
	if code != 0 || !strings.HasPrefix(lastWord(out), "otpauth://totp/") {
		t.Fatalf("totp enable: %q", out)
	}
	if out, _, code := c.run("admin", "user", "list"); code != 0 || !strings.Contains(out, "true") {
		t.Fatalf("list after totp: %q", out)
	}
	if _, _, code := c.run("admin", "user", "delete", "--username", "alice"); code != 0 {
		t.Fatal("delete alice failed")
	}
	if code, _ := get("/api/v1/user", aliceToken); code != 401 {
		t.Fatalf("token of a deleted user: %d", code)
	}

	srv.Process.Signal(syscall.SIGTERM)
	if err := srv.Wait(); err != nil {
		t.Fatalf("serve exit: %v\n%s", err, srvLog.String())
	}
}

func TestBadConfigNamesTheKey(t *testing.T) {
	c := newCLI(t, "FORGE__SERVER__HTTP_PORT=abc", "FORGE__DATABASE__DB_TYPE=mysql")
	_, errOut, code := c.run("serve")
	if code == 0 || !strings.Contains(errOut, "[server] HTTP_PORT") {
		t.Fatalf("bad port: %d %q", code, errOut)
	}
	c = newCLI(t, "FORGE__DATABASE__DB_TYPE=mysql")
	_, errOut, code = c.run("migrate")
	if code == 0 || !strings.Contains(errOut, "DB_TYPE") {
		t.Fatalf("bad db type: %d %q", code, errOut)
	}
}

// TestCLIHelpAndVersion: help in every form succeeds and lists every
// command; --version and version print forge's version and the Gitea API
// level; an unknown command says so and fails.
func TestCLIHelpAndVersion(t *testing.T) {
	c := newCLI(t)
	for _, args := range [][]string{{"--help"}, {"-h"}, {"help"}} {
		out, errOut, code := c.run(args...)
		if code != 0 {
			t.Fatalf("%v: exit %d, %q", args, code, errOut)
		}
		for _, cmd := range []string{"serve", "migrate", "admin user create", "admin auth add-ldap", "vmess", "bench", "version"} {
			if !strings.Contains(out, cmd) {
				t.Fatalf("%v does not list %q:\n%s", args, cmd, out)
			}
		}
	}
	for _, args := range [][]string{{"serve", "--help"}, {"help", "serve"}, {"admin", "--help"}, {"admin", "user", "create", "--help"},
		{"help", "admin", "auth", "add-ldap"}, {"migrate", "-h"}, {"vmess", "--help"}} {
		out, errOut, code := c.run(args...)
		if code != 0 || out+errOut == "" {
			t.Fatalf("%v: exit %d, %q %q", args, code, out, errOut)
		}
	}
	if _, errOut, _ := c.run("serve", "--help"); !strings.Contains(errOut, "-port") || !strings.Contains(errOut, "-grpc-port") {
		t.Fatalf("serve --help does not list --port and --grpc-port: %q", errOut)
	}
	for _, args := range [][]string{{"--version"}, {"-v"}, {"version"}} {
		out, _, code := c.run(args...)
		if code != 0 || !strings.HasPrefix(out, "forge version ") || !strings.Contains(out, "Gitea API 1.") {
			t.Fatalf("%v: exit %d, %q", args, code, out)
		}
	}
	if _, errOut, code := c.run("bogus"); code != 2 || !strings.Contains(errOut, `unknown command "bogus"`) {
		t.Fatalf("unknown command: exit %d, %q", code, errOut)
	}
}

// TestServePortFlags: serve --port moves HTTP and ROOT_URL, and gRPC to
// the next port unless --grpc-port (or GRPC_ADDR) says otherwise;
// --work-path finds custom/conf/app.ini and ./data under it; a misspelt
// section in that file is warned about at start-up.
func TestServePortFlags(t *testing.T) {
	c := newCLI(t)
	work := t.TempDir()
	os.MkdirAll(filepath.Join(work, "custom", "conf"), 0o755)
	if err := os.WriteFile(filepath.Join(work, "custom", "conf", "app.ini"), []byte("[security]\nSECRET_KEY = from-the-work-path\n[sevrer]\nROOT_URL = http://typo/\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	httpPort, grpcPort := freePort(t), freePort(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	srv := exec.CommandContext(ctx, c.bin, "-w", work, "serve", "-p", strconv.Itoa(httpPort), "--grpc-port", strconv.Itoa(grpcPort))
	srv.Dir, srv.Env = c.dir, c.env
	var log bytes.Buffer
	srv.Stdout, srv.Stderr = &log, &log
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := http.Get("http://127.0.0.1:" + strconv.Itoa(httpPort) + "/api/v1/version")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("server did not answer on --port; log:\n%s", log.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if conn, err := net.Dial("tcp", "127.0.0.1:"+strconv.Itoa(grpcPort)); err != nil {
		t.Fatalf("nothing on --grpc-port: %v", err)
	} else {
		conn.Close()
	}
	if _, err := os.Stat(filepath.Join(work, "data", "forge.db")); err != nil {
		t.Fatalf("database not under the work path: %v", err)
	}
	srv.Process.Signal(syscall.SIGTERM)
	srv.Wait() // the log is read once the process has written it all
	got := log.String()
	if !strings.Contains(got, "http://localhost:"+strconv.Itoa(httpPort)+"/") {
		t.Fatalf("ROOT_URL did not follow --port; log:\n%s", got)
	}
	// The misspelt section is named once, with the file that was read.
	if strings.Count(got, "[sevrer] ROOT_URL") != 1 || !strings.Contains(got, "custom/conf/app.ini") {
		t.Fatalf("start-up log does not warn of the typo or name the config file:\n%s", got)
	}
}
