package auth

import (
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"forge/services/config"
	"forge/services/rpcerr"
)

// TestPreflight: only calls without any credentials are refused early,
// with the interceptor's own refusal for the method's policy.
func TestPreflight(t *testing.T) {
	cfg := config.Default()
	a := NewAuthenticator(cfg, nil, Policies{
		"/p/Public":   {Access: Public, Level: LevelRead},
		"/p/SignedIn": {Access: SignedIn, Level: LevelWrite},
		"/p/Admin":    {Access: SiteAdmin, Level: LevelRead},
		"/p/Self":     {Access: SelfOrAdmin, Level: LevelRead},
	}, nil, nil)
	none := metadata.MD{}
	cases := []struct {
		method string
		md     metadata.MD
		want   codes.Code
	}{
		{"/p/Public", none, codes.OK},
		{"/p/SignedIn", none, codes.Unauthenticated},
		{"/p/Admin", none, codes.Unauthenticated},
		{"/p/Self", none, codes.PermissionDenied},
		{"/p/Undeclared", none, codes.PermissionDenied},
		{"/grpc.health.v1.Health/Check", none, codes.OK},
		{"/p/SignedIn", metadata.Pairs("authorization", "token whatever"), codes.OK},
		{"/p/Admin", metadata.Pairs(MDQueryToken, "x"), codes.OK},
		{"/p/SignedIn", metadata.Pairs("x-webauth-user", "alice"), codes.OK},
		{"/p/SignedIn", metadata.Pairs("authorization", ""), codes.Unauthenticated},
	}
	for _, c := range cases {
		if got := status.Code(rpcerr.Status(a.Preflight(c.method, c.md))); got != c.want {
			t.Errorf("%s %v: %v, want %v", c.method, c.md, got, c.want)
		}
	}
	if msg := status.Convert(rpcerr.Status(a.Preflight("/p/SignedIn", none))).Message(); msg != "token is required" {
		t.Errorf("message %q", msg)
	}
}
