package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"forge/services/repos"
)

// TestTransferCrash: forge is killed (SIGKILL) while transferring
// root/proj to the organization acme, after the directory moved and
// before the record committed, or after the commit and before the move
// was forgotten. Once forge is back the repository is reachable under
// exactly one name, the one its record says (root/proj for the first,
// acme/proj for the second), its directory is there and nowhere else,
// git and the branch records agree, and transferring works again.
func TestTransferCrash(t *testing.T) {
	for _, c := range []struct {
		failpoint string
		owner     string // where the repository is after the restart
	}{
		{repos.FailpointTransferBeforeCommit, "root"},
		{repos.FailpointTransferAfterCommit, "acme"},
	} {
		t.Run(c.failpoint, func(t *testing.T) {
			eachCrashBackend(t, func(t *testing.T, f *crashForge) {
				f.start("")
				f.createRepo("proj", true)
				f.mustAPI("POST", "/api/v1/orgs", `{"username":"acme"}`, 201)
				f.stop()
				want := gitHead(t, f.dir("root"))

				f.start(c.failpoint)
				f.api("POST", "/api/v1/repos/root/proj/transfer", `{"new_owner":"acme"}`) // fails: the server died
				f.waitKilled()
				f.start("")

				other := map[string]string{"root": "acme", "acme": "root"}[c.owner]
				if code, _, b := f.api("GET", "/api/v1/repos/"+other+"/proj", ""); code != 404 {
					t.Fatalf("%s/proj answers %d %s; the repository is %s's", other, code, b, c.owner)
				}
				var got struct {
					FullName string `json:"full_name"`
				}
				json.Unmarshal(f.mustAPI("GET", "/api/v1/repos/"+c.owner+"/proj", "", 200), &got)
				if got.FullName != c.owner+"/proj" {
					t.Fatalf("full_name %q", got.FullName)
				}
				if _, err := os.Stat(f.dir(other)); !os.IsNotExist(err) {
					t.Fatalf("a directory is left at %s: %v", f.dir(other), err)
				}
				if h := gitHead(t, f.dir(c.owner)); h != want {
					t.Fatalf("main in %s is %s, want %s", f.dir(c.owner), h, want)
				}
				var branch struct {
					Commit struct {
						ID string `json:"id"`
					} `json:"commit"`
				}
				json.Unmarshal(f.mustAPI("GET", "/api/v1/repos/"+c.owner+"/proj/branches/main", "", 200), &branch)
				if branch.Commit.ID != want {
					t.Fatalf("the branch record says %s, git %s", branch.Commit.ID, want)
				}
				if c.owner == "root" {
					f.mustAPI("POST", "/api/v1/repos/root/proj/transfer", `{"new_owner":"acme"}`, 202)
					if h := gitHead(t, f.dir("acme")); h != want {
						t.Fatalf("after transferring again: main %s, want %s", h, want)
					}
				}
			})
		})
	}
}

// dir is the directory of owner/proj on the server.
func (f *crashForge) dir(owner string) string {
	return filepath.Join(f.c.dir, "data", "repositories", owner, "proj.git")
}

func gitHead(t *testing.T, dir string) string {
	t.Helper()
	out, err := exec.Command("git", "--git-dir="+dir, "rev-parse", "refs/heads/main").Output()
	if err != nil {
		t.Fatalf("rev-parse in %s: %v", dir, err)
	}
	return strings.TrimSpace(string(out))
}
