package app_test

import (
	"context"
	"strings"
	"testing"

	"code.gitea.io/sdk/gitea"

	"forge/services/ldapauth"
	"forge/services/ldapauth/ldaptest"
)

// TestLDAPSignIn drives LDAP sign-in through a real slapd: an account an
// administrator creates for the directory's user without a password, Basic
// sign-in to the API and to git over HTTP, a wrong password, the first
// sign-in of a user without an account, and a directory that is down.
func TestLDAPSignIn(t *testing.T) {
	t.Parallel()
	eachBackend(t, nil, func(t *testing.T, s *testServer) {
		dir := ldaptest.Start(t)
		dir.AddUser(t, ldaptest.User{UID: "dora", Password: "dora-ldap-pw", GivenName: "Dora", Surname: "Explorer", Mail: "dora@corp.example"})
		dir.AddUser(t, ldaptest.User{UID: "eve", Password: "eve-ldap-pw", GivenName: "Eve", Surname: "Online", Mail: "eve@corp.example", Admin: true})
		dir.AddUser(t, ldaptest.User{UID: "frank", Password: "frank-ldap-pw", Surname: "Frank", Mail: "frank@corp.example"})
		ctx := context.Background()
		sources, err := ldapauth.New(s.App.Store, s.Cfg.Security.SecretKey)
		if err != nil {
			t.Fatal(err)
		}
		src, err := sources.Add(ctx, ldapauth.Source{Name: "corp", Active: true, Config: dir.Config()})
		if err != nil {
			t.Fatal(err)
		}
		admin := s.sdk(gitea.SetToken(s.AdminToken))

		// A local user needs a password: Gitea's words.
		r := s.do("POST", "/api/v1/admin/users", `{"username":"nopw","email":"nopw@example.org"}`, "Authorization", "token "+s.AdminToken, "Content-Type", "application/json")
		expectStatus(t, r, 400)
		if m := r.message(t); m != "PasswordIsRequired" {
			t.Fatalf("local user without password: %q", m)
		}

		// The directory's user, created without a password.
		f := false
		u, resp, err := admin.AdminCreateUser(gitea.CreateUserOption{SourceID: src.ID, LoginName: "dora",
			Username: "dora", Email: "dora@corp.example", MustChangePassword: &f})
		if err != nil || resp.StatusCode != 201 {
			t.Fatalf("create dora: %v %v", resp, err)
		}
		if u.SourceID != src.ID || u.LoginName != "dora" {
			t.Fatalf("dora: source %d login %q", u.SourceID, u.LoginName)
		}
		if stored, _ := s.App.Store.UserByName(ctx, "dora"); stored.PasswdHash != "" {
			t.Fatal("a password was stored for an LDAP user")
		}

		// Basic sign-in binds against the directory.
		dora := s.sdk(gitea.SetBasicAuth("dora", "dora-ldap-pw"))
		me, _, err := dora.GetMyUserInfo()
		if err != nil || me.UserName != "dora" {
			t.Fatalf("dora signs in: %v %v", me, err)
		}
		r = s.do("GET", "/api/v1/user", "", "Authorization", basic("dora", "wrong-password"))
		expectStatus(t, r, 401)

		// git over HTTP: a private repository dora collaborates on.
		if _, _, err := admin.CreateRepo(gitea.CreateRepoOption{Name: "secret", Private: true, AutoInit: true}); err != nil {
			t.Fatal(err)
		}
		if _, err := admin.AddCollaborator("root", "secret", "dora", gitea.AddCollaboratorOption{}); err != nil {
			t.Fatal(err)
		}
		work := s.clone(t, "dora", "dora-ldap-pw", "root", "secret")
		if out := gitCmd(t, work, "log", "--oneline"); out == "" {
			t.Fatal("empty clone")
		}
		if out, err := gitTry(t.TempDir(), "clone", "-q", s.gitURL("dora", "wrong-password", "root", "secret"), "."); err == nil {
			t.Fatalf("clone with a wrong password: %s", out)
		}

		// First sign-in creates the account from the directory; the admin
		// filter makes eve a site administrator.
		r = s.do("GET", "/api/v1/user", "", "Authorization", basic("eve", "eve-ldap-pw"))
		expectStatus(t, r, 200)
		var eve struct {
			Login    string `json:"login"`
			Email    string `json:"email"`
			FullName string `json:"full_name"`
			IsAdmin  bool   `json:"is_admin"`
			SourceID int64  `json:"source_id"`
		}
		r.json(t, &eve)
		if eve.Login != "eve" || eve.Email != "eve@corp.example" || eve.FullName != "Eve Online" || !eve.IsAdmin || eve.SourceID != src.ID {
			t.Fatalf("eve: %+v", eve)
		}
		// Unknown everywhere, or a wrong password: no account.
		expectStatus(t, s.do("GET", "/api/v1/user", "", "Authorization", basic("frank", "nope")), 401)
		expectStatus(t, s.do("GET", "/api/v1/user", "", "Authorization", basic("nobody", "nope")), 401)
		if _, err := s.App.Store.UserByName(ctx, "frank"); err == nil {
			t.Fatal("frank created by a wrong password")
		}
		// Local users still sign in with their hash.
		expectStatus(t, s.do("GET", "/api/v1/user", "", "Authorization", basic("root", rootPassword)), 200)

		// The directory down: a clean 401, never a 500.
		dir.Stop()
		r = s.do("GET", "/api/v1/user", "", "Authorization", basic("dora", "dora-ldap-pw"))
		expectStatus(t, r, 401)
		if m := r.message(t); !strings.Contains(m, "unavailable") {
			t.Errorf("directory down: %q", m)
		}
		expectStatus(t, s.do("GET", "/api/v1/user", "", "Authorization", basic("frank", "frank-ldap-pw")), 401)
		if out, err := gitTry(t.TempDir(), "clone", "-q", s.gitURL("dora", "dora-ldap-pw", "root", "secret"), "."); err == nil || strings.Contains(out, "500") {
			t.Fatalf("clone with the directory down: %v %s", err, out)
		}
		expectStatus(t, s.do("GET", "/api/v1/user", "", "Authorization", basic("root", rootPassword)), 200)
	})
}
