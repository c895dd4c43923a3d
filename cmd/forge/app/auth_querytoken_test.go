package app_test

import (
	"strings"
	"testing"

	"forge/gateway"
	"forge/services/auth"
	"forge/services/config"
)

// expectQueryTokenWarning: a response to a request that carried a query
// token has the deprecation warning, as Warning and as Gitea's
// X-Gitea-Warning (forge's contract, row 1).
func expectQueryTokenWarning(t *testing.T, r response) {
	t.Helper()
	if got := r.Header.Get("X-Gitea-Warning"); got != gateway.QueryTokenWarning {
		t.Fatalf("X-Gitea-Warning = %q, want %q", got, gateway.QueryTokenWarning)
	}
	if got := r.Header.Get("Warning"); !strings.Contains(got, gateway.QueryTokenWarning) {
		t.Fatalf("Warning = %q, want the deprecation text", got)
	}
}

// TestQueryTokenDisabled: with [security] DISABLE_QUERY_AUTH_TOKEN every
// request carrying ?token= or ?access_token= is refused with 401, also
// when it carries a valid token in the Authorization header as well (the
// header used to win, and the request was answered 200).
func TestQueryTokenDisabled(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(c *config.Config) { c.Security.DisableQueryAuthToken = true }, func(t *testing.T, s *testServer) {
		header := []string{"Authorization", "token " + s.AdminToken}
		for _, tc := range []struct {
			name, path string
			header     []string
		}{
			{"token alone", "/api/v1/user?token=" + s.AdminToken, nil},
			{"access_token alone", "/api/v1/user?access_token=" + s.AdminToken, nil},
			{"token beside a header token", "/api/v1/user?token=" + s.AdminToken, header},
			{"access_token beside a header token", "/api/v1/user?access_token=" + s.AdminToken, header},
			{"a bad query token beside a header token", "/api/v1/user?token=nonsense", header},
			{"on a public endpoint", "/api/v1/version?access_token=" + s.AdminToken, nil},
			{"beside Basic", "/api/v1/user?token=" + s.AdminToken, []string{"Authorization", basic("root", rootPassword)}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				r := s.do("GET", tc.path, "", tc.header...)
				expectStatus(t, r, 401)
				if got := r.message(t); got != auth.QueryTokenDisabledMessage {
					t.Fatalf("message %q, want %q", got, auth.QueryTokenDisabledMessage)
				}
				expectQueryTokenWarning(t, r)
			})
		}
		// A request with a body goes through the preflight first; the
		// header token does not let it through either.
		r := s.do("POST", "/api/v1/user/repos?token="+s.AdminToken, `{"name":"q"}`, "Authorization", "token "+s.AdminToken, "Content-Type", jsonCT)
		expectStatus(t, r, 401)
		expectQueryTokenWarning(t, r)
		expectStatus(t, s.do("GET", "/api/v1/repos/root/q", "", header...), 404)

		// The header alone works, without the warning.
		r = s.do("GET", "/api/v1/user", "", header...)
		expectStatus(t, r, 200)
		if r.Header.Get("Warning") != "" || r.Header.Get("X-Gitea-Warning") != "" {
			t.Fatalf("warning without a query token: %v", r.Header)
		}
	})
}

// TestQueryTokenEnabled: by default query tokens still authenticate, with
// the deprecation warning.
func TestQueryTokenEnabled(t *testing.T) {
	t.Parallel()
	eachBackend(t, nil, func(t *testing.T, s *testServer) {
		for _, key := range []string{"token", "access_token"} {
			r := s.do("GET", "/api/v1/user?"+key+"="+s.AdminToken, "")
			expectStatus(t, r, 200)
			var me struct {
				Login string `json:"login"`
			}
			r.json(t, &me)
			if me.Login != "root" {
				t.Fatalf("?%s= authenticated as %q", key, me.Login)
			}
			expectQueryTokenWarning(t, r)
		}
		// A header token beside it is fine too.
		r := s.do("GET", "/api/v1/user?token="+s.AdminToken, "", "Authorization", "token "+s.AdminToken)
		expectStatus(t, r, 200)
		expectQueryTokenWarning(t, r)
	})
}
