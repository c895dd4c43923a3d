package main

import (
	"context"
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"forge/cmd/forge/app"
	"forge/services/config"
)

// api serves the CLI's database (./data under its directory) in process,
// to check what the commands did as an API client would.
func (c *cli) api(t *testing.T) func(method, path, authz string) int {
	cfg, err := config.Load("", []string{"FORGE__SERVER__APP_DATA_PATH=" + filepath.Join(c.dir, "data")})
	if err != nil {
		t.Fatal(err)
	}
	a, err := app.New(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	return func(method, path, authz string) int {
		req := httptest.NewRequest(method, path, strings.NewReader(`{"name":"x"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", authz)
		w := httptest.NewRecorder()
		a.Handler().ServeHTTP(w, req)
		return w.Code
	}
}

func basicAuth(user, pass string) string {
	return "Basic " + base64.StdEncoding.EncodeToString([]byte(user+":"+pass))
}

// TestAdminGenerateAccessToken: Gitea's generate-access-token, with its
// scopes, --raw, and errors that say what is wrong.
func TestAdminGenerateAccessToken(t *testing.T) {
	c := newCLI(t)
	if _, errOut, code := c.run("admin", "user", "create", "--username", "alice", "--password", "alice-password",
		"--email", "alice@example.org", "--must-change-password=false"); code != 0 {
		t.Fatal(errOut)
	}
	out, errOut, code := c.run("admin", "user", "generate-access-token", "--username", "alice", "--token-name", "ci", "--scopes", "read:user", "--raw")
	raw := strings.TrimSpace(out)
	if code != 0 || !regexp.MustCompile(`^[0-9a-f]{40}$`).MatchString(raw) || strings.Count(out, "\n") != 1 {
		t.Fatalf("--raw: %d %q %q", code, out, errOut)
	}
	out, _, code = c.run("admin", "user", "generate-access-token", "-u", "alice", "-t", "full")
	full := lastWord(out)
	if code != 0 || !strings.HasPrefix(out, "Access token was successfully created: ") || len(full) != 40 {
		t.Fatalf("default scopes: %d %q", code, out)
	}
	if _, errOut, code := c.run("admin", "user", "generate-access-token", "--username", "alice", "--token-name", "ci"); code == 0 || !strings.Contains(errOut, "used already") {
		t.Fatalf("a used name: %d %q", code, errOut)
	}
	if _, errOut, code := c.run("admin", "user", "generate-access-token", "--username", "nobody"); code == 0 || !strings.Contains(strings.ToLower(errOut), "not exist") {
		t.Fatalf("an unknown user: %d %q", code, errOut)
	}
	if _, errOut, code := c.run("admin", "user", "generate-access-token", "--username", "alice", "--token-name", "bad", "--scopes", "read:everything"); code == 0 || !strings.Contains(errOut, "scope") {
		t.Fatalf("a bad scope: %d %q", code, errOut)
	}
	if _, errOut, code := c.run("admin", "user", "generate-access-token"); code == 0 || !strings.Contains(errOut, "--username") {
		t.Fatalf("no user: %d %q", code, errOut)
	}
	do := c.api(t)
	if got := do("GET", "/api/v1/user", "token "+raw); got != 200 {
		t.Fatalf("read:user token reads the user: %d", got)
	}
	if got := do("POST", "/api/v1/user/repos", "token "+raw); got != 403 {
		t.Fatalf("read:user token creates a repository: %d", got)
	}
	if got := do("POST", "/api/v1/user/repos", "token "+full); got != 201 {
		t.Fatalf("all-scopes token creates a repository: %d", got)
	}
}

// TestAdminMustChangePassword: named users, --all with --exclude, --unset;
// the API refuses a user who must change the password.
func TestAdminMustChangePassword(t *testing.T) {
	c := newCLI(t)
	for _, u := range []string{"bob", "carol", "dave"} {
		if _, errOut, code := c.run("admin", "user", "create", "--username", u, "--password", u+"-password",
			"--email", u+"@example.org", "--must-change-password=false"); code != 0 {
			t.Fatal(errOut)
		}
	}
	if out, _, code := c.run("admin", "user", "must-change-password", "bob"); code != 0 || out != "Updated 1 users setting MustChangePassword to true\n" {
		t.Fatalf("bob: %d %q", code, out)
	}
	if out, _, code := c.run("admin", "user", "must-change-password", "--all", "--exclude", "dave"); code != 0 || !strings.HasPrefix(out, "Updated 1 users") {
		t.Fatalf("--all --exclude dave: %d %q (carol changes; bob is set already)", code, out)
	}
	if out, _, code := c.run("admin", "user", "must-change-password", "carol", "--unset"); code != 0 || out != "Updated 1 users setting MustChangePassword to false\n" {
		t.Fatalf("carol --unset: %d %q", code, out)
	}
	if _, errOut, code := c.run("admin", "user", "must-change-password"); code == 0 || !strings.Contains(errOut, "--all") {
		t.Fatalf("no users: %d %q", code, errOut)
	}
	do := c.api(t)
	for user, want := range map[string]int{"bob": http.StatusForbidden, "carol": 200, "dave": 200} {
		if got := do("GET", "/api/v1/user", basicAuth(user, user+"-password")); got != want {
			t.Errorf("%s: %d, want %d", user, got, want)
		}
	}
}

// TestGenerateSecret: each of Gitea's secrets in its form, fresh each time.
func TestGenerateSecret(t *testing.T) {
	c := newCLI(t)
	forms := map[string]*regexp.Regexp{
		"SECRET_KEY":     regexp.MustCompile(`^[A-Za-z0-9]{64}$`),
		"INTERNAL_TOKEN": regexp.MustCompile(`^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$`),
		"JWT_SECRET":     regexp.MustCompile(`^[A-Za-z0-9_-]{43}$`),
		"LFS_JWT_SECRET": regexp.MustCompile(`^[A-Za-z0-9_-]{43}$`),
	}
	for name, form := range forms {
		a, _, code1 := c.run("generate", "secret", name)
		b, _, code2 := c.run("generate", "secret", name)
		if code1 != 0 || code2 != 0 || !form.MatchString(strings.TrimSpace(a)) || a == b {
			t.Errorf("%s: %q %q (%d %d)", name, a, b, code1, code2)
		}
	}
	if _, errOut, code := c.run("generate", "secret", "PASSWORD"); code == 0 || !strings.Contains(errOut, "SECRET_KEY") {
		t.Fatalf("unknown secret: %d %q", code, errOut)
	}
}
