package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"forge/services/config"
	"forge/services/failpoint"
	"forge/services/store/storetest"
)

// crashEnv is the environment of a `forge serve` whose state survives
// restarts: one data directory, one database, fixed ports.
func crashEnv(t *testing.T, kind, dir string) []string {
	env := []string{
		"FORGE__SERVER__HTTP_PORT=" + strconv.Itoa(freePort(t)),
		"FORGE__SERVER__GRPC_ADDR=127.0.0.1:" + strconv.Itoa(freePort(t)),
		"FORGE__SERVER__APP_DATA_PATH=" + filepath.Join(dir, "data"),
		"FORGE__SECURITY__SECRET_KEY=crash-test-secret",
	}
	db := storetest.Database(t, kind)
	add := func(key, v string) {
		if v != "" {
			env = append(env, config.EnvPrefix+"DATABASE__"+key+"="+v)
		}
	}
	add("DB_TYPE", db.Type)
	add("HOST", db.Host)
	add("NAME", db.Name)
	add("USER", db.User)
	add("PASSWD", db.Passwd)
	add("SSL_MODE", db.SSLMode)
	add("PATH", db.Path)
	return env
}

// serveProc is a running `forge serve`.
type serveProc struct {
	cmd  *exec.Cmd
	log  *bytes.Buffer
	done chan struct{}
	base string
}

