package app_test

import (
	"strings"
	"testing"

	"forge/services/config"
)

// TestGeneralSettings: the SDK reads /settings/ui, /settings/repository,
// /settings/attachment and /settings/api; the values are forge's (its
// paging limits, attachment limits, reactions and time tracking from the
// configuration, LFS off because forge has none).
func TestGeneralSettings(t *testing.T) {
	t.Parallel()
	tweak := func(c *config.Config) {
		c.UI.Reactions = []string{"+1", "heart", "gitea"}
		c.TimeTracking.Enabled = false
	}
	eachBackend(t, tweak, func(t *testing.T, s *testServer) {
		c := s.sdk()
		ui, _, err := c.GetGlobalUISettings()
		if err != nil || ui.DefaultTheme != "gitea-auto" || strings.Join(ui.AllowedReactions, ",") != "+1,heart,gitea" {
			t.Fatalf("ui: %+v %v", ui, err)
		}
		repo, _, err := c.GetGlobalRepoSettings()
		if err != nil || repo.MirrorsDisabled || repo.HTTPGitDisabled || repo.MigrationsDisabled || repo.StarsDisabled ||
			!repo.TimeTrackingDisabled || !repo.LFSDisabled {
			t.Fatalf("repository: %+v %v", repo, err)
		}
		api, _, err := c.GetGlobalAPISettings()
		if err != nil || api.MaxResponseItems != s.Cfg.API.MaxResponseItems || api.DefaultPagingNum != s.Cfg.API.DefaultPagingNum {
			t.Fatalf("api: %+v %v", api, err)
		}
		at, _, err := c.GetGlobalAttachmentSettings()
		if err != nil || !at.Enabled || at.MaxSize != int64(s.Cfg.Attachment.MaxSize) || at.AllowedTypes != s.Cfg.Attachment.AllowedTypes {
			t.Fatalf("attachment: %+v %v", at, err)
		}
	})
}
