package store_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"forge/services/config"
	"forge/services/errs"
	"forge/services/store"
	"forge/services/store/storetest"
)

func newUser(name, email string, admin bool) *store.User {
	return &store.User{Name: name, Email: email, IsAdmin: admin, IsActive: true}
}

func TestUsers(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		alice := newUser("Alice", "Alice@Example.org", true)
		if err := s.CreateUser(ctx, alice); err != nil {
			t.Fatal(err)
		}
		if alice.ID == 0 {
			t.Fatal("id not filled")
		}
		if err := s.CreateUser(ctx, newUser("ALICE", "other@example.org", false)); !errors.Is(err, store.ErrUserExists) {
			t.Fatalf("duplicate name (other case): got %v, want ErrUserExists", err)
		}
		if err := s.CreateUser(ctx, newUser("bob", "alice@example.ORG", false)); !errors.Is(err, store.ErrEmailUsed) {
			t.Fatalf("duplicate e-mail (other case): got %v, want ErrEmailUsed", err)
		}
		got, err := s.UserByName(ctx, "aLiCe")
		if err != nil || got.ID != alice.ID || got.Name != "Alice" {
			t.Fatalf("UserByName: %+v, %v", got, err)
		}
		if _, err := s.UserByName(ctx, "nobody"); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("missing user: got %v", err)
		}
		for _, n := range []string{"carol", "dave", "erin"} {
			if err := s.CreateUser(ctx, newUser(n, n+"@example.org", false)); err != nil {
				t.Fatal(err)
			}
		}
		page, total, err := s.ListUsers(ctx, store.ListUsersOptions{Offset: 1, Limit: 2})
		if err != nil || total != 4 || len(page) != 2 || page[0].Name != "carol" || page[1].Name != "dave" {
			t.Fatalf("ListUsers page 2: %v total=%d err=%v", names(page), total, err)
		}
		found, total, err := s.ListUsers(ctx, store.ListUsersOptions{Query: "AR", Limit: 10})
		if err != nil || total != 1 || found[0].Name != "carol" {
			t.Fatalf("search: %v %d %v", names(found), total, err)
		}
		// A LIKE wildcard in the query is literal.
		if _, total, _ := s.ListUsers(ctx, store.ListUsersOptions{Query: "%", Limit: 10}); total != 0 {
			t.Fatalf("search %%: total %d, want 0", total)
		}
	})
}

func names(us []store.User) []string {
	var out []string
	for _, u := range us {
		out = append(out, u.Name)
	}
	return out
}

func TestLastAdmin(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		for _, u := range []*store.User{newUser("root", "root@x.org", true), newUser("user", "user@x.org", false)} {
			if err := s.CreateUser(ctx, u); err != nil {
				t.Fatal(err)
			}
		}
		demote := func(u *store.User) error { u.IsAdmin = false; return nil }
		if _, err := s.UpdateUser(ctx, "root", demote); !errors.Is(err, store.ErrLastAdmin) {
			t.Fatalf("demote last admin: %v", err)
		}
		if _, err := s.UpdateUser(ctx, "root", func(u *store.User) error { u.IsActive = false; return nil }); !errors.Is(err, store.ErrLastAdmin) {
			t.Fatalf("deactivate last admin: %v", err)
		}
		if err := s.DeleteUser(ctx, "root", nil); !errors.Is(err, store.ErrLastAdmin) {
			t.Fatalf("delete last admin: %v", err)
		}
		if u, _ := s.UserByName(ctx, "root"); !u.IsAdmin || !u.IsActive {
			t.Fatal("rejected change was saved")
		}
		// Two admins demoted concurrently: exactly one may succeed.
		if _, err := s.UpdateUser(ctx, "user", func(u *store.User) error { u.IsAdmin = true; return nil }); err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		errs := make([]error, 2)
		for i, name := range []string{"root", "user"} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, errs[i] = s.UpdateUser(ctx, name, demote)
			}()
		}
		wg.Wait()
		ok, last := 0, 0
		for _, err := range errs {
			switch {
			case err == nil:
				ok++
			case errors.Is(err, store.ErrLastAdmin):
				last++
			default:
				t.Fatalf("concurrent demotion: %v", err)
			}
		}
		if ok != 1 || last != 1 {
			t.Fatalf("concurrent demotions: %d succeeded, %d refused; want 1 and 1", ok, last)
		}
	})
}

