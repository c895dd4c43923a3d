package app_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"code.gitea.io/sdk/gitea"

	"forge/services/store"
)

// reviewedRepo is alice's proj with bob and carol writing and dave
// reading, alice's work tree, and a way to open a pull request from a new
// branch of main and to merge it over raw HTTP (the SDK drops the
// message of a refused merge).
type reviewedRepo struct {
	t                  *testing.T
	s                  *testServer
	alice, bob, carol  *gitea.Client
	dave               *gitea.Client
	aliceTok, aliceDir string
}

func newReviewedRepo(t *testing.T, s *testServer) *reviewedRepo {
	t.Helper()
	alice, bob, aliceTok, _, aliceDir, _ := protectedRepoTokens(t, s)
	r := &reviewedRepo{t: t, s: s, alice: alice, bob: bob, aliceTok: aliceTok, aliceDir: aliceDir}
	for name, mode := range map[string]gitea.AccessMode{"carol": gitea.AccessModeWrite, "dave": gitea.AccessModeRead} {
		tok := s.seedUser(name, name+"-password", false)
		if _, err := alice.AddCollaborator("alice", "proj", name, gitea.AddCollaboratorOption{Permission: &mode}); err != nil {
			t.Fatal(err)
		}
		if name == "carol" {
			r.carol = s.sdk(gitea.SetToken(tok))
		} else {
			r.dave = s.sdk(gitea.SetToken(tok))
		}
	}
	return r
}

func (r *reviewedRepo) open(branch string) int64 {
	r.t.Helper()
	gitCmd(r.t, r.aliceDir, "fetch", "-q", "origin")
	gitCmd(r.t, r.aliceDir, "checkout", "-q", "-B", branch, "origin/main")
	commitFile(r.t, r.aliceDir, branch+".txt", branch+"\n", "add "+branch)
	gitCmd(r.t, r.aliceDir, "push", "-q", "origin", branch)
	pr, _, err := r.alice.CreatePullRequest("alice", "proj", gitea.CreatePullRequestOption{Head: branch, Base: "main", Title: branch})
	if err != nil {
		r.t.Fatal(err)
	}
	return pr.Index
}

func (r *reviewedRepo) rule(o gitea.CreateBranchProtectionOption) {
	r.t.Helper()
	o.RuleName = "main"
	if _, _, err := r.alice.CreateBranchProtection("alice", "proj", o); err != nil {
		r.t.Fatal(err)
	}
}

func (r *reviewedRepo) review(c *gitea.Client, index int64, state gitea.ReviewStateType) *gitea.PullReview {
	r.t.Helper()
	rv, _, err := c.CreatePullReview("alice", "proj", index, gitea.CreatePullReviewOptions{State: state, Body: "because"})
	if err != nil {
		r.t.Fatal(err)
	}
	return rv
}

// merge merges as alice, retrying while the merge state is computed.
func (r *reviewedRepo) merge(index int64) response {
	r.t.Helper()
	for i := 0; ; i++ {
		resp := r.s.do("POST", fmt.Sprintf("/api/v1/repos/alice/proj/pulls/%d/merge", index), `{"Do":"merge"}`,
			"Authorization", "token "+r.aliceTok, "Content-Type", jsonCT)
		if resp.Status == http.StatusMethodNotAllowed && strings.Contains(string(resp.Body), "try again later") && i < 50 {
			time.Sleep(100 * time.Millisecond)
			continue
		}
		return resp
	}
}

func (r *reviewedRepo) refused(index int64, reason string) {
	r.t.Helper()
	want := "not allowed to merge [reason: " + reason + "]"
	if resp := r.merge(index); resp.Status != http.StatusMethodNotAllowed || !strings.Contains(string(resp.Body), want) {
		r.t.Fatalf("merge %d: %d %s, want 405 %q", index, resp.Status, resp.Body, want)
	}
}

func (r *reviewedRepo) merged(index int64) {
	r.t.Helper()
	if resp := r.merge(index); resp.Status != http.StatusOK {
		r.t.Fatalf("merge %d: %d %s, want 200", index, resp.Status, resp.Body)
	}
}

