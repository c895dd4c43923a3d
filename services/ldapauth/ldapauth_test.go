package ldapauth_test

import (
	"bytes"
	"context"
	"errors"
	"testing"

	"forge/services/errs"
	"forge/services/ldapauth"
	"forge/services/ldapauth/ldaptest"
	"forge/services/store"
	"forge/services/store/storetest"
)

// TestAuthenticate binds against a real slapd: the right password, a wrong
// one, an empty one (an anonymous bind would succeed), an unknown name, a
// filter injection, the admin filter and a directory that is down.
func TestAuthenticate(t *testing.T) {
	t.Parallel()
	dir := ldaptest.Start(t)
	dir.AddUser(t, ldaptest.User{UID: "alice", Password: "alice-pw", GivenName: "Alice", Surname: "Liddell", Mail: "alice@example.org", Admin: true})
	dir.AddUser(t, ldaptest.User{UID: "bob", Password: "bob-pw", Surname: "Builder"})
	cfg := dir.Config()
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}

	e, err := cfg.Authenticate("alice", "alice-pw")
	if err != nil {
		t.Fatal(err)
	}
	if e.Username != "alice" || e.FirstName != "Alice" || e.Surname != "Liddell" || e.Mail != "alice@example.org" || !e.IsAdmin {
		t.Fatalf("alice: %+v", e)
	}
	if e, err := cfg.Authenticate("bob", "bob-pw"); err != nil || e.IsAdmin || e.Mail != "" {
		t.Fatalf("bob: %+v %v", e, err)
	}
	for _, c := range []struct{ login, pw string }{
		{"alice", "wrong"}, {"alice", ""}, {"nobody", "x"}, {"*", "alice-pw"}, {"alice)(uid=*", "alice-pw"}, {"", "alice-pw"},
	} {
		if _, err := cfg.Authenticate(c.login, c.pw); !errors.Is(err, ldapauth.ErrBadCredentials) {
			t.Errorf("%q/%q: %v, want bad credentials", c.login, c.pw, err)
		}
	}
	bad := cfg
	bad.BindPassword = "wrong"
	if _, err := bad.Authenticate("alice", "alice-pw"); !errors.Is(err, ldapauth.ErrUnavailable) {
		t.Errorf("wrong bind password: %v", err)
	}
	dir.Stop()
	_, err = cfg.Authenticate("alice", "alice-pw")
	if !errors.Is(err, ldapauth.ErrUnavailable) || errs.KindOf(err) != errs.Unavailable {
		t.Fatalf("directory down: %v", err)
	}
}

