package store_test

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"forge/services/store"
	"forge/services/store/storetest"
)

// TestOwnedTables: deletes refuse until the owned tables are declared
// (deleting the parent row alone would leave orphans), a misspelt
// declaration is refused, and a declared table's rows go with their
// repository.
func TestOwnedTables(t *testing.T) {
	ctx := context.Background()
	// A store opened by a program that forgot Own.
	bare, err := store.Open(storetest.Database(t, "sqlite3"))
	if err != nil {
		t.Fatal(err)
	}
	defer bare.Close()
	if err := bare.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	if err := bare.DeleteRepository(ctx, 1); err == nil || !strings.Contains(err.Error(), "not declared") {
		t.Fatalf("DeleteRepository without Own: %v", err)
	}
	if err := bare.DeleteUser(ctx, "nobody", nil); err == nil || !strings.Contains(err.Error(), "not declared") {
		t.Fatalf("DeleteUser without Own: %v", err)
	}
	for _, o := range []store.Owned{
		{Repository: []string{"releasez"}},
		{Repository: []string{"users"}}, // no repo_id
		{User: []store.OwnedColumn{{Table: "watches", Column: "uid"}}},
	} {
		if err := bare.Own(ctx, o); err == nil {
			t.Errorf("Own(%+v) accepted", o)
		}
	}

	storetest.Each(t, func(t *testing.T, declared *store.Store) {

		owner := newUser("owner", "owner@x.org", false)
		if err := declared.CreateUser(ctx, owner); err != nil {
			t.Fatal(err)
		}
		r := &store.Repository{OwnerID: owner.ID, OwnerName: owner.Name, Name: "r"}
		if err := declared.CreateRepository(ctx, r, owner.ID); err != nil {
			t.Fatal(err)
		}
		if err := declared.CreateRelease(ctx, &store.Release{RepoID: r.ID, TagName: "v1", LowerTagName: "v1"}); err != nil {
			t.Fatal(err)
		}
		if err := declared.DeleteRepository(ctx, r.ID); err != nil {
			t.Fatal(err)
		}
		if !slices.Contains(owned.Repository, "releases") {
			t.Fatalf("the areas' repository tables %v lack releases", owned.Repository)
		}
		for _, table := range owned.Repository {
			if n, err := declared.CountOwned(ctx, table, "repo_id", r.ID); err != nil || n != 0 {
				t.Errorf("%d rows of %s survived their repository (%v)", n, table, err)
			}
		}
	})
}

// TestDeletesTakeReferencesAlong: a deleted user is no longer assigned to
// any issue (issue_assignees.assignee_id is declared as the user's) while
// the issues they posted stay; a deleted repository takes with it the
// dependencies other repositories' issues had on its issues.
func TestDeletesTakeReferencesAlong(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		kept := depRepo(t, s, "kept", false)
		bob := newUser("bob", "bob@x.org", false)
		if err := s.CreateUser(ctx, bob); err != nil {
			t.Fatal(err)
		}
		n := &store.NewIssue{Issue: store.Issue{RepoID: kept.ID, PosterID: bob.ID, Title: "by bob"}, AssigneeIDs: []int64{bob.ID}}
		if err := s.CreateIssue(ctx, n); err != nil {
			t.Fatal(err)
		}
		if err := s.DeleteUser(ctx, "bob", nil); err != nil {
			t.Fatal(err)
		}
		if c, err := s.CountOwned(ctx, "issue_assignees", "assignee_id", bob.ID); err != nil || c != 0 {
			t.Errorf("%d assignments survived their user (%v)", c, err)
		}
		if c, err := s.CountOwned(ctx, "issues", "poster_id", bob.ID); err != nil || c != 1 {
			t.Errorf("the issue bob posted: %d (%v), want it kept", c, err)
		}

		doomed := depRepo(t, s, "doomed", false)
		blocker := newIssue(t, s, doomed, "blocker", false)
		inner := newIssue(t, s, doomed, "inner", false)
		dependent := newIssue(t, s, kept, "dependent", false)
		for _, d := range [][2]int64{{dependent.ID, blocker.ID}, {inner.ID, blocker.ID}} {
			if err := s.AddIssueDependency(ctx, d[0], d[1]); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.DeleteRepository(ctx, doomed.ID); err != nil {
			t.Fatal(err)
		}
		for _, col := range []string{"issue_id", "dependency_id"} {
			for _, id := range []int64{blocker.ID, inner.ID} {
				if c, err := s.CountOwned(ctx, "issue_dependencies", col, id); err != nil || c != 0 {
					t.Errorf("%d dependencies with %s %d survived its repository (%v)", c, col, id, err)
				}
			}
		}
		if c, err := s.CountOwned(ctx, "issue_dependencies", "issue_id", dependent.ID); err != nil || c != 0 {
			t.Errorf("the dependent issue still depends on %d deleted issues (%v)", c, err)
		}
	})
}

// TestRepositoryDeleteRacesDependencies: dependencies added on a
// repository's issues while it is being deleted (PostgreSQL: separate
// connections) do not outlive it.
func TestRepositoryDeleteRacesDependencies(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		kept := depRepo(t, s, "kept", false)
		for round := range 5 {
			doomed := depRepo(t, s, "doomed"+strconv.Itoa(round), false)
			var blockers, dependents []int64
			for i := range 8 {
				blockers = append(blockers, newIssue(t, s, doomed, "b"+strconv.Itoa(i), false).ID)
				dependents = append(dependents, newIssue(t, s, kept, "d"+strconv.Itoa(i), false).ID)
			}
			var wg sync.WaitGroup
			for i := range blockers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					// Refused with ErrNotFound when the delete came first.
					_ = s.AddIssueDependency(ctx, dependents[i], blockers[i])
				}()
			}
			if err := s.DeleteRepository(ctx, doomed.ID); err != nil {
				t.Fatal(err)
			}
			wg.Wait()
			for _, id := range blockers {
				if c, err := s.CountOwned(ctx, "issue_dependencies", "dependency_id", id); err != nil || c != 0 {
					t.Fatalf("round %d: a dependency on deleted issue %d survived (%d, %v)", round, id, c, err)
				}
			}
		}
	})
}
