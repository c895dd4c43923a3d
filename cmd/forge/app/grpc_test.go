package app_test

import (
	"net/url"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	adminv1 "forge/gen/forge/admin/v1"
	miscv1 "forge/gen/forge/misc/v1"
	tokensv1 "forge/gen/forge/tokens/v1"
	usersv1 "forge/gen/forge/users/v1"
)

// enrollTOTP enrols user over the gRPC admin API and returns the URI.
func enrollTOTP(t *testing.T, s *testServer, user string) string {
	t.Helper()
	c := adminv1.NewAdminServiceClient(s.grpcConn())
	resp, err := c.EnableUserTOTP(withToken(t.Context(), s.AdminToken), &adminv1.EnableUserTOTPRequest{Username: user})
	if err != nil {
		t.Fatalf("EnableUserTOTP: %v", err)
	}
	return resp.GetOtpauthUri()
}

func secretFromURI(t *testing.T, uri string) string {
	t.Helper()
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "otpauth" || u.Query().Get("secret") == "" {
		t.Fatalf("bad otpauth URI %q", uri)
	}
	return u.Query().Get("secret")
}

// TestGRPCMeetsTheSameChecks: gRPC clients go through the same interceptor
// as REST clients.
func TestGRPCMeetsTheSameChecks(t *testing.T) {
	t.Parallel()
	eachBackend(t, nil, func(t *testing.T, s *testServer) {
		ctx := t.Context()
		users := usersv1.NewUserServiceClient(s.grpcConn())
		admin := adminv1.NewAdminServiceClient(s.grpcConn())
		tokens := tokensv1.NewTokenServiceClient(s.grpcConn())

		v, err := miscv1.NewMiscServiceClient(s.grpcConn()).GetVersion(ctx, &miscv1.GetVersionRequest{})
		if err != nil || v.GetVersion() != "1.24.0+forge.0.1.0" {
			t.Fatalf("GetVersion: %v %v", v, err)
		}
		if _, err := users.GetAuthenticatedUser(ctx, &usersv1.GetAuthenticatedUserRequest{}); status.Code(err) != codes.Unauthenticated {
			t.Fatalf("anonymous GetAuthenticatedUser: %v", err)
		}
		me, err := users.GetAuthenticatedUser(withToken(ctx, s.AdminToken), &usersv1.GetAuthenticatedUserRequest{})
		if err != nil || me.GetUser().GetLogin() != "root" || !me.GetUser().GetIsAdmin() {
			t.Fatalf("GetAuthenticatedUser: %v %v", me, err)
		}

		// Create a user over gRPC; must_change_password omitted means true.
		created, err := admin.CreateUser(withToken(ctx, s.AdminToken), &adminv1.CreateUserRequest{
			Username: "grpcuser", Email: "grpc@example.org", Password: "grpc-password",
		})
		if err != nil || created.GetUser().GetLogin() != "grpcuser" {
			t.Fatalf("CreateUser: %v %v", created, err)
		}
		u, _ := s.App.Store.UserByName(ctx, "grpcuser")
		if !u.MustChangePassword {
			t.Fatal("must_change_password did not default to true")
		}
		// Clear it, then the user creates a token with Basic over gRPC.
		if _, err := admin.EditUser(withToken(ctx, s.AdminToken), &adminv1.EditUserRequest{Username: "grpcuser", MustChangePassword: ptr(false)}); err != nil {
			t.Fatal(err)
		}
		basicCtx := metadata.AppendToOutgoingContext(ctx, "authorization", basic("grpcuser", "grpc-password"))
		tok, err := tokens.CreateAccessToken(basicCtx, &tokensv1.CreateAccessTokenRequest{Username: "grpcuser", Name: "cli", Scopes: []string{"read:user"}})
		if err != nil || len(tok.GetToken().GetSha1()) != 40 {
			t.Fatalf("CreateAccessToken: %v %v", tok, err)
		}
		userCtx := withToken(ctx, tok.GetToken().GetSha1())
		if _, err := admin.ListUsers(userCtx, &adminv1.ListUsersRequest{}); status.Code(err) != codes.PermissionDenied {
			t.Fatalf("non-admin ListUsers: %v", err)
		}
		// Token auth on a Basic-only method is refused as on REST.
		if _, err := tokens.ListAccessTokens(userCtx, &tokensv1.ListAccessTokensRequest{Username: "grpcuser"}); status.Code(err) != codes.Unauthenticated {
			t.Fatalf("token on Basic-only method: %v", err)
		}
		if _, err := tokens.ListAccessTokens(basicCtx, &tokensv1.ListAccessTokensRequest{Username: "root"}); status.Code(err) != codes.PermissionDenied {
			t.Fatalf("other user's tokens: %v", err)
		}
		// gRPC clients cannot smuggle the gateway's remote-address metadata
		// to pass as a trusted proxy; reverse-proxy auth is off anyway, and
		// the peer address decides.
		spoof := metadata.AppendToOutgoingContext(ctx, "x-forge-remote-addr", "127.0.0.1:1", "x-webauth-user", "root")
		if _, err := users.GetAuthenticatedUser(spoof, &usersv1.GetAuthenticatedUserRequest{}); status.Code(err) != codes.Unauthenticated {
			t.Fatalf("spoofed proxy header: %v", err)
		}
		// Last-admin rule over gRPC.
		if _, err := admin.EditUser(withToken(ctx, s.AdminToken), &adminv1.EditUserRequest{Username: "root", Admin: ptr(false)}); status.Code(err) != codes.PermissionDenied {
			t.Fatalf("demote last admin: %v", err)
		}
		// TOTP disable over gRPC.
		enrollTOTP(t, s, "grpcuser")
		if _, err := tokens.ListAccessTokens(basicCtx, &tokensv1.ListAccessTokensRequest{Username: "grpcuser"}); status.Code(err) != codes.Unauthenticated {
			t.Fatalf("password without OTP after enrolment: %v", err)
		}
		if _, err := admin.DisableUserTOTP(withToken(ctx, s.AdminToken), &adminv1.DisableUserTOTPRequest{Username: "grpcuser"}); err != nil {
			t.Fatal(err)
		}
		if _, err := tokens.ListAccessTokens(basicCtx, &tokensv1.ListAccessTokensRequest{Username: "grpcuser"}); err != nil {
			t.Fatalf("password after TOTP disabled: %v", err)
		}
	})
}
