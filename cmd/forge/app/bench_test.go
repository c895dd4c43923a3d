package app_test

import (
	"context"
	"flag"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"google.golang.org/grpc/metadata"

	issuesv1 "forge/gen/forge/issues/v1"
	reposv1 "forge/gen/forge/repos/v1"
	usersv1 "forge/gen/forge/users/v1"
	"forge/services/config"
	"forge/services/store"
	"forge/services/store/storetest"
)

// Round trips of the hottest authenticated call, on SQLite, over real
// loopback connections with keep-alive, from parallel clients:
//
//	go test -run '^$' -bench RoundTrip -benchmem ./cmd/forge/app/
//
// BenchmarkRoundTripBareHTTP is the ceiling: a net/http handler that
// returns the same bytes without doing anything.

// answerCacheSize, when not negative, is [api] ANSWER_CACHE_SIZE for the
// REST round trips (0 turns the answer cache off), so that the REST/gRPC
// ratio can be read with and without replayed answers:
//
//	go test -run '^$' -bench 'RoundTrip(REST|GRPC)' -benchmem ./cmd/forge/app/ -args -answer-cache-size 0
var answerCacheSize = flag.Int("answer-cache-size", -1, "RoundTripREST benchmarks: [api] ANSWER_CACHE_SIZE (-1: the default)")

// restServer starts the server of a REST round trip benchmark.
func restServer(b *testing.B, kind string) *testServer {
	return startServer(b, kind, func(cfg *config.Config) {
		if *answerCacheSize >= 0 {
			cfg.API.AnswerCacheSize = *answerCacheSize
		}
	})
}

func benchClient() *http.Client {
	return &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
}

// get sends one GET and returns its status.
func get(b *testing.B, c *http.Client, url, token string) int {
	req, _ := http.NewRequest("GET", url, nil)
	if token != "" {
		req.Header.Set("Authorization", "token "+token)
	}
	resp, err := c.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

// benchGet reports, besides ns/op, cpu-ns/op: the process's CPU time per
// call, client and server together, which the other load on a shared
// machine inflates less than wall time.
func benchGet(b *testing.B, c *http.Client, url, token string) {
	b.SetParallelism(8)   // 16 concurrent clients on 2 cores, like a load run
	get(b, c, url, token) // the first call's one-off work is not measured
	cpu := startCPU(b)
	defer cpu.report(b)
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if status := get(b, c, url, token); status != 200 {
				b.Fatalf("status %d", status)
			}
		}
	})
}

func BenchmarkRoundTripRESTGetUser(b *testing.B) {
	s := restServer(b, "sqlite3")
	benchGet(b, benchClient(), s.URL+"/api/v1/user", s.AdminToken)
}

func BenchmarkRoundTripRESTGetUserPostgres(b *testing.B) {
	s := restServer(b, "postgres")
	benchGet(b, benchClient(), s.URL+"/api/v1/user", s.AdminToken)
}

func BenchmarkRoundTripGRPCGetUser(b *testing.B) {
	s := startServer(b, "sqlite3", nil)
	c := usersv1.NewUserServiceClient(s.grpcConn())
	ctx := withToken(b.Context(), s.AdminToken)
	b.SetParallelism(8)
	call := func() {
		if _, err := c.GetAuthenticatedUser(ctx, &usersv1.GetAuthenticatedUserRequest{}); err != nil {
			b.Fatal(err)
		}
	}
	call()
	cpu := startCPU(b)
	defer cpu.report(b)
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			call()
		}
	})
}

