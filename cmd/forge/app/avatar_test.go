package app_test

import (
	"crypto/md5"
	"encoding/hex"
	"testing"

	"code.gitea.io/sdk/gitea"

	"forge/services/config"
)

// TestAvatarURL: user JSON carries Gitea's default avatar link, Gravatar's
// URL for the MD5 of the lower-cased e-mail address, and forge's own
// avatars/<name> once [picture] DISABLE_GRAVATAR is set.
func TestAvatarURL(t *testing.T) {
	t.Parallel()
	sum := md5.Sum([]byte("alice@example.org"))
	gravatar := "https://secure.gravatar.com/avatar/" + hex.EncodeToString(sum[:]) + "?d=identicon"
	for _, c := range []struct {
		name  string
		tweak func(*config.Config)
		want  func(s *testServer) string
	}{
		{"gravatar", nil, func(*testServer) string { return gravatar }},
		{"disabled", func(c *config.Config) { c.Picture.DisableGravatar = true },
			func(s *testServer) string { return s.Cfg.Server.RootURL + "avatars/alice" }},
	} {
		t.Run(c.name, func(t *testing.T) {
			eachBackend(t, c.tweak, func(t *testing.T, s *testServer) {
				tok := s.seedUser("alice", "alice-password", false)
				alice := s.sdk(gitea.SetToken(tok))
				want := c.want(s)
				me, _, err := alice.GetMyUserInfo()
				if err != nil || me.AvatarURL != want {
					t.Fatalf("GET /user avatar_url %q (%v), want %q", me.AvatarURL, err, want)
				}
				found, _, err := s.sdk().SearchUsers(gitea.SearchUsersOption{KeyWord: "alice"})
				if err != nil || len(found) != 1 || found[0].AvatarURL != want {
					t.Fatalf("search: %+v %v, want %q", found, err, want)
				}
			})
		})
	}
}
