package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"forge/services/store/storetest"
)

// TestMigrateCrash kills forge (SIGKILL, at a failpoint) in the middle of
// concurrent migrations (pull mirrors and plain copies of a private
// repository), at each step of recording one, restarts it and checks that
// every migration is all or nothing: an acknowledged migration is a
// complete repository (record, git data, branch records, mirror state);
// any other name either is complete or does not exist and can be migrated
// again. Before, a migration recorded the repository first and cloned
// after, so a crash left records without git data, branch records or
// mirror state, and directories that blocked the name.
func TestMigrateCrash(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and restarts the binary")
	}
	for _, kind := range storetest.Backends {
		t.Run(kind, func(t *testing.T) {
			cr := newCrashRig(t, kind, "FORGE__MIGRATIONS__ALLOW_LOCALNETWORKS=true")
			p := startServe(t, cr.c)
			if code, body := p.call("POST", "/api/v1/user/repos", cr.token, `{"name":"source","auto_init":true,"private":true}`); code != 201 {
				t.Fatalf("create the source: %d %s", code, body)
			}
			p.cmd.Process.Signal(syscall.SIGTERM)
			<-p.done
			cr.rounds(t, crashRound{
				points: []string{"repo-create-before-record", "repo-create-before-place", "repo-create-before-commit"},
				// Four migrations at once; the second to reach the
				// failpoint kills the process while the others are in
				// flight.
				n: 4, at: 2,
				create: func(p *serveProc, i int, name string) int {
					code, _ := p.call("POST", "/api/v1/repos/migrate", cr.token, migrateBody(p, name, isMirror(i)))
					return code
				},
				check: func(t *testing.T, p *serveProc, i int, name string) {
					p.checkMigrated(t, cr.token, cr.repoRoot, name, isMirror(i))
				},
			})
		})
	}
}

// isMirror: the crash tests alternate pull mirrors and plain copies (which
// take the other path, through a second scratch repository).
func isMirror(i int) bool { return i%2 == 0 }

// migrateBody migrates alice's private source, with her credentials.
func migrateBody(p *serveProc, name string, mirror bool) string {
	return `{"clone_addr":"` + p.base + `/alice/source.git","repo_name":"` + name + `","mirror":` + fmt.Sprint(mirror) +
		`,"auth_username":"alice","auth_password":"alice-password"}`
}

// checkMigrated asserts that alice/name is a whole migrated copy of
// alice/source: record, git data, branch record and, for a mirror, its
// mirror state.
func (p *serveProc) checkMigrated(t *testing.T, token, repoRoot, name string, mirror bool) {
	t.Helper()
	code, body := p.call("GET", "/api/v1/repos/alice/"+name, token, "")
	var repo struct {
		Empty          bool   `json:"empty"`
		Mirror         bool   `json:"mirror"`
		MirrorInterval string `json:"mirror_interval"`
		DefaultBranch  string `json:"default_branch"`
	}
	if code != 200 || json.Unmarshal(body, &repo) != nil || repo.Empty || repo.DefaultBranch != "main" || repo.Mirror != mirror {
		t.Fatalf("%s: %d %.300s", name, code, body)
	}
	if mirror && repo.MirrorInterval != "8h0m0s" {
		t.Fatalf("%s has no mirror state: %.300s", name, body)
	}
	code, body = p.call("GET", "/api/v1/repos/alice/"+name+"/branches", token, "")
	if code != 200 || !strings.Contains(string(body), `"name":"main"`) {
		t.Fatalf("%s branches: %d %s", name, code, body)
	}
	if code, body = p.call("GET", "/api/v1/repos/alice/"+name+"/contents/README.md", token, ""); code != 200 {
		t.Fatalf("%s README: %d %s", name, code, body)
	}
	if mirror {
		if code, body = p.call("POST", "/api/v1/repos/alice/"+name+"/mirror-sync", token, ""); code != 200 {
			t.Fatalf("%s mirror-sync: %d %s", name, code, body)
		}
	}
	dir := filepath.Join(repoRoot, "alice", strings.ToLower(name)+".git")
	if out, err := exec.Command("git", "--git-dir="+dir, "log", "--format=%s", "main").CombinedOutput(); err != nil || string(out) != "Initial commit\n" {
		t.Fatalf("%s git log: %v %s", name, err, out)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "config")); err != nil || strings.Contains(string(b), "alice-password") {
		t.Fatalf("%s config: %v %s", name, err, b)
	}
}
