package store_test

import (
	"context"
	"sort"
	"strings"
	"testing"

	"forge/services/access"
	"forge/services/auth"
	"forge/services/store"
	"forge/services/store/storetest"
)

// TestUserVisibilityAgrees checks that the three readings of one
// users.Filter (the list filter, UserVisible, and Settled where it
// decides) give the same answer, and that answer is the documented rule.
func TestUserVisibilityAgrees(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		mk := func(name string, vis store.Visibility, admin, restricted bool) *store.User {
			u := newUser(name, name+"@x.org", admin)
			u.Visibility, u.Restricted = vis, restricted
			if err := s.CreateUser(ctx, u); err != nil {
				t.Fatal(err)
			}
			return u
		}
		admin := mk("admin", store.VisibilityPublic, true, false)
		pub := mk("pub", store.VisibilityPublic, false, false)
		lim := mk("lim", store.VisibilityLimited, false, false)
		priv := mk("priv", store.VisibilityPrivate, false, false)
		privOwner := mk("privowner", store.VisibilityPrivate, false, false)
		peer := mk("peer", store.VisibilityLimited, false, false)
		hiddenPeer := mk("hiddenpeer", store.VisibilityPrivate, false, false)
		rst := mk("rst", store.VisibilityPublic, false, true)
		all := []*store.User{admin, pub, lim, priv, privOwner, peer, hiddenPeer, rst}

		// rst collaborates on privowner's repository, with peer and
		// hiddenpeer; lim collaborates on nothing.
		repo := &store.Repository{OwnerID: privOwner.ID, OwnerName: privOwner.Name, Name: "shared", IsPrivate: true, DefaultBranch: "main"}
		if err := s.CreateRepository(ctx, repo, 0); err != nil {
			t.Fatal(err)
		}
		for _, u := range []*store.User{rst, peer, hiddenPeer} {
			if err := s.SetCollaborator(ctx, repo.ID, u.ID, store.AccessRead); err != nil {
				t.Fatal(err)
			}
		}

		// A public-only token sees, of what its user sees, the public
		// accounts: not its own private one, less than anonymous for a
		// restricted user.
		publicOnly, err := auth.ParseScopes([]string{"public-only", "read:user"})
		if err != nil {
			t.Fatal(err)
		}
		cases := []struct {
			viewer     *store.User
			publicOnly bool
			want       string
		}{
			{nil, false, "admin pub rst"},
			{pub, false, "admin lim peer pub rst"},
			{priv, false, "admin lim peer priv pub rst"},
			{peer, false, "admin lim peer privowner pub rst"},
			{rst, false, "peer privowner rst"},
			{admin, false, "admin hiddenpeer lim peer priv privowner pub rst"},
			{pub, true, "admin pub rst"},
			{priv, true, "admin pub rst"},
			{peer, true, "admin pub rst"},
			{rst, true, "rst"},
			{admin, true, "admin pub rst"},
		}
		for _, c := range cases {
			var p *auth.Principal
			name := "anonymous"
			if c.viewer != nil {
				p, name = &auth.Principal{User: c.viewer}, c.viewer.Name
			}
			if c.publicOnly {
				p.Token, p.Scopes, name = &store.AccessToken{ID: 1}, publicOnly, name+" (public-only token)"
			}
			f := access.UserFilter(p)
			listed, _, err := s.ListUsers(ctx, store.ListUsersOptions{Visible: &f, Limit: 50})
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, u := range listed {
				names = append(names, u.Name)
			}
			if got := strings.Join(names, " "); got != c.want {
				t.Errorf("%s lists %q, want %q", name, got, c.want)
			}
			var single []string
			for _, u := range all {
				sql, err := s.UserVisible(ctx, f, u.ID)
				if err != nil {
					t.Fatal(err)
				}
				if visible, settled := f.Settled(u); settled && visible != sql {
					t.Errorf("%s on %s: Settled says %v, SQL %v", name, u.Name, visible, sql)
				}
				goSide, err := access.SeesUser(ctx, s, u, p)
				if err != nil || goSide != sql {
					t.Errorf("%s on %s: CanSee %v (%v), SQL %v", name, u.Name, goSide, err, sql)
				}
				if sql {
					single = append(single, u.Name)
				}
			}
			sort.Strings(single)
			if got := strings.Join(single, " "); got != c.want {
				t.Errorf("%s sees one by one %q, want %q", name, got, c.want)
			}
			// The batched readings (lists' posters) agree too.
			ids := make([]int64, len(all))
			for i, u := range all {
				ids[i] = u.ID
			}
			visible, err := s.VisibleUserIDs(ctx, f, ids)
			if err != nil {
				t.Fatal(err)
			}
			kept := map[int64]*store.User{}
			for _, u := range all {
				kept[u.ID] = u
			}
			if err := access.DropHidden(ctx, s, p, kept); err != nil {
				t.Fatal(err)
			}
			var batch, dropped []string
			for _, u := range all {
				if visible[u.ID] {
					batch = append(batch, u.Name)
				}
				if kept[u.ID] != nil {
					dropped = append(dropped, u.Name)
				}
			}
			sort.Strings(batch)
			sort.Strings(dropped)
			if got := strings.Join(batch, " "); got != c.want {
				t.Errorf("%s sees at once %q, want %q", name, got, c.want)
			}
			if got := strings.Join(dropped, " "); got != c.want {
				t.Errorf("DropHidden keeps for %s %q, want %q", name, got, c.want)
			}
		}
	})
}

