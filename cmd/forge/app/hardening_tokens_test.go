package app_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/pquerna/otp/totp"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	tokensv1 "forge/gen/forge/tokens/v1"
	usersv1 "forge/gen/forge/users/v1"
	"forge/services/auth"
)

// credential is how a token-creation request authenticates.
type credential struct {
	authz string // Authorization header value
	otp   string // X-Gitea-OTP, when set
}

// TestTokenCreationCannotEscalate: creating a token needs the password
// (with the OTP when enrolled) or a token, used as the Basic password, that
// covers every requested scope (write covers read, all covers everything)
// and is not public-only unless the new one is. Site administrators acting
// for another user are bound by their own credential the same way. Every
// case runs over REST and over gRPC.
func TestTokenCreationCannotEscalate(t *testing.T) {
	t.Parallel()
	eachBackend(t, nil, func(t *testing.T, s *testServer) {
		s.seedUser("alice", "alice-password", false)
		s.seedUser("carol", "carol-password", false)
		tok := func(user, pass string, scopes ...string) string {
			return s.createToken(t, user, pass, "setup-"+strings.Join(scopes, "-"), scopes...)
		}
		writeUser := tok("alice", "alice-password", "write:user")
		readUser := tok("alice", "alice-password", "read:user")
		all := tok("alice", "alice-password", "all")
		publicWrite := tok("alice", "alice-password", "public-only", "write:user")
		rootWriteUser := tok("root", rootPassword, "write:user")
		carolWriteUser := tok("carol", "carol-password", "write:user")
		secret := secretFromURI(t, enrollTOTP(t, s, "carol"))
		start := time.Now()
		// One-time codes are single use: each success with one takes a
		// fresh step (the current one, then the next, within the drift).
		steps := 0
		freshCode := func() string {
			code, err := totp.GenerateCode(secret, start.Add(time.Duration(steps)*30*time.Second))
			if err != nil {
				t.Fatal(err)
			}
			steps++
			return code
		}

		pw := func(user, pass string) credential { return credential{authz: basic(user, pass)} }
		asPassword := func(token string) credential { return credential{authz: basic("whoever", token)} }
		const (
			created = 201
			denied  = 403
			unauth  = 401
		)
		cases := []struct {
			name   string
			owner  string
			cred   func() credential
			scopes []string
			want   int
			msg    string // part of the error message
		}{
			{"password any scope", "alice", func() credential { return pw("alice", "alice-password") }, []string{"all"}, created, ""},
			{"totp password without otp", "carol", func() credential { return pw("carol", "carol-password") }, []string{"read:user"}, unauth, auth.OTPInvalidMessage},
			{"totp password wrong otp", "carol", func() credential { return credential{basic("carol", "carol-password"), "000000"} }, []string{"read:user"}, unauth, auth.OTPInvalidMessage},
			{"totp password with otp", "carol", func() credential { return credential{basic("carol", "carol-password"), freshCode()} }, []string{"all"}, created, ""},
			{"totp token narrower", "carol", func() credential { return asPassword(carolWriteUser) }, []string{"read:user"}, created, ""},
			{"totp token wider", "carol", func() credential { return asPassword(carolWriteUser) }, []string{"all"}, denied, "cannot grant"},
			{"token narrower", "alice", func() credential { return asPassword(writeUser) }, []string{"read:user"}, created, ""},
			{"token equal", "alice", func() credential { return asPassword(writeUser) }, []string{"write:user"}, created, ""},
			{"token no scopes", "alice", func() credential { return asPassword(writeUser) }, nil, created, ""},
			{"token wider category", "alice", func() credential { return asPassword(writeUser) }, []string{"write:user", "read:repository"}, denied, "cannot grant"},
			{"token wider all", "alice", func() credential { return asPassword(writeUser) }, []string{"all"}, denied, "cannot grant"},
			{"token as user name", "alice", func() credential { return credential{authz: basic(writeUser, "")} }, []string{"all"}, denied, "cannot grant"},
			{"read token cannot create", "alice", func() credential { return asPassword(readUser) }, []string{"read:user"}, denied, "[write:user]"},
			{"all token all", "alice", func() credential { return asPassword(all) }, []string{"all"}, created, ""},
			{"all token public-only", "alice", func() credential { return asPassword(all) }, []string{"public-only", "write:admin"}, created, ""},
			{"public-only token, not public-only", "alice", func() credential { return asPassword(publicWrite) }, []string{"write:user"}, denied, "cannot grant"},
			{"public-only token, public-only", "alice", func() credential { return asPassword(publicWrite) }, []string{"public-only", "read:user"}, created, ""},
			{"header token", "alice", func() credential { return credential{authz: "token " + all} }, []string{"read:user"}, unauth, "auth required"},
			{"admin password for another", "alice", func() credential { return pw("root", rootPassword) }, []string{"all"}, created, ""},
			{"admin all token for another", "alice", func() credential { return asPassword(s.AdminToken) }, []string{"all"}, created, ""},
			{"admin narrow token for another, wider", "alice", func() credential { return asPassword(rootWriteUser) }, []string{"all"}, denied, "cannot grant"},
			{"admin narrow token for another, within", "alice", func() credential { return asPassword(rootWriteUser) }, []string{"write:user"}, created, ""},
			{"non-admin for another", "carol", func() credential { return asPassword(all) }, []string{"read:user"}, denied, ""},
		}
		tokens := tokensv1.NewTokenServiceClient(s.grpcConn())
		grpcCode := map[int]codes.Code{created: codes.OK, denied: codes.PermissionDenied, unauth: codes.Unauthenticated}
		for i, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				name := fmt.Sprintf("case-%d", i)
				cred := c.cred()
				body := `{"name":"` + name + `-rest","scopes":[` + quoteAll(c.scopes) + `]}`
				header := []string{"Authorization", cred.authz, "Content-Type", jsonCT}
				if cred.otp != "" {
					header = append(header, "X-Gitea-OTP", cred.otp)
				}
				r := s.do("POST", "/api/v1/users/"+c.owner+"/tokens", body, header...)
				expectStatus(t, r, c.want)
				if c.want != created && !strings.Contains(r.message(t), c.msg) {
					t.Fatalf("REST message %s, want %q", r.Body, c.msg)
				}

				cred = c.cred() // a fresh one-time code for the second call
				md := metadata.Pairs("authorization", cred.authz)
				if cred.otp != "" {
					md.Set(auth.MDOTP, cred.otp)
				}
				ctx := metadata.NewOutgoingContext(t.Context(), md)
				_, err := tokens.CreateAccessToken(ctx, &tokensv1.CreateAccessTokenRequest{Username: c.owner, Name: name + "-grpc", Scopes: c.scopes})
				if st := status.Convert(err); st.Code() != grpcCode[c.want] || !strings.Contains(st.Message(), c.msg) {
					t.Fatalf("gRPC: %v, want %v %q", err, grpcCode[c.want], c.msg)
				}
			})
		}
	})
}

