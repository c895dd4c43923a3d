package store_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"forge/services/access"
	"forge/services/auth"
	"forge/services/store"
	"forge/services/store/storetest"
)

// seenBy is the repository filter for viewer (nil: anonymous), as the
// services build it.
func seenBy(viewer *store.User, publicOnly bool) store.RepoFilter {
	if viewer == nil {
		return access.Filter(nil)
	}
	p := &auth.Principal{User: viewer}
	if publicOnly {
		p.Token = &store.AccessToken{}
		p.Scopes.PublicOnly = true
	}
	return access.Filter(p)
}

func numWatches(t *testing.T, s *store.Store, repoID int64) int {
	t.Helper()
	r, err := s.RepositoryByID(context.Background(), repoID)
	if err != nil {
		t.Fatal(err)
	}
	return r.NumWatches
}

func TestWatches(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		repo := newRepo(t, s, "watched") // its owner auto-watches
		if n := numWatches(t, s, repo.ID); n != 1 {
			t.Fatalf("num_watches after create %d, want 1", n)
		}
		bob := newUser("bob", "bob@x.org", false)
		if err := s.CreateUser(ctx, bob); err != nil {
			t.Fatal(err)
		}
		if w, err := s.IsWatching(ctx, bob.ID, repo.ID); err != nil || w {
			t.Fatalf("watching before Watch: %v %v", w, err)
		}
		for i, want := range []bool{true, false} { // the second Watch is a no-op
			added, err := s.Watch(ctx, bob.ID, repo.ID)
			if err != nil || added != want {
				t.Fatalf("watch #%d: added=%v err=%v", i, added, err)
			}
		}
		if n := numWatches(t, s, repo.ID); n != 2 {
			t.Fatalf("num_watches %d, want 2", n)
		}
		if w, err := s.IsWatching(ctx, bob.ID, repo.ID); err != nil || !w {
			t.Fatalf("not watching after Watch: %v %v", w, err)
		}
		us, total, err := s.ListWatchers(ctx, repo.ID, store.UserFilter{All: true}, 0, 10)
		if err != nil || total != 2 || len(us) != 2 || us[0].ID != repo.OwnerID || us[1].ID != bob.ID {
			t.Fatalf("watchers: %v total %d err %v", names(us), total, err)
		}
		if us, total, _ := s.ListWatchers(ctx, repo.ID, store.UserFilter{All: true}, 1, 10); total != 2 || len(us) != 1 || us[0].ID != bob.ID {
			t.Fatalf("watchers page 2: %v total %d", names(us), total)
		}

		for i, want := range []bool{true, false} {
			removed, err := s.Unwatch(ctx, bob.ID, repo.ID)
			if err != nil || removed != want {
				t.Fatalf("unwatch #%d: removed=%v err=%v", i, removed, err)
			}
		}
		if n := numWatches(t, s, repo.ID); n != 1 {
			t.Fatalf("num_watches %d, want 1", n)
		}

		// A missing repository: nothing is stored.
		if _, err := s.Watch(ctx, bob.ID, 99999); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("watch missing repo: %v", err)
		}
		if w, _ := s.IsWatching(ctx, bob.ID, 99999); w {
			t.Fatal("watch row left behind for a missing repository")
		}
	})
}

// Many concurrent Watch/Unwatch calls leave num_watches equal to the
// number of watch rows.
func TestWatchConcurrent(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		repo := newRepo(t, s, "busy")
		var users []*store.User
		for _, n := range []string{"u1", "u2", "u3", "u4"} {
			u := newUser(n, n+"@x.org", false)
			if err := s.CreateUser(ctx, u); err != nil {
				t.Fatal(err)
			}
			users = append(users, u)
		}
		var wg sync.WaitGroup
		for round := range 6 {
			for _, u := range users {
				for range 2 { // the same call twice at once
					wg.Add(1)
					go func() {
						defer wg.Done()
						var err error
						if round%2 == 0 {
							_, err = s.Watch(ctx, u.ID, repo.ID)
						} else {
							_, err = s.Unwatch(ctx, u.ID, repo.ID)
						}
						if err != nil {
							t.Error(err)
						}
					}()
				}
			}
			wg.Wait()
		}
		// Last round unwatched: only the owner remains.
		_, total, err := s.ListWatchers(ctx, repo.ID, store.UserFilter{All: true}, 0, 10)
		if err != nil {
			t.Fatal(err)
		}
		if n := numWatches(t, s, repo.ID); int64(n) != total || n != 1 {
			t.Fatalf("num_watches %d, rows %d, want 1", n, total)
		}
		for _, u := range users {
			if _, err := s.Watch(ctx, u.ID, repo.ID); err != nil {
				t.Fatal(err)
			}
		}
		if n := numWatches(t, s, repo.ID); n != 5 {
			t.Fatalf("num_watches %d, want 5", n)
		}
	})
}

