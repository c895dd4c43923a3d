package main

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"math/rand"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"forge/services/config"
	"forge/services/repos"
	"forge/services/store/storetest"
)

// Crash tests for "branch records converge to git's refs": a real forge
// binary is killed with SIGKILL at the moment between a ref move and its
// record (the test-only failpoint), restarted, and the branch records the
// API lists must equal `git for-each-ref refs/heads` within 5 seconds.

// crashForge is one data directory (and database) served by successive
// forge processes.
type crashForge struct {
	t     *testing.T
	c     *cli
	port  int
	base  string
	token string
	proc  *exec.Cmd
	log   *bytes.Buffer
}

func eachCrashBackend(t *testing.T, fn func(t *testing.T, f *crashForge)) {
	for _, kind := range []string{"sqlite3", "postgres"} {
		t.Run(kind, func(t *testing.T) { fn(t, newCrashForge(t, kind)) })
	}
}

func newCrashForge(t *testing.T, kind string) *crashForge {
	port, grpcPort := freePort(t), freePort(t)
	env := []string{
		"FORGE__SERVER__HTTP_ADDR=127.0.0.1",
		"FORGE__SERVER__HTTP_PORT=" + strconv.Itoa(port),
		"FORGE__SERVER__GRPC_ADDR=127.0.0.1:" + strconv.Itoa(grpcPort),
	}
	if kind == "postgres" {
		env = append(env, postgresEnv(storetest.Database(t, "postgres"))...)
	}
	f := &crashForge{t: t, c: newCLI(t, env...), port: port, base: "http://127.0.0.1:" + strconv.Itoa(port)}
	out, errOut, code := f.c.run("admin", "user", "create", "--username", "root", "--password", "root-password",
		"--email", "root@example.org", "--admin", "--must-change-password=false", "--access-token")
	if code != 0 {
		t.Fatalf("create admin: %d %q %q", code, out, errOut)
	}
	f.token = lastWord(out)
	t.Cleanup(f.stop)
	return f
}

func postgresEnv(db config.Database) []string {
	return []string{
		"FORGE__DATABASE__DB_TYPE=postgres",
		"FORGE__DATABASE__HOST=" + db.Host,
		"FORGE__DATABASE__NAME=" + db.Name,
		"FORGE__DATABASE__USER=" + db.User,
		"FORGE__DATABASE__PASSWD=" + db.Passwd,
		"FORGE__DATABASE__SSL_MODE=" + db.SSLMode,
	}
}

