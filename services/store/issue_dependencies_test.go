package store_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"forge/services/store"
	"forge/services/store/storetest"
)

// depRepo is a repository with the issues unit on, owned by a new user.
func depRepo(t *testing.T, s *store.Store, name string, private bool) *store.Repository {
	t.Helper()
	owner := newUser("owner-"+name, name+"@x.org", false)
	if err := s.CreateUser(context.Background(), owner); err != nil {
		t.Fatal(err)
	}
	r := &store.Repository{OwnerID: owner.ID, OwnerName: owner.Name, Name: name, IsEmpty: true, DefaultBranch: "main",
		IsPrivate: private, HasIssues: true, HasPullRequests: true}
	if err := s.CreateRepository(context.Background(), r, owner.ID); err != nil {
		t.Fatal(err)
	}
	return r
}

func depTitles(t *testing.T, s *store.Store, opts store.DependencyListOptions) []string {
	t.Helper()
	if opts.Limit == 0 {
		opts.Limit = 50
	}
	list, err := s.ListIssueDependencies(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	out := []string{}
	for _, is := range list {
		out = append(out, is.Title)
	}
	return out
}

func TestIssueDependencies(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		repo := depRepo(t, s, "deps", false)
		a := newIssue(t, s, repo, "a", false)
		b := newIssue(t, s, repo, "b", false)
		c := newIssue(t, s, repo, "c", true)
		admin := store.RepoFilter{ViewerIsAdmin: true}

		if err := s.AddIssueDependency(ctx, a.ID, a.ID); !errors.Is(err, store.ErrDependencySelf) {
			t.Fatalf("self: %v", err)
		}
		if err := s.AddIssueDependency(ctx, a.ID, 1<<40); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("missing blocker: %v", err)
		}
		for _, d := range []int64{b.ID, c.ID} {
			if err := s.AddIssueDependency(ctx, a.ID, d); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.AddIssueDependency(ctx, a.ID, b.ID); !errors.Is(err, store.ErrDependencyExists) {
			t.Fatalf("duplicate: %v", err)
		}
		// b→a closes a→b; c→a too; a chain c→x→a as well.
		if err := s.AddIssueDependency(ctx, b.ID, a.ID); !errors.Is(err, store.ErrDependencyCycle) {
			t.Fatalf("two-cycle: %v", err)
		}
		x := newIssue(t, s, repo, "x", false)
		if err := s.AddIssueDependency(ctx, x.ID, a.ID); err != nil {
			t.Fatal(err)
		}
		if err := s.AddIssueDependency(ctx, c.ID, x.ID); !errors.Is(err, store.ErrDependencyCycle) {
			t.Fatalf("three-cycle: %v", err)
		}

		if got := depTitles(t, s, store.DependencyListOptions{IssueID: a.ID, Visible: admin}); len(got) != 2 || got[0] != "b" || got[1] != "c" {
			t.Fatalf("a depends on %v", got)
		}
		if got := depTitles(t, s, store.DependencyListOptions{IssueID: a.ID, Blocks: true, Visible: admin}); len(got) != 1 || got[0] != "x" {
			t.Fatalf("a blocks %v", got)
		}
		if got := depTitles(t, s, store.DependencyListOptions{IssueID: a.ID, Visible: admin, Offset: 1, Limit: 1}); len(got) != 1 || got[0] != "c" {
			t.Fatalf("page 2: %v", got)
		}
		if n, err := s.OpenDependencies(ctx, a.ID); err != nil || n != 1 {
			t.Fatalf("open dependencies of a: %d %v (b open, c closed)", n, err)
		}

		if err := s.RemoveIssueDependency(ctx, a.ID, b.ID); err != nil {
			t.Fatal(err)
		}
		if err := s.RemoveIssueDependency(ctx, a.ID, b.ID); !errors.Is(err, store.ErrDependencyNotFound) {
			t.Fatalf("remove twice: %v", err)
		}
		if n, _ := s.OpenDependencies(ctx, a.ID); n != 0 {
			t.Fatalf("open dependencies after removal: %d", n)
		}
		// Now b→a is no cycle.
		if err := s.AddIssueDependency(ctx, b.ID, a.ID); err != nil {
			t.Fatal(err)
		}
	})
}

