package app_test

import "testing"

// TestGeneralSettings: the SDK reads /settings/ui, /settings/repository,
// /settings/attachment and /settings/api; the values are forge's (its
// paging limits and attachment limits from the configuration, LFS and time
// tracking off because forge has neither).
func TestGeneralSettings(t *testing.T) {
	t.Parallel()
	eachBackend(t, nil, func(t *testing.T, s *testServer) {
		c := s.sdk()
		ui, _, err := c.GetGlobalUISettings()
		if err != nil || ui.DefaultTheme != "gitea-auto" || len(ui.AllowedReactions) != 8 {
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