func TestAccessTokens(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		u := newUser("alice", "a@x.org", false)
		v := newUser("victor", "v@x.org", false)
		for _, x := range []*store.User{u, v} {
			if err := s.CreateUser(ctx, x); err != nil {
				t.Fatal(err)
			}
		}
		tok := &store.AccessToken{UID: u.ID, Name: "ci", TokenHash: "h1", TokenLastEight: "12345678", Scope: "read:user"}
		if err := s.CreateAccessToken(ctx, tok); err != nil {
			t.Fatal(err)
		}
		if err := s.CreateAccessToken(ctx, &store.AccessToken{UID: u.ID, Name: "ci", TokenHash: "h2"}); !errors.Is(err, store.ErrTokenNameUsed) {
			t.Fatalf("duplicate name: %v", err)
		}
		// Another user may reuse the name.
		if err := s.CreateAccessToken(ctx, &store.AccessToken{UID: v.ID, Name: "ci", TokenHash: "h3"}); err != nil {
			t.Fatal(err)
		}
		gotTok, owner, err := s.AccessTokenByHash(ctx, "h1")
		if err != nil || gotTok.ID != tok.ID || owner.ID != u.ID {
			t.Fatalf("by hash: %+v %+v %v", gotTok, owner, err)
		}
		if err := s.TouchAccessTokens(ctx, map[int64]int64{tok.ID: 100}); err != nil {
			t.Fatal(err)
		}
		s.TouchAccessTokens(ctx, map[int64]int64{tok.ID: 50}) // older: ignored
		gotTok, _, _ = s.AccessTokenByHash(ctx, "h1")
		if gotTok.LastUsedUnix != 100 {
			t.Fatalf("last used %d, want 100", gotTok.LastUsedUnix)
		}
		if err := s.DeleteAccessToken(ctx, v.ID, tok.ID); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("delete another user's token: %v", err)
		}
		if err := s.DeleteAccessToken(ctx, u.ID, tok.ID); err != nil {
			t.Fatal(err)
		}
		if _, _, err := s.AccessTokenByHash(ctx, "h1"); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("deleted token still found: %v", err)
		}
		if err := s.DeleteUser(ctx, "victor", nil); err != nil {
			t.Fatal(err)
		}
		if _, _, err := s.AccessTokenByHash(ctx, "h3"); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("token of deleted user still found: %v", err)
		}
	})
}

