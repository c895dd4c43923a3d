package main

import (
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"testing"
)

// TestAuthChangesSeenByOtherServeProcess: two real `forge serve` processes
// on one PostgreSQL database, each with its cache of what tokens
// authenticate as (warmed on both). A collaborator removed, a token
// revoked, a user deactivated through process A: the very next request on
// process B is refused. A repository made private, renamed or deleted
// through A is seen so by the next request on B, anonymous or not.
func TestAuthChangesSeenByOtherServeProcess(t *testing.T) {
	cr := newCrashRig(t, "postgres")
	newUser := func(name string, admin bool) string {
		out, errOut, code := cr.c.run("admin", "user", "create", "--username", name, "--password", name+"-password",
			"--email", name+"@example.org", "--must-change-password=false", "--access-token", "--admin="+strconv.FormatBool(admin))
		token := lastWord(out)
		if code != 0 || len(token) != 40 {
			t.Fatalf("create %s: %d %q %q", name, code, out, errOut)
		}
		return token
	}
	root, carol, dave := newUser("root", true), newUser("carol", false), newUser("dave", false)
	a := startServe(t, cr.c)
	other := &cli{t: t, bin: cr.c.bin, dir: cr.c.dir, env: append(append([]string{}, cr.c.env...),
		"FORGE__SERVER__HTTP_PORT="+strconv.Itoa(freePort(t)),
		"FORGE__SERVER__GRPC_ADDR=127.0.0.1:"+strconv.Itoa(freePort(t)))}
	b := startServe(t, other)
	if a.base == b.base {
		t.Fatal("both processes on one port")
	}
	expect := func(p *serveProc, method, path, token, body string, want int) []byte {
		t.Helper()
		code, out := p.call(method, path, token, body)
		if code != want {
			t.Fatalf("%s %s on %s: %d %s, want %d", method, path, p.base, code, out, want)
		}
		return out
	}
	warm := func(path, token string, want int) {
		t.Helper()
		for _, p := range []*serveProc{a, b, a, b} {
			expect(p, "GET", path, token, "", want)
		}
	}

	// A removed collaborator (permissions are cached with the resolved
	// repository).
	expect(a, "POST", "/api/v1/user/repos", cr.token, `{"name":"sec","private":true}`, 201)
	expect(a, "PUT", "/api/v1/repos/alice/sec/collaborators/carol", cr.token, `{"permission":"read"}`, 204)
	warm("/api/v1/repos/alice/sec", carol, 200)
	expect(a, "DELETE", "/api/v1/repos/alice/sec/collaborators/carol", cr.token, "", 204)
	expect(b, "GET", "/api/v1/repos/alice/sec", carol, "", 404)

	// A repository made private, renamed, deleted through A: the next
	// anonymous request on B (resolved repositories are cached, for
	// anonymous callers too) no longer finds it.
	anon := func(p *serveProc, path string, want int) {
		t.Helper()
		resp, err := http.Get(p.base + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Fatalf("anonymous GET %s on %s: %d, want %d", path, p.base, resp.StatusCode, want)
		}
	}
	warmAnon := func(path string) {
		t.Helper()
		for _, p := range []*serveProc{a, b, a, b} {
			anon(p, path, 200)
		}
	}
	expect(a, "POST", "/api/v1/user/repos", cr.token, `{"name":"pub"}`, 201)
	warmAnon("/api/v1/repos/alice/pub")
	expect(a, "PATCH", "/api/v1/repos/alice/pub", cr.token, `{"private":true}`, 200)
	anon(b, "/api/v1/repos/alice/pub", 404)
	expect(a, "PATCH", "/api/v1/repos/alice/pub", cr.token, `{"private":false}`, 200)
	warmAnon("/api/v1/repos/alice/pub")
	expect(a, "PATCH", "/api/v1/repos/alice/pub", cr.token, `{"name":"moved"}`, 200)
	anon(b, "/api/v1/repos/alice/pub", 404)
	warmAnon("/api/v1/repos/alice/moved")
	expect(a, "DELETE", "/api/v1/repos/alice/moved", cr.token, "", 204)
	anon(b, "/api/v1/repos/alice/moved", 404)

	// A revoked token.
	warm("/api/v1/user", dave, 200)
	req, _ := http.NewRequest("GET", a.base+"/api/v1/users/dave/tokens", nil)
	req.SetBasicAuth("dave", "dave-password")
	var toks []struct{ ID int64 }
	if code := doJSON(t, req, &toks); code != 200 || len(toks) != 1 {
		t.Fatalf("list tokens: %d %v", code, toks)
	}
	req, _ = http.NewRequest("DELETE", a.base+"/api/v1/users/dave/tokens/"+strconv.FormatInt(toks[0].ID, 10), nil)
	req.SetBasicAuth("dave", "dave-password")
	if code := doJSON(t, req, nil); code != 204 {
		t.Fatalf("revoke: %d", code)
	}
	expect(b, "GET", "/api/v1/user", dave, "", 401)

	// A deactivated user.
	warm("/api/v1/user", carol, 200)
	expect(a, "PATCH", "/api/v1/admin/users/carol", root, `{"active":false}`, 200)
	expect(b, "GET", "/api/v1/user", carol, "", 403)

	// Admin rights taken.
	warm("/api/v1/admin/users", root, 200)
	expect(b, "PATCH", "/api/v1/admin/users/alice", root, `{"admin":true}`, 200)
	expect(b, "PATCH", "/api/v1/admin/users/root", root, `{"admin":false}`, 200)
	expect(a, "GET", "/api/v1/admin/users", root, "", 403)
}

// doJSON sends req and decodes a JSON answer into v (when not nil).
func doJSON(t *testing.T, req *http.Request, v any) int {
	t.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if v != nil && resp.StatusCode < 300 {
		if err := json.Unmarshal(body, v); err != nil {
			t.Fatalf("decode %q: %v", body, err)
		}
	}
	return resp.StatusCode
}
