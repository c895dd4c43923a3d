package store_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"

	"forge/services/store"
	"forge/services/store/storetest"
)

// setTopics replaces a repository's topics.
func setTopics(t *testing.T, s *store.Store, repoID int64, names ...string) {
	t.Helper()
	err := s.UpdateRepoTopics(context.Background(), repoID, func([]string) ([]string, error) { return names, nil })
	if err != nil {
		t.Fatalf("set topics %v: %v", names, err)
	}
}

// repoTopics is the repository's own copy of its topic names.
func repoTopics(t *testing.T, s *store.Store, repoID int64) []string {
	t.Helper()
	r, err := s.RepositoryByID(context.Background(), repoID)
	if err != nil {
		t.Fatal(err)
	}
	return r.Topics
}

// topicCounts is every topic matching keyword as "name=count", in the
// search's order, checked against the total.
func topicCounts(t *testing.T, s *store.Store, keyword string) []string {
	t.Helper()
	found, total, err := s.SearchTopics(context.Background(), keyword, 0, 100)
	if err != nil || int(total) != len(found) {
		t.Fatalf("search %q: %d of %d, %v", keyword, len(found), total, err)
	}
	out := []string{}
	for _, tp := range found {
		out = append(out, fmt.Sprintf("%s=%d", tp.Name, tp.RepoCount))
	}
	return out
}

func repoNames(rs []store.Repository) []string {
	out := []string{}
	for _, r := range rs {
		out = append(out, r.Name)
	}
	return out
}

func TestTopics(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		a, b, c := newRepo(t, s, "alpha"), newRepo(t, s, "beta"), newRepo(t, s, "gamma")
		if got := repoTopics(t, s, a.ID); len(got) != 0 {
			t.Fatalf("a new repository's topics %q", got)
		}

		setTopics(t, s, a.ID, "rust", "go", "go")
		if got := repoTopics(t, s, a.ID); !slices.Equal(got, []string{"go", "rust"}) {
			t.Fatalf("topics %q, want [go rust] (sorted, once)", got)
		}
		setTopics(t, s, b.ID, "go")
		setTopics(t, s, c.ID, "rust-lang")
		if got := topicCounts(t, s, ""); !slices.Equal(got, []string{"go=2", "rust=1", "rust-lang=1"}) {
			t.Fatalf("all topics %q", got)
		}
		if got := topicCounts(t, s, "RUST"); !slices.Equal(got, []string{"rust=1", "rust-lang=1"}) {
			t.Fatalf("topics like RUST %q", got)
		}
		if got := topicCounts(t, s, "_"); len(got) != 0 {
			t.Fatalf("_ is not a wildcard: %q", got)
		}
		page, total, err := s.SearchTopics(ctx, "", 1, 1)
		if err != nil || total != 3 || len(page) != 1 || page[0].Name != "rust" {
			t.Fatalf("second page of one: %+v of %d, %v", page, total, err)
		}

		// The change sees the current names and may refuse: nothing is written.
		refused := errors.New("no")
		err = s.UpdateRepoTopics(ctx, a.ID, func(cur []string) ([]string, error) {
			if !slices.Equal(cur, []string{"go", "rust"}) {
				t.Errorf("change got %q", cur)
			}
			return nil, refused
		})
		if !errors.Is(err, refused) || !slices.Equal(repoTopics(t, s, a.ID), []string{"go", "rust"}) {
			t.Fatalf("refused change: %v, topics %q", err, repoTopics(t, s, a.ID))
		}
		if err := s.UpdateRepoTopics(ctx, 1<<40, func(c []string) ([]string, error) { return c, nil }); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("unknown repository: %v", err)
		}

		// Repository search: keywords match names or topics; topic=true
		// matches topic names exactly, any of the comma-separated ones.
		search := func(kw string, topicOnly bool) []string {
			t.Helper()
			rs, total, err := s.ListRepositories(ctx, store.RepoListOptions{Keyword: kw, TopicOnly: topicOnly, RepoFilter: store.RepoFilter{ViewerIsAdmin: true}, Limit: 10})
			if err != nil || int(total) != len(rs) {
				t.Fatalf("search %q: %v total %d", kw, err, total)
			}
			return repoNames(rs)
		}
		for _, tc := range []struct {
			kw    string
			topic bool
			want  []string
		}{
			{"go", true, []string{"alpha", "beta"}},
			{"GO", true, []string{"alpha", "beta"}},
			{"rust", true, []string{"alpha"}},
			{"rust,go", true, []string{"alpha", "beta"}},
			{"rus", true, []string{}},
			{"rust", false, []string{"alpha", "gamma"}}, // a topic of alpha, part of gamma's
			{"amm", false, []string{"gamma"}},           // the name
			{"amm,go", false, []string{"alpha", "beta", "gamma"}},
		} {
			if got := search(tc.kw, tc.topic); !slices.Equal(got, tc.want) {
				t.Errorf("search %q topic=%v: %q, want %q", tc.kw, tc.topic, got, tc.want)
			}
		}

		// Dropping topics: the counts follow; an unused topic stays.
		setTopics(t, s, b.ID)
		if got := repoTopics(t, s, b.ID); len(got) != 0 {
			t.Fatalf("cleared topics %q", got)
		}
		if err := s.DeleteRepository(ctx, a.ID); err != nil {
			t.Fatal(err)
		}
		if got := topicCounts(t, s, ""); !slices.Equal(got, []string{"rust-lang=1", "go=0", "rust=0"}) {
			t.Fatalf("after the delete %q", got)
		}
		if n, _ := s.CountOwned(ctx, "repo_topics", "repo_id", a.ID); n != 0 {
			t.Fatalf("%d repo_topics rows left", n)
		}
		setTopics(t, s, b.ID, "go")
		if got := topicCounts(t, s, "go"); !slices.Equal(got, []string{"go=1"}) {
			t.Fatalf("go taken again %q", got)
		}
	})
}

