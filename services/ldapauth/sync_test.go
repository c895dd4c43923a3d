package ldapauth_test

import (
	"context"
	"errors"
	"testing"

	"forge/services/ldapauth"
	"forge/services/ldapauth/ldaptest"
	"forge/services/store"
	"forge/services/store/storetest"
)

// TestSyncUsers synchronizes a source with a real slapd: directory users
// without an account get one, changed attributes and the admin and
// restricted marks reach the accounts, a user removed from the directory
// is deactivated (and the authentication generation moves), local accounts
// and another source's are left alone, the last administrator keeps the
// flag, and a directory that is down or answers only in part deactivates
// nobody.
func TestSyncUsers(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		dir := ldaptest.Start(t)
		dir.AddUser(t, ldaptest.User{UID: "anna", Password: "pw", GivenName: "Anna", Surname: "Karenina", Mail: "anna@corp.example", Admin: true})
		dir.AddUser(t, ldaptest.User{UID: "ben", Password: "pw", GivenName: "Ben", Surname: "Hur", Mail: "ben@corp.example"})
		dir.AddUser(t, ldaptest.User{UID: "cara", Password: "pw", Surname: "Cara", Mail: "cara@corp.example"})
		dir.AddUser(t, ldaptest.User{UID: "lou", Password: "pw", Surname: "Directory Lou", Mail: "lou@corp.example"})
		dir.AddUser(t, ldaptest.User{UID: "olga", Password: "pw", Surname: "Directory Olga", Mail: "olga@corp.example"})
		srcs, err := ldapauth.New(st, "test-secret-key")
		if err != nil {
			t.Fatal(err)
		}
		cfg := dir.Config()
		cfg.RestrictedFilter = "(employeeType=restricted)"
		corp, err := srcs.Add(ctx, ldapauth.Source{Name: "corp", Active: true, Sync: true, Config: cfg})
		if err != nil {
			t.Fatal(err)
		}
		other, err := srcs.Add(ctx, ldapauth.Source{Name: "other", Active: true, Config: dir.Config()})
		if err != nil {
			t.Fatal(err)
		}
		for _, u := range []*store.User{
			{Name: "root", Email: "root@example.org", IsActive: true, IsAdmin: true},
			{Name: "lou", Email: "lou@example.org", FullName: "Local Lou", IsActive: true},
			{Name: "local", Email: "local@example.org", IsActive: true},
			{Name: "olga", Email: "olga@other.example", FullName: "Other Olga", IsActive: true, LoginSource: other.ID, LoginName: "olga"},
			{Name: "oscar", Email: "oscar@other.example", IsActive: true, LoginSource: other.ID, LoginName: "oscar"},
			{Name: "gone", Email: "gone@corp.example", IsActive: true, LoginSource: corp.ID, LoginName: "gone"},
		} {
			if err := st.CreateUser(ctx, u); err != nil {
				t.Fatal(err)
			}
		}
		user := func(name string) *store.User {
			t.Helper()
			u, err := st.UserByName(ctx, name)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			return u
		}
		untouched := func() {
			t.Helper()
			if u := user("lou"); u.LoginSource != 0 || u.FullName != "Local Lou" || u.Email != "lou@example.org" || !u.IsActive {
				t.Errorf("local lou changed: %+v", u)
			}
			if u := user("local"); !u.IsActive {
				t.Error("local account deactivated")
			}
			if u := user("olga"); u.LoginSource != other.ID || u.FullName != "Other Olga" || u.Email != "olga@other.example" || !u.IsActive {
				t.Errorf("other source's olga changed: %+v", u)
			}
			if u := user("oscar"); !u.IsActive {
				t.Error("other source's oscar deactivated")
			}
		}

		// First round: anna, ben and cara created; gone deactivated.
		if err := srcs.SyncUsers(ctx); err != nil {
			t.Fatal(err)
		}
		anna := user("anna")
		if anna.LoginSource != corp.ID || anna.LoginName != "anna" || anna.Email != "anna@corp.example" ||
			anna.FullName != "Anna Karenina" || !anna.IsAdmin || !anna.IsActive || anna.PasswdHash != "" {
			t.Fatalf("anna: %+v", anna)
		}
		if ben := user("ben"); ben.LoginSource != corp.ID || ben.IsAdmin || ben.Restricted || ben.FullName != "Ben Hur" {
			t.Fatalf("ben: %+v", ben)
		}
		if u := user("gone"); u.IsActive {
			t.Fatal("gone still active")
		}
		untouched()
		// The created account signs in.
		if u, err := srcs.Verify(ctx, user("cara"), "pw"); err != nil || u.Name != "cara" {
			t.Fatalf("cara signs in: %+v %v", u, err)
		}

		// Second round: ben's e-mail and surname change, anna loses the
		// admin mark, cara leaves the directory.
		dir.SetAttribute(t, "ben", "mail", "ben.hur@corp.example")
		dir.SetAttribute(t, "ben", "sn", "Hur-Messala")
		dir.SetAttribute(t, "ben", "employeeType", "restricted")
		dir.SetAdmin(t, "anna", false)
		dir.DeleteUser(t, "cara")
		before, err := st.AuthGeneration(ctx)
		if err != nil {
			t.Fatal(err)
		}
		res, err := srcs.SyncSource(ctx, corp)
		if err != nil {
			t.Fatal(err)
		}
		if res != (ldapauth.SyncResult{Updated: 2, Deactivated: 1}) {
			t.Errorf("second round: %+v", res)
		}
		if ben := user("ben"); ben.Email != "ben.hur@corp.example" || ben.FullName != "Ben Hur-Messala" || !ben.Restricted || ben.IsAdmin {
			t.Fatalf("ben after change: %+v", ben)
		}
		if user("anna").IsAdmin {
			t.Fatal("anna still admin")
		}
		if user("cara").IsActive {
			t.Fatal("cara still active")
		}
		after, err := st.AuthGeneration(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if after == before {
			t.Fatal("the authentication generation did not move")
		}
		untouched()

		// The last administrator keeps the flag and stays active.
		dir.SetAdmin(t, "anna", true)
		if _, err := srcs.SyncSource(ctx, corp); err != nil {
			t.Fatal(err)
		}
		if _, err := st.UpdateUser(ctx, "root", func(u *store.User) error { u.IsAdmin = false; return nil }); err != nil {
			t.Fatal(err)
		}
		dir.SetAdmin(t, "anna", false)
		if _, err := srcs.SyncSource(ctx, corp); err != nil {
			t.Fatal(err)
		}
		if !user("anna").IsAdmin {
			t.Fatal("the last administrator demoted")
		}

		// Only part of the directory read: creations and updates, nobody
		// deactivated.
		dir.DeleteUser(t, "ben")
		ldapauth.SetSyncMaxEntries(t, 1)
		if _, err := srcs.SyncSource(ctx, corp); err == nil {
			t.Fatal("truncated search: no error")
		}
		if !user("ben").IsActive {
			t.Fatal("ben deactivated by a partial search")
		}

		// The directory down: nothing changes.
		snapshot, _, err := st.ListUsers(ctx, store.ListUsersOptions{Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		dir.Stop()
		if err := srcs.SyncUsers(ctx); !errors.Is(err, ldapauth.ErrUnavailable) {
			t.Fatalf("directory down: %v", err)
		}
		now, _, err := st.ListUsers(ctx, store.ListUsersOptions{Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		if len(now) != len(snapshot) {
			t.Fatalf("users %d -> %d", len(snapshot), len(now))
		}
		for i := range now {
			if now[i].Version != snapshot[i].Version || now[i].IsActive != snapshot[i].IsActive {
				t.Errorf("%s changed with the directory down", now[i].Name)
			}
		}
	})
}