func TestListWatchedRepositories(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		mkUser := func(name string, vis store.Visibility, admin bool) *store.User {
			u := newUser(name, name+"@x.org", admin)
			u.Visibility = vis
			if err := s.CreateUser(ctx, u); err != nil {
				t.Fatal(err)
			}
			return u
		}
		watcher := mkUser("watcher", store.VisibilityPublic, false)
		viewer := mkUser("viewer", store.VisibilityPublic, false)
		admin := mkUser("admin", store.VisibilityPublic, true)
		pub := mkUser("pub", store.VisibilityPublic, false)
		lim := mkUser("lim", store.VisibilityLimited, false)
		priv := mkUser("priv", store.VisibilityPrivate, false)
		mkRepo := func(owner *store.User, name string, private bool) *store.Repository {
			r := &store.Repository{OwnerID: owner.ID, OwnerName: owner.Name, Name: name, IsPrivate: private, DefaultBranch: "main"}
			if err := s.CreateRepository(ctx, r, 0); err != nil {
				t.Fatal(err)
			}
			if _, err := s.Watch(ctx, watcher.ID, r.ID); err != nil {
				t.Fatal(err)
			}
			return r
		}
		mkRepo(pub, "a-public", false)
		secret := mkRepo(pub, "b-private", true)
		mkRepo(lim, "c-limited-owner", false)
		mkRepo(priv, "d-private-owner", false)
		mkRepo(viewer, "e-viewers-private", true)
		unwatched := &store.Repository{OwnerID: pub.ID, OwnerName: pub.Name, Name: "f-unwatched", DefaultBranch: "main"}
		if err := s.CreateRepository(ctx, unwatched, 0); err != nil {
			t.Fatal(err)
		}

		list := func(o store.WatchedListOptions) (string, int64) {
			t.Helper()
			o.UserID = watcher.ID
			if o.Limit == 0 {
				o.Limit = 10
			}
			rs, total, err := s.ListWatchedRepositories(ctx, o)
			if err != nil {
				t.Fatal(err)
			}
			out := ""
			for _, r := range rs {
				out += r.Name + " "
			}
			return out, total
		}
		check := func(what string, o store.WatchedListOptions, want string, wantTotal int64) {
			t.Helper()
			if got, total := list(o); got != want || total != wantTotal {
				t.Errorf("%s: %q (%d), want %q (%d)", what, got, total, want, wantTotal)
			}
		}
		check("anonymous", store.WatchedListOptions{RepoFilter: seenBy(nil, false)}, "a-public ", 1)
		check("signed in", store.WatchedListOptions{RepoFilter: seenBy(viewer, false)}, "a-public c-limited-owner e-viewers-private ", 3)
		// A public-only token sees what anonymous callers see: not the
		// public repository of a limited owner.
		check("signed in, public only", store.WatchedListOptions{RepoFilter: seenBy(viewer, true)}, "a-public ", 1)
		check("admin", store.WatchedListOptions{RepoFilter: seenBy(admin, false)}, "a-public b-private c-limited-owner d-private-owner e-viewers-private ", 5)
		check("admin page 2", store.WatchedListOptions{RepoFilter: seenBy(admin, false), Offset: 2, Limit: 2}, "c-limited-owner d-private-owner ", 5)
		check("private owner sees own", store.WatchedListOptions{RepoFilter: seenBy(priv, false)}, "a-public c-limited-owner d-private-owner ", 3)

		// A collaborator sees the private repository; losing access hides it.
		if err := s.SetCollaborator(ctx, secret.ID, watcher.ID, store.AccessRead); err != nil {
			t.Fatal(err)
		}
		check("collaborator", store.WatchedListOptions{RepoFilter: seenBy(watcher, false)}, "a-public b-private c-limited-owner ", 3)
		if err := s.DeleteCollaborator(ctx, secret.ID, watcher.ID); err != nil {
			t.Fatal(err)
		}
		check("former collaborator", store.WatchedListOptions{RepoFilter: seenBy(watcher, false)}, "a-public c-limited-owner ", 2)
	})
}
