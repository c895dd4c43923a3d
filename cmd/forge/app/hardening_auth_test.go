package app_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	usersv1 "forge/gen/forge/users/v1"
	"forge/services/auth"
	"forge/services/config"
	"forge/services/rpcerr"
)

// loopbackDialer connects from a chosen loopback source address (all of
// 127.0.0.0/8 is local), so tests can play several clients.
func loopbackDialer(source string) *net.Dialer {
	return &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(source)}}
}

// from sends a raw HTTP request from the loopback source address; header
// pairs follow the body.
func (s *testServer) from(source, method, path, body string, header ...string) response {
	s.t.Helper()
	tr := &http.Transport{DialContext: loopbackDialer(source).DialContext}
	defer tr.CloseIdleConnections()
	return s.doWith(&http.Client{Transport: tr}, method, path, body, header...)
}

// grpcFrom is a gRPC connection from the loopback source address.
func (s *testServer) grpcFrom(t *testing.T, source string) *grpc.ClientConn {
	t.Helper()
	d := loopbackDialer(source)
	conn, err := grpc.NewClient("passthrough:///"+s.Cfg.Server.GRPCAddr,
		grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithContextDialer(func(ctx context.Context, addr string) (net.Conn, error) {
			return d.DialContext(ctx, "tcp", addr)
		}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

func expectThrottled(t *testing.T, r response) {
	t.Helper()
	expectStatus(t, r, http.StatusTooManyRequests)
	if r.message(t) != auth.LoginThrottledMessage {
		t.Fatalf("429 message: %s", r.Body)
	}
	if ra := r.Header.Get("Retry-After"); ra == "" || ra == "0" {
		t.Fatalf("Retry-After %q", ra)
	}
}

func throttleConfig(perAccount, perAddress int) func(*config.Config) {
	return func(c *config.Config) {
		c.Security.LoginMaxFailuresPerAccount = perAccount
		c.Security.LoginMaxFailuresPerAddress = perAddress
		c.Security.LoginFailureWindowSeconds = 300
	}
}

// TestLoginFailuresThrottled: failed Basic password sign-ins are limited
// per client address and per account, with 429 and Retry-After over REST,
// git smart HTTP and gRPC (ResourceExhausted); a correct password from
// another address still works while the account has allowance left.
func TestLoginFailuresThrottled(t *testing.T) {
	s := startServer(t, "sqlite3", throttleConfig(4, 3))
	s.seedUser("alice", "alice-password", false)
	s.seedUser("bob", "bob-password", false)
	const user = "/api/v1/user"

	// 127.0.0.2 fails three times: its address allowance is spent.
	for range 3 {
		expectStatus(t, s.from("127.0.0.2", "GET", user, "", "Authorization", basic("alice", "wrong")), 401)
	}
	// Now it is refused before the password is looked at, right or wrong,
	// for any account.
	expectThrottled(t, s.from("127.0.0.2", "GET", user, "", "Authorization", basic("alice", "alice-password")))
	expectThrottled(t, s.from("127.0.0.2", "GET", user, "", "Authorization", basic("bob", "bob-password")))
	// gRPC from that address: ResourceExhausted with a retry delay.
	users := usersv1.NewUserServiceClient(s.grpcFrom(t, "127.0.0.2"))
	ctx := metadata.AppendToOutgoingContext(t.Context(), "authorization", basic("bob", "bob-password"))
	_, err := users.GetAuthenticatedUser(ctx, &usersv1.GetAuthenticatedUserRequest{})
	if st := status.Convert(err); st.Code() != codes.ResourceExhausted || st.Message() != auth.LoginThrottledMessage {
		t.Fatalf("gRPC from a throttled address: %v", err)
	}
	if secs, ok := rpcerr.RetryAfter(err); !ok || secs < 1 {
		t.Fatalf("gRPC retry delay %d %v", secs, ok)
	}
	// Tokens are not passwords: they still work from that address.
	expectStatus(t, s.from("127.0.0.2", "GET", user, "", "Authorization", "token "+s.AdminToken), 200)

	// Alice, from another address, with the right password: still in.
	expectStatus(t, s.from("127.0.0.3", "GET", user, "", "Authorization", basic("alice", "alice-password")), 200)
	// One more failure spends alice's fourth allowance; then the account is
	// refused from any address, even with the right password ...
	expectStatus(t, s.from("127.0.0.3", "GET", user, "", "Authorization", basic("alice", "wrong")), 401)
	expectThrottled(t, s.from("127.0.0.4", "GET", user, "", "Authorization", basic("ALICE", "alice-password")))
	// ... and over git smart HTTP (the same authenticator), with the
	// status git clients understand.
	r := s.from("127.0.0.4", "GET", "/root/any.git/info/refs?service=git-upload-pack", "", "Authorization", basic("alice", "alice-password"))
	if r.Status != http.StatusTooManyRequests || r.Header.Get("Retry-After") == "" || !strings.Contains(string(r.Body), auth.LoginThrottledMessage) {
		t.Fatalf("git HTTP: %d %v %s", r.Status, r.Header, r.Body)
	}
	// Other accounts from that address are unaffected.
	expectStatus(t, s.from("127.0.0.4", "GET", user, "", "Authorization", basic("bob", "bob-password")), 200)
	// The default localhost client is another address.
	expectStatus(t, s.do("GET", user, "", "Authorization", basic("bob", "bob-password")), 200)

	// A TOTP user's right password without a code (what git, or a first
	// SDK call, sends) is refused but not counted; a wrong code is.
	s.seedUser("carol", "carol-password", false)
	enrollTOTP(t, s, "carol")
	for range 5 {
		r := s.from("127.0.0.5", "GET", user, "", "Authorization", basic("carol", "carol-password"))
		expectStatus(t, r, 401)
	}
	for range 3 {
		expectStatus(t, s.from("127.0.0.5", "GET", user, "", "Authorization", basic("carol", "carol-password"), "X-Gitea-OTP", "000000"), 401)
	}
	expectThrottled(t, s.from("127.0.0.5", "GET", user, "", "Authorization", basic("carol", "carol-password"), "X-Gitea-OTP", "000000"))
}

// TestPasswordHashesBounded: many concurrent wrong-password sign-ins never
// run more password hashes at once than PASSWORD_HASH_CONCURRENCY; those
// beyond PASSWORD_HASH_QUEUE are answered 429 at once.
func TestPasswordHashesBounded(t *testing.T) {
	for _, c := range []struct {
		name         string
		bound, queue int
	}{
		{"queue-all", 2, 1000},
		{"queue-none", 1, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := startServer(t, "sqlite3", func(cfg *config.Config) {
				throttleConfig(0, 0)(cfg) // failures unlimited: only the gate acts
				cfg.Security.PasswordHashConcurrency = c.bound
				cfg.Security.PasswordHashQueue = c.queue
			})
			s.seedUser("alice", "alice-password", false)
			const n = 24
			statuses := make([]response, n)
			var wg sync.WaitGroup
			for i := range n {
				wg.Add(1)
				go func() {
					defer wg.Done()
					req, _ := http.NewRequest("GET", s.URL+"/api/v1/user", nil)
					req.Header.Set("Authorization", basic("alice", "wrong-password"))
					resp, err := http.DefaultClient.Do(req)
					if err != nil {
						t.Error(err)
						return
					}
					defer resp.Body.Close()
					b, _ := io.ReadAll(resp.Body)
					statuses[i] = response{Status: resp.StatusCode, Header: resp.Header, Body: b}
				}()
			}
			wg.Wait()
			counts := map[int]int{}
			for _, r := range statuses {
				counts[r.Status]++
				if r.Status == http.StatusTooManyRequests && (r.Header.Get("Retry-After") == "" || r.message(t) != auth.HashBusyMessage) {
					t.Fatalf("429 without Retry-After or message: %v %s", r.Header, r.Body)
				}
			}
			if counts[401]+counts[429] != n || counts[401] == 0 {
				t.Fatalf("statuses %v", counts)
			}
			if c.queue >= n && counts[429] != 0 {
				t.Fatalf("refused with room in the queue: %v", counts)
			}
			peak := s.App.Authenticator().PasswordHashPeak()
			if peak < 1 || peak > c.bound {
				t.Fatalf("%d password hashes ran at once, bound %d", peak, c.bound)
			}
			t.Logf("statuses %v, peak %d", counts, peak)
			// The right password still works afterwards.
			expectStatus(t, s.do("GET", "/api/v1/user", "", "Authorization", basic("alice", "alice-password")), 200)
		})
	}
}