// TestAuthLookupSeesChanges: the authentication path caches user rows, but
// a change made through another Store (another forge process, or the CLI)
// is visible on the very next lookup.
func TestAuthLookupSeesChanges(t *testing.T) {
	for _, kind := range storetest.Backends {
		t.Run(kind, func(t *testing.T) {
			ctx := context.Background()
			cfg := storetest.Database(t, kind)
			a, err := store.Open(cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer a.Close()
			if err := a.Migrate(ctx); err != nil {
				t.Fatal(err)
			}
			b, err := store.Open(cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer b.Close()
			if err := b.Own(ctx, owned); err != nil {
				t.Fatal(err)
			}
			u := newUser("alice", "a@x.org", true)
			if err := a.CreateUser(ctx, u); err != nil {
				t.Fatal(err)
			}
			a.CreateUser(ctx, newUser("other", "o@x.org", true))
			if err := a.CreateAccessToken(ctx, &store.AccessToken{UID: u.ID, Name: "t", TokenHash: "h"}); err != nil {
				t.Fatal(err)
			}
			_, owner, err := a.AccessTokenByHash(ctx, "h") // now cached in a
			if err != nil || !owner.IsAdmin {
				t.Fatalf("first lookup: %+v %v", owner, err)
			}
			owner.IsAdmin = false // callers get copies
			if _, o, _ := a.AccessTokenByHash(ctx, "h"); !o.IsAdmin {
				t.Fatal("cached row was changed through a returned pointer")
			}
			if _, err := b.UpdateUser(ctx, "alice", func(u *store.User) error { u.IsAdmin = false; u.FullName = "A"; return nil }); err != nil {
				t.Fatal(err)
			}
			_, owner, err = a.AccessTokenByHash(ctx, "h")
			if err != nil || owner.IsAdmin || owner.FullName != "A" {
				t.Fatalf("change by another process not seen: %+v %v", owner, err)
			}
			// Pages read people through the same cache (UsersByID).
			people, err := a.UsersByID(ctx, []int64{u.ID, u.ID})
			if err != nil || len(people) != 1 || people[u.ID].FullName != "A" {
				t.Fatalf("users by id: %+v %v", people, err)
			}
			people[u.ID].FullName = "changed by a caller"
			if people, _ = a.UsersByID(ctx, []int64{u.ID}); people[u.ID].FullName != "A" {
				t.Fatal("cached row was changed through a returned pointer")
			}
			if _, err := b.UpdateUser(ctx, "alice", func(u *store.User) error { u.FullName = "B"; return nil }); err != nil {
				t.Fatal(err)
			}
			if people, err = a.UsersByID(ctx, []int64{u.ID}); err != nil || people[u.ID].FullName != "B" {
				t.Fatalf("users by id after a change by another process: %+v %v", people[u.ID], err)
			}
			// Commit authors too (UsersByEmails), by their new address.
			if byMail, err := a.UsersByEmails(ctx, []string{"A@X.org"}); err != nil || byMail["a@x.org"].FullName != "B" {
				t.Fatalf("users by e-mail: %+v %v", byMail, err)
			}
			if _, err := b.UpdateUser(ctx, "alice", func(u *store.User) error { e := "new@x.org"; u.Email = e; return nil }); err != nil {
				t.Fatal(err)
			}
			if byMail, err := a.UsersByEmails(ctx, []string{"a@x.org", "new@x.org"}); err != nil || len(byMail) != 1 || byMail["new@x.org"] == nil {
				t.Fatalf("users by e-mail after a change by another process: %+v %v", byMail, err)
			}
			if err := b.DeleteUser(ctx, "alice", nil); err != nil {
				t.Fatal(err)
			}
			if _, _, err := a.AccessTokenByHash(ctx, "h"); !errors.Is(err, store.ErrNotFound) {
				t.Fatalf("token of a user deleted elsewhere: %v", err)
			}
		})
	}
}

// TestSQLitePathWithURICharacters: a database path holding "#", "?" or
// "%" opens the file at that path, not one cut where a URI would cut it.
func TestSQLitePathWithURICharacters(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a#b?c%d")
	cfg := storetest.Database(t, "sqlite3")
	cfg.Path = filepath.Join(dir, "forge.db")
	s, err := store.Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Migrate(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(cfg.Path); err != nil {
		t.Fatalf("the database is not at its path: %v", err)
	}
	if entries, _ := os.ReadDir(filepath.Dir(dir)); len(entries) != 1 {
		t.Fatalf("files beside the database's directory: %v", entries)
	}
}

// TestNULInTextIsInvalid: PostgreSQL refuses a NUL character in text
// (SQLSTATE 22021); the store answers errs.Invalid for it, a client's
// 422 rather than a 500, whichever statement meets it. SQLite stores it.
func TestNULInTextIsInvalid(t *testing.T) {
	t.Run("postgres", func(t *testing.T) {
		s := storetest.Open(t, "postgres")
		ctx := context.Background()
		var e *errs.Error
		err := s.CreateUser(ctx, &store.User{Name: "nul", Email: "nul@example.org", FullName: "a\x00b", IsActive: true})
		if !errors.As(err, &e) || e.Kind != errs.Invalid {
			t.Fatalf("insert: %v, want errs.Invalid", err)
		}
		_, err = s.UserByName(ctx, "a\x00b")
		if !errors.As(err, &e) || e.Kind != errs.Invalid {
			t.Fatalf("query: %v, want errs.Invalid", err)
		}
	})
	t.Run("sqlite3", func(t *testing.T) {
		s := storetest.Open(t, "sqlite3")
		if err := s.CreateUser(context.Background(), &store.User{Name: "nul", Email: "nul@example.org", FullName: "a\x00b", IsActive: true}); err != nil {
			t.Fatal(err)
		}
	})
}

// storeWithConns opens a store on a fresh, migrated database of kind
// whose pool holds conns connections.
func storeWithConns(t *testing.T, kind string, conns int) *store.Store {
	t.Helper()
	cfg := storetest.Database(t, kind)
	cfg.MaxOpenConns, cfg.MaxIdleConns = conns, conns
	return openMigrated(t, cfg)
}

// storesOnOneDatabase opens n stores on one fresh, migrated database of
// kind, each standing for a forge process of its own.
func storesOnOneDatabase(t *testing.T, kind string, n int) []*store.Store {
	t.Helper()
	cfg := storetest.Database(t, kind)
	stores := make([]*store.Store, n)
	for i := range stores {
		stores[i] = openMigrated(t, cfg)
	}
	return stores
}

func openMigrated(t *testing.T, cfg config.Database) *store.Store {
	t.Helper()
	s, err := store.Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if err := s.Migrate(context.Background()); err != nil {
		t.Fatal(err)
	}
	return s
}
