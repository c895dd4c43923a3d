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

	"forge/services/ldapauth/ldaptest"
)

// TestAdminAuthLDAP: `forge admin auth` adds, lists, updates and deletes
// an LDAP source with Gitea's flags, never prints nor stores the bind
// password in clear, and the server signs the directory's users in
// through the source the command line added.
func TestAdminAuthLDAP(t *testing.T) {
	t.Parallel()
	dir := ldaptest.Start(t)
	dir.AddUser(t, ldaptest.User{UID: "gina", Password: "gina-ldap-pw", GivenName: "Gina", Surname: "Lee", Mail: "gina@corp.example"})
	httpPort, grpcPort := freePort(t), freePort(t)
	c := newCLI(t,
		"FORGE__SERVER__HTTP_PORT="+strconv.Itoa(httpPort),
		"FORGE__SERVER__GRPC_ADDR=127.0.0.1:"+strconv.Itoa(grpcPort))
	pwFile := filepath.Join(c.dir, "bind-pw")
	if err := os.WriteFile(pwFile, []byte(ldaptest.BindPassword+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}

	// Adding does not contact the directory: a source of an unreachable
	// host is accepted.
	if out, errOut, code := c.run("admin", "auth", "add-ldap", "--name", "offline", "--security-protocol", "ldaps",
		"--host", "127.0.0.1", "--port", "1", "--user-search-base", "dc=x", "--user-filter", "(uid=%s)",
		"--email-attribute", "mail", "--not-active"); code != 0 {
		t.Fatalf("add offline: %d %q %q", code, out, errOut)
	}
	if out, errOut, code := c.run("admin", "auth", "add-ldap", "--name", "corp", "--security-protocol", "unencrypted",
		"--host", dir.Host, "--port", strconv.Itoa(dir.Port), "--bind-dn", ldaptest.BindDN, "--bind-password-file", pwFile,
		"--user-search-base", ldaptest.PeopleDN, "--user-filter", ldaptest.UserFilter, "--admin-filter", ldaptest.AdminFilter,
		"--username-attribute", "uid", "--firstname-attribute", "givenName", "--surname-attribute", "sn",
		"--email-attribute", "mail", "--synchronize-users"); code != 0 {
		t.Fatalf("add corp: %d %q %q", code, out, errOut)
	}
	if _, errOut, code := c.run("admin", "auth", "add-ldap", "--name", "corp", "--host", "h", "--port", "389",
		"--user-search-base", "dc=x", "--user-filter", "(uid=%s)", "--email-attribute", "mail"); code == 0 || !strings.Contains(errOut, "already exists") {
		t.Fatalf("second corp: %d %q", code, errOut)
	}
	if _, errOut, code := c.run("admin", "auth", "add-ldap", "--name", "bad", "--host", "h", "--port", "389",
		"--security-protocol", "tls", "--user-search-base", "dc=x", "--user-filter", "(uid=%s)", "--email-attribute", "mail"); code == 0 || !strings.Contains(errOut, "security protocol") {
		t.Fatalf("bad protocol: %d %q", code, errOut)
	}
	list := func() []string {
		out, errOut, code := c.run("admin", "auth", "list")
		if code != 0 {
			t.Fatalf("list: %d %q", code, errOut)
		}
		if strings.Contains(out, ldaptest.BindPassword) {
			t.Fatal("list prints the bind password")
		}
		return strings.Split(strings.TrimSpace(out), "\n")
	}
	want := []string{"ID\tName\tType\tEnabled", "1\toffline\tLDAP (via BindDN)\tfalse", "2\tcorp\tLDAP (via BindDN)\ttrue"}
	if got := list(); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("list:\n%q\nwant\n%q", got, want)
	}
	files, _ := filepath.Glob(filepath.Join(c.dir, "data", "forge.db*")) // with the WAL
	if len(files) == 0 {
		t.Fatal("no database file")
	}
	for _, f := range files {
		db, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(db, []byte(ldaptest.BindPassword)) || bytes.Contains(db, []byte(ldaptest.BindDN)) {
			t.Fatalf("the source's configuration is stored in clear in %s", f)
		}
	}
	if _, errOut, code := c.run("admin", "auth", "update-ldap", "--id", "1", "--name", "offline2", "--active"); code != 0 {
		t.Fatalf("update: %q", errOut)
	}
	if got := list(); got[1] != "1\toffline2\tLDAP (via BindDN)\ttrue" {
		t.Fatalf("after update: %q", got)
	}
	if _, errOut, code := c.run("admin", "auth", "update-ldap", "--id", "9", "--active"); code == 0 || !strings.Contains(errOut, "does not exist") {
		t.Fatalf("update unknown: %d %q", code, errOut)
	}
	if _, errOut, code := c.run("admin", "auth", "delete", "--id", "1"); code != 0 {
		t.Fatalf("delete: %q", errOut)
	}
	if got := list(); len(got) != 2 || !strings.HasPrefix(got[1], "2\tcorp\t") {
		t.Fatalf("after delete: %q", got)
	}

	// The server signs gina in through the source the command line added,
	// creating her account.
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
	get := func(path, user, pass string) (int, string) {
		req, _ := http.NewRequest("GET", base+path, nil)
		if user != "" {
			req.SetBasicAuth(user, pass)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return 0, err.Error()
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if code, _ := get("/api/v1/version", "", ""); code == 200 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("server did not answer; log:\n%s", srvLog.String())
		}
	}
	if code, body := get("/api/v1/user", "gina", "gina-ldap-pw"); code != 200 || !strings.Contains(body, `"login":"gina"`) {
		t.Fatalf("gina: %d %s", code, body)
	}
	if code, _ := get("/api/v1/user", "gina", "wrong"); code != 401 {
		t.Fatalf("gina, wrong password: %d", code)
	}
	srv.Process.Signal(syscall.SIGTERM)
	if err := srv.Wait(); err != nil {
		t.Fatalf("serve exit: %v\n%s", err, srvLog.String())
	}
	if strings.Contains(srvLog.String(), ldaptest.BindPassword) || strings.Contains(srvLog.String(), "gina-ldap-pw") {
		t.Fatal("a password is in the server's log")
	}

	// A source its users belong to is not deleted.
	if _, errOut, code := c.run("admin", "auth", "delete", "--id", "2"); code == 0 || !strings.Contains(errOut, "still used") {
		t.Fatalf("delete in use: %d %q", code, errOut)
	}
}
