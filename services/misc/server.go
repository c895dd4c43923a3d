// Package misc serves forge.misc.v1.MiscService: version and API settings.
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
	limits paging.Limits
}

var _ miscv1.MiscServiceServer = (*Server)(nil)

func NewServer(limits paging.Limits) *Server { return &Server{limits: limits} }

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