// TestProtectionApprovals: required_approvals counts the approvals of
// writers (not readers), only those of the approvals whitelist when the
// rule has one, and block_on_rejected_reviews refuses while a writer
// requests changes.
func TestProtectionApprovals(t *testing.T) {
	t.Parallel()
	eachBackend(t, nil, func(t *testing.T, s *testServer) {
		r := newReviewedRepo(t, s)
		pr1 := r.open("one")
		r.rule(gitea.CreateBranchProtectionOption{EnablePush: true, RequiredApprovals: 1})
		r.refused(pr1, "Does not have enough approvals")
		// A reader's approval is not official.
		if rv := r.review(r.dave, pr1, gitea.ReviewStateApproved); rv.Official {
			t.Fatalf("a reader's approval is official: %+v", rv)
		}
		r.refused(pr1, "Does not have enough approvals")
		if rv := r.review(r.bob, pr1, gitea.ReviewStateApproved); !rv.Official {
			t.Fatalf("a writer's approval is not official: %+v", rv)
		}
		r.merged(pr1)

		// The approvals whitelist: bob writes but is not in it.
		yes := true
		if _, _, err := r.alice.EditBranchProtection("alice", "proj", "main", gitea.EditBranchProtectionOption{
			EnableApprovalsWhitelist: &yes, ApprovalsWhitelistUsernames: []string{"carol"}}); err != nil {
			t.Fatal(err)
		}
		pr2 := r.open("two")
		if rv := r.review(r.bob, pr2, gitea.ReviewStateApproved); rv.Official {
			t.Fatalf("an approval from outside the whitelist is official: %+v", rv)
		}
		r.refused(pr2, "Does not have enough approvals")
		if rv := r.review(r.carol, pr2, gitea.ReviewStateApproved); !rv.Official {
			t.Fatalf("an approval from the whitelist is not official: %+v", rv)
		}
		r.merged(pr2)

		// block_on_rejected_reviews: carol's request for changes blocks
		// although bob approved, until carol approves.
		if _, _, err := r.alice.EditBranchProtection("alice", "proj", "main", gitea.EditBranchProtectionOption{
			EnableApprovalsWhitelist: new(bool), BlockOnRejectedReviews: &yes}); err != nil {
			t.Fatal(err)
		}
		pr3 := r.open("three")
		r.review(r.bob, pr3, gitea.ReviewStateApproved)
		r.review(r.carol, pr3, gitea.ReviewStateRequestChanges)
		r.refused(pr3, "There are requested changes")
		r.review(r.carol, pr3, gitea.ReviewStateApproved)
		r.merged(pr3)
	})
}

// TestProtectionOfficialReviewRequests: block_on_official_review_requests
// refuses the merge while a writer's review request is open, and not for
// a reader's.
func TestProtectionOfficialReviewRequests(t *testing.T) {
	t.Parallel()
	eachBackend(t, nil, func(t *testing.T, s *testServer) {
		r := newReviewedRepo(t, s)
		pr := r.open("one")
		yes := true
		r.rule(gitea.CreateBranchProtectionOption{EnablePush: true, BlockOnOfficialReviewRequests: yes})
		if _, err := r.alice.CreateReviewRequests("alice", "proj", pr, gitea.PullReviewRequestOptions{Reviewers: []string{"dave", "carol"}}); err != nil {
			t.Fatal(err)
		}
		r.refused(pr, "There are official review requests")
		// carol answers (a comment answers the request); dave's stays open
		// but is not official.
		r.review(r.carol, pr, gitea.ReviewStateComment)
		r.merged(pr)
	})
}

// pushHead adds a commit to branch and pushes it; it returns when git
// push does.
func (r *reviewedRepo) pushHead(branch string) {
	r.t.Helper()
	gitCmd(r.t, r.aliceDir, "checkout", "-q", branch)
	commitFile(r.t, r.aliceDir, branch+"-more.txt", "more\n", "more on "+branch)
	gitCmd(r.t, r.aliceDir, "push", "-q", "origin", branch)
}