// TestTopicsConcurrent: writers on different repositories create the same
// new names at once, in opposite orders, and all succeed (one row per
// name, counted right); writers on one repository apply one after the
// other, so a limit checked in the change holds.
func TestTopicsConcurrent(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		const n = 6
		repos := make([]*store.Repository, n)
		for i := range repos {
			repos[i] = newRepo(t, s, fmt.Sprintf("r%d", i))
		}
		for round := range 3 {
			x, y := fmt.Sprintf("x%d", round), fmt.Sprintf("y%d", round)
			var wg sync.WaitGroup
			errs := make([]error, n)
			for i, r := range repos {
				wg.Add(1)
				go func() {
					defer wg.Done()
					names := []string{x, y, fmt.Sprintf("own-%d", i)}
					if i%2 == 1 {
						names = []string{y, x}
					}
					errs[i] = s.UpdateRepoTopics(ctx, r.ID, func([]string) ([]string, error) { return names, nil })
				}()
			}
			wg.Wait()
			for i, err := range errs {
				if err != nil {
					t.Fatalf("round %d, writer %d: %v", round, i, err)
				}
			}
			if got := topicCounts(t, s, x); !slices.Equal(got, []string{x + "=6"}) {
				t.Fatalf("round %d: %q", round, got)
			}
			if got := topicCounts(t, s, y); !slices.Equal(got, []string{y + "=6"}) {
				t.Fatalf("round %d: %q", round, got)
			}
		}

		// One repository, limit 3 checked in the change: of five
		// concurrent adds to a repository holding two, exactly one lands.
		r := repos[0]
		setTopics(t, s, r.ID, "a", "b")
		full := errors.New("full")
		var wg sync.WaitGroup
		errs := make([]error, 5)
		for i := range errs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs[i] = s.UpdateRepoTopics(ctx, r.ID, func(cur []string) ([]string, error) {
					if len(cur) >= 3 {
						return nil, full
					}
					return append(cur, fmt.Sprintf("c%d", i)), nil
				})
			}()
		}
		wg.Wait()
		landed := 0
		for _, err := range errs {
			switch {
			case err == nil:
				landed++
			case !errors.Is(err, full):
				t.Fatalf("add: %v", err)
			}
		}
		if got := repoTopics(t, s, r.ID); landed != 1 || len(got) != 3 {
			t.Fatalf("%d adds landed, topics %q", landed, got)
		}
	})
}
