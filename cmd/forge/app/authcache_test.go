package app_test

import (
	"context"
	"encoding/base64"
	"strings"
	"testing"

	"forge/services/store"
)

// The interceptor caches what a token authenticates as (services/auth
// cache.go). These tests warm that cache, change what the token stands
// for, and expect the very next request to be judged on the new state:
// through the API, and through a second store on the same database (what
// the forge command line or another forge process does), on SQLite and
// PostgreSQL. Permissions (collaborators, teams) are cached with the
// resolved repositories (resolvecache_test.go); the collaborator case
// guards them here too.

func basicAuth(user, pass string) string {
	return "Basic " + base64.StdEncoding.EncodeToString([]byte(user+":"+pass))
}

// warm sends the request twice, expecting want each time, so that a
// cached principal, if any, serves the next request.
func warm(t *testing.T, s *testServer, path, token string, want int) {
	t.Helper()
	for i := 0; i < 2; i++ {
		expectStatus(t, s.do("GET", path, "", "Authorization", "token "+token), want)
	}
}

func TestAuthCacheInvalidation(t *testing.T) {
	t.Parallel()
	eachBackend(t, nil, func(t *testing.T, s *testServer) {
		t.Run("revoked token", func(t *testing.T) {
			tok := s.seedUser("revoked", "revoked-password-1", false)
			warm(t, s, "/api/v1/user", tok, 200)
			r := s.do("DELETE", "/api/v1/users/revoked/tokens/seed", "", "Authorization", basicAuth("revoked", "revoked-password-1"))
			expectStatus(t, r, 204)
			r = s.do("GET", "/api/v1/user", "", "Authorization", "token "+tok)
			expectStatus(t, r, 401)
			if got := r.message(t); got != "invalid or revoked access token" {
				t.Fatalf("message %q", got)
			}
		})
		t.Run("deactivated user", func(t *testing.T) {
			tok := s.seedUser("deactivated", "deactivated-password-1", false)
			warm(t, s, "/api/v1/user", tok, 200)
			s.adminDo(t, "PATCH", "/api/v1/admin/users/deactivated", `{"active":false}`, 200)
			r := s.do("GET", "/api/v1/user", "", "Authorization", "token "+tok)
			expectStatus(t, r, 403)
			if got := r.message(t); !strings.Contains(got, "prohibited from signing in") {
				t.Fatalf("message %q", got)
			}
		})
		t.Run("admin granted and taken", func(t *testing.T) {
			tok := s.seedUser("promoted", "promoted-password-1", false)
			warm(t, s, "/api/v1/admin/users", tok, 403)
			s.adminDo(t, "PATCH", "/api/v1/admin/users/promoted", `{"admin":true}`, 200)
			warm(t, s, "/api/v1/admin/users", tok, 200)
			s.adminDo(t, "PATCH", "/api/v1/admin/users/promoted", `{"admin":false}`, 200)
			expectStatus(t, s.do("GET", "/api/v1/admin/users", "", "Authorization", "token "+tok), 403)
		})
		t.Run("profile change shows at once", func(t *testing.T) {
			tok := s.seedUser("renamed", "renamed-password-1", false)
			warm(t, s, "/api/v1/user", tok, 200)
			s.adminDo(t, "PATCH", "/api/v1/admin/users/renamed", `{"full_name":"New Name"}`, 200)
			var u struct {
				FullName string `json:"full_name"`
			}
			r := s.do("GET", "/api/v1/user", "", "Authorization", "token "+tok)
			expectStatus(t, r, 200)
			r.json(t, &u)
			if u.FullName != "New Name" {
				t.Fatalf("full_name %q after the change", u.FullName)
			}
		})
		t.Run("removed collaborator", func(t *testing.T) {
			owner := s.seedUser("owner", "owner-password-1", false)
			tok := s.seedUser("collab", "collab-password-1", false)
			s.createRepo(t, owner, "priv", false, true)
			s.adminDo(t, "PUT", "/api/v1/repos/owner/priv/collaborators/collab", `{"permission":"read"}`, 204)
			warm(t, s, "/api/v1/repos/owner/priv", tok, 200)
			s.adminDo(t, "DELETE", "/api/v1/repos/owner/priv/collaborators/collab", "", 204)
			expectStatus(t, s.do("GET", "/api/v1/repos/owner/priv", "", "Authorization", "token "+tok), 404)
		})
		t.Run("changed by another process", func(t *testing.T) {
			// A second store on the same database stands for the command
			// line or another forge process: this process hears nothing
			// of its change but what the database says.
			other, err := store.Open(s.Cfg.Database)
			if err != nil {
				t.Fatal(err)
			}
			defer other.Close()
			ctx := context.Background()
			tok := s.seedUser("elsewhere", "elsewhere-password-1", false)
			warm(t, s, "/api/v1/user", tok, 200)
			if _, err := other.UpdateUser(ctx, "elsewhere", func(u *store.User) error { u.ProhibitLogin = true; return nil }); err != nil {
				t.Fatal(err)
			}
			expectStatus(t, s.do("GET", "/api/v1/user", "", "Authorization", "token "+tok), 403)
			if _, err := other.UpdateUser(ctx, "elsewhere", func(u *store.User) error { u.ProhibitLogin = false; return nil }); err != nil {
				t.Fatal(err)
			}
			warm(t, s, "/api/v1/user", tok, 200)
			u, err := other.UserByName(ctx, "elsewhere")
			if err != nil {
				t.Fatal(err)
			}
			toks, err := other.AccessTokensByName(ctx, u.ID, "seed")
			if err != nil {
				t.Fatal(err)
			}
			if err := other.DeleteAccessToken(ctx, u.ID, toks[0].ID); err != nil {
				t.Fatal(err)
			}
			expectStatus(t, s.do("GET", "/api/v1/user", "", "Authorization", "token "+tok), 401)
		})
	})
}
