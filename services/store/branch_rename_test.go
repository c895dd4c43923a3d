package store_test

import (
	"context"
	"testing"

	"forge/services/store"
	"forge/services/store/storetest"
)

// RenameBranchReferences renames the default branch, the rule named after
// the branch (not a pattern rule) and the open pull requests from and
// into it, and leaves other branches' pull requests alone.
func TestRenameBranchReferences(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		repo := newRepo(t, s, "r")
		into := openPull(t, s, repo, "topic", "main")
		from := openPull(t, s, repo, "main", "release")
		other := openPull(t, s, repo, "topic", "release")
		for _, name := range []string{"main", "ma*"} {
			if err := s.CreateBranchProtection(ctx, &store.BranchProtection{RepoID: repo.ID, RuleName: name}); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.RenameBranchReferences(ctx, store.BranchRename{RepoID: repo.ID, From: "main", To: "trunk"}); err != nil {
			t.Fatal(err)
		}
		r, err := s.RepositoryByID(ctx, repo.ID)
		if err != nil || r.DefaultBranch != "trunk" {
			t.Fatalf("default branch %q %v", r.DefaultBranch, err)
		}
		rules, err := s.BranchProtections(ctx, repo.ID)
		if err != nil || len(rules) != 2 {
			t.Fatal(rules, err)
		}
		names := map[string]bool{}
		for _, p := range rules {
			names[p.RuleName] = true
		}
		if !names["trunk"] || !names["ma*"] {
			t.Fatalf("rules %v", names)
		}
		check := func(n *store.NewPullRequest, head, base string) {
			t.Helper()
			pr, _, err := s.PullRequestByIndex(ctx, repo.ID, n.Issue.Index)
			if err != nil || pr.HeadBranch != head || pr.BaseBranch != base {
				t.Fatalf("pull %d: %s into %s (%v), want %s into %s", n.Issue.Index, pr.HeadBranch, pr.BaseBranch, err, head, base)
			}
		}
		check(into, "topic", "trunk")
		check(from, "trunk", "release")
		check(other, "topic", "release")
	})
}
