package app_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"code.gitea.io/sdk/gitea"

	"forge/services/ldapauth"
	"forge/services/ldapauth/ldaptest"
)

// TestLDAPSyncUsers: an administrator runs sync_external_users; a new
// directory user gets an account the admin list shows, and a user removed
// from the directory is deactivated, so the token they made while listed
// is refused on the next request (the principal cache follows the
// authentication generation). Local accounts are left alone.
func TestLDAPSyncUsers(t *testing.T) {
	t.Parallel()
	eachBackend(t, nil, func(t *testing.T, s *testServer) {
		dir := ldaptest.Start(t)
		dir.AddUser(t, ldaptest.User{UID: "gus", Password: "gus-ldap-pw", GivenName: "Gus", Surname: "Grissom", Mail: "gus@corp.example"})
		dir.AddUser(t, ldaptest.User{UID: "hal", Password: "hal-ldap-pw", GivenName: "Hal", Surname: "Nine", Mail: "hal@corp.example"})
		ctx := context.Background()
		sources, err := ldapauth.New(s.App.Store, s.Cfg.Security.SecretKey)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := sources.Add(ctx, ldapauth.Source{Name: "corp", Active: true, Sync: true, Config: dir.Config()}); err != nil {
			t.Fatal(err)
		}
		admin := s.sdk(gitea.SetToken(s.AdminToken))
		// sync runs the task until done holds: a round is counted when it
		// starts, and a run asked for while one is in progress is skipped.
		sync := func(what string, done func() bool) {
			t.Helper()
			waitFor(t, 30*time.Second, what, func() bool {
				if resp, err := admin.RunCronTasks("sync_external_users"); err != nil || resp.StatusCode != http.StatusNoContent {
					t.Fatalf("RunCronTasks: %v %v", resp, err)
				}
				time.Sleep(100 * time.Millisecond)
				return done()
			})
		}
		listed := func(name string) *gitea.User {
			t.Helper()
			list, _, err := admin.AdminListUsers(gitea.AdminListUsersOptions{ListOptions: gitea.ListOptions{PageSize: 50}})
			if err != nil {
				t.Fatal(err)
			}
			for _, u := range list {
				if u.UserName == name {
					return u
				}
			}
			return nil
		}

		// gus signs in first and makes a token; hal is unknown to forge.
		gus := s.sdk(gitea.SetBasicAuth("gus", "gus-ldap-pw"))
		tok, _, err := gus.CreateAccessToken(gitea.CreateAccessTokenOption{Name: "gus-token", Scopes: []gitea.AccessTokenScope{"read:user"}})
		if err != nil {
			t.Fatal(err)
		}
		expectStatus(t, s.do("GET", "/api/v1/user", "", "Authorization", "token "+tok.Token), http.StatusOK)
		if listed("hal") != nil {
			t.Fatal("hal has an account before any synchronization")
		}

		sync("hal's account", func() bool { return listed("hal") != nil })
		if hal := listed("hal"); hal.Email != "hal@corp.example" || hal.FullName != "Hal Nine" || !hal.IsActive || hal.LoginName != "hal" {
			t.Fatalf("hal: %+v", hal)
		}
		expectStatus(t, s.do("GET", "/api/v1/user", "", "Authorization", "token "+tok.Token), http.StatusOK)

		// gus leaves the directory: deactivated, and the token is refused
		// at once (Gitea's 403 for an inactive account).
		dir.DeleteUser(t, "gus")
		sync("gus deactivated", func() bool { u := listed("gus"); return u != nil && !u.IsActive })
		r := s.do("GET", "/api/v1/user", "", "Authorization", "token "+tok.Token)
		expectStatus(t, r, http.StatusForbidden)
		if m := r.message(t); m != "This account is prohibited from signing in, please contact your site administrator." {
			t.Fatalf("gus's token: %q", m)
		}
		if u := listed("hal"); u == nil || !u.IsActive {
			t.Fatalf("hal after the second synchronization: %+v", u)
		}
		if u := listed("root"); u == nil || !u.IsActive || !u.IsAdmin {
			t.Fatalf("root: %+v", u)
		}
		expectStatus(t, s.do("GET", "/api/v1/user", "", "Authorization", "token "+s.AdminToken), http.StatusOK)

		// Non-administrators cannot run it.
		tokAlice := s.seedUser("alice", "alice-password", false)
		alice := s.sdk(gitea.SetToken(tokAlice))
		if resp, err := alice.RunCronTasks("sync_external_users"); err == nil || resp.StatusCode != http.StatusForbidden {
			t.Fatalf("RunCronTasks by a non-admin: %v %v", resp, err)
		}
	})
}