// reviewWithin polls review id of a pull request for a second and
// returns it once ok holds (else fails).
func (r *reviewedRepo) reviewWithin(index, id int64, what string, ok func(*gitea.PullReview) bool) *gitea.PullReview {
	r.t.Helper()
	deadline := time.Now().Add(time.Second)
	for {
		rv, _, err := r.alice.GetPullReview("alice", "proj", index, id)
		if err != nil {
			r.t.Fatal(err)
		}
		if ok(rv) {
			return rv
		}
		if time.Now().After(deadline) {
			r.t.Fatalf("review %d not %s within a second of the push: %+v", id, what, rv)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestProtectionStaleApprovals: a push to the head makes the approvals
// stale; with dismiss_stale_approvals they are dismissed (visible within a
// second of git push, with a timeline comment) and no longer count; with
// ignore_stale_approvals they stay but do not count; a fresh approval
// lets the merge through.
func TestProtectionStaleApprovals(t *testing.T) {
	t.Parallel()
	eachBackend(t, nil, func(t *testing.T, s *testServer) {
		r := newReviewedRepo(t, s)
		yes := true
		r.rule(gitea.CreateBranchProtectionOption{EnablePush: true, RequiredApprovals: 1, DismissStaleApprovals: yes})

		pr1 := r.open("one")
		approval := r.review(r.bob, pr1, gitea.ReviewStateApproved)
		r.pushHead("one")
		rv := r.reviewWithin(pr1, approval.ID, "dismissed", func(rv *gitea.PullReview) bool { return rv.Dismissed })
		if rv.State != gitea.ReviewStateApproved || !rv.Stale {
			t.Fatalf("dismissed approval: state %q stale %v, want APPROVED and stale", rv.State, rv.Stale)
		}
		var comments []store.Comment
		if err := s.App.Store.DB().Where("type = ?", store.CommentTypeDismissReview).Find(&comments).Error; err != nil {
			t.Fatal(err)
		}
		if len(comments) != 1 || !strings.Contains(comments[0].Content, "dismissed automatically") {
			t.Fatalf("dismissal comments: %+v", comments)
		}
		r.refused(pr1, "Does not have enough approvals")
		r.review(r.bob, pr1, gitea.ReviewStateApproved)
		r.merged(pr1)

		// ignore_stale_approvals: the approval stays, is stale, does not
		// count.
		// (The SDK has no ignore_stale_approvals: raw HTTP.)
		s.rawJSON(t, r.aliceTok, "PATCH", "/api/v1/repos/alice/proj/branch_protections/main",
			`{"dismiss_stale_approvals":false,"ignore_stale_approvals":true}`)
		pr2 := r.open("two")
		approval = r.review(r.bob, pr2, gitea.ReviewStateApproved)
		r.pushHead("two")
		r.reviewWithin(pr2, approval.ID, "stale", func(rv *gitea.PullReview) bool { return rv.Stale })
		r.refused(pr2, "Does not have enough approvals")
		if rv, _, err := r.alice.GetPullReview("alice", "proj", pr2, approval.ID); err != nil || rv.Dismissed || rv.State != gitea.ReviewStateApproved {
			t.Fatalf("ignored stale approval: %+v %v, want kept and not dismissed", rv, err)
		}
		r.review(r.bob, pr2, gitea.ReviewStateApproved)
		r.merged(pr2)

		// Neither: a stale approval counts (Gitea's default).
		s.rawJSON(t, r.aliceTok, "PATCH", "/api/v1/repos/alice/proj/branch_protections/main", `{"ignore_stale_approvals":false}`)
		pr3 := r.open("three")
		approval = r.review(r.bob, pr3, gitea.ReviewStateApproved)
		r.pushHead("three")
		r.reviewWithin(pr3, approval.ID, "stale", func(rv *gitea.PullReview) bool { return rv.Stale })
		r.merged(pr3)
	})
}