func TestValidate(t *testing.T) {
	good := ldapauth.Config{Host: "ldap.example.org", Port: 389, UserBase: "dc=x", Filter: "(uid=%s)", AttributeMail: "mail"}
	if err := good.Validate(); err != nil || good.SecurityProtocol != ldapauth.Unencrypted {
		t.Fatalf("%v %q", err, good.SecurityProtocol)
	}
	for name, change := range map[string]func(*ldapauth.Config){
		"no host":      func(c *ldapauth.Config) { c.Host = "" },
		"port":         func(c *ldapauth.Config) { c.Port = 70000 },
		"protocol":     func(c *ldapauth.Config) { c.SecurityProtocol = "tls" },
		"no base":      func(c *ldapauth.Config) { c.UserBase = "" },
		"no filter":    func(c *ldapauth.Config) { c.Filter = "" },
		"bad filter":   func(c *ldapauth.Config) { c.Filter = "(uid=%s" },
		"no mail attr": func(c *ldapauth.Config) { c.AttributeMail = "" },
	} {
		c := good
		change(&c)
		if err := c.Validate(); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// TestSources: sources are stored sealed (the bind password is not in the
// row), users of a source sign in through it, an unknown user is created
// on the first sign-in, the admin filter decides is_admin, and a source in
// use cannot be deleted.
func TestSources(t *testing.T) {
	t.Parallel()
	dir := ldaptest.Start(t)
	dir.AddUser(t, ldaptest.User{UID: "carol", Password: "carol-pw", GivenName: "Carol", Surname: "Shaw", Mail: "carol@example.org"})
	dir.AddUser(t, ldaptest.User{UID: "h.smith", Password: "smith-pw", Surname: "hsmith"})
	dir.AddUser(t, ldaptest.User{UID: "ivan", Password: "ivan-pw", Surname: "Ivanov", Mail: "ivan@example.org"})
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		srcs, err := ldapauth.New(st, "test-secret-key")
		if err != nil {
			t.Fatal(err)
		}
		src, err := srcs.Add(ctx, ldapauth.Source{Name: "corp", Active: true, Config: dir.Config()})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := srcs.Add(ctx, ldapauth.Source{Name: "corp", Config: dir.Config()}); !errors.Is(err, store.ErrLoginSourceExists) {
			t.Fatalf("second corp: %v", err)
		}
		row, err := st.LoginSourceByID(ctx, src.ID)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(row.Cfg, []byte(ldaptest.BindPassword)) || bytes.Contains(row.Cfg, []byte("bind_dn")) {
			t.Fatal("configuration stored in clear")
		}

		if _, err := srcs.SignInNew(ctx, "carol", "wrong"); !errors.Is(err, ldapauth.ErrBadCredentials) {
			t.Fatalf("wrong password: %v", err)
		}
		u, err := srcs.SignInNew(ctx, "carol", "carol-pw")
		if err != nil {
			t.Fatal(err)
		}
		if u.Name != "carol" || u.Email != "carol@example.org" || u.FullName != "Carol Shaw" || u.LoginSource != src.ID ||
			u.LoginName != "carol" || u.PasswdHash != "" || u.IsAdmin {
			t.Fatalf("created: %+v", u)
		}

		dir.SetAdmin(t, "carol", true)
		u, err = srcs.Verify(ctx, u, "carol-pw")
		if err != nil || !u.IsAdmin {
			t.Fatalf("verify with admin mark: %+v %v", u, err)
		}
		if stored, _ := st.UserByName(ctx, "carol"); !stored.IsAdmin {
			t.Fatal("is_admin not saved")
		}
		dir.SetAdmin(t, "carol", false)
		if _, err := srcs.Verify(ctx, u, "nope"); !errors.Is(err, ldapauth.ErrBadCredentials) {
			t.Fatalf("verify wrong password: %v", err)
		}

		if _, err := srcs.Update(ctx, src.ID, func(s *ldapauth.Source) error { s.Active = false; return nil }); err != nil {
			t.Fatal(err)
		}
		if _, err := srcs.Verify(ctx, u, "carol-pw"); !errors.Is(err, ldapauth.ErrBadCredentials) {
			t.Fatalf("inactive source: %v", err)
		}
		got, err := srcs.Get(ctx, src.ID)
		if err != nil || got.Config.BindPassword != ldaptest.BindPassword || got.Active {
			t.Fatalf("get after update: %+v %v", got, err)
		}
		if err := srcs.Delete(ctx, src.ID); !errors.Is(err, store.ErrLoginSourceInUse) {
			t.Fatalf("delete in use: %v", err)
		}

		// A source naming its users by another attribute: the account
		// found again by its login name, not created twice; and a local
		// account of the same name is never taken over.
		cfg := dir.Config()
		cfg.AttributeUsername = "sn"
		if _, err := srcs.Add(ctx, ldapauth.Source{Name: "by-sn", Active: true, Config: cfg}); err != nil {
			t.Fatal(err)
		}
		first, err := srcs.SignInNew(ctx, "h.smith", "smith-pw")
		if err != nil || first.Name != "hsmith" || first.LoginName != "h.smith" || first.Email != "hsmith@localhost.local" {
			t.Fatalf("h.smith: %+v %v", first, err)
		}
		again, err := srcs.SignInNew(ctx, "h.smith", "smith-pw")
		if err != nil || again.ID != first.ID {
			t.Fatalf("h.smith again: %+v %v", again, err)
		}
		if err := st.CreateUser(ctx, &store.User{Name: "Ivanov", Email: "local-ivan@example.org", IsActive: true}); err != nil {
			t.Fatal(err)
		}
		if _, err := srcs.SignInNew(ctx, "ivan", "ivan-pw"); !errors.Is(err, ldapauth.ErrBadCredentials) {
			t.Fatalf("ivan onto a local account: %v", err)
		}
	})
}

// TestAuthenticateTLS: LDAPS and StartTLS, with the certificate verified
// (refused: it is self-signed) or not (--skip-tls-verify).
func TestAuthenticateTLS(t *testing.T) {
	t.Parallel()
	dir := ldaptest.Start(t)
	dir.AddUser(t, ldaptest.User{UID: "tls", Password: "tls-pw", Surname: "T", Mail: "tls@example.org"})
	ldaps := dir.Config()
	ldaps.SecurityProtocol, ldaps.Port, ldaps.SkipVerify = ldapauth.LDAPS, dir.TLSPort, true
	starttls := dir.Config()
	starttls.SecurityProtocol, starttls.SkipVerify = ldapauth.StartTLS, true
	for name, cfg := range map[string]ldapauth.Config{"ldaps": ldaps, "starttls": starttls} {
		if _, err := cfg.Authenticate("tls", "tls-pw"); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		if _, err := cfg.Authenticate("tls", "wrong"); !errors.Is(err, ldapauth.ErrBadCredentials) {
			t.Errorf("%s, wrong password: %v", name, err)
		}
		cfg.SkipVerify = false
		if _, err := cfg.Authenticate("tls", "tls-pw"); !errors.Is(err, ldapauth.ErrUnavailable) {
			t.Errorf("%s, self-signed certificate verified: %v", name, err)
		}
	}
}