// TestCreateRepositoryWithinLimit counts the owner's repositories in the
// creating transaction, also under concurrency.
func TestCreateRepositoryWithinLimit(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		u := newUser("limited", "l@x.org", false)
		if err := s.CreateUser(ctx, u); err != nil {
			t.Fatal(err)
		}
		const limit, tries = 3, 8
		errs := make(chan error, tries)
		for i := range tries {
			go func() {
				r := &store.Repository{OwnerID: u.ID, OwnerName: u.Name, Name: "r" + string(rune('a'+i)), DefaultBranch: "main"}
				errs <- s.CreateRepositoryAtomic(ctx, store.NewRepository{Repo: r, Limit: limit}, func() error { return nil })
			}()
		}
		created, refused := 0, 0
		for range tries {
			switch err := <-errs; {
			case err == nil:
				created++
			case err == store.ErrRepoLimit:
				refused++
			default:
				t.Errorf("unexpected error: %v", err)
			}
		}
		owned, err := s.RepositoriesOwnedBy(ctx, u.ID)
		if err != nil {
			t.Fatal(err)
		}
		if created != limit || refused != tries-limit || len(owned) != limit {
			t.Fatalf("created %d, refused %d, owned %d; want %d, %d, %d", created, refused, len(owned), limit, tries-limit, limit)
		}
		if err := s.CreateRepositoryAtomic(ctx, store.NewRepository{Repo: &store.Repository{OwnerID: u.ID, OwnerName: u.Name, Name: "zero"}}, func() error { return nil }); err != store.ErrRepoLimit {
			t.Fatalf("limit 0: %v", err)
		}
	})
}

// TestNewUserRepoLimitDefaultsToSite: an account created without a limit
// gets -1 (the site default), not 0 (no repositories).
func TestNewUserRepoLimitDefaultsToSite(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		u := newUser("fresh", "f@x.org", false)
		if err := s.CreateUser(ctx, u); err != nil {
			t.Fatal(err)
		}
		got, err := s.UserByID(ctx, u.ID)
		if err != nil || got.MaxRepoCreation != -1 || u.MaxRepoCreation != -1 {
			t.Fatalf("stored %d, returned %d, %v", got.MaxRepoCreation, u.MaxRepoCreation, err)
		}
		if _, err := s.UpdateUser(ctx, "fresh", func(u *store.User) error { u.MaxRepoCreation = 0; return nil }); err != nil {
			t.Fatal(err)
		}
		if got, _ := s.UserByID(ctx, u.ID); got.MaxRepoCreation != 0 {
			t.Fatalf("after setting 0: %d", got.MaxRepoCreation)
		}
	})
}