// benchIssueRepo makes root/bench with two labels and 50 issues carrying
// both: the issue list page the load runs read.
func benchIssueRepo(b *testing.B, s *testServer) {
	b.Helper()
	auth := []string{"Authorization", "token " + s.AdminToken, "Content-Type", jsonCT}
	if r := s.do("POST", "/api/v1/user/repos", `{"name":"bench"}`, auth...); r.Status != 201 {
		b.Fatalf("create repository: %d %s", r.Status, r.Body)
	}
	var ids []string
	for _, name := range []string{"bug", "feature"} {
		r := s.do("POST", "/api/v1/repos/root/bench/labels", `{"name":"`+name+`","color":"#ff0000"}`, auth...)
		if r.Status != 201 {
			b.Fatalf("create label: %d %s", r.Status, r.Body)
		}
		var l struct{ ID int64 }
		r.json(b, &l)
		ids = append(ids, strconv.FormatInt(l.ID, 10))
	}
	for i := range 50 {
		body := `{"title":"issue ` + strconv.Itoa(i) + `","body":"It breaks.","labels":[` + strings.Join(ids, ",") + `]}`
		if r := s.do("POST", "/api/v1/repos/root/bench/issues", body, auth...); r.Status != 201 {
			b.Fatalf("create issue: %d %s", r.Status, r.Body)
		}
	}
	// The notifier's fan-out of the new issues would run beside the
	// measured calls.
	waitFor(b, time.Minute, "the activity queue to drain", func() bool {
		var queued int64
		return s.App.Store.DB().Model(&store.Activity{}).Count(&queued).Error == nil && queued == 0
	})
}

func BenchmarkRoundTripRESTGetRepo(b *testing.B) {
	s := restServer(b, "sqlite3")
	benchIssueRepo(b, s)
	benchGet(b, benchClient(), s.URL+"/api/v1/repos/root/bench", s.AdminToken)
}

func BenchmarkRoundTripGRPCGetRepo(b *testing.B) {
	s := startServer(b, "sqlite3", nil)
	benchIssueRepo(b, s)
	c := reposv1.NewRepositoryServiceClient(s.grpcConn())
	ctx := withToken(b.Context(), s.AdminToken)
	b.SetParallelism(8)
	call := func() {
		if _, err := c.GetRepo(ctx, &reposv1.GetRepoRequest{Owner: "root", Repo: "bench"}); err != nil {
			b.Fatal(err)
		}
	}
	call()
	cpu := startCPU(b)
	defer cpu.report(b)
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			call()
		}
	})
}

func BenchmarkRoundTripRESTListIssues(b *testing.B) {
	s := restServer(b, "sqlite3")
	benchIssueRepo(b, s)
	benchGet(b, benchClient(), s.URL+"/api/v1/repos/root/bench/issues?limit=50", s.AdminToken)
}

func BenchmarkRoundTripGRPCListIssues(b *testing.B) {
	s := startServer(b, "sqlite3", nil)
	benchIssueRepo(b, s)
	c := issuesv1.NewIssueServiceClient(s.grpcConn())
	ctx := withToken(b.Context(), s.AdminToken)
	b.SetParallelism(8)
	call := func() {
		resp, err := c.ListIssues(ctx, &issuesv1.ListIssuesRequest{Owner: "root", Repo: "bench", Limit: 50})
		if err != nil {
			b.Fatal(err)
		}
		if len(resp.Issues) != 50 || len(resp.Issues[0].Labels) != 2 {
			b.Fatalf("%d issues", len(resp.Issues))
		}
	}
	call()
	cpu := startCPU(b)
	defer cpu.report(b)
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			call()
		}
	})
}

func BenchmarkRoundTripBareHTTP(b *testing.B) {
	s := startServer(b, "sqlite3", nil)
	body := s.do("GET", "/api/v1/user", "", "Authorization", "token "+s.AdminToken).Body
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json;charset=utf-8")
		w.Write(body)
	})}
	go srv.Serve(ln)
	defer srv.Close()
	benchGet(b, benchClient(), "http://"+ln.Addr().String()+"/api/v1/user", "")
}

// In-process costs of one API call, without sockets: the whole handler
// (gateway, in-process channel, interceptor chain, service) and the
// interceptor's authentication alone. Serial; besides ns/op (wall time,
// which other load on the machine inflates) each reports cpu-ns/op, the
// process's CPU time per call (on PostgreSQL the server's share is not
// in it):
//
//	go test -run '^$' -bench 'Handler|Authorize' -benchmem ./cmd/forge/app/

