package store_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"forge/services/store"
	"forge/services/store/storetest"
)

// TestScheduledMerges: one schedule per pull request, with its timeline
// events; a claim keeps other processes away until it expires or is
// released; the merge recorded deletes the schedule; cancelling one that
// is gone is ErrNotFound.
func TestScheduledMerges(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		repo := newRepo(t, s, "scheduling")
		n := &store.NewPullRequest{
			NewIssue: store.NewIssue{Issue: store.Issue{RepoID: repo.ID, PosterID: repo.OwnerID, Title: "pr"}},
			Pull:     store.PullRequest{HeadRepoID: repo.ID, HeadBranch: "feature", BaseBranch: "main", HeadSHA: strings.Repeat("1", 40)},
		}
		if err := s.CreatePullRequest(ctx, n, func(int64) error { return nil }); err != nil {
			t.Fatal(err)
		}
		a := &store.AutoMerge{PullID: n.Pull.ID, RepoID: repo.ID, DoerID: repo.OwnerID, MergeStyle: "merge", Title: "t"}
		if err := s.ScheduleAutoMerge(ctx, a, n.Issue.ID); err != nil {
			t.Fatal(err)
		}
		again := *a
		if err := s.ScheduleAutoMerge(ctx, &again, n.Issue.ID); !errors.Is(err, store.ErrAutoMergeScheduled) {
			t.Fatalf("second schedule: %v", err)
		}
		list, err := s.ScheduledMergesOfRepo(ctx, repo.ID)
		if err != nil || len(list) != 1 || list[0].Index != n.Issue.Index || list[0].IssueID != n.Issue.ID || list[0].MergeStyle != "merge" {
			t.Fatalf("scheduled: %+v %v", list, err)
		}
		if ids, err := s.ReposWithScheduledMerges(ctx); err != nil || len(ids) != 1 || ids[0] != repo.ID {
			t.Fatalf("repositories: %v %v", ids, err)
		}
		until := time.Now().Add(time.Minute).Unix()
		if ok, err := s.ClaimAutoMerge(ctx, a.ID, until); err != nil || !ok {
			t.Fatalf("claim: %v %v", ok, err)
		}
		if ok, err := s.ClaimAutoMerge(ctx, a.ID, until); err != nil || ok {
			t.Fatalf("second claim: %v %v", ok, err)
		}
		if list, _ := s.ScheduledMergesOfRepo(ctx, repo.ID); len(list) != 0 {
			t.Fatalf("a claimed merge is listed: %+v", list)
		}
		if err := s.ReleaseAutoMerge(ctx, a.ID); err != nil {
			t.Fatal(err)
		}
		if ok, err := s.ClaimAutoMerge(ctx, a.ID, until); err != nil || !ok {
			t.Fatalf("claim after release: %v %v", ok, err)
		}
		// Cancel and schedule again: two events each way.
		if err := s.CancelAutoMerge(ctx, n.Pull.ID, n.Issue.ID, repo.OwnerID); err != nil {
			t.Fatal(err)
		}
		if err := s.CancelAutoMerge(ctx, n.Pull.ID, n.Issue.ID, repo.OwnerID); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("second cancel: %v", err)
		}
		if err := s.ScheduleAutoMerge(ctx, a, n.Issue.ID); err != nil {
			t.Fatal(err)
		}
		events, _, err := s.ListTimeline(ctx, store.TimelineOptions{IssueID: n.Issue.ID, Limit: 50})
		if err != nil {
			t.Fatal(err)
		}
		var types []int
		for _, c := range events {
			types = append(types, c.Type)
		}
		if len(types) != 3 || types[0] != store.CommentTypeScheduledMerge || types[1] != store.CommentTypeCancelScheduledMerge || types[2] != store.CommentTypeScheduledMerge {
			t.Fatalf("timeline types %v", types)
		}
		// The merge uses the schedule up.
		if err := s.MarkPullRequestMerged(ctx, store.PullMerge{PullID: n.Pull.ID, IssueID: n.Issue.ID, RepoID: repo.ID,
			MergerID: repo.OwnerID, MergedSHA: strings.Repeat("2", 40), HeadSHA: n.Pull.HeadSHA}); err != nil {
			t.Fatal(err)
		}
		if _, err := s.AutoMergeOfPull(ctx, n.Pull.ID); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("schedule after the merge: %v", err)
		}
	})
}
