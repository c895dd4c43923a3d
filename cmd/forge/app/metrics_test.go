package app_test

import (
	"context"
	"strconv"
	"strings"
	"testing"

	miscv1 "forge/gen/forge/misc/v1"
	"forge/services/config"
	"forge/services/store/storetest"
)

// scrape reads /metrics into "name{labels}" → value.
func scrape(t *testing.T, s *testServer, token string) map[string]float64 {
	t.Helper()
	r := s.do("GET", "/metrics", "", "Authorization", "Bearer "+token)
	expectStatus(t, r, 200)
	out := map[string]float64{}
	for _, line := range strings.Split(string(r.Body), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		v, err := strconv.ParseFloat(line[i+1:], 64)
		if err != nil {
			t.Fatalf("metrics line %q", line)
		}
		out[line[:i]] = v
	}
	return out
}

// TestMetrics: with [metrics] ENABLED, /metrics serves Prometheus' format
// behind [metrics] TOKEN (Bearer), counting requests per route pattern
// and status and gRPC calls per method, with Gitea's site gauges, the
// database pool, git, webhook and queue gauges and Go's runtime; without
// it /metrics is 404.
func TestMetrics(t *testing.T) {
	t.Parallel()
	for _, kind := range storetest.Backends {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			const token = "metrics-scrape-token"
			// Without replayed answers every REST request is one gRPC call
			// (TestAnswerCache counts the calls replays save).
			s := startServerWith(t, kind, func(c *config.Config) {
				c.Metrics.Enabled, c.Metrics.Token, c.API.AnswerCacheSize = true, token, 0
			})
			for range 3 {
				expectStatus(t, s.do("GET", "/api/v1/version", ""), 200)
			}
			admin := "token " + s.AdminToken
			expectStatus(t, s.do("GET", "/api/v1/repos/root/missing", "", "Authorization", admin), 404)
			s.seedUser("alice", "alice-password", false)
			s.createRepo(t, s.AdminToken, "proj", true, true)
			expectStatus(t, s.do("POST", "/api/v1/repos/root/proj/issues", `{"title":"one"}`, "Authorization", admin, "Content-Type", jsonCT), 201)
			expectStatus(t, s.do("POST", "/api/v1/orgs", `{"username":"org1"}`, "Authorization", admin, "Content-Type", jsonCT), 201)
			if _, err := miscv1.NewMiscServiceClient(s.grpcConn()).GetVersion(context.Background(), &miscv1.GetVersionRequest{}); err != nil {
				t.Fatal(err)
			}
			s.clone(t, "root", s.AdminToken, "root", "proj")

			for _, bad := range []string{"", "Bearer wrong", "token " + token} {
				r := s.do("GET", "/metrics", "", "Authorization", bad)
				expectStatus(t, r, 401)
			}
			m := scrape(t, s, token)
			want := map[string]float64{
				`forge_http_requests_total{method="GET",route="/api/v1/version",status="200"}`:                      3,
				`forge_http_requests_total{method="GET",route="/api/v1/repos/{owner}/{repo}",status="404"}`:         1,
				`forge_http_requests_total{method="POST",route="/api/v1/repos/{owner}/{repo}/issues",status="201"}`: 1,
				`forge_http_request_duration_seconds_count{method="GET",route="/api/v1/version",status="200"}`:      3,
				`forge_grpc_requests_total{code="OK",method="/forge.misc.v1.MiscService/GetVersion"}`:               4,
				`forge_grpc_request_duration_seconds_count{method="/forge.misc.v1.MiscService/GetVersion"}`:         4,
				`forge_http_requests_total{method="GET",route="/{owner}/{repo}/info/refs",status="200"}`:            1,
				`gitea_users`:                                  2,
				`gitea_organizations`:                          1,
				`gitea_repositories`:                           1,
				`gitea_issues`:                                 1,
				`gitea_issues_open`:                            1,
				`gitea_issues_closed`:                          0,
				`gitea_webhooks`:                               0,
				`forge_webhook_events_queued`:                  -1, // present
				`forge_webhook_deliveries_pending`:             -1,
				`forge_notification_activities_queued`:         -1,
				`forge_reconciler_backlog`:                     -1,
				`forge_webhook_deliveries_succeeded_total`:     0,
				`forge_webhook_deliveries_failed_total`:        0,
				`go_sql_max_open_connections{db_name="forge"}`: -1,
				`go_sql_open_connections{db_name="forge"}`:     -1,
				`forge_git_object_readers_max`:                 -1,
				`forge_git_object_readers_open`:                -1,
				`forge_git_processes_running`:                  -1,
				`go_goroutines`:                                -1,
				`process_resident_memory_bytes`:                -1,
			}
			for k, v := range want {
				got, ok := m[k]
				if !ok || (v >= 0 && got != v) {
					t.Errorf("%s = %v (present %v), want %v", k, got, ok, v)
				}
			}
			if m["forge_git_processes_started_total"] < 1 {
				t.Errorf("git processes started: %v", m["forge_git_processes_started_total"])
			}
			for k := range m {
				if strings.Contains(k, "/root/proj") || strings.Contains(k, "missing") {
					t.Errorf("a raw path as a label: %s", k)
				}
			}
		})
	}
	t.Run("disabled", func(t *testing.T) {
		t.Parallel()
		s := startServer(t, storetest.Backends[0], nil)
		expectStatus(t, s.do("GET", "/metrics", ""), 404)
	})
}