// cpuTimer measures the process's CPU time (user and system).
type cpuTimer struct{ start time.Duration }

func cpuNow() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func startCPU(b *testing.B) *cpuTimer {
	b.ReportAllocs()
	b.ResetTimer()
	return &cpuTimer{start: cpuNow()}
}

func (c *cpuTimer) report(b *testing.B) {
	b.ReportMetric(float64(cpuNow()-c.start)/float64(b.N), "cpu-ns/op")
}

// benchHandler serves GET path, anonymously (as ""), as the site
// administrator root ("root") or as a collaborator with read access on
// root's repositories ("collab").
func benchHandler(b *testing.B, kind, path, as string) {
	s := startServer(b, kind, nil)
	token := s.AdminToken
	if strings.HasPrefix(path, "/api/v1/repos/root/") {
		// bench is private (the token's owner reads it), pub public (for
		// anonymous reads).
		for _, body := range []string{`{"name":"bench","private":true}`, `{"name":"pub"}`} {
			r := s.do("POST", "/api/v1/user/repos", body, "Authorization", "token "+s.AdminToken, "Content-Type", jsonCT)
			if r.Status != 201 {
				b.Fatalf("create repository: %d %s", r.Status, r.Body)
			}
		}
	}
	if as == "collab" {
		token = s.seedUser("collab", "collab-password-1", false)
		for _, repo := range []string{"bench", "pub"} {
			r := s.do("PUT", "/api/v1/repos/root/"+repo+"/collaborators/collab", `{"permission":"read"}`,
				"Authorization", "token "+s.AdminToken, "Content-Type", jsonCT)
			if r.Status != 204 {
				b.Fatalf("add collaborator: %d %s", r.Status, r.Body)
			}
		}
	}
	h := s.App.Handler()
	cpu := startCPU(b)
	for i := 0; i < b.N; i++ {
		req := httptest.NewRequest("GET", path, nil)
		req.RemoteAddr = "127.0.0.1:1234"
		if as != "" {
			req.Header.Set("Authorization", "token "+token)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if w.Code != 200 {
			b.Fatalf("status %d: %s", w.Code, w.Body)
		}
	}
	cpu.report(b)
}

func BenchmarkHandler(b *testing.B) {
	for _, kind := range storetest.Backends {
		b.Run(kind+"/version-anonymous", func(b *testing.B) { benchHandler(b, kind, "/api/v1/version", "") })
		b.Run(kind+"/version-token", func(b *testing.B) { benchHandler(b, kind, "/api/v1/version", "root") })
		b.Run(kind+"/user-token", func(b *testing.B) { benchHandler(b, kind, "/api/v1/user", "root") })
		b.Run(kind+"/repo-token", func(b *testing.B) { benchHandler(b, kind, "/api/v1/repos/root/bench", "root") })
		b.Run(kind+"/repo-collab", func(b *testing.B) { benchHandler(b, kind, "/api/v1/repos/root/bench", "collab") })
		b.Run(kind+"/repo-anonymous", func(b *testing.B) { benchHandler(b, kind, "/api/v1/repos/root/pub", "") })
		b.Run(kind+"/labels-token", func(b *testing.B) { benchHandler(b, kind, "/api/v1/repos/root/bench/labels", "root") })
		b.Run(kind+"/issues-token", func(b *testing.B) { benchHandler(b, kind, "/api/v1/repos/root/bench/issues", "root") })
		b.Run(kind+"/create-issue-token", func(b *testing.B) { benchCreateIssue(b, kind) })
		b.Run(kind+"/create-issue-c32", func(b *testing.B) { benchCreateIssueParallel(b, kind) })
	}
}

// issueCreator starts a server with repository root/bench and returns
// what serves one POST /repos/root/bench/issues as root (with a mention,
// so the body is parsed as in use), straight to the handler.
func issueCreator(b *testing.B, kind string) (*testServer, func() *httptest.ResponseRecorder) {
	s := startServer(b, kind, nil)
	if r := s.do("POST", "/api/v1/user/repos", `{"name":"bench"}`, "Authorization", "token "+s.AdminToken, "Content-Type", jsonCT); r.Status != 201 {
		b.Fatalf("create repository: %d %s", r.Status, r.Body)
	}
	h := s.App.Handler()
	body := `{"title":"a bug","body":"It breaks when @root opens it.\n\nSteps: open, click."}`
	return s, func() *httptest.ResponseRecorder {
		req := httptest.NewRequest("POST", "/api/v1/repos/root/bench/issues", strings.NewReader(body))
		req.RemoteAddr = "127.0.0.1:1234"
		req.Header.Set("Authorization", "token "+s.AdminToken)
		req.Header.Set("Content-Type", jsonCT)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		return w
	}
}

// benchCreateIssue creates one issue per iteration (issueCreator).
func benchCreateIssue(b *testing.B, kind string) {
	_, create := issueCreator(b, kind)
	cpu := startCPU(b)
	for i := 0; i < b.N; i++ {
		if w := create(); w.Code != 201 {
			b.Fatalf("status %d: %s", w.Code, w.Body)
		}
	}
	cpu.report(b)
}

// benchCreateIssueParallel is benchCreateIssue from 32 goroutines at once
// (forge bench's point), into one repository: the writers contend for the
// issue number and the repository's counters as under load. It reports
// the statements per create the store counted (stmts/op: the request's
// own, background work excluded) besides the CPU time.
func benchCreateIssueParallel(b *testing.B, kind string) {
	s, create := issueCreator(b, kind)
	b.SetParallelism((32 + runtime.GOMAXPROCS(0) - 1) / runtime.GOMAXPROCS(0))
	before := s.App.Store.QueryCount()
	cpu := startCPU(b)
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if w := create(); w.Code != 201 {
				b.Errorf("status %d: %s", w.Code, w.Body)
				return
			}
		}
	})
	cpu.report(b)
	b.ReportMetric(float64(s.App.Store.QueryCount()-before)/float64(b.N), "stmts/op")
}