// startServe starts `forge serve` and waits until it answers.
func startServe(t *testing.T, c *cli, extraEnv ...string) *serveProc {
	t.Helper()
	p, err := launchServe(t, c, extraEnv...)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// launchServe starts `forge serve` and waits until it answers; an error
// (with the log) if it exits first or does not answer within a minute.
func launchServe(t *testing.T, c *cli, extraEnv ...string) (*serveProc, error) {
	t.Helper()
	cmd := exec.Command(c.bin, "serve")
	cmd.Dir, cmd.Env = c.dir, append(append([]string{}, c.env...), extraEnv...)
	p := &serveProc{cmd: cmd, log: &bytes.Buffer{}, done: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = p.log, p.log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { cmd.Wait(); close(p.done) }()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-p.done
	})
	for _, kv := range c.env {
		if v, ok := strings.CutPrefix(kv, "FORGE__SERVER__HTTP_PORT="); ok {
			p.base = "http://127.0.0.1:" + v
		}
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		if resp, err := http.Get(p.base + "/api/v1/version"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return p, nil
			}
		}
		select {
		case <-p.done:
			return nil, fmt.Errorf("forge serve exited; log:\n%s", p.log)
		default:
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("forge serve did not answer; log:\n%s", p.log)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// killedByFailpoint waits for the process to die of SIGKILL.
func (p *serveProc) killedByFailpoint(t *testing.T) {
	t.Helper()
	select {
	case <-p.done:
	case <-time.After(60 * time.Second):
		t.Fatalf("the failpoint was not hit; log:\n%s", p.log)
	}
	ws, ok := p.cmd.ProcessState.Sys().(syscall.WaitStatus)
	if !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("forge exited with %v, not SIGKILL; log:\n%s", p.cmd.ProcessState, p.log)
	}
}

// call sends a request with the token; a transport error is status 0.
func (p *serveProc) call(method, path, token, body string) (int, []byte) {
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, _ := http.NewRequest(method, p.base+path, rd)
	req.Header.Set("Authorization", "token "+token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, []byte(err.Error())
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

// checkComplete asserts that alice/name is a whole repository: record,
// git data, the auto_init commit on main, its branch record.
func (p *serveProc) checkComplete(t *testing.T, token, repoRoot, name string) {
	t.Helper()
	code, body := p.call("GET", "/api/v1/repos/alice/"+name, token, "")
	var repo struct {
		Empty         bool   `json:"empty"`
		DefaultBranch string `json:"default_branch"`
	}
	if code != 200 || json.Unmarshal(body, &repo) != nil || repo.Empty || repo.DefaultBranch != "main" {
		t.Fatalf("%s: %d %.300s", name, code, body)
	}
	code, body = p.call("GET", "/api/v1/repos/alice/"+name+"/branches", token, "")
	if code != 200 || !strings.Contains(string(body), `"name":"main"`) {
		t.Fatalf("%s branches: %d %s", name, code, body)
	}
	if code, body = p.call("GET", "/api/v1/repos/alice/"+name+"/contents/README.md", token, ""); code != 200 {
		t.Fatalf("%s README: %d %s", name, code, body)
	}
	dir := filepath.Join(repoRoot, "alice", strings.ToLower(name)+".git")
	if out, err := exec.Command("git", "--git-dir="+dir, "log", "--format=%s", "main").CombinedOutput(); err != nil || string(out) != "Initial commit\n" {
		t.Fatalf("%s git log: %v %s", name, err, out)
	}
}

// TestRepoCreateCrash kills forge (SIGKILL, at a failpoint) in the middle
// of concurrent auto_init creates (with a license and a label set), at each step of a create, restarts it
// and checks that every create is all or nothing: an acknowledged create
// is a complete repository; any other name either is a complete
// repository or does not exist and can be created. Before, the crash left
// records without directories, empty directories that were not
// repositories (the name blocked with 409), and auto_init commits without
// a branch record.
func TestRepoCreateCrash(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and restarts the binary")
	}
	for _, kind := range storetest.Backends {
		t.Run(kind, func(t *testing.T) {
			cr := newCrashRig(t, kind)
			cr.rounds(t, crashRound{
				points: []string{"repo-create-before-record", "repo-create-before-place", "repo-create-before-commit"},
				// Six creates at once; the third to reach the failpoint
				// kills the process while the others are in flight.
				n: 6, at: 3,
				create: func(p *serveProc, _ int, name string) int {
					code, _ := p.call("POST", "/api/v1/user/repos", cr.token,
						`{"name":"`+name+`","auto_init":true,"license":"MIT","issue_labels":"Default"}`)
					return code
				},
				check: func(t *testing.T, p *serveProc, _ int, name string) {
					p.checkComplete(t, cr.token, cr.repoRoot, name)
					// The license and the label set come with the repository.
					if code, body := p.call("GET", "/api/v1/repos/alice/"+name+"/contents/LICENSE", cr.token, ""); code != 200 {
						t.Fatalf("%s LICENSE: %d %s", name, code, body)
					}
					code, body := p.call("GET", "/api/v1/repos/alice/"+name+"/labels", cr.token, "")
					var labels []struct{ Name string }
					if code != 200 || json.Unmarshal(body, &labels) != nil || len(labels) != 7 {
						t.Fatalf("%s labels: %d %s", name, code, body)
					}
				},
			})
		})
	}
}

// crashRig is a `forge serve` environment that survives restarts, with
// the user alice and her token.
type crashRig struct {
	c        *cli
	token    string
	repoRoot string
}

func newCrashRig(t *testing.T, kind string, extraEnv ...string) *crashRig {
	t.Helper()
	dir := t.TempDir()
	c := newCLI(t, append(crashEnv(t, kind, dir), extraEnv...)...)
	c.dir = dir
	out, errOut, code := c.run("admin", "user", "create", "--username", "alice", "--password", "alice-password",
		"--email", "alice@example.org", "--must-change-password=false", "--access-token")
	token := lastWord(out)
	if code != 0 || len(token) != 40 {
		t.Fatalf("create alice: %d %q %q", code, out, errOut)
	}
	return &crashRig{c: c, token: token, repoRoot: filepath.Join(dir, "data", "repositories")}
}

// crashRound describes concurrent repository creations interrupted by a
// crash: create makes alice's repository name (i-th of n) and returns the
// HTTP status; check asserts that it is complete.
type crashRound struct {
	points []string // the failpoints, one round each
	n, at  int      // n creations at once; the at-th pass through the failpoint kills
	create func(p *serveProc, i int, name string) int
	check  func(t *testing.T, p *serveProc, i int, name string)
}

// rounds runs one round per failpoint: forge is killed in the middle of n
// concurrent creations and restarted; then every acknowledged name must
// be complete, every other one complete or absent and creatable again;
// each is deleted, with its directory.
func (cr *crashRig) rounds(t *testing.T, r crashRound) {
	for _, fp := range r.points {
		t.Run(fp, func(t *testing.T) {
			p := startServe(t, cr.c, failpoint.EnvVar+"="+fp+"@"+strconv.Itoa(r.at))
			acked := make([]bool, r.n)
			names := make([]string, r.n)
			var wg sync.WaitGroup
			for i := range r.n {
				names[i] = fmt.Sprintf("%s-%d", fp, i)
				wg.Add(1)
				go func() {
					defer wg.Done()
					acked[i] = r.create(p, i, names[i]) == 201
				}()
			}
			wg.Wait()
			p.killedByFailpoint(t)

			p = startServe(t, cr.c)
			for i, name := range names {
				code, body := p.call("GET", "/api/v1/repos/alice/"+name, cr.token, "")
				switch {
				case code == 404 && !acked[i]:
					// Unacknowledged and gone: the name must be usable.
					if code := r.create(p, i, name); code != 201 {
						t.Fatalf("create %s again: %d", name, code)
					}
				case code == 200:
				default:
					t.Fatalf("%s (acknowledged %v): %d %.300s", name, acked[i], code, body)
				}
				r.check(t, p, i, name)
				if code, body := p.call("DELETE", "/api/v1/repos/alice/"+name, cr.token, ""); code != 204 {
					t.Fatalf("delete %s: %d %s", name, code, body)
				}
				if _, err := os.Lstat(filepath.Join(cr.repoRoot, "alice", strings.ToLower(name)+".git")); !errors.Is(err, os.ErrNotExist) {
					t.Fatalf("delete %s left its directory: %v", name, err)
				}
			}
			p.cmd.Process.Signal(syscall.SIGTERM)
			<-p.done
		})
	}
}

// TestKilledWriteLeavesNoScratch kills forge in the middle of a contents
// API write, which leaves its temporary index behind (five trials used to
// leave 38 of them). Once that debris is older than an hour, starting
// forge removes it; the repository is intact and writable.
func TestKilledWriteLeavesNoScratch(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and restarts the binary")
	}
	for _, kind := range storetest.Backends {
		t.Run(kind, func(t *testing.T) {
			dir := t.TempDir()
			c := newCLI(t, crashEnv(t, kind, dir)...)
			c.dir = dir
			out, _, code := c.run("admin", "user", "create", "--username", "alice", "--password", "alice-password",
				"--email", "alice@example.org", "--must-change-password=false", "--access-token")
			token := lastWord(out)
			if code != 0 {
				t.Fatalf("create alice: %q", out)
			}
			p := startServe(t, c, failpoint.EnvVar+"=contents-write-after-index")
			if code, body := p.call("POST", "/api/v1/user/repos", token, `{"name":"r","auto_init":true}`); code != 201 {
				t.Fatalf("create: %d %.300s", code, body)
			}
			if code, _ := p.call("POST", "/api/v1/repos/alice/r/contents/a.txt", token, `{"content":"YQo="}`); code != 0 {
				t.Fatalf("the write was answered (%d) instead of crashing", code)
			}
			p.killedByFailpoint(t)

			tmp := filepath.Join(dir, "data", "repositories", "@forge", "tmp")
			left, _ := filepath.Glob(filepath.Join(tmp, "index-*"))
			if len(left) != 1 {
				t.Fatalf("the killed write left %v", left)
			}
			// A restart right away keeps it (it could be a live write of
			// another process); an hour later it is debris.
			p = startServe(t, c)
			if _, err := os.Stat(left[0]); err != nil {
				t.Fatalf("young scratch removed: %v", err)
			}
			p.cmd.Process.Signal(syscall.SIGTERM)
			<-p.done
			old := time.Now().Add(-2 * time.Hour)
			filepath.WalkDir(left[0], func(q string, _ os.DirEntry, _ error) error { return os.Chtimes(q, old, old) })

			p = startServe(t, c)
			if _, err := os.Stat(left[0]); !errors.Is(err, os.ErrNotExist) {
				t.Fatalf("stale scratch kept: %v", err)
			}
			if code, body := p.call("POST", "/api/v1/repos/alice/r/contents/a.txt", token, `{"content":"YQo="}`); code != 201 {
				t.Fatalf("write after restart: %d %.300s", code, body)
			}
			p.cmd.Process.Signal(syscall.SIGTERM)
			<-p.done
		})
	}
}
