package app_test

import (
	"net/http"
	"testing"

	"code.gitea.io/sdk/gitea"
)

// TestUserSettingsSDK reads and changes /user/settings with the SDK's
// calls: a PATCH changes only what it carries, and hide_email turns the
// e-mail other users see into the no-reply placeholder.
func TestUserSettingsSDK(t *testing.T) {
	t.Parallel()
	eachBackend(t, nil, func(t *testing.T, s *testServer) {
		alice := s.sdk(gitea.SetToken(s.seedUser("alice", "alice-password", false)))
		bob := s.sdk(gitea.SetToken(s.seedUser("bob", "bob-password", false)))

		got, _, err := alice.GetUserSettings()
		if err != nil || got.HideEmail || got.Theme != "" {
			t.Fatalf("GetUserSettings: %+v %v", got, err)
		}
		got, resp, err := alice.UpdateUserSettings(gitea.UserSettingsOptions{
			FullName: ptr("Alice A"), Theme: ptr("gitea-dark"), DiffViewStyle: ptr("split"), HideEmail: ptr(true),
		})
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("UpdateUserSettings: %v %v", err, resp)
		}
		want := gitea.UserSettings{FullName: "Alice A", Theme: "gitea-dark", DiffViewStyle: "split", HideEmail: true}
		if *got != want {
			t.Fatalf("after update: %+v, want %+v", *got, want)
		}
		// Only what is sent changes.
		got, _, err = alice.UpdateUserSettings(gitea.UserSettingsOptions{Location: ptr("Berlin"), HideActivity: ptr(true)})
		want.Location, want.HideActivity = "Berlin", true
		if err != nil || *got != want {
			t.Fatalf("second update: %+v %v, want %+v", got, err, want)
		}
		if got, _, err = alice.GetUserSettings(); err != nil || *got != want {
			t.Fatalf("read back: %+v %v", got, err)
		}

		seen, _, err := bob.GetUserInfo("alice")
		if err != nil || seen.Email != "alice@noreply.127.0.0.1" || seen.FullName != "Alice A" || seen.Location != "Berlin" {
			t.Fatalf("alice as bob sees her: %+v %v", seen, err)
		}
		if me, _, err := alice.GetMyUserInfo(); err != nil || me.Email != "alice@example.org" {
			t.Fatalf("alice sees herself: %+v %v", me, err)
		}
		if other, _, err := bob.GetUserSettings(); err != nil || other.HideEmail || other.FullName != "" {
			t.Fatalf("bob's settings: %+v %v", other, err)
		}
	})
}
