package app_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"code.gitea.io/sdk/gitea"
)

// TestPullReviewsSDK drives reviews through the Gitea SDK: a review
// request shows in the pull request's requested_reviewers and is answered
// by the reviewer's review; a writer's approval is official, a reader's
// is not; the poster may not approve their own pull request; a pending
// review with a line comment is seen by its author alone until
// submitted, and its comment keeps its path, position and hunk; a
// repository administrator dismisses and undismisses; the reviewer
// deletes; a push to the head makes earlier reviews stale.
func TestPullReviewsSDK(t *testing.T) {
	t.Parallel()
	eachBackend(t, nil, func(t *testing.T, s *testServer) {
		aliceTok := s.seedUser("alice", "alice-password", false)
		writerTok := s.seedUser("writer", "writer-password", false)
		readerTok := s.seedUser("reader", "reader-password", false)
		alice := s.sdk(gitea.SetToken(aliceTok))
		writer := s.sdk(gitea.SetToken(writerTok))
		reader := s.sdk(gitea.SetToken(readerTok))
		s.createRepo(t, aliceTok, "proj", true, false)
		for name, mode := range map[string]gitea.AccessMode{"writer": gitea.AccessModeWrite, "reader": gitea.AccessModeRead} {
			if _, err := alice.AddCollaborator("alice", "proj", name, gitea.AddCollaboratorOption{Permission: &mode}); err != nil {
				t.Fatal(err)
			}
		}
		work := s.clone(t, "alice", "alice-password", "alice", "proj")
		gitCmd(t, work, "checkout", "-q", "-b", "feature")
		commitFile(t, work, "a.txt", "one\ntwo\nthree\n", "first")
		gitCmd(t, work, "push", "-q", "origin", "feature")
		head := strings.TrimSpace(gitCmd(t, work, "rev-parse", "feature"))
		if _, _, err := alice.CreatePullRequest("alice", "proj", gitea.CreatePullRequestOption{Head: "feature", Base: "main", Title: "Feature"}); err != nil {
			t.Fatal(err)
		}

		// Review requests.
		if resp, err := alice.CreateReviewRequests("alice", "proj", 1, gitea.PullReviewRequestOptions{Reviewers: []string{"writer", "reader"}}); err != nil || resp.StatusCode != http.StatusCreated {
			t.Fatalf("CreateReviewRequests: %v %v", resp, err)
		}
		requested := func(want ...string) {
			t.Helper()
			pr, _, err := reader.GetPullRequest("alice", "proj", 1)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, u := range pr.RequestedReviewers {
				got = append(got, u.UserName)
			}
			if strings.Join(got, ",") != strings.Join(want, ",") {
				t.Fatalf("requested_reviewers %v, want %v", got, want)
			}
		}
		requested("writer", "reader")
		if _, err := alice.CreateReviewRequests("alice", "proj", 1, gitea.PullReviewRequestOptions{Reviewers: []string{"alice"}}); err == nil {
			t.Fatal("the poster asked to review their own pull request")
		}
		if _, err := alice.DeleteReviewRequests("alice", "proj", 1, gitea.PullReviewRequestOptions{Reviewers: []string{"reader"}}); err != nil {
			t.Fatal(err)
		}
		requested("writer")
		if reviewers, _, err := s.sdkReviewers(t, aliceTok); err != nil || !strings.Contains(reviewers, `"login":"writer"`) || !strings.Contains(reviewers, `"login":"reader"`) {
			t.Fatalf("GET /reviewers: %s %v", reviewers, err)
		}

		// Verdicts.
		if _, resp, err := alice.CreatePullReview("alice", "proj", 1, gitea.CreatePullReviewOptions{State: gitea.ReviewStateApproved}); err == nil || resp.StatusCode != 422 ||
			!strings.Contains(err.Error(), "approve your own pull is not allowed") {
			t.Fatalf("approving one's own pull request: %v %v", resp, err)
		}
		approval, resp, err := writer.CreatePullReview("alice", "proj", 1, gitea.CreatePullReviewOptions{State: gitea.ReviewStateApproved, Body: "lgtm"})
		if err != nil || resp.StatusCode != http.StatusOK || approval.State != gitea.ReviewStateApproved || !approval.Official || approval.Stale ||
			approval.CommitID != head || approval.Reviewer == nil || approval.Reviewer.UserName != "writer" || approval.HTMLPullURL != s.URL+"/alice/proj/pulls/1" {
			t.Fatalf("writer's approval: %+v %v %v", approval, resp, err)
		}
		requested() // answered
		readerOK, _, err := reader.CreatePullReview("alice", "proj", 1, gitea.CreatePullReviewOptions{State: gitea.ReviewStateApproved})
		if err != nil || readerOK.Official {
			t.Fatalf("reader's approval: %+v %v", readerOK, err)
		}
		if _, resp, err := reader.CreatePullReview("alice", "proj", 1, gitea.CreatePullReviewOptions{State: gitea.ReviewStateRequestChanges, Comments: []gitea.CreatePullReviewComment{{Path: "a.txt", Body: "x", NewLineNum: 1}}}); err == nil || resp.StatusCode != 422 ||
			!strings.Contains(err.Error(), "review event REQUEST_CHANGES requires a body") {
			t.Fatalf("request changes without a body: %v %v", resp, err)
		}

		// A pending review with a line comment, seen by its author alone.
		pending, _, err := reader.CreatePullReview("alice", "proj", 1, gitea.CreatePullReviewOptions{State: gitea.ReviewStatePending, Body: "draft",
			Comments: []gitea.CreatePullReviewComment{{Path: "a.txt", Body: "why two?", NewLineNum: 2}}})
		if err != nil || pending.State != gitea.ReviewStatePending || pending.CodeCommentsCount != 1 {
			t.Fatalf("pending review: %+v %v", pending, err)
		}
		if _, resp, err := writer.GetPullReview("alice", "proj", 1, pending.ID); err == nil || resp.StatusCode != 404 {
			t.Fatalf("another's pending review: %v %v", resp, err)
		}
		if list, _, err := writer.ListPullReviews("alice", "proj", 1, gitea.ListPullReviewsOptions{}); err != nil || len(list) != 2 {
			t.Fatalf("writer's list: %d %v", len(list), err)
		}
		if list, _, err := reader.ListPullReviews("alice", "proj", 1, gitea.ListPullReviewsOptions{}); err != nil || len(list) != 3 {
			t.Fatalf("reader's list: %d %v", len(list), err)
		}
		comments, _, err := reader.ListPullReviewComments("alice", "proj", 1, pending.ID)
		if err != nil || len(comments) != 1 || comments[0].Path != "a.txt" || comments[0].LineNum != 2 || comments[0].OldLineNum != 0 ||
			comments[0].CommitID != head || !strings.HasSuffix(comments[0].DiffHunk, "+one\n+two") || !strings.Contains(comments[0].DiffHunk, "@@ -0,0 +1,3 @@") {
			t.Fatalf("line comments: %+v %v", comments, err)
		}
		// The SDK refuses a pending submission itself: raw HTTP.
		stay := s.do("POST", fmt.Sprintf("/api/v1/repos/alice/proj/pulls/1/reviews/%d", pending.ID), `{"event":"PENDING","body":"x"}`,
			"Authorization", "token "+readerTok, "Content-Type", "application/json")
		if stay.Status != 422 || !strings.Contains(string(stay.Body), "review stay pending") {
			t.Fatalf("submitting as pending: %d %s", stay.Status, stay.Body)
		}
		submitted, _, err := reader.SubmitPullReview("alice", "proj", 1, pending.ID, gitea.SubmitPullReviewOptions{State: gitea.ReviewStateComment, Body: "done"})
		if err != nil || submitted.State != gitea.ReviewStateComment || submitted.Official {
			t.Fatalf("submitted: %+v %v", submitted, err)
		}
		if _, resp, err := reader.SubmitPullReview("alice", "proj", 1, pending.ID, gitea.SubmitPullReviewOptions{State: gitea.ReviewStateComment, Body: "again"}); err == nil || resp.StatusCode != 422 ||
			!strings.Contains(err.Error(), "only a pending review can be submitted") {
			t.Fatalf("submitting twice: %v %v", resp, err)
		}
		if got, _, err := writer.GetPullReview("alice", "proj", 1, pending.ID); err != nil || got.Body != "done" {
			t.Fatalf("the submitted review, seen by others: %+v %v", got, err)
		}

		// Dismissal: repository administrators.
		if resp, err := writer.DismissPullReview("alice", "proj", 1, approval.ID, gitea.DismissPullReviewOptions{Message: "no"}); err == nil || resp.StatusCode != 403 {
			t.Fatalf("a writer dismissing: %v %v", resp, err)
		}
		if _, err := alice.DismissPullReview("alice", "proj", 1, approval.ID, gitea.DismissPullReviewOptions{Message: "old"}); err != nil {
			t.Fatal(err)
		}
		if got, _, err := reader.GetPullReview("alice", "proj", 1, approval.ID); err != nil || !got.Dismissed || got.State != gitea.ReviewStateApproved {
			t.Fatalf("dismissed: %+v %v", got, err)
		}
		if _, err := alice.UnDismissPullReview("alice", "proj", 1, approval.ID); err != nil {
			t.Fatal(err)
		}
		if got, _, err := reader.GetPullReview("alice", "proj", 1, approval.ID); err != nil || got.Dismissed {
			t.Fatalf("undismissed: %+v %v", got, err)
		}

		// Deleting: the reviewer, not others.
		if resp, err := writer.DeletePullReview("alice", "proj", 1, readerOK.ID); err == nil || resp.StatusCode != 403 {
			t.Fatalf("deleting another's review: %v %v", resp, err)
		}
		if _, err := reader.DeletePullReview("alice", "proj", 1, readerOK.ID); err != nil {
			t.Fatal(err)
		}
		if _, resp, err := reader.GetPullReview("alice", "proj", 1, readerOK.ID); err == nil || resp.StatusCode != 404 {
			t.Fatalf("a deleted review: %v %v", resp, err)
		}

		// A push to the head: the approval is stale, with nothing run.
		commitFile(t, work, "b.txt", "more\n", "second")
		gitCmd(t, work, "push", "-q", "origin", "feature")
		waitFor(t, 20*time.Second, "the approval to go stale", func() bool {
			got, _, err := reader.GetPullReview("alice", "proj", 1, approval.ID)
			return err == nil && got.Stale
		})
		fresh, _, err := writer.CreatePullReview("alice", "proj", 1, gitea.CreatePullReviewOptions{State: gitea.ReviewStateApproved})
		if err != nil || fresh.Stale || !fresh.Official {
			t.Fatalf("a new approval: %+v %v", fresh, err)
		}
	})
}

// sdkReviewers reads GET /repos/alice/proj/reviewers (the SDK has no call).
func (s *testServer) sdkReviewers(t *testing.T, token string) (string, int, error) {
	t.Helper()
	resp := s.do("GET", "/api/v1/repos/alice/proj/reviewers", "", "Authorization", "token "+token)
	return string(resp.Body), resp.Status, nil
}
