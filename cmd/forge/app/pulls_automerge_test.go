package app_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"code.gitea.io/sdk/gitea"
)

// autoMergeRepo is alice's proj (alice administers it) with bob and
// carol writing and dave reading, each with a client and a token.
type autoMergeRepo struct {
	t        *testing.T
	s        *testServer
	clients  map[string]*gitea.Client
	tokens   map[string]string
	aliceDir string
}

func newAutoMergeRepo(t *testing.T, s *testServer) *autoMergeRepo {
	t.Helper()
	alice, bob, aliceTok, bobTok, aliceDir, _ := protectedRepoTokens(t, s)
	r := &autoMergeRepo{t: t, s: s, aliceDir: aliceDir,
		clients: map[string]*gitea.Client{"alice": alice, "bob": bob},
		tokens:  map[string]string{"alice": aliceTok, "bob": bobTok}}
	for name, mode := range map[string]gitea.AccessMode{"carol": gitea.AccessModeWrite, "dave": gitea.AccessModeRead} {
		tok := s.seedUser(name, name+"-password", false)
		if _, err := alice.AddCollaborator("alice", "proj", name, gitea.AddCollaboratorOption{Permission: &mode}); err != nil {
			t.Fatal(err)
		}
		r.clients[name], r.tokens[name] = s.sdk(gitea.SetToken(tok)), tok
	}
	return r
}

// open opens a pull request from a new branch of main and waits until
// its merge state is computed; it returns its number and head commit.
func (r *autoMergeRepo) open(branch string) (int64, string) {
	r.t.Helper()
	gitCmd(r.t, r.aliceDir, "fetch", "-q", "origin")
	gitCmd(r.t, r.aliceDir, "checkout", "-q", "-B", branch, "origin/main")
	commitFile(r.t, r.aliceDir, branch+".txt", branch+"\n", "add "+branch)
	gitCmd(r.t, r.aliceDir, "push", "-q", "origin", branch)
	pr, _, err := r.clients["alice"].CreatePullRequest("alice", "proj", gitea.CreatePullRequestOption{Head: branch, Base: "main", Title: branch})
	if err != nil {
		r.t.Fatal(err)
	}
	for i := 0; !pr.Mergeable && i < 100; i++ {
		time.Sleep(50 * time.Millisecond)
		if pr, _, err = r.clients["alice"].GetPullRequest("alice", "proj", pr.Index); err != nil {
			r.t.Fatal(err)
		}
	}
	return pr.Index, strings.TrimSpace(gitCmd(r.t, r.aliceDir, "rev-parse", branch))
}

// schedule asks, through the SDK, for pull request index to be merged
// when its checks succeed, as who; it returns the HTTP status.
func (r *autoMergeRepo) schedule(who string, index int64) int {
	r.t.Helper()
	ok, resp, err := r.clients[who].MergePullRequest("alice", "proj", index, gitea.MergePullRequestOption{
		Style: gitea.MergeStyleMerge, MergeWhenChecksSucceed: true})
	if err != nil {
		r.t.Fatalf("schedule %d as %s: %v", index, who, err)
	}
	if !ok && resp.StatusCode < 400 {
		r.t.Fatalf("schedule %d as %s: %d", index, who, resp.StatusCode)
	}
	return resp.StatusCode
}

// status posts a commit status on sha over raw HTTP.
func (r *autoMergeRepo) status(sha, context, state string) {
	r.t.Helper()
	resp := r.s.do("POST", "/api/v1/repos/alice/proj/statuses/"+sha, fmt.Sprintf(`{"context":%q,"state":%q}`, context, state),
		"Authorization", "token "+r.tokens["alice"], "Content-Type", jsonCT)
	if resp.Status != http.StatusCreated {
		r.t.Fatalf("status on %s: %d %s", sha, resp.Status, resp.Body)
	}
}

func (r *autoMergeRepo) cancel(who string, index int64) response {
	r.t.Helper()
	return r.s.do("DELETE", fmt.Sprintf("/api/v1/repos/alice/proj/pulls/%d/merge", index), "", "Authorization", "token "+r.tokens[who])
}

// pull reads pull request index.
func (r *autoMergeRepo) pull(index int64) *gitea.PullRequest {
	r.t.Helper()
	pr, _, err := r.clients["alice"].GetPullRequest("alice", "proj", index)
	if err != nil {
		r.t.Fatal(err)
	}
	return pr
}

