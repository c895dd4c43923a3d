package store_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"forge/services/store"
	"forge/services/store/storetest"
)

// TestMarkPullRequestMergedAfterPush: a merge API call records its merger
// even when the refresher got there first and marked the pull request
// merged by a push of the same commit (merger unknown), since the merge's
// own base move is what the refresher saw; any other second merge is
// ErrPullRequestMerged and changes nothing.
func TestMarkPullRequestMergedAfterPush(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		repo := newRepo(t, s, "merging")
		n := &store.NewPullRequest{
			NewIssue: store.NewIssue{Issue: store.Issue{RepoID: repo.ID, PosterID: repo.OwnerID, Title: "pr"}},
			Pull:     store.PullRequest{HeadRepoID: repo.ID, HeadBranch: "feature", BaseBranch: "main", HeadSHA: strings.Repeat("1", 40)},
		}
		if err := s.CreatePullRequest(ctx, n, func(int64) error { return nil }); err != nil {
			t.Fatal(err)
		}
		merge := store.PullMerge{PullID: n.Pull.ID, IssueID: n.Issue.ID, RepoID: repo.ID, MergedSHA: strings.Repeat("2", 40), HeadSHA: n.Pull.HeadSHA}
		// The refresher: merged by a push, merger unknown.
		if err := s.MarkPullRequestMerged(ctx, merge); err != nil {
			t.Fatal(err)
		}
		// The merge that made that push: its merger is recorded.
		byAPI := merge
		byAPI.MergerID = repo.OwnerID
		if err := s.MarkPullRequestMerged(ctx, byAPI); err != nil {
			t.Fatalf("the merger after the refresher: %v", err)
		}
		pr, is, err := s.PullRequestByIndex(ctx, repo.ID, n.Issue.Index)
		if err != nil || !pr.HasMerged || pr.MergerID != repo.OwnerID || !is.IsClosed {
			t.Fatalf("after both: %+v %+v %v", pr, is, err)
		}
		if r, err := s.RepositoryByID(ctx, repo.ID); err != nil || r.NumPulls != 1 || r.NumClosedPulls != 1 {
			t.Fatalf("pull counters %+v %v, want the pull request closed once", r, err)
		}
		// A merger again, or another commit: merged already.
		if err := s.MarkPullRequestMerged(ctx, byAPI); !errors.Is(err, store.ErrPullRequestMerged) {
			t.Fatalf("second merger: %v", err)
		}
		other := merge
		other.MergedSHA = strings.Repeat("3", 40)
		if err := s.MarkPullRequestMerged(ctx, other); !errors.Is(err, store.ErrPullRequestMerged) {
			t.Fatalf("another commit: %v", err)
		}
	})
}