// TestIssueDependencyListVisibility: lists leave out issues in
// repositories the viewer cannot read, and issues whose unit is off for
// a viewer who does not administer that repository.
func TestIssueDependencyListVisibility(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		pub := depRepo(t, s, "pub", false)
		priv := depRepo(t, s, "priv", true)
		off := depRepo(t, s, "off", false)
		off.HasIssues = false
		if err := s.DB().WithContext(ctx).Model(off).Update("has_issues", false).Error; err != nil {
			t.Fatal(err)
		}
		a := newIssue(t, s, pub, "a", false)
		p := newIssue(t, s, priv, "p", false)
		o := newIssue(t, s, off, "o", false)
		q := newIssue(t, s, pub, "q", false)
		for _, d := range []int64{p.ID, o.ID, q.ID} {
			if err := s.AddIssueDependency(ctx, a.ID, d); err != nil {
				t.Fatal(err)
			}
		}
		anon := store.RepoFilter{Owners: store.UserFilter{Visibilities: []store.Visibility{store.VisibilityPublic}}}
		if got := depTitles(t, s, store.DependencyListOptions{IssueID: a.ID, Visible: anon}); len(got) != 1 || got[0] != "q" {
			t.Fatalf("anonymous sees %v", got)
		}
		owner := store.RepoFilter{ViewerID: off.OwnerID, Owners: store.UserFilter{All: true}}
		if got := depTitles(t, s, store.DependencyListOptions{IssueID: a.ID, Visible: owner}); len(got) != 2 || got[0] != "o" || got[1] != "q" {
			t.Fatalf("the owner of the repository without issues sees %v", got)
		}
		if got := depTitles(t, s, store.DependencyListOptions{IssueID: a.ID, Visible: store.RepoFilter{ViewerIsAdmin: true}}); len(got) != 3 {
			t.Fatalf("a site admin sees %v", got)
		}
		if got := depTitles(t, s, store.DependencyListOptions{IssueID: p.ID, Blocks: true, Visible: anon}); len(got) != 1 || got[0] != "a" {
			t.Fatalf("p blocks %v", got)
		}
	})
}

// TestIssueDependencyCyclesUnderConcurrency: concurrent inserts that
// would together close a cycle cannot all succeed, on SQLite and on
// PostgreSQL (which serialises dependency inserts), for two issues (a→b
// against b→a, which lock the same rows) and for four (a→b and c→d
// against b→c and d→a, which lock disjoint rows).
func TestIssueDependencyCyclesUnderConcurrency(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		repo := depRepo(t, s, "race", false)
		for round := 0; round < 10; round++ {
			is := make([]*store.Issue, 4)
			for i := range is {
				is[i] = newIssue(t, s, repo, "r", false)
			}
			a, b, c, d := is[0].ID, is[1].ID, is[2].ID, is[3].ID
			pairs := [][2]int64{{a, b}, {b, a}}
			if round%2 == 1 {
				if err := s.AddIssueDependency(ctx, a, b); err != nil {
					t.Fatal(err)
				}
				if err := s.AddIssueDependency(ctx, c, d); err != nil {
					t.Fatal(err)
				}
				pairs = [][2]int64{{b, c}, {d, a}}
			}
			var wg sync.WaitGroup
			errs := make([]error, len(pairs))
			for i, p := range pairs {
				wg.Add(1)
				go func() {
					defer wg.Done()
					errs[i] = s.AddIssueDependency(ctx, p[0], p[1])
				}()
			}
			wg.Wait()
			ok := 0
			for _, err := range errs {
				switch {
				case err == nil:
					ok++
				case !errors.Is(err, store.ErrDependencyCycle):
					t.Fatalf("round %d: %v", round, err)
				}
			}
			if ok != 1 {
				t.Fatalf("round %d: %d of the inserts closing a cycle succeeded (%v)", round, ok, errs)
			}
		}
	})
}

// TestCloseWithOpenDependencies: UpdateIssue refuses to close an issue
// that depends on open issues; closed blockers do not count; deleting an
// issue removes its dependencies both ways.
func TestCloseWithOpenDependencies(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		repo := depRepo(t, s, "close", false)
		a := newIssue(t, s, repo, "a", false)
		b := newIssue(t, s, repo, "b", false)
		if err := s.AddIssueDependency(ctx, a.ID, b.ID); err != nil {
			t.Fatal(err)
		}
		closeIssue := func(is *store.Issue) error {
			_, err := s.UpdateIssue(ctx, repo.ID, is.Index, repo.OwnerID, func(e *store.IssueEdit) error {
				e.IsClosed = true
				return nil
			})
			return err
		}
		if err := closeIssue(a); !errors.Is(err, store.ErrDependenciesOpen) {
			t.Fatalf("close with an open dependency: %v", err)
		}
		if got, _ := s.IssueByID(ctx, a.ID); got.IsClosed {
			t.Fatal("closed anyway")
		}
		if err := closeIssue(b); err != nil {
			t.Fatal(err)
		}
		if err := closeIssue(a); err != nil {
			t.Fatalf("close with closed dependencies: %v", err)
		}
		c := newIssue(t, s, repo, "c", false)
		if err := s.AddIssueDependency(ctx, c.ID, b.ID); err != nil {
			t.Fatal(err)
		}
		if err := s.DeleteIssue(ctx, repo.ID, b.Index); err != nil {
			t.Fatal(err)
		}
		var n int64
		if err := s.DB().Model(&store.IssueDependency{}).Count(&n).Error; err != nil || n != 0 {
			t.Fatalf("%d dependency rows left after deleting the blocker (%v)", n, err)
		}
	})
}
