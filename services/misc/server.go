// Package misc serves forge.misc.v1.MiscService: version, API settings and the
// repository templates (licenses, .gitignore files, label sets).
package misc

import (
	"context"

	miscv1 "forge/gen/forge/misc/v1"
	"forge/services/paging"
)

// GiteaAPIVersion is the Gitea API level forge is compatible with; the
// forge build goes in the semver build metadata, which clients ignore when
// comparing versions.
const GiteaAPIVersion = "1.24.0"

// Version is forge's own release.
const Version = "0.1.0"

// ReportedVersion is the version /api/v1/version reports.
func ReportedVersion() string { return GiteaAPIVersion + "+forge." + Version }

// Server implements miscv1.MiscServiceServer.
type Server struct {
	miscv1.UnimplementedMiscServiceServer
	limits   paging.Limits
	rootURL  string // ends with "/"
	settings Settings
}

// Settings are the configured values /settings/ui and /settings/repository
// report.
type Settings struct {
	Reactions    []string // [ui] REACTIONS
	TimeTracking bool     // [service] ENABLE_TIMETRACKING
}

var _ miscv1.MiscServiceServer = (*Server)(nil)

// NewServer answers with the paging limits, the server's root URL
// (ending with "/", for the addresses of templates) and the settings.
func NewServer(limits paging.Limits, rootURL string, settings Settings) *Server {
	return &Server{limits: limits, rootURL: rootURL, settings: settings}
}

func (s *Server) GetVersion(context.Context, *miscv1.GetVersionRequest) (*miscv1.GetVersionResponse, error) {
	return &miscv1.GetVersionResponse{Version: ReportedVersion()}, nil
}

func (s *Server) GetAPISettings(context.Context, *miscv1.GetAPISettingsRequest) (*miscv1.GetAPISettingsResponse, error) {
	return &miscv1.GetAPISettingsResponse{
		MaxResponseItems:       int64(s.limits.Max),
		DefaultPagingNum:       int64(s.limits.Default),
		DefaultGitTreesPerPage: 1000,
		DefaultMaxBlobSize:     10 << 20,
	}, nil
}

// GetGeneralUISettings answers the configured reactions and, for the rest,
// Gitea's defaults: they belong to a web interface forge does not have.
func (s *Server) GetGeneralUISettings(context.Context, *miscv1.GetGeneralUISettingsRequest) (*miscv1.GetGeneralUISettingsResponse, error) {
	return &miscv1.GetGeneralUISettingsResponse{
		DefaultTheme:     "gitea-auto",
		AllowedReactions: s.settings.Reactions,
		CustomEmojis:     []string{"git", "gitea", "codeberg", "gitlab", "github", "gogs"},
	}, nil
}

// GetGeneralRepoSettings tells what forge serves: pull and push mirrors,
// git over HTTP, migrations and stars are always on; time tracking as
// configured; LFS does not exist.
func (s *Server) GetGeneralRepoSettings(context.Context, *miscv1.GetGeneralRepoSettingsRequest) (*miscv1.GetGeneralRepoSettingsResponse, error) {
	return &miscv1.GetGeneralRepoSettingsResponse{TimeTrackingDisabled: !s.settings.TimeTracking, LfsDisabled: true}, nil
}
