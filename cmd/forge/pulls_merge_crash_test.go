package main

import (
	"encoding/json"
	"testing"
	"time"

	"forge/services/pulls"
	"forge/services/repos"
)

// Crash tests for merging a pull request: forge is killed with SIGKILL
// after the base branch moved onto the merge and before the merge was
// recorded, or after it was recorded and before the branch move was.
// Once forge is back, the pull request is merged with the commit the base
// branch holds, the branch records agree with git, and a second merge is
// refused.

type crashMerged struct {
	Merged         bool    `json:"merged"`
	State          string  `json:"state"`
	MergeCommitSHA *string `json:"merge_commit_sha"`
}

// assertMergedAsBase waits up to 5 s for pull request 1 of root/proj to be
// merged and closed with main's tip as its merge commit, then checks that
// the records converge and that merging again is refused.
func (f *crashForge) assertMergedAsBase() {
	f.t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		var pr crashMerged
		json.Unmarshal(f.mustAPI("GET", "/api/v1/repos/root/proj/pulls/1", "", 200), &pr)
		tip := f.gitHeads("proj")["main"]
		if pr.Merged && pr.State == "closed" && pr.MergeCommitSHA != nil && *pr.MergeCommitSHA == tip {
			break
		}
		if time.Now().After(deadline) {
			f.t.Fatalf("not merged as main's tip %s within 5s: %+v\nlog:\n%s", tip, pr, f.log)
		}
		time.Sleep(100 * time.Millisecond)
	}
	f.assertConverges("proj")
	if code, _, b := f.api("POST", "/api/v1/repos/root/proj/pulls/1/merge", `{"Do":"merge"}`); code != 405 {
		f.t.Fatalf("second merge: %d %s", code, b)
	}
}

// TestMergeCrashAfterLanding: killed after the base branch moved onto the
// merge commit, before anything was recorded in the database.
func TestMergeCrashAfterLanding(t *testing.T) {
	eachCrashBackend(t, func(t *testing.T, f *crashForge) {
		f.start("")
		f.stackPulls()
		before := f.gitHeads("proj")["main"]
		f.stop()

		f.start(pulls.FailpointAfterMergeLanded)
		f.api("POST", "/api/v1/repos/root/proj/pulls/1/merge", `{"Do":"merge"}`) // fails: the server died
		f.waitKilled()
		if f.gitHeads("proj")["main"] == before {
			t.Fatal("main did not move before the failpoint")
		}
		f.start("")
		f.assertMergedAsBase()
	})
}

// TestMergeCrashBeforeBranchRecord: killed after the merge was recorded
// and before the base branch's move was.
func TestMergeCrashBeforeBranchRecord(t *testing.T) {
	eachCrashBackend(t, func(t *testing.T, f *crashForge) {
		f.start("")
		f.stackPulls()
		f.stop()

		f.start(repos.FailpointAfterRefUpdate)
		f.api("POST", "/api/v1/repos/root/proj/pulls/1/merge", `{"Do":"merge"}`)
		f.waitKilled()
		f.start("")
		f.assertMergedAsBase()
	})
}
