package store_test

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
	"testing"

	"forge/services/store"
	"forge/services/store/storetest"
)

func newRepo(t *testing.T, s *store.Store, name string) *store.Repository {
	t.Helper()
	owner := newUser("owner-"+name, name+"@x.org", false)
	if err := s.CreateUser(context.Background(), owner); err != nil {
		t.Fatal(err)
	}
	r := &store.Repository{OwnerID: owner.ID, OwnerName: owner.Name, Name: name, IsEmpty: true, DefaultBranch: "main"}
	if err := s.CreateRepository(context.Background(), r, owner.ID); err != nil {
		t.Fatal(err)
	}
	return r
}

func branchNames(t *testing.T, s *store.Store, repoID int64) []string {
	t.Helper()
	bs, total, err := s.ListBranches(context.Background(), repoID, 0, 1000)
	if err != nil || int(total) != len(bs) {
		t.Fatalf("ListBranches: %v total %d", err, total)
	}
	var out []string
	for _, b := range bs {
		out = append(out, b.Name+"@"+b.CommitID)
	}
	sort.Strings(out)
	return out
}

func TestSyncBranches(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		r := newRepo(t, s, "repo")
		gitState := []store.BranchUpdate{{Name: "main", CommitID: "a1"}, {Name: "dev", CommitID: "b1"}, {Name: "old", CommitID: "c1"}}
		allCalls := 0
		all := func(context.Context) ([]store.BranchUpdate, error) { allCalls++; return gitState, nil }

		// Zero records: a push of one branch records every branch.
		if err := s.SyncBranches(ctx, r.ID, 1, []store.BranchUpdate{{Name: "dev", CommitID: "b1"}}, all); err != nil {
			t.Fatal(err)
		}
		if got := fmt.Sprint(branchNames(t, s, r.ID)); got != "[dev@b1 main@a1 old@c1]" || allCalls != 1 {
			t.Fatalf("zero-records sync: %s (all called %d times)", got, allCalls)
		}
		if got, _ := s.RepositoryByID(ctx, r.ID); got.IsEmpty {
			t.Fatal("repository still empty after branches were recorded")
		}

		// With records: only the pushed branches change; all() is not used.
		err := s.SyncBranches(ctx, r.ID, 1, []store.BranchUpdate{
			{Name: "main", CommitID: "a2"}, {Name: "feature/x", CommitID: "d1"}, {Name: "old", Deleted: true},
		}, all)
		if err != nil {
			t.Fatal(err)
		}
		if got := fmt.Sprint(branchNames(t, s, r.ID)); got != "[dev@b1 feature/x@d1 main@a2]" || allCalls != 1 {
			t.Fatalf("incremental sync: %s (all called %d times)", got, allCalls)
		}

		// Deleting every branch makes the repository empty again.
		err = s.SyncBranches(ctx, r.ID, 1, []store.BranchUpdate{{Name: "main", Deleted: true}, {Name: "dev", Deleted: true}, {Name: "feature/x", Deleted: true}}, all)
		if err != nil {
			t.Fatal(err)
		}
		if got, _ := s.RepositoryByID(ctx, r.ID); !got.IsEmpty {
			t.Fatal("repository not empty after its last branch was deleted")
		}
		if _, err := s.BranchByName(ctx, r.ID, "main"); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("deleted branch: %v", err)
		}
	})
}

// TestSyncBranchesConcurrentPushes: pushes to one repository at the same
// time neither lose nor duplicate records.
func TestSyncBranchesConcurrentPushes(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		r := newRepo(t, s, "busy")
		var mu sync.Mutex
		git := map[string]string{"main": "m0"}
		all := func(context.Context) ([]store.BranchUpdate, error) {
			mu.Lock()
			defer mu.Unlock()
			var out []store.BranchUpdate
			for n, c := range git {
				out = append(out, store.BranchUpdate{Name: n, CommitID: c})
			}
			return out, nil
		}
		const pushes = 12
		var wg sync.WaitGroup
		errs := make(chan error, pushes)
		for i := 0; i < pushes; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				name := fmt.Sprintf("b%02d", i)
				mu.Lock()
				git[name] = "c" + name
				mu.Unlock()
				errs <- s.SyncBranches(ctx, r.ID, 1, []store.BranchUpdate{{Name: name, CommitID: "c" + name}}, all)
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Fatal(err)
			}
		}
		got := branchNames(t, s, r.ID)
		if len(got) != pushes+1 {
			t.Fatalf("%d records after %d concurrent pushes: %v", len(got), pushes, got)
		}
	})
}