// waitMerged polls pull request index until it is merged (bounded).
func (r *autoMergeRepo) waitMerged(index int64) *gitea.PullRequest {
	r.t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		pr := r.pull(index)
		if pr.HasMerged {
			return pr
		}
		if time.Now().After(deadline) {
			r.t.Fatalf("pull request %d not merged in time: %+v", index, pr)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// timeline is the types of pull request index's timeline.
func (r *autoMergeRepo) timeline(index int64) string {
	r.t.Helper()
	items, _ := r.s.timeline(r.t, r.tokens["alice"], fmt.Sprintf("/api/v1/repos/alice/proj/issues/%d/timeline", index))
	return timelineTypes(items)
}

// TestPullAutoMerge: with a required status check pending, a merge asked
// for when the checks succeed is scheduled (201, a timeline event, 409
// when asked again) and runs, as the one who asked, when a status makes
// the checks pass; a cancelled one does not run (the cancel: the
// scheduler or a repository administrator, 404 when none); one whose
// checks pass already merges at once; one whose doer lost write access is
// dropped with a timeline event; missing approvals are waited for too.
func TestPullAutoMerge(t *testing.T) {
	t.Parallel()
	eachBackend(t, nil, func(t *testing.T, s *testServer) {
		r := newAutoMergeRepo(t, s)
		one, oneHead := r.open("one")
		two, twoHead := r.open("two")
		if _, _, err := r.clients["alice"].CreateBranchProtection("alice", "proj", gitea.CreateBranchProtectionOption{RuleName: "main",
			EnableStatusCheck: true, StatusCheckContexts: []string{"ci/*"}}); err != nil {
			t.Fatal(err)
		}

		// Scheduled while ci/* is missing, then pending; merged by the
		// success, as bob.
		if got := r.schedule("bob", one); got != http.StatusCreated {
			t.Fatalf("schedule: %d, want 201", got)
		}
		resp := r.s.do("POST", fmt.Sprintf("/api/v1/repos/alice/proj/pulls/%d/merge", one), `{"Do":"merge","merge_when_checks_succeed":true}`,
			"Authorization", "token "+r.tokens["bob"], "Content-Type", jsonCT)
		if resp.Status != http.StatusConflict {
			t.Fatalf("second schedule: %d %s, want 409", resp.Status, resp.Body)
		}
		r.status(oneHead, "ci/build", "pending")
		time.Sleep(300 * time.Millisecond)
		if pr := r.pull(one); pr.HasMerged {
			t.Fatal("merged while ci/build is pending")
		}
		r.status(oneHead, "ci/build", "success")
		pr := r.waitMerged(one)
		if pr.MergedBy == nil || pr.MergedBy.UserName != "bob" {
			t.Fatalf("merged by %+v, want bob", pr.MergedBy)
		}
		if got := r.timeline(one); got != "pull_scheduled_merge,merge_pull" {
			t.Fatalf("timeline of one: %s", got)
		}

		// Cancelled: dave (reader) and carol (writer, not the scheduler)
		// may not, alice (administrator) may; then nothing to cancel.
		if got := r.schedule("bob", two); got != http.StatusCreated {
			t.Fatalf("schedule two: %d", got)
		}
		for _, who := range []string{"dave", "carol"} {
			if resp := r.cancel(who, two); resp.Status != http.StatusForbidden ||
				resp.message(t) != "user has no permission to cancel the scheduled auto merge" {
				t.Fatalf("cancel by %s: %d %s", who, resp.Status, resp.Body)
			}
		}
		if resp := r.cancel("alice", two); resp.Status != http.StatusNoContent {
			t.Fatalf("cancel: %d %s", resp.Status, resp.Body)
		}
		if resp := r.cancel("alice", two); resp.Status != http.StatusNotFound {
			t.Fatalf("cancel again: %d %s", resp.Status, resp.Body)
		}
		r.status(twoHead, "ci/build", "success")
		time.Sleep(time.Second)
		if pr := r.pull(two); pr.HasMerged {
			t.Fatal("a cancelled merge ran")
		}
		if got := r.timeline(two); got != "pull_scheduled_merge,pull_cancel_scheduled_merge" {
			t.Fatalf("timeline of two: %s", got)
		}
		// Checks passing already: merged at once (200).
		if got := r.schedule("bob", two); got != http.StatusOK {
			t.Fatalf("schedule of a pull request whose checks pass: %d, want 200 (merged now)", got)
		}
		if pr := r.pull(two); !pr.HasMerged || pr.MergedBy == nil || pr.MergedBy.UserName != "bob" {
			t.Fatalf("merged at once: %+v", pr)
		}

		// The scheduler cancels their own; the doer who lost write access
		// loses the schedule.
		three, _ := r.open("three")
		if got := r.schedule("carol", three); got != http.StatusCreated {
			t.Fatalf("schedule three: %d", got)
		}
		if resp := r.cancel("carol", three); resp.Status != http.StatusNoContent {
			t.Fatalf("cancel by the scheduler: %d %s", resp.Status, resp.Body)
		}
		if got := r.schedule("carol", three); got != http.StatusCreated {
			t.Fatalf("schedule three again: %d", got)
		}
		read := gitea.AccessModeRead
		if _, err := r.clients["alice"].AddCollaborator("alice", "proj", "carol", gitea.AddCollaboratorOption{Permission: &read}); err != nil {
			t.Fatal(err)
		}
		threeHead := strings.TrimSpace(gitCmd(t, r.aliceDir, "rev-parse", "three"))
		r.status(threeHead, "ci/build", "success")
		want := "pull_scheduled_merge,pull_cancel_scheduled_merge,pull_scheduled_merge,pull_cancel_scheduled_merge"
		for deadline := time.Now().Add(15 * time.Second); r.timeline(three) != want; {
			if time.Now().After(deadline) {
				t.Fatalf("timeline of three: %s, want %s", r.timeline(three), want)
			}
			time.Sleep(50 * time.Millisecond)
		}
		if pr := r.pull(three); pr.HasMerged {
			t.Fatal("merged as a doer without write access")
		}

		// Approvals: scheduled while none counts, merged by bob's approval.
		yes, one1 := false, int64(1)
		if _, _, err := r.clients["alice"].EditBranchProtection("alice", "proj", "main", gitea.EditBranchProtectionOption{
			EnableStatusCheck: &yes, RequiredApprovals: &one1}); err != nil {
			t.Fatal(err)
		}
		four, _ := r.open("four")
		if got := r.schedule("alice", four); got != http.StatusCreated {
			t.Fatalf("schedule four: %d", got)
		}
		if _, _, err := r.clients["bob"].CreatePullReview("alice", "proj", four, gitea.CreatePullReviewOptions{State: gitea.ReviewStateApproved}); err != nil {
			t.Fatal(err)
		}
		if pr := r.waitMerged(four); pr.MergedBy == nil || pr.MergedBy.UserName != "alice" {
			t.Fatalf("four merged by %+v, want alice", pr.MergedBy)
		}
	})
}

// TestPullAutoMergeTwoProcesses: two processes told at once that the
// checks of a scheduled merge pass (a status through each) merge it once:
// one merge commit on the base, one merge event.
func TestPullAutoMergeTwoProcesses(t *testing.T) {
	t.Parallel()
	eachBackend(t, nil, func(t *testing.T, s *testServer) {
		r := newAutoMergeRepo(t, s)
		one, head := r.open("one")
		if _, _, err := r.clients["alice"].CreateBranchProtection("alice", "proj", gitea.CreateBranchProtectionOption{RuleName: "main",
			EnableStatusCheck: true, StatusCheckContexts: []string{"ci/*"}}); err != nil {
			t.Fatal(err)
		}
		if got := r.schedule("bob", one); got != http.StatusCreated {
			t.Fatalf("schedule: %d", got)
		}
		peer := startPeer(t, s)
		done := make(chan response, 2)
		for i, srv := range []*testServer{s, peer} {
			go func() {
				done <- srv.do("POST", "/api/v1/repos/alice/proj/statuses/"+head, fmt.Sprintf(`{"context":"ci/%d","state":"success"}`, i),
					"Authorization", "token "+r.tokens["alice"], "Content-Type", jsonCT)
			}()
		}
		for range 2 {
			if resp := <-done; resp.Status != http.StatusCreated {
				t.Fatalf("status: %d %s", resp.Status, resp.Body)
			}
		}
		r.waitMerged(one)
		time.Sleep(500 * time.Millisecond) // room for a second merge, were there one
		gitCmd(t, r.aliceDir, "fetch", "-q", "origin")
		if merges := strings.Fields(gitCmd(t, r.aliceDir, "log", "--merges", "--format=%H", "origin/main")); len(merges) != 1 {
			t.Fatalf("merge commits on main: %v, want one", merges)
		}
		if got := r.timeline(one); got != "pull_scheduled_merge,merge_pull" {
			t.Fatalf("timeline: %s", got)
		}
	})
}