// BenchmarkAuthorizeToken is the interceptor's check of a token-authenticated
// call (authentication, policy, scopes), without the transport.
func BenchmarkAuthorizeToken(b *testing.B) {
	for _, kind := range storetest.Backends {
		b.Run(kind, func(b *testing.B) {
			s := startServer(b, kind, nil)
			authn := s.App.Authenticator()
			ctx := metadata.NewIncomingContext(context.Background(), metadata.Pairs("authorization", "token "+s.AdminToken))
			req := &usersv1.GetAuthenticatedUserRequest{}
			cpu := startCPU(b)
			for i := 0; i < b.N; i++ {
				if _, _, err := authn.Authorize(ctx, usersv1.UserService_GetAuthenticatedUser_FullMethodName, req); err != nil {
					b.Fatal(err)
				}
			}
			cpu.report(b)
		})
	}
}

// BenchmarkColdStart is app.New and Serve on an empty data directory
// (SQLite) up to the first 200 of /api/healthz, in process, so a CPU
// profile shows what start-up spends (the binary's own figure is
// cmd/forge TestColdStart).
func BenchmarkColdStart(b *testing.B) {
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		cfg := config.Default()
		cfg.Server.AppDataPath = b.TempDir()
		cfg.Repository.Root = cfg.Server.AppDataPath + "/repositories"
		// As config.Load derives it: with no path each SQLite connection
		// would open a database of its own.
		cfg.Database.Path = cfg.Server.AppDataPath + "/forge.db"
		cfg.Security.SecretKey = "test-secret-key"
		b.StartTimer()
		s := serveConfig(b, cfg, nil)
		for {
			resp, err := http.Get(s.URL + "/api/healthz")
			if err == nil {
				resp.Body.Close()
				if resp.StatusCode == 200 {
					break
				}
			}
			time.Sleep(time.Millisecond)
		}
	}
}