func TestRepositories(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		r := newRepo(t, s, "Project")
		dup := &store.Repository{OwnerID: r.OwnerID, Name: "PROJECT"}
		if err := s.CreateRepository(ctx, dup, 0); !errors.Is(err, store.ErrRepoExists) {
			t.Fatalf("duplicate repository name: %v", err)
		}
		got, err := s.RepositoryByName(ctx, r.OwnerID, "project")
		if err != nil || got.ID != r.ID || got.NumWatches != 1 {
			t.Fatalf("RepositoryByName: %+v %v", got, err)
		}
		viewer := newUser("viewer", "v@x.org", false)
		s.CreateUser(ctx, viewer)
		priv := &store.Repository{OwnerID: r.OwnerID, Name: "secret", IsPrivate: true}
		if err := s.CreateRepository(ctx, priv, 0); err != nil {
			t.Fatal(err)
		}
		list, total, _ := s.ListRepositories(ctx, store.RepoListOptions{RepoFilter: seenBy(viewer, false), Limit: 10})
		if total != 1 || list[0].Name != "Project" {
			t.Fatalf("viewer sees %d repositories", total)
		}
		if err := s.SetCollaborator(ctx, priv.ID, viewer.ID, store.AccessRead); err != nil {
			t.Fatal(err)
		}
		if _, total, _ := s.ListRepositories(ctx, store.RepoListOptions{RepoFilter: seenBy(viewer, false), Limit: 10}); total != 2 {
			t.Fatalf("collaborator sees %d repositories, want 2", total)
		}
		s.SetCollaborator(ctx, priv.ID, viewer.ID, store.AccessAdmin)
		if m, _ := s.CollaboratorMode(ctx, priv.ID, viewer.ID); m != store.AccessAdmin {
			t.Fatalf("mode %v", m)
		}
		if err := s.DeleteRepository(ctx, priv.ID); err != nil {
			t.Fatal(err)
		}
		if m, _ := s.CollaboratorMode(ctx, priv.ID, viewer.ID); m != store.AccessNone {
			t.Fatal("collaboration survived its repository")
		}
	})
}

// TestBranchCommitMessageIsStorable: a pushed commit's message may hold a
// NUL byte or another encoding (git stores bytes); the recorded copy is
// text either database takes (NUL dropped, invalid bytes replaced), so
// recording the push never fails.
func TestBranchCommitMessageIsStorable(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		r := newRepo(t, s, "repo")
		var state []store.BranchUpdate
		all := func(context.Context) ([]store.BranchUpdate, error) { return state, nil }
		for _, u := range []store.BranchUpdate{
			{Name: "main", CommitID: "a1", CommitMessage: "caf\xe9\x00 ok"}, // insert
			{Name: "main", CommitID: "a2", CommitMessage: "na\xefve\x00"},   // update
		} {
			state = []store.BranchUpdate{u}
			if err := s.SyncBranches(ctx, r.ID, 1, []store.BranchUpdate{u}, all); err != nil {
				t.Fatalf("%s: %v", u.CommitID, err)
			}
			b, err := s.BranchByName(ctx, r.ID, "main")
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]string{"a1": "caf\uFFFD ok", "a2": "na\uFFFDve"}[u.CommitID]
			if b.CommitMessage != want {
				t.Fatalf("%s: stored %q, want %q", u.CommitID, b.CommitMessage, want)
			}
		}
	})
}