// start runs `forge serve`, with failpoint armed when not "", and waits
// until it answers.
func (f *crashForge) start(failpoint string) {
	f.t.Helper()
	cmd := exec.Command(f.c.bin, "serve")
	cmd.Dir = f.c.dir
	cmd.Env = append(append([]string{}, f.c.env...), "FORGE_FAILPOINT="+failpoint)
	f.log = &bytes.Buffer{}
	cmd.Stdout, cmd.Stderr = f.log, f.log
	if err := cmd.Start(); err != nil {
		f.t.Fatal(err)
	}
	f.proc = cmd
	deadline := time.Now().Add(30 * time.Second)
	for {
		if code, _, _ := f.api("GET", "/api/v1/version", ""); code == 200 {
			return
		}
		if time.Now().After(deadline) {
			f.t.Fatalf("forge did not answer; log:\n%s", f.log)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// waitKilled waits for the process to die of SIGKILL (the failpoint).
func (f *crashForge) waitKilled() {
	f.t.Helper()
	done := make(chan error, 1)
	go func() { done <- f.proc.Wait() }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		f.t.Fatalf("forge was not killed by the failpoint; log:\n%s", f.log)
	}
	if ws, ok := f.proc.ProcessState.Sys().(syscall.WaitStatus); !ok || ws.Signal() != syscall.SIGKILL {
		f.t.Fatalf("forge ended with %v, not SIGKILL; log:\n%s", f.proc.ProcessState, f.log)
	}
	f.proc = nil
}

func (f *crashForge) stop() {
	if f.proc == nil {
		return
	}
	f.proc.Process.Signal(syscall.SIGTERM)
	f.proc.Wait()
	f.proc = nil
}

func (f *crashForge) api(method, path, body string) (int, http.Header, []byte) {
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, _ := http.NewRequest(method, f.base+path, rd)
	req.Header.Set("Authorization", "token "+f.token)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, nil, []byte(err.Error())
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, b
}

func (f *crashForge) mustAPI(method, path, body string, want int) []byte {
	f.t.Helper()
	code, _, b := f.api(method, path, body)
	if code != want {
		f.t.Fatalf("%s %s: %d %s", method, path, code, b)
	}
	return b
}

func (f *crashForge) createRepo(name string, autoInit bool) {
	f.t.Helper()
	f.mustAPI("POST", "/api/v1/user/repos", fmt.Sprintf(`{"name":%q,"auto_init":%t}`, name, autoInit), 201)
}

func (f *crashForge) repoDir(name string) string {
	return filepath.Join(f.c.dir, "data", "repositories", "root", name+".git")
}

// gitHeads is `git for-each-ref refs/heads` of the server's repository.
func (f *crashForge) gitHeads(repo string) map[string]string {
	f.t.Helper()
	out, err := exec.Command("git", "--git-dir="+f.repoDir(repo), "for-each-ref", "--format=%(refname:lstrip=2) %(objectname)", "refs/heads").Output()
	if err != nil {
		f.t.Fatalf("for-each-ref: %v", err)
	}
	heads := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if name, sha, ok := strings.Cut(line, " "); ok {
			heads[name] = sha
		}
	}
	return heads
}

// apiHeads reads every page of GET /branches; it reports a problem when a
// page is short of X-Total-Count.
func (f *crashForge) apiHeads(repo string) (map[string]string, string) {
	heads := map[string]string{}
	for page := 1; ; page++ {
		code, h, body := f.api("GET", fmt.Sprintf("/api/v1/repos/root/%s/branches?limit=50&page=%d", repo, page), "")
		if code != 200 {
			return nil, fmt.Sprintf("list: %d %s", code, body)
		}
		var list []struct {
			Name   string `json:"name"`
			Commit struct {
				ID string `json:"id"`
			} `json:"commit"`
		}
		if err := json.Unmarshal(body, &list); err != nil {
			return nil, fmt.Sprintf("list: %v %s", err, body)
		}
		for _, b := range list {
			heads[b.Name] = b.Commit.ID
		}
		total, _ := strconv.Atoi(h.Get("X-Total-Count"))
		if len(list) < 50 {
			if len(heads) != total {
				return nil, fmt.Sprintf("%d branches listed, X-Total-Count %d", len(heads), total)
			}
			return heads, ""
		}
	}
}

// assertConverges waits up to 5 s for the records to equal git's refs and
// the repository's empty flag to follow them.
func (f *crashForge) assertConverges(repo string) {
	f.t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		want := f.gitHeads(repo)
		got, problem := f.apiHeads(repo)
		var info struct {
			Empty bool `json:"empty"`
		}
		_, _, body := f.api("GET", "/api/v1/repos/root/"+repo, "")
		json.Unmarshal(body, &info)
		if problem == "" && fmt.Sprint(got) == fmt.Sprint(want) && info.Empty == (len(want) == 0) {
			return
		}
		if time.Now().After(deadline) {
			f.t.Fatalf("records did not converge within 5s:\n git %v\n api %v %s\n empty=%v\nlog:\n%s",
				sorted(want), sorted(got), problem, info.Empty, f.log)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func sorted(m map[string]string) []string {
	var out []string
	for k, v := range m {
		out = append(out, k+"="+v[:min(7, len(v))])
	}
	sort.Strings(out)
	return out
}

// clientGit runs the user's git in dir.
func clientGit(t *testing.T, dir string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "LC_ALL=C",
		"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_TERMINAL_PROMPT=0",
		"GIT_AUTHOR_NAME=Root", "GIT_AUTHOR_EMAIL=root@example.org",
		"GIT_COMMITTER_NAME=Root", "GIT_COMMITTER_EMAIL=root@example.org"}
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func mustClientGit(t *testing.T, dir string, args ...string) {
	t.Helper()
	if out, err := clientGit(t, dir, args...); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

func (f *crashForge) pushURL(repo string) string {
	return fmt.Sprintf("http://root:%s@127.0.0.1:%d/root/%s.git", f.token, f.port, repo)
}

// TestConvergeCrashAfterPushMovedRef is case 1: forge is killed after git
// moved the refs of a push and before the records were written; after a
// restart the records equal git's refs within 5 s. The first push into an
// empty repository is included (the repository must stop being empty).
func TestConvergeCrashAfterPushMovedRef(t *testing.T) {
	eachCrashBackend(t, func(t *testing.T, f *crashForge) {
		f.start("")
		f.createRepo("r", false)
		f.stop()

		work := t.TempDir()
		mustClientGit(t, work, "init", "-q", "-b", "main")
		os.WriteFile(filepath.Join(work, "a.txt"), []byte("a\n"), 0o644)
		mustClientGit(t, work, "add", ".")
		mustClientGit(t, work, "commit", "-qm", "first")

		// First push into the empty repository; the failpoint kills forge.
		f.start(repos.FailpointAfterRefUpdate)
		clientGit(t, work, "push", f.pushURL("r"), "main") // fails: the server died
		f.waitKilled()
		if heads := f.gitHeads("r"); heads["main"] == "" {
			t.Fatalf("the ref did not move before the failpoint: %v", heads)
		}
		f.start("")
		f.assertConverges("r")
		f.stop()

		// An update of main and a new branch, killed again.
		os.WriteFile(filepath.Join(work, "b.txt"), []byte("b\n"), 0o644)
		mustClientGit(t, work, "add", ".")
		mustClientGit(t, work, "commit", "-qm", "second")
		mustClientGit(t, work, "branch", "feature")
		f.start(repos.FailpointAfterRefUpdate)
		clientGit(t, work, "push", f.pushURL("r"), "main", "feature")
		f.waitKilled()
		f.start("")
		f.assertConverges("r")

		// Re-pushing now is a no-op that agrees with the records.
		if out, err := clientGit(t, work, "push", f.pushURL("r"), "main", "feature"); err != nil || !strings.Contains(out, "up-to-date") {
			t.Fatalf("re-push: %v %s", err, out)
		}
		f.assertConverges("r")
	})
}

// TestConvergeCrashDuringAPIWriteBurst is case 3: a burst of concurrent
// API writes (contents, branch create and delete) is cut by SIGKILL at the
// first record; after a restart the records equal git's refs within 5 s:
// no ghost record, no stale main, and pages agree with X-Total-Count.
func TestConvergeCrashDuringAPIWriteBurst(t *testing.T) {
	eachCrashBackend(t, func(t *testing.T, f *crashForge) {
		f.start("")
		f.createRepo("burst", true)
		for i := 0; i < 60; i++ {
			f.mustAPI("POST", "/api/v1/repos/root/burst/branches", fmt.Sprintf(`{"new_branch_name":"old-%02d","old_branch_name":"main"}`, i), 201)
		}
		f.assertConverges("burst")
		f.stop()

		f.start(repos.FailpointAfterRefUpdate)
		var wg sync.WaitGroup
		for i := 0; i < 30; i++ {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				switch i % 3 {
				case 0:
					f.api("DELETE", fmt.Sprintf("/api/v1/repos/root/burst/branches/old-%02d", i), "")
				case 1:
					f.api("POST", "/api/v1/repos/root/burst/branches", fmt.Sprintf(`{"new_branch_name":"new-%02d","old_branch_name":"main"}`, i))
				default:
					content := base64.StdEncoding.EncodeToString([]byte(fmt.Sprintf("file %d\n", i)))
					f.api("POST", fmt.Sprintf("/api/v1/repos/root/burst/contents/f%02d.txt", i),
						fmt.Sprintf(`{"content":%q,"branch":"main","message":"burst %d"}`, content, i))
				}
			}(i)
		}
		wg.Wait()
		f.waitKilled()
		f.start("")
		f.assertConverges("burst")
	})
}

// TestConvergeKillAtAnyMoment: forge is killed with SIGKILL at random
// moments of a mixed burst of pushes and API writes; after each restart
// the records equal git's refs within 5 s.
func TestConvergeKillAtAnyMoment(t *testing.T) {
	eachCrashBackend(t, func(t *testing.T, f *crashForge) {
		f.start("")
		f.createRepo("any", true)
		pushers := make([]string, 2)
		for i := range pushers {
			pushers[i] = t.TempDir()
			mustClientGit(t, pushers[i], "clone", "-q", f.pushURL("any"), ".")
			mustClientGit(t, pushers[i], "checkout", "-q", "-b", fmt.Sprintf("push-%d", i))
		}
		f.stop()
		for round := 0; round < 3; round++ {
			f.start("")
			var wg sync.WaitGroup
			for i, dir := range pushers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for n := 0; n < 5; n++ {
						os.WriteFile(filepath.Join(dir, "p.txt"), []byte(fmt.Sprintf("%d %d %d\n", round, i, n)), 0o644)
						clientGit(t, dir, "commit", "-qam", "push")
						clientGit(t, dir, "push", "-q", f.pushURL("any"), "HEAD")
					}
				}()
			}
			for i := 0; i < 6; i++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for n := 0; n < 10; n++ {
						name := fmt.Sprintf("r%d-%d-%d", round, i, n)
						f.api("POST", "/api/v1/repos/root/any/branches", fmt.Sprintf(`{"new_branch_name":%q,"old_branch_name":"main"}`, name))
						if n%2 == 1 {
							f.api("DELETE", "/api/v1/repos/root/any/branches/"+fmt.Sprintf("r%d-%d-%d", round, i, n-1), "")
						}
						content := base64.StdEncoding.EncodeToString([]byte(name))
						f.api("POST", "/api/v1/repos/root/any/contents/"+name+".txt",
							fmt.Sprintf(`{"content":%q,"branch":"main","message":%q}`, content, name))
					}
				}()
			}
			time.Sleep(time.Duration(100+rand.Intn(500)) * time.Millisecond)
			f.proc.Process.Kill()
			f.proc.Wait()
			f.proc = nil
			wg.Wait()
			f.start("")
			f.assertConverges("any")
			f.stop()
		}
	})
}
