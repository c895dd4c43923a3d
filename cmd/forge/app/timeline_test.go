package app_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"code.gitea.io/sdk/gitea"
)

// timelineItem is what the tests read of Gitea's TimelineComment (raw
// HTTP: the SDK's TimelineComment decodes "label" as a list, where Gitea
// answers an object).
type timelineItem struct {
	ID              int64                   `json:"id"`
	Type            string                  `json:"type"`
	Body            string                  `json:"body"`
	HTMLURL         string                  `json:"html_url"`
	PRURL           string                  `json:"pull_request_url"`
	User            *struct{ Login string } `json:"user"`
	Label           *struct{ Name string }  `json:"label"`
	Assignee        *struct{ Login string } `json:"assignee"`
	RemovedAssignee bool                    `json:"removed_assignee"`
	OldTitle        string                  `json:"old_title"`
	NewTitle        string                  `json:"new_title"`
	OldRef          string                  `json:"old_ref"`
	NewRef          string                  `json:"new_ref"`
	ReviewID        int64                   `json:"review_id"`
	RefCommitSHA    string                  `json:"ref_commit_sha"`
	RefAction       string                  `json:"ref_action"`
}

func (s *testServer) timeline(t *testing.T, token, path string) ([]timelineItem, response) {
	t.Helper()
	r := s.do("GET", path, "", "Authorization", "token "+token)
	if r.Status != http.StatusOK {
		t.Fatalf("GET %s: %d %s", path, r.Status, r.Body)
	}
	var out []timelineItem
	r.json(t, &out)
	return out, r
}

func timelineTypes(items []timelineItem) string {
	var ts []string
	for _, it := range items {
		ts = append(ts, it.Type)
	}
	return strings.Join(ts, ",")
}

