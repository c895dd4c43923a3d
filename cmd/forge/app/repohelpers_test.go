package app_test

import (
	"net/url"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// createRepo makes a repository owned by the token's user through the API
// (POST /user/repos) and fails the test otherwise.
func (s *testServer) createRepo(t testing.TB, token, name string, autoInit, private bool) {
	t.Helper()
	body := `{"name":"` + name + `","auto_init":` + boolText(autoInit) + `,"private":` + boolText(private) + `}`
	r := s.do("POST", "/api/v1/user/repos", body, "Authorization", "token "+token, "Content-Type", jsonCT)
	expectStatus(t, r, 201)
}

func boolText(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

// gitURL is the smart-HTTP URL of owner/repo with Basic credentials (user
// may be empty for anonymous access).
func (s *testServer) gitURL(user, secret, owner, repo string) string {
	u, _ := url.Parse(s.URL + "/" + owner + "/" + repo + ".git")
	if user != "" {
		u.User = url.UserPassword(user, secret)
	}
	return u.String()
}

// gitCmd runs the real git in dir with a clean environment (no user or
// system config, no prompts) and returns its combined output; it fails the
// test when git fails.
func gitCmd(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, err := gitTry(dir, args...)
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

// gitTry is gitCmd that returns the error instead of failing.
func gitTry(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(),
		"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_TERMINAL_PROMPT=0", "LC_ALL=C",
		"GIT_AUTHOR_NAME=Tester", "GIT_AUTHOR_EMAIL=tester@example.org",
		"GIT_COMMITTER_NAME=Tester", "GIT_COMMITTER_EMAIL=tester@example.org",
	)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// commitFile writes name with content in the work tree dir and commits it.
func commitFile(t *testing.T, dir, name, content, message string) {
	t.Helper()
	path := dir + "/" + name
	if i := strings.LastIndex(path, "/"); i > 0 {
		os.MkdirAll(path[:i], 0o755)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	gitCmd(t, dir, "add", name)
	gitCmd(t, dir, "commit", "-q", "-m", message)
}
