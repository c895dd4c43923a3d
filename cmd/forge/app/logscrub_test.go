package app_test

import (
	"encoding/json"
	"log/slog"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pquerna/otp/totp"

	"forge/cmd/forge/app"
	"forge/services/config"
	"forge/services/store/storetest"
)

// TestLogsHoldNoSecrets runs an API scenario that handles every kind of
// secret (passwords with Basic auth, tokens in the header and in ?token=,
// sudo, a password change, an OTP, a webhook's secret and authorization
// header, an Actions secret, a mirror's credential URL, a push with a
// token in the URL, failed sign-ins) and reads every line written
// meanwhile, at debug level, the access log included: none holds a secret.
//
// It replaces slog's default logger, which every package writes to, so it
// does not call t.Parallel: the parallel tests wait while it runs, and no
// other test's lines or logger swap mix in.
func TestLogsHoldNoSecrets(t *testing.T) {
	logs := &logCapture{}
	old := slog.Default()
	slog.SetDefault(logs.logger())
	t.Cleanup(func() { slog.SetDefault(old) })
	for _, kind := range storetest.Backends {
		t.Run(kind, func(t *testing.T) {
			s := startServerWith(t, kind, func(c *config.Config) {
				c.Log.EnableAccessLog = true
				c.Log.Level = "Trace"
				c.Migrations.AllowLocalNetworks = true
			}, app.WithAccessLog(slog.Default()))
			secrets := logScrubScenario(t, s)
			secrets = append(secrets, s.AdminToken, s.Cfg.Security.SecretKey, rootPassword)
			if len(logs.records(t)) < 20 {
				t.Fatalf("too few lines captured to mean anything:\n%s", logs.String())
			}
			text := logText(t, logs)
			for _, secret := range secrets {
				if strings.Contains(text, secret) {
					t.Errorf("a secret %q is in the logs:\n%s", secret, linesWith(text, secret))
				}
			}
		})
	}
}

// logText is the captured lines without their numbers (times, durations,
// sizes), where a six-digit OTP could match by chance.
func logText(t *testing.T, logs *logCapture) string {
	var b strings.Builder
	for _, r := range logs.records(t) {
		for k, v := range r {
			if _, ok := v.(float64); ok || k == "time" {
				delete(r, k)
			}
		}
		line, _ := json.Marshal(r)
		b.Write(line)
		b.WriteByte('\n')
	}
	return b.String()
}

