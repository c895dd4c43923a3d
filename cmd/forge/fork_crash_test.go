package main

import (
	"encoding/json"
	"testing"

	"forge/services/repos"
)

// TestForkCrash: forge is killed (SIGKILL) while forking root/proj into
// the organization acme, before the fork is recorded and before the
// record commits. Once forge is back the fork is all or nothing: no
// record (files placed without one are cleared by the next create of the
// name, see repos.CreateStaged), forking again works, and the parent's
// forks_count tells the truth either way.
func TestForkCrash(t *testing.T) {
	for _, fp := range []string{repos.FailpointBeforeRecord, repos.FailpointBeforeCommit} {
		t.Run(fp, func(t *testing.T) {
			eachCrashBackend(t, func(t *testing.T, f *crashForge) {
				f.start("")
				f.createRepo("proj", true)
				f.mustAPI("POST", "/api/v1/orgs", `{"username":"acme"}`, 201)
				f.stop()

				f.start(fp)
				f.api("POST", "/api/v1/repos/root/proj/forks", `{"organization":"acme"}`) // fails: the server died
				f.waitKilled()
				f.start("")
				if code, _, b := f.api("GET", "/api/v1/repos/acme/proj", ""); code != 404 {
					t.Fatalf("the fork cut short exists: %d %s", code, b)
				}
				forks := func() int {
					var parent struct {
						Forks int `json:"forks_count"`
					}
					json.Unmarshal(f.mustAPI("GET", "/api/v1/repos/root/proj", "", 200), &parent)
					return parent.Forks
				}
				if n := forks(); n != 0 {
					t.Fatalf("forks_count %d after a fork cut short", n)
				}
				f.mustAPI("POST", "/api/v1/repos/root/proj/forks", `{"organization":"acme"}`, 202)
				var fork struct {
					Fork   bool `json:"fork"`
					Parent *struct {
						FullName string `json:"full_name"`
					} `json:"parent"`
				}
				if err := json.Unmarshal(f.mustAPI("GET", "/api/v1/repos/acme/proj", "", 200), &fork); err != nil || !fork.Fork || fork.Parent == nil || fork.Parent.FullName != "root/proj" {
					t.Fatalf("the fork made after the crash: %+v %v", fork, err)
				}
				if n := forks(); n != 1 {
					t.Fatalf("forks_count %d after one fork", n)
				}
				f.assertConverges("proj")
			})
		})
	}
}