// TestIssueTimeline drives real changes (comment, close, reopen, label
// on and off, assign and unassign, retitle; on a pull request a change
// of base, a review, its dismissal and the merge) and reads them back from the timeline in
// order with Gitea's type names and fields, paged; the plain comment
// endpoints and the issue's comment count still see the one comment.
func TestIssueTimeline(t *testing.T) {
	t.Parallel()
	eachBackend(t, nil, func(t *testing.T, s *testServer) {
		aliceTok := s.seedUser("alice", "alice-password", false)
		writerTok := s.seedUser("writer", "writer-password", false)
		alice := s.sdk(gitea.SetToken(aliceTok))
		writer := s.sdk(gitea.SetToken(writerTok))
		s.createRepo(t, aliceTok, "proj", true, false)
		mode := gitea.AccessModeWrite
		if _, err := alice.AddCollaborator("alice", "proj", "writer", gitea.AddCollaboratorOption{Permission: &mode}); err != nil {
			t.Fatal(err)
		}
		bug, _, err := alice.CreateLabel("alice", "proj", gitea.CreateLabelOption{Name: "bug", Color: "#ff0000"})
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := alice.CreateIssue("alice", "proj", gitea.CreateIssueOption{Title: "First"}); err != nil {
			t.Fatal(err)
		}
		if _, _, err := writer.CreateIssueComment("alice", "proj", 1, gitea.CreateIssueCommentOption{Body: "hello"}); err != nil {
			t.Fatal(err)
		}
		closed, reopened := gitea.StateClosed, gitea.StateOpen
		if _, _, err := writer.EditIssue("alice", "proj", 1, gitea.EditIssueOption{State: &closed}); err != nil {
			t.Fatal(err)
		}
		if _, _, err := writer.EditIssue("alice", "proj", 1, gitea.EditIssueOption{State: &reopened}); err != nil {
			t.Fatal(err)
		}
		if _, _, err := alice.AddIssueLabels("alice", "proj", 1, gitea.IssueLabelsOption{Labels: []int64{bug.ID}}); err != nil {
			t.Fatal(err)
		}
		if _, err := alice.DeleteIssueLabel("alice", "proj", 1, bug.ID); err != nil {
			t.Fatal(err)
		}
		if _, _, err := alice.EditIssue("alice", "proj", 1, gitea.EditIssueOption{Assignees: []string{"writer"}}); err != nil {
			t.Fatal(err)
		}
		// An empty assignee removes them all (the SDK leaves it out: raw HTTP).
		if r := s.do("PATCH", "/api/v1/repos/alice/proj/issues/1", `{"assignee":""}`,
			"Authorization", "token "+aliceTok, "Content-Type", "application/json"); r.Status != http.StatusCreated {
			t.Fatalf("unassign: %d %s", r.Status, r.Body)
		}
		if _, _, err := alice.EditIssue("alice", "proj", 1, gitea.EditIssueOption{Title: "Second"}); err != nil {
			t.Fatal(err)
		}

		items, r := s.timeline(t, aliceTok, "/api/v1/repos/alice/proj/issues/1/timeline")
		want := "comment,close,reopen,label,label,assignees,assignees,change_title"
		if got := timelineTypes(items); got != want {
			t.Fatalf("timeline types %s, want %s", got, want)
		}
		if r.Header.Get("X-Total-Count") != "8" {
			t.Fatalf("X-Total-Count %q", r.Header.Get("X-Total-Count"))
		}
		who := func(i int) string {
			if items[i].User == nil {
				return ""
			}
			return items[i].User.Login
		}
		if items[0].Body != "hello" || who(0) != "writer" || who(1) != "writer" || who(2) != "writer" || items[0].RefAction != "none" {
			t.Fatalf("comment and state events: %+v", items[:3])
		}
		if items[1].HTMLURL != fmt.Sprintf("%s/alice/proj/issues/1#issuecomment-%d", s.URL, items[1].ID) || items[1].PRURL != "" {
			t.Fatalf("links: %+v", items[1])
		}
		if items[3].Label == nil || items[3].Label.Name != "bug" || items[3].Body != "1" || who(3) != "alice" ||
			items[4].Label == nil || items[4].Label.Name != "bug" || items[4].Body != "" {
			t.Fatalf("label events: %+v", items[3:5])
		}
		if items[5].Assignee == nil || items[5].Assignee.Login != "writer" || items[5].RemovedAssignee ||
			items[6].Assignee == nil || items[6].Assignee.Login != "writer" || !items[6].RemovedAssignee {
			t.Fatalf("assignee events: %+v", items[5:7])
		}
		if items[7].OldTitle != "First" || items[7].NewTitle != "Second" {
			t.Fatalf("title event: %+v", items[7])
		}
		// Paged as Gitea's lists.
		page, r := s.timeline(t, aliceTok, "/api/v1/repos/alice/proj/issues/1/timeline?page=2&limit=3")
		if got := timelineTypes(page); got != "label,label,assignees" || r.Header.Get("X-Total-Count") != "8" ||
			!strings.Contains(r.Header.Get("Link"), `rel="next"`) {
			t.Fatalf("page 2: %s %v", got, r.Header)
		}

		// Events are no comments: the comment endpoints and the count
		// see only the one comment.
		comments, _, err := alice.ListIssueComments("alice", "proj", 1, gitea.ListIssueCommentOptions{})
		if err != nil || len(comments) != 1 || comments[0].Body != "hello" {
			t.Fatalf("issue comments: %d %v", len(comments), err)
		}
		all, _, err := alice.ListRepoIssueComments("alice", "proj", gitea.ListIssueCommentOptions{})
		if err != nil || len(all) != 1 {
			t.Fatalf("repository comments: %d %v", len(all), err)
		}
		is, _, err := alice.GetIssue("alice", "proj", 1)
		if err != nil || is.Comments != 1 {
			t.Fatalf("issue comments count: %+v %v", is, err)
		}
		if _, resp, err := alice.GetIssueComment("alice", "proj", items[1].ID); err == nil || resp.StatusCode != 404 {
			t.Fatalf("an event read as a comment: %v %v", resp, err)
		}
		if resp, err := alice.DeleteIssueComment("alice", "proj", items[1].ID); err == nil || resp.StatusCode != 404 {
			t.Fatalf("an event deleted as a comment: %v %v", resp, err)
		}

		// A pull request: review, dismissal, merge.
		work := s.clone(t, "alice", "alice-password", "alice", "proj")
		gitCmd(t, work, "checkout", "-q", "-b", "feature")
		commitFile(t, work, "a.txt", "one\n", "first")
		gitCmd(t, work, "push", "-q", "origin", "feature")
		if _, _, err := alice.CreatePullRequest("alice", "proj", gitea.CreatePullRequestOption{Head: "feature", Base: "main", Title: "Feature"}); err != nil {
			t.Fatal(err)
		}
		gitCmd(t, work, "push", "-q", "origin", "main:next")
		if _, _, err := alice.EditPullRequest("alice", "proj", 2, gitea.EditPullRequestOption{Base: "next"}); err != nil {
			t.Fatal(err)
		}
		review, _, err := writer.CreatePullReview("alice", "proj", 2, gitea.CreatePullReviewOptions{State: gitea.ReviewStateApproved, Body: "lgtm"})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := alice.DismissPullReview("alice", "proj", 2, review.ID, gitea.DismissPullReviewOptions{Message: "stale"}); err != nil {
			t.Fatal(err)
		}
		if ok, _, err := alice.MergePullRequest("alice", "proj", 2, gitea.MergePullRequestOption{Style: gitea.MergeStyleMerge}); err != nil || !ok {
			t.Fatalf("merge: %v %v", ok, err)
		}
		pr, _, err := alice.GetPullRequest("alice", "proj", 2)
		if err != nil || pr.MergedCommitID == nil {
			t.Fatalf("merged pull request: %+v %v", pr, err)
		}
		items, _ = s.timeline(t, writerTok, "/api/v1/repos/alice/proj/issues/2/timeline")
		if got := timelineTypes(items); got != "change_target_branch,review,dismiss_review,merge_pull" {
			t.Fatalf("pull request timeline %s", got)
		}
		if retarget := items[0]; retarget.OldRef != "main" || retarget.NewRef != "next" || retarget.User == nil || retarget.User.Login != "alice" {
			t.Fatalf("retarget event: %+v", retarget)
		}
		items = items[1:]
		if items[0].ReviewID != review.ID || items[0].Body != "lgtm" || items[0].User == nil || items[0].User.Login != "writer" ||
			items[0].PRURL != s.URL+"/alice/proj/pulls/2" || !strings.Contains(items[0].HTMLURL, "/alice/proj/pulls/2#issuecomment-") {
			t.Fatalf("review event: %+v", items[0])
		}
		if items[1].ReviewID != review.ID || items[1].Body != "stale" || items[1].User == nil || items[1].User.Login != "alice" {
			t.Fatalf("dismissal event: %+v", items[1])
		}
		if items[2].RefCommitSHA != *pr.MergedCommitID || items[2].User == nil || items[2].User.Login != "alice" {
			t.Fatalf("merge event: %+v (merge commit %s)", items[2], *pr.MergedCommitID)
		}
		// The SDK reads a timeline without label events.
		sdkItems, _, err := writer.ListIssueTimeline("alice", "proj", 2, gitea.ListIssueCommentOptions{})
		if err != nil || len(sdkItems) != 4 || sdkItems[3].Type != "merge_pull" || sdkItems[1].Poster == nil || sdkItems[1].Poster.UserName != "writer" {
			t.Fatalf("SDK timeline: %+v %v", sdkItems, err)
		}
		prComments, _, err := alice.ListIssueComments("alice", "proj", 2, gitea.ListIssueCommentOptions{})
		if err != nil || len(prComments) != 0 {
			t.Fatalf("pull request comments: %d %v", len(prComments), err)
		}
	})
}