// TestBranchCounter: the repository's num_branches follows its branch
// records through creations with branches, zero-record syncs, pushes that
// add, move and delete branches, and is the branch page's total; the page
// is read from an index in its order (no sort of every record).
func TestBranchCounter(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		check := func(t *testing.T, repoID int64, want int) {
			t.Helper()
			r, err := s.RepositoryByID(ctx, repoID)
			if err != nil {
				t.Fatal(err)
			}
			_, total, err := s.ListBranches(ctx, repoID, 0, 1)
			if err != nil {
				t.Fatal(err)
			}
			if r.NumBranches != want || total != int64(want) || len(branchNames(t, s, repoID)) != want {
				t.Fatalf("num_branches %d, page total %d, want %d", r.NumBranches, total, want)
			}
		}
		r := newRepo(t, s, "counted")
		check(t, r.ID, 0)
		all := func(context.Context) ([]store.BranchUpdate, error) {
			return []store.BranchUpdate{{Name: "main", CommitID: "a1"}, {Name: "dev", CommitID: "b1"}}, nil
		}
		if err := s.SyncBranches(ctx, r.ID, 1, []store.BranchUpdate{{Name: "dev", CommitID: "b1"}}, all); err != nil {
			t.Fatal(err)
		}
		check(t, r.ID, 2)
		for _, push := range [][]store.BranchUpdate{
			{{Name: "main", CommitID: "a2"}, {Name: "x", CommitID: "c1"}, {Name: "y", CommitID: "c2"}},
			{{Name: "dev", Deleted: true}, {Name: "gone", Deleted: true}, {Name: "x", CommitID: "c3"}},
			{{Name: "y", CommitID: "c2"}}, // no change
		} {
			if err := s.SyncBranches(ctx, r.ID, 1, push, all); err != nil {
				t.Fatal(err)
			}
		}
		check(t, r.ID, 3)

		owner := newUser("owner-seeded", "seeded@x.org", false)
		if err := s.CreateUser(ctx, owner); err != nil {
			t.Fatal(err)
		}
		seeded := &store.Repository{OwnerID: owner.ID, OwnerName: owner.Name, Name: "seeded", DefaultBranch: "main"}
		err := s.CreateRepositoryAtomic(ctx, store.NewRepository{Repo: seeded, PusherID: owner.ID,
			Branches: []store.BranchUpdate{{Name: "main", CommitID: "m1"}, {Name: "next", CommitID: "n1"}}, Limit: -1}, func() error { return nil })
		if err != nil {
			t.Fatal(err)
		}
		check(t, seeded.ID, 2)

		if s.DB().Dialector.Name() == "sqlite" {
			var plan []struct{ Detail string }
			if err := s.DB().Raw(`EXPLAIN QUERY PLAN `+store.BranchPageQuery, r.ID, r.ID, 10, 0).
				Scan(&plan).Error; err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(plan) != "[{SEARCH branches USING INDEX idx_branches_repo_commit_unix (repo_id=?)} {SCALAR SUBQUERY 1} {SEARCH repositories USING INTEGER PRIMARY KEY (rowid=?)}]" {
				t.Fatalf("branch page plan: %v", plan)
			}
		}
	})
}

// TestBranchPage: a page's records are the stored records, every field,
// in the page order; its total is the counter on every page, past the
// end too; a missing repository has none.
func TestBranchPage(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		r := newRepo(t, s, "paged")
		state := []store.BranchUpdate{
			{Name: "main", CommitID: "a1", CommitMessage: "first", CommitUnix: 300},
			{Name: "dev", CommitID: "b1", CommitMessage: "second", CommitUnix: 200},
			{Name: "alt", CommitID: "c1", CommitMessage: "third", CommitUnix: 200},
		}
		all := func(context.Context) ([]store.BranchUpdate, error) { return state, nil }
		if err := s.SyncBranches(ctx, r.ID, 7, state, all); err != nil {
			t.Fatal(err)
		}
		var got []string
		for offset := 0; offset < 4; offset++ {
			page, total, err := s.ListBranches(ctx, r.ID, offset, 1)
			if err != nil {
				t.Fatal(err)
			}
			if total != 3 {
				t.Fatalf("offset %d: total %d, want 3", offset, total)
			}
			for _, b := range page {
				want, err := s.BranchByName(ctx, r.ID, b.Name)
				if err != nil {
					t.Fatal(err)
				}
				if b != *want {
					t.Fatalf("page record %+v, stored %+v", b, *want)
				}
				got = append(got, b.Name)
			}
		}
		if fmt.Sprint(got) != "[main alt dev]" {
			t.Fatalf("page order %v", got)
		}
		page, total, err := s.ListBranches(ctx, r.ID+1000, 0, 10)
		if err != nil || len(page) != 0 || total != 0 {
			t.Fatalf("missing repository: %v %d %v", page, total, err)
		}
	})
}
