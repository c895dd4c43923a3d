package app_test

import (
	"encoding/base64"
	"net"
	"strings"
	"testing"
	"time"

	"code.gitea.io/sdk/gitea"
	"github.com/pquerna/otp/totp"

	"forge/services/config"
)

func basic(user, pass string) string {
	return "Basic " + base64.StdEncoding.EncodeToString([]byte(user+":"+pass))
}

// createToken makes a token for user over Basic auth and returns its value.
func (s *testServer) createToken(t *testing.T, user, pass, name string, scopes ...string) string {
	t.Helper()
	body := `{"name":"` + name + `","scopes":[` + quoteAll(scopes) + `]}`
	r := s.do("POST", "/api/v1/users/"+user+"/tokens", body, "Authorization", basic(user, pass), "Content-Type", jsonCT)
	expectStatus(t, r, 201)
	var tok struct {
		Sha1   string    `json:"sha1"`
		Scopes *[]string `json:"scopes"`
	}
	r.json(t, &tok)
	if tok.Scopes != nil {
		t.Fatalf("create response scopes should be null: %s", r.Body)
	}
	return tok.Sha1
}

func quoteAll(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = `"` + s + `"`
	}
	return strings.Join(q, ",")
}

// The token endpoint rules are cases in testdata/cases/tokens.yaml.

func itoa(n int64) string { return fmtInt(n) }

// Token schemes and scopes are cases in testdata/cases/auth.yaml.

func TestQueryTokens(t *testing.T) {
	s := startServer(t, "sqlite3", nil)
	r := s.do("GET", "/api/v1/user?token="+s.AdminToken, "")
	expectStatus(t, r, 200)
	if r.Header.Get("Warning") == "" || r.Header.Get("X-Gitea-Warning") == "" ||
		!strings.Contains(r.Header.Get("Warning"), r.Header.Get("X-Gitea-Warning")) {
		t.Fatalf("warning headers: %v", r.Header)
	}
	r = s.do("GET", "/api/v1/user?access_token="+s.AdminToken, "")
	expectStatus(t, r, 200)
	// Without a query token: no warning.
	r = s.do("GET", "/api/v1/version", "")
	if r.Header.Get("Warning") != "" {
		t.Fatal("warning without a query token")
	}

	disabled := startServer(t, "sqlite3", func(c *config.Config) { c.Security.DisableQueryAuthToken = true })
	r = disabled.do("GET", "/api/v1/version?token="+disabled.AdminToken, "")
	expectStatus(t, r, 401)
	if !strings.Contains(r.message(t), "disabled") || r.Header.Get("X-Gitea-Warning") == "" {
		t.Fatalf("disabled query token: %s %v", r.Body, r.Header)
	}
	// The header still works.
	expectStatus(t, disabled.do("GET", "/api/v1/user", "", "Authorization", "token "+disabled.AdminToken), 200)
}

func TestTOTPBasicAuth(t *testing.T) {
	t.Parallel()
	eachBackend(t, nil, func(t *testing.T, s *testServer) {
		s.seedUser("alice", "alice-password", false)
		// Enrol through the admin API over gRPC (see grpc_test) or the REST-less
		// admin service: here via the CLI's path, the admin service.
		uri := enrollTOTP(t, s, "alice")
		secret := secretFromURI(t, uri)

		r := s.do("GET", "/api/v1/user", "", "Authorization", basic("alice", "alice-password"))
		expectStatus(t, r, 401)
		if r.message(t) != "invalid provided OTP" {
			t.Fatalf("message: %s", r.Body)
		}
		expectStatus(t, s.do("GET", "/api/v1/user", "", "Authorization", basic("alice", "alice-password"), "X-Gitea-OTP", "000000"), 401)
		code, err := totp.GenerateCode(secret, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		expectStatus(t, s.do("GET", "/api/v1/user", "", "Authorization", basic("alice", "alice-password"), "X-Gitea-OTP", code), 200)
		// The SDK sends the OTP too. A code is accepted once: use the next
		// step's, which is valid within the drift allowance.
		code, err = totp.GenerateCode(secret, time.Now().Add(30*time.Second))
		if err != nil {
			t.Fatal(err)
		}
		c := s.sdk(gitea.SetBasicAuth("alice", "alice-password"), gitea.SetOTP(code))
		if _, _, err := c.CreateAccessToken(gitea.CreateAccessTokenOption{Name: "with-otp"}); err != nil {
			t.Fatalf("SDK with OTP: %v", err)
		}
	})
}

func TestReverseProxyAuth(t *testing.T) {
	on := func(trusted string) func(*config.Config) {
		return func(c *config.Config) {
			c.Service.EnableReverseProxyAuthAPI = true
			_, n, _ := net.ParseCIDR(trusted)
			c.Security.ReverseProxyTrustedProxies = []*net.IPNet{n}
		}
	}
	// Off by default: the header is ignored.
	s := startServer(t, "sqlite3", nil)
	expectStatus(t, s.do("GET", "/api/v1/user", "", "X-WEBAUTH-USER", "root"), 401)

	s = startServer(t, "sqlite3", on("127.0.0.0/8"))
	r := s.do("GET", "/api/v1/user", "", "X-WEBAUTH-USER", "root")
	expectStatus(t, r, 200)
	expectStatus(t, s.do("GET", "/api/v1/user", "", "X-WEBAUTH-USER", "nobody"), 401)
	// Reverse-proxy auth counts for the Basic-only token endpoints.
	expectStatus(t, s.do("GET", "/api/v1/users/root/tokens", "", "X-WEBAUTH-USER", "root"), 200)

	// From an untrusted address the header is not believed.
	s = startServer(t, "sqlite3", on("10.0.0.0/8"))
	expectStatus(t, s.do("GET", "/api/v1/user", "", "X-WEBAUTH-USER", "root"), 401)
}

// Routing errors are cases in testdata/cases/auth.yaml.

func TestPagingHeaders(t *testing.T) {
	s := startServer(t, "sqlite3", nil)
	for _, n := range []string{"u1", "u2", "u3", "u4", "u5"} {
		s.seedUser(n, "password-"+n, false)
	}
	r := s.do("GET", "/api/v1/admin/users?limit=2&page=2", "", "Authorization", "token "+s.AdminToken)
	expectStatus(t, r, 200)
	if r.Header.Get("X-Total-Count") != "6" {
		t.Fatalf("X-Total-Count %q", r.Header.Get("X-Total-Count"))
	}
	base := s.URL + "/api/v1/admin/users?limit=2&page="
	want := "<" + base + `3>; rel="next",<` + base + `3>; rel="last",<` + base + `1>; rel="first",<` + base + `1>; rel="prev"`
	if got := r.Header.Get("Link"); got != want {
		t.Fatalf("Link\n got %s\nwant %s", got, want)
	}
	var list []struct{ Login string }
	r.json(t, &list)
	if len(list) != 2 || list[0].Login != "u2" || list[1].Login != "u3" {
		t.Fatalf("page 2: %+v", list)
	}
	// limit above MAX_RESPONSE_ITEMS is capped; page 0 is page 1.
	r = s.do("GET", "/api/v1/admin/users?limit=1000&page=0", "", "Authorization", "token "+s.AdminToken)
	r.json(t, &list)
	if len(list) != 6 || r.Header.Get("Link") != "" {
		t.Fatalf("capped page: %d items, Link %q", len(list), r.Header.Get("Link"))
	}
}