func linesWith(text, s string) string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if strings.Contains(l, s) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// logScrubScenario drives the secrets through the API and returns them.
func logScrubScenario(t *testing.T, s *testServer) []string {
	const (
		password1     = "first-Passw0rd-scrub"
		password2     = "second-Passw0rd-scrub"
		wrongPassword = "wrong-Passw0rd-scrub"
		hookSecret    = "hook-secret-scrub-value"
		hookAuthz     = "Bearer hook-authz-scrub-value"
		actionSecret  = "actions-secret-scrub-value"
		mirrorPass    = "mirror-pass-scrub-value"
	)
	admin := "token " + s.AdminToken
	expectStatus(t, s.do("POST", "/api/v1/admin/users", `{"username":"alice","email":"alice@example.org","password":"`+password1+`","must_change_password":false}`,
		"Authorization", admin, "Content-Type", jsonCT), 201)
	// A token made with Basic auth, used in the header and the query.
	r := s.do("POST", "/api/v1/users/alice/tokens", `{"name":"scrub","scopes":["all"]}`, "Authorization", basic("alice", password1), "Content-Type", jsonCT)
	expectStatus(t, r, 201)
	var tok struct {
		Sha1 string `json:"sha1"`
	}
	r.json(t, &tok)
	expectStatus(t, s.do("GET", "/api/v1/user", "", "Authorization", "token "+tok.Sha1), 200)
	expectStatus(t, s.do("GET", "/api/v1/user?token="+tok.Sha1, ""), 200)
	expectStatus(t, s.do("GET", "/api/v1/user?access_token="+tok.Sha1, ""), 200)
	expectStatus(t, s.do("GET", "/api/v1/user", "", "Authorization", basic("alice", wrongPassword)), 401)
	expectStatus(t, s.do("GET", "/api/v1/user?token=not-a-token-"+wrongPassword, ""), 401)
	// Sudo, by header and by query.
	expectStatus(t, s.do("GET", "/api/v1/user", "", "Authorization", admin, "Sudo", "alice"), 200)
	expectStatus(t, s.do("GET", "/api/v1/user?sudo=alice&token="+s.AdminToken, ""), 200)
	// A password change by the administrator.
	expectStatus(t, s.do("PATCH", "/api/v1/admin/users/alice", `{"login_name":"alice","source_id":0,"password":"`+password2+`"}`,
		"Authorization", admin, "Content-Type", jsonCT), 200)
	// An OTP.
	secret := secretFromURI(t, enrollTOTP(t, s, "alice"))
	code, err := totp.GenerateCode(secret, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	expectStatus(t, s.do("GET", "/api/v1/user", "", "Authorization", basic("alice", password2), "X-Gitea-OTP", code), 200)

	aliceTok := "token " + tok.Sha1
	s.createRepo(t, tok.Sha1, "proj", true, true)
	// A webhook with a secret and an authorization header, and its test
	// delivery (to an address it may not reach: the failure is logged).
	r = s.do("POST", "/api/v1/repos/alice/proj/hooks", `{"type":"gitea","active":true,"events":["push"],"authorization_header":"`+hookAuthz+`",`+
		`"config":{"url":"http://127.0.0.1:1/hook","content_type":"json","secret":"`+hookSecret+`"}}`, "Authorization", aliceTok, "Content-Type", jsonCT)
	expectStatus(t, r, 201)
	var hook struct{ ID int64 }
	r.json(t, &hook)
	expectStatus(t, s.do("POST", "/api/v1/repos/alice/proj/hooks/"+strconv.FormatInt(hook.ID, 10)+"/tests", "", "Authorization", aliceTok), 204)
	// An Actions secret.
	expectStatus(t, s.do("PUT", "/api/v1/repos/alice/proj/actions/secrets/DEPLOY", `{"data":"`+actionSecret+`"}`, "Authorization", aliceTok, "Content-Type", jsonCT), 201)
	// Mirrors with credentials in the URL: one that works (this server,
	// the token as password), one that cannot connect.
	u, _ := url.Parse(s.URL + "/alice/proj.git")
	u.User = url.UserPassword("alice", tok.Sha1)
	expectStatus(t, s.do("POST", "/api/v1/repos/migrate", `{"clone_addr":"`+u.String()+`","repo_name":"mirror","mirror":true,"private":true}`,
		"Authorization", aliceTok, "Content-Type", jsonCT), 201)
	r = s.do("POST", "/api/v1/repos/migrate", `{"clone_addr":"http://alice:`+mirrorPass+`@127.0.0.1:1/x.git","repo_name":"broken","mirror":true}`,
		"Authorization", aliceTok, "Content-Type", jsonCT)
	if r.Status < 400 {
		t.Fatalf("a mirror of nothing: %d", r.Status)
	}
	r = s.do("POST", "/api/v1/repos/migrate", `{"clone_addr":"http://127.0.0.1:1/y.git","auth_username":"alice","auth_password":"`+mirrorPass+`","repo_name":"broken2","mirror":true}`,
		"Authorization", aliceTok, "Content-Type", jsonCT)
	if r.Status < 400 {
		t.Fatalf("a mirror of nothing: %d", r.Status)
	}
	expectStatus(t, s.do("POST", "/api/v1/repos/alice/mirror/mirror-sync", "", "Authorization", aliceTok), 200)
	// A mirror whose source is gone: its sync fails, and the failure is
	// logged.
	s.createRepo(t, tok.Sha1, "gone", true, true)
	u, _ = url.Parse(s.URL + "/alice/gone.git")
	u.User = url.UserPassword("alice", tok.Sha1)
	expectStatus(t, s.do("POST", "/api/v1/repos/migrate", `{"clone_addr":"`+u.String()+`","repo_name":"mirror2","mirror":true,"private":true}`,
		"Authorization", aliceTok, "Content-Type", jsonCT), 201)
	expectStatus(t, s.do("DELETE", "/api/v1/repos/alice/gone", "", "Authorization", aliceTok), 204)
	expectStatus(t, s.do("POST", "/api/v1/repos/alice/mirror2/mirror-sync", "", "Authorization", aliceTok), 200)
	// A push mirror with credentials, to nowhere.
	expectStatus(t, s.do("POST", "/api/v1/repos/alice/proj/push_mirrors", `{"remote_address":"http://127.0.0.1:1/z.git","remote_username":"alice",`+
		`"remote_password":"`+mirrorPass+`","interval":"8h0m0s","sync_on_commit":false}`, "Authorization", aliceTok, "Content-Type", jsonCT), 200)
	expectStatus(t, s.do("POST", "/api/v1/repos/alice/proj/push_mirrors-sync", "", "Authorization", aliceTok), 500) // as Gitea, when it fails
	// A push over HTTP with the token in the URL, and a refused one.
	work := s.clone(t, "alice", tok.Sha1, "alice", "proj")
	commitFile(t, work, "f.txt", "x\n", "scrub")
	gitCmd(t, work, "push", "-q", "origin", "HEAD:main")
	if out, err := gitTry(work, "push", "-q", s.gitURL("alice", wrongPassword, "alice", "proj"), "HEAD:other"); err == nil {
		t.Fatalf("push with a wrong password: %s", out)
	}
	// Let the webhook worker and the mirror sync finish their attempts.
	time.Sleep(500 * time.Millisecond)
	return []string{password1, password2, wrongPassword, tok.Sha1, code, secret, hookSecret, strings.TrimPrefix(hookAuthz, "Bearer "),
		actionSecret, mirrorPass}
}
