package app_test

import (
	"testing"

	"code.gitea.io/sdk/gitea"
)

// TestUserSearchEmail: GET /users/search?q= matches e-mail addresses as
// Gitea's does: a public address for anyone, a hidden one (hide_email)
// only for its owner and site administrators.
func TestUserSearchEmail(t *testing.T) {
	t.Parallel()
	eachBackend(t, nil, func(t *testing.T, s *testServer) {
		rootTok := s.seedUser("boss", "boss-password", true)
		s.seedUser("alice", "alice-password", false)
		bobTok := s.seedUser("bob", "bob-password", false)
		carolTok := s.seedUser("carol", "carol-password", false)
		bob := s.sdk(gitea.SetToken(bobTok))
		hide := true
		if _, _, err := bob.UpdateUserSettings(gitea.UserSettingsOptions{HideEmail: &hide}); err != nil {
			t.Fatal(err)
		}
		find := func(c *gitea.Client, q string) string {
			t.Helper()
			us, _, err := c.SearchUsers(gitea.SearchUsersOption{KeyWord: q})
			if err != nil {
				t.Fatalf("search %q: %v", q, err)
			}
			return userNames(us)
		}
		carol, root, anon := s.sdk(gitea.SetToken(carolTok)), s.sdk(gitea.SetToken(rootTok)), s.sdk()
		for _, c := range []struct {
			who  string
			c    *gitea.Client
			q    string
			want string
		}{
			{"carol", carol, "alice@example", "alice"},
			{"anonymous", anon, "ALICE@EXAMPLE.ORG", "alice"},
			{"carol", carol, "bob@example", ""},
			{"anonymous", anon, "bob@example", ""},
			{"bob", bob, "bob@example", "bob"},
			{"boss", root, "bob@example", "bob"},
			{"carol", carol, "@example.org", "alice boss carol root"},
		} {
			if got := find(c.c, c.q); got != c.want {
				t.Errorf("%s searches %q: %q, want %q", c.who, c.q, got, c.want)
			}
		}
	})
}
