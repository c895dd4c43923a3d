package store_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"forge/services/store"
	"forge/services/store/storetest"
)

// TestSweepPullHeads: of the numbers of a repository's pull request refs,
// those of no pull request (a plain issue's, one never taken) are the
// strays; a repository with none gets no call.
func TestSweepPullHeads(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		repo := newRepo(t, s, "sweeping")
		n := &store.NewPullRequest{
			NewIssue: store.NewIssue{Issue: store.Issue{RepoID: repo.ID, PosterID: repo.OwnerID, Title: "pr"}},
			Pull:     store.PullRequest{HeadRepoID: repo.ID, HeadBranch: "feature", BaseBranch: "main", HeadSHA: strings.Repeat("1", 40)},
		}
		if err := s.CreatePullRequest(ctx, n, func(int64) error { return nil }); err != nil {
			t.Fatal(err)
		}
		plain := &store.NewIssue{Issue: store.Issue{RepoID: repo.ID, PosterID: repo.OwnerID, Title: "plain"}}
		if err := s.CreateIssue(ctx, plain); err != nil {
			t.Fatal(err)
		}
		var got []int64
		err := s.SweepPullHeads(ctx, repo.ID, []int64{n.Issue.Index, plain.Issue.Index, 40}, func(stray []int64) error {
			got = stray
			return nil
		})
		if err != nil || !slices.Equal(got, []int64{plain.Issue.Index, 40}) {
			t.Fatalf("strays %v %v", got, err)
		}
		called := false
		if err := s.SweepPullHeads(ctx, repo.ID, []int64{n.Issue.Index}, func([]int64) error { called = true; return nil }); err != nil || called {
			t.Fatalf("no strays: called %v, %v", called, err)
		}
		if list, err := s.RepositoriesAfter(ctx, 0, 10); err != nil || len(list) == 0 || list[len(list)-1].ID != repo.ID {
			t.Fatalf("repositories %v %v", list, err)
		}
		// The next issue still gets the next number.
		next := &store.NewIssue{Issue: store.Issue{RepoID: repo.ID, PosterID: repo.OwnerID, Title: "next"}}
		if err := s.CreateIssue(ctx, next); err != nil || next.Issue.Index != plain.Issue.Index+1 {
			t.Fatalf("next issue %d %v", next.Issue.Index, err)
		}
	})
}
