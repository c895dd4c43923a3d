package app_test

import (
	"fmt"
	"strings"
	"testing"

	"code.gitea.io/sdk/gitea"
)

// TestPullMergedByPush: a pull request whose head reaches its base by a
// plain git push is marked merged with the pusher as its merger (merged_by,
// and the poster of the timeline's merge event), not merged by nobody.
func TestPullMergedByPush(t *testing.T) {
	t.Parallel()
	eachBackend(t, nil, func(t *testing.T, s *testServer) {
		alice, bob, aliceTok, _, aliceDir, bobDir := protectedRepoTokens(t, s)
		gitCmd(t, aliceDir, "checkout", "-q", "-b", "feature")
		commitFile(t, aliceDir, "feature.txt", "feature\n", "feature")
		gitCmd(t, aliceDir, "push", "-q", "origin", "feature")
		pr, _, err := alice.CreatePullRequest("alice", "proj", gitea.CreatePullRequestOption{Head: "feature", Base: "main", Title: "Feature"})
		if err != nil {
			t.Fatal(err)
		}
		head := strings.TrimSpace(gitCmd(t, aliceDir, "rev-parse", "feature"))

		// bob, a writer, lands the head on main with git.
		gitCmd(t, bobDir, "fetch", "-q", "origin")
		gitCmd(t, bobDir, "push", "-q", "origin", "origin/feature:refs/heads/main")
		// Waits for the closed state too: the pull request's GET reads its
		// issue and its pull row in two statements, so under load one
		// answer may straddle the merge's commit (merged, still open).
		got := waitPull(t, bob, "alice", "proj", pr.Index, "its head pushed to the base", func(pr *gitea.PullRequest) bool {
			return pr.HasMerged && pr.State == gitea.StateClosed
		})
		if got.State != gitea.StateClosed || got.MergedCommitID == nil || *got.MergedCommitID != head ||
			got.MergedBy == nil || got.MergedBy.UserName != "bob" {
			t.Fatalf("merged by a push: state %s commit %v merged_by %+v, want bob", got.State, got.MergedCommitID, got.MergedBy)
		}
		items, _ := s.timeline(t, aliceTok, fmt.Sprintf("/api/v1/repos/alice/proj/issues/%d/timeline", pr.Index))
		if len(items) != 1 || items[0].Type != "merge_pull" || items[0].User == nil || items[0].User.Login != "bob" {
			t.Fatalf("timeline: %+v", items)
		}
	})
}
