package store_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"forge/services/store"
	"forge/services/store/storetest"
)

func openPull(t *testing.T, s *store.Store, repo *store.Repository, head, base string) *store.NewPullRequest {
	t.Helper()
	n := &store.NewPullRequest{
		NewIssue: store.NewIssue{Issue: store.Issue{RepoID: repo.ID, PosterID: repo.OwnerID, Title: head + " into " + base}},
		Pull:     store.PullRequest{HeadRepoID: repo.ID, HeadBranch: head, BaseBranch: base, HeadSHA: strings.Repeat("1", 40)},
	}
	if err := s.CreatePullRequest(context.Background(), n, func(int64) error { return nil }); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestReposWithOpenPullRequests: the start-up check lists each base
// repository with open pull requests once (it panicked in gorm as soon as
// there was one, so forge could not restart with open pull requests).
func TestReposWithOpenPullRequests(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		a, b := newRepo(t, s, "a"), newRepo(t, s, "b")
		openPull(t, s, a, "x", "main")
		openPull(t, s, a, "y", "main")
		openPull(t, s, b, "x", "main")
		ids, err := s.ReposWithOpenPullRequests(ctx)
		if err != nil || fmt.Sprint(ids) != fmt.Sprint([]int64{a.ID, b.ID}) {
			t.Fatalf("repositories %v %v, want %d and %d", ids, err, a.ID, b.ID)
		}
	})
}

// TestRetargetChildPullRequests: the open children of a branch move onto
// the new base with a change-target-branch comment each; one whose head is
// the new base, or that would duplicate an open pull request, stays.
func TestRetargetChildPullRequests(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		repo := newRepo(t, s, "stack")
		child := openPull(t, s, repo, "child", "parent")
		openPull(t, s, repo, "main", "parent")
		openPull(t, s, repo, "dup", "parent")
		openPull(t, s, repo, "dup", "main")
		moved, err := s.RetargetChildPullRequests(ctx, store.ChildRetarget{RepoID: repo.ID, From: "parent", To: "main", DoerID: repo.OwnerID})
		if err != nil || len(moved) != 1 || moved[0] != child.Pull.ID {
			t.Fatalf("moved %v %v, want only %d", moved, err, child.Pull.ID)
		}
		pr, _, err := s.PullRequestByIndex(ctx, repo.ID, child.Issue.Index)
		if err != nil || pr.BaseBranch != "main" || pr.BaseSHA != "" {
			t.Fatalf("child %+v %v", pr, err)
		}
		var comments []store.Comment
		if err := s.DB().Where("type = ?", store.CommentTypeChangeTargetBranch).Find(&comments).Error; err != nil {
			t.Fatal(err)
		}
		if len(comments) != 1 || comments[0].IssueID != child.Issue.ID || comments[0].OldRef != "parent" || comments[0].NewRef != "main" || comments[0].PosterID != repo.OwnerID {
			t.Fatalf("comments %+v", comments)
		}
	})
}

// TestClosePullRequestsOfGoneBranches closes the pull requests as read,
// once, moving the counters; one retargeted meanwhile stays open.
func TestClosePullRequestsOfGoneBranches(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		repo := newRepo(t, s, "gone")
		a := openPull(t, s, repo, "a", "topic")
		b := openPull(t, s, repo, "b", "topic")
		read := []store.PullRequest{a.Pull, b.Pull}
		if _, err := s.RetargetChildPullRequests(ctx, store.ChildRetarget{RepoID: repo.ID, From: "topic", To: "main", DoerID: repo.OwnerID}); err != nil {
			t.Fatal(err)
		}
		c := openPull(t, s, repo, "c", "topic")
		read = append(read, c.Pull)
		for i := 0; i < 2; i++ {
			n, err := s.ClosePullRequestsOfGoneBranches(ctx, read)
			if err != nil || n != 1-i {
				t.Fatalf("round %d: closed %d %v", i, n, err)
			}
		}
		for _, p := range []*store.NewPullRequest{a, b, c} {
			_, is, err := s.PullRequestByIndex(ctx, repo.ID, p.Issue.Index)
			if err != nil || is.IsClosed != (p == c) {
				t.Fatalf("%s: closed %v %v", p.Pull.HeadBranch, is.IsClosed, err)
			}
		}
		if r, err := s.RepositoryByID(ctx, repo.ID); err != nil || r.NumPulls != 3 || r.NumClosedPulls != 1 {
			t.Fatalf("counters %+v %v", r, err)
		}
	})
}
