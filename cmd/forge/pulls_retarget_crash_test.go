package main

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"forge/services/pulls"
	"forge/services/repos"
)

// Crash tests for retargeting the children of a merged pull request: the
// retarget and the deletion of the merged head branch are one consistent
// step. forge is killed with SIGKILL between them, or after the deletion
// moved the ref and before it was recorded; once forge is back, the child
// is open on the merged one's base and no open pull request names a
// branch that does not exist.

type crashPull struct {
	Number   int64  `json:"number"`
	State    string `json:"state"`
	HasMerge bool   `json:"merged"`
	Base     struct {
		Ref string `json:"ref"`
	} `json:"base"`
	Head struct {
		Ref string `json:"ref"`
	} `json:"head"`
}

// stackPulls makes, in root/proj, pull request 1 from parent into main and
// pull request 2 from child (stacked on parent) into parent.
func (f *crashForge) stackPulls() {
	f.t.Helper()
	f.createRepo("proj", true)
	file := func(name, from, branch string) {
		content := base64.StdEncoding.EncodeToString([]byte(name + "\n"))
		f.mustAPI("POST", "/api/v1/repos/root/proj/contents/"+name,
			fmt.Sprintf(`{"content":%q,"branch":%q,"new_branch":%q,"message":"add %s"}`, content, from, branch, name), 201)
	}
	file("p.txt", "main", "parent")
	file("c.txt", "parent", "child")
	f.mustAPI("POST", "/api/v1/repos/root/proj/pulls", `{"head":"parent","base":"main","title":"Parent"}`, 201)
	f.mustAPI("POST", "/api/v1/repos/root/proj/pulls", `{"head":"child","base":"parent","title":"Child"}`, 201)
}

// openPulls lists root/proj's open pull requests.
func (f *crashForge) openPulls() []crashPull {
	f.t.Helper()
	var list []crashPull
	if err := json.Unmarshal(f.mustAPI("GET", "/api/v1/repos/root/proj/pulls?state=open&limit=50", "", 200), &list); err != nil {
		f.t.Fatal(err)
	}
	return list
}

// assertChildRetargeted waits up to 5 s for: pull request 1 merged, pull
// request 2 open on main, and every open pull request's head and base
// branch existing in git.
func (f *crashForge) assertChildRetargeted() {
	f.t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		var parent, child crashPull
		json.Unmarshal(f.mustAPI("GET", "/api/v1/repos/root/proj/pulls/1", "", 200), &parent)
		json.Unmarshal(f.mustAPI("GET", "/api/v1/repos/root/proj/pulls/2", "", 200), &child)
		heads := f.gitHeads("proj")
		problem := ""
		for _, pr := range f.openPulls() {
			if heads[pr.Base.Ref] == "" || heads[pr.Head.Ref] == "" {
				problem += fmt.Sprintf(" #%d %s<-%s names a missing branch;", pr.Number, pr.Base.Ref, pr.Head.Ref)
			}
		}
		if !parent.HasMerge {
			problem += " the parent is not merged;"
		}
		if child.State != "open" || child.Base.Ref != "main" {
			problem += fmt.Sprintf(" the child is %s on %s;", child.State, child.Base.Ref)
		}
		if problem == "" {
			return
		}
		if time.Now().After(deadline) {
			f.t.Fatalf("not within 5s:%s git %v\nlog:\n%s", problem, sorted(heads), f.log)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

const mergeDeletingBody = `{"Do":"merge","delete_branch_after_merge":true}`

// TestRetargetCrashBetweenRetargetAndDelete: killed after the children
// were retargeted and before the head branch was deleted, forge comes
// back with the child on main and the parent branch still there.
func TestRetargetCrashBetweenRetargetAndDelete(t *testing.T) {
	eachCrashBackend(t, func(t *testing.T, f *crashForge) {
		f.start("")
		f.stackPulls()
		f.stop()

		f.start(pulls.FailpointAfterRetarget)
		f.api("POST", "/api/v1/repos/root/proj/pulls/1/merge", mergeDeletingBody) // fails: the server died
		f.waitKilled()
		f.start("")
		f.assertChildRetargeted()
		if f.gitHeads("proj")["parent"] == "" {
			t.Fatal("the parent branch is gone though forge died before deleting it")
		}
		f.assertConverges("proj")
	})
}

// TestRetargetCrashAfterHeadDeleted: killed after git deleted the merged
// head branch and before the deletion was recorded (the second ref
// record of the merge: the base move is the first), forge comes back with
// the branch gone from the records too and the child open on main, not
// closed with the branch.
func TestRetargetCrashAfterHeadDeleted(t *testing.T) {
	eachCrashBackend(t, func(t *testing.T, f *crashForge) {
		f.start("")
		f.stackPulls()
		f.stop()

		f.start(repos.FailpointAfterRefUpdate + "@2")
		f.api("POST", "/api/v1/repos/root/proj/pulls/1/merge", mergeDeletingBody)
		f.waitKilled()
		if f.gitHeads("proj")["parent"] != "" {
			t.Fatal("the parent branch was not deleted before the failpoint")
		}
		f.start("")
		f.assertConverges("proj")
		f.assertChildRetargeted()
	})
}