// TestTOTPCodeSingleUse: a one-time code is accepted once, over REST and
// gRPC, and across two forge processes on one database; the next step's
// code then works, once.
func TestTOTPCodeSingleUse(t *testing.T) {
	t.Parallel()
	eachBackend(t, nil, func(t *testing.T, s *testServer) {
		s.seedUser("alice", "alice-password", false)
		secret := secretFromURI(t, enrollTOTP(t, s, "alice"))
		peer := startPeer(t, s)
		now := time.Now()
		code := func(step int) string {
			c, err := totp.GenerateCode(secret, now.Add(time.Duration(step)*30*time.Second))
			if err != nil {
				t.Fatal(err)
			}
			return c
		}
		get := func(srv *testServer, otp string) response {
			return srv.do("GET", "/api/v1/user", "", "Authorization", basic("alice", "alice-password"), "X-Gitea-OTP", otp)
		}
		refused := func(r response) {
			t.Helper()
			expectStatus(t, r, 401)
			if r.message(t) != auth.OTPInvalidMessage {
				t.Fatalf("message %s", r.Body)
			}
		}
		grpcUser := func(srv *testServer, otp string) error {
			ctx := metadata.AppendToOutgoingContext(context.Background(), "authorization", basic("alice", "alice-password"), auth.MDOTP, otp)
			_, err := usersv1.NewUserServiceClient(srv.grpcConn()).GetAuthenticatedUser(ctx, &usersv1.GetAuthenticatedUserRequest{})
			return err
		}

		now0 := code(0)
		expectStatus(t, get(s, now0), 200)
		refused(get(s, now0))    // same process
		refused(get(peer, now0)) // another process on the same database
		if err := grpcUser(s, now0); status.Code(err) != codes.Unauthenticated || status.Convert(err).Message() != auth.OTPInvalidMessage {
			t.Fatalf("gRPC replay: %v", err)
		}
		// The version probe checks a code without spending it.
		next := code(1)
		expectStatus(t, s.do("GET", "/api/v1/version", "", "Authorization", basic("alice", "alice-password"), "X-Gitea-OTP", next), 200)
		if err := grpcUser(peer, next); err != nil {
			t.Fatalf("next step over gRPC on the other process: %v", err)
		}
		refused(get(s, next))
		// An earlier step than the last accepted one is refused too.
		refused(get(s, code(-1)))
	})
}

// startPeer starts a second forge process on s's database and secret key,
// as a multi-process deployment would.
func startPeer(t *testing.T, s *testServer) *testServer {
	t.Helper()
	cfg := *s.Cfg
	peer := serveConfig(t, &cfg, nil)
	peer.AdminToken = s.AdminToken
	return peer
}
