package store_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"forge/services/store"
	"forge/services/store/storetest"
)

func numStars(t *testing.T, s *store.Store, repoID int64) int {
	t.Helper()
	r, err := s.RepositoryByID(context.Background(), repoID)
	if err != nil {
		t.Fatal(err)
	}
	return r.NumStars
}

func TestStars(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		repo := newRepo(t, s, "starred")
		bob := newUser("bob", "bob@x.org", false)
		if err := s.CreateUser(ctx, bob); err != nil {
			t.Fatal(err)
		}
		for i, want := range []bool{true, false} { // the second Star is a no-op
			added, err := s.Star(ctx, bob.ID, repo.ID)
			if err != nil || added != want {
				t.Fatalf("star #%d: added=%v err=%v", i, added, err)
			}
		}
		if n := numStars(t, s, repo.ID); n != 1 {
			t.Fatalf("num_stars %d, want 1", n)
		}
		if on, err := s.IsStarring(ctx, bob.ID, repo.ID); err != nil || !on {
			t.Fatalf("not starring after Star: %v %v", on, err)
		}
		us, total, err := s.ListStargazers(ctx, repo.ID, store.UserFilter{All: true}, 0, 10)
		if err != nil || total != 1 || len(us) != 1 || us[0].ID != bob.ID {
			t.Fatalf("stargazers: %v total %d err %v", names(us), total, err)
		}
		rs, total, err := s.ListStarredRepositories(ctx, store.WatchedListOptions{UserID: bob.ID, RepoFilter: seenBy(nil, false), Limit: 10})
		if err != nil || total != 1 || len(rs) != 1 || rs[0].ID != repo.ID {
			t.Fatalf("starred: %d %v", total, err)
		}
		for i, want := range []bool{true, false} {
			removed, err := s.Unstar(ctx, bob.ID, repo.ID)
			if err != nil || removed != want {
				t.Fatalf("unstar #%d: removed=%v err=%v", i, removed, err)
			}
		}
		if n := numStars(t, s, repo.ID); n != 0 {
			t.Fatalf("num_stars %d, want 0", n)
		}
		if _, err := s.Star(ctx, bob.ID, 99999); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("star missing repo: %v", err)
		}
		if on, _ := s.IsStarring(ctx, bob.ID, 99999); on {
			t.Fatal("star row left behind for a missing repository")
		}
	})
}

// Many concurrent Star/Unstar calls leave num_stars equal to the number
// of star rows.
func TestStarConcurrent(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		repo := newRepo(t, s, "busy")
		var users []*store.User
		for _, n := range []string{"u1", "u2", "u3", "u4", "u5"} {
			u := newUser(n, n+"@x.org", false)
			if err := s.CreateUser(ctx, u); err != nil {
				t.Fatal(err)
			}
			users = append(users, u)
		}
		var wg sync.WaitGroup
		for k := range 50 { // stars and unstars of the same users at once
			u := users[k%len(users)]
			wg.Add(1)
			go func() {
				defer wg.Done()
				var err error
				if k%3 == 0 {
					_, err = s.Unstar(ctx, u.ID, repo.ID)
				} else {
					_, err = s.Star(ctx, u.ID, repo.ID)
				}
				if err != nil {
					t.Error(err)
				}
			}()
		}
		wg.Wait()
		_, total, err := s.ListStargazers(ctx, repo.ID, store.UserFilter{All: true}, 0, 10)
		if err != nil {
			t.Fatal(err)
		}
		if n := numStars(t, s, repo.ID); int64(n) != total {
			t.Fatalf("num_stars %d, %d star rows", n, total)
		}
	})
}
