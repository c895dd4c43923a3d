package app_test

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"

	"code.gitea.io/sdk/gitea"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"

	"forge/cmd/forge/app"
	"forge/services/auth"
	"forge/services/config"
	"forge/services/store"
	"forge/services/store/storetest"
)

// testServer is a real forge: HTTP and gRPC on random loopback ports, a
// temporary data directory and a fresh database.
type testServer struct {
	t          testing.TB
	URL        string // http://127.0.0.1:PORT, no trailing slash
	Cfg        *config.Config
	App        *app.App
	conn       *grpc.ClientConn
	AdminToken string // token (all scopes) of the site administrator "root"
}

const rootPassword = "root-password-1"

// eachBackend runs fn against a server on SQLite and one on PostgreSQL.
func eachBackend(t *testing.T, tweak func(*config.Config), fn func(t *testing.T, s *testServer)) {
	for _, kind := range storetest.Backends {
		t.Run(kind, func(t *testing.T) { fn(t, startServer(t, kind, tweak)) })
	}
}

func startServer(t testing.TB, kind string, tweak func(*config.Config)) *testServer {
	t.Helper()
	return startServerWith(t, kind, tweak)
}

// startServerWith is startServer with app.New's options.
func startServerWith(t testing.TB, kind string, tweak func(*config.Config), opts ...app.Option) *testServer {
	t.Helper()
	cfg := config.Default()
	cfg.Server.AppDataPath = t.TempDir()
	cfg.Database = storetest.Database(t, kind)
	cfg.Repository.Root = cfg.Server.AppDataPath + "/repositories"
	cfg.Security.SecretKey = "test-secret-key"
	s := serveConfig(t, cfg, tweak, opts...)
	s.AdminToken = s.seedUser("root", rootPassword, true)
	return s
}

// serveConfig starts forge with cfg on two fresh loopback ports (ROOT_URL
// and GRPC_ADDR follow them; tweak, if any, runs last) and stops it when
// the test ends.
func serveConfig(t testing.TB, cfg *config.Config, tweak func(*config.Config), opts ...app.Option) *testServer {
	t.Helper()
	httpLn, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	grpcLn, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	cfg.Server.RootURL = "http://" + httpLn.Addr().String() + "/"
	cfg.Server.GRPCAddr = grpcLn.Addr().String()
	if tweak != nil {
		tweak(cfg)
	}
	ctx, cancel := context.WithCancel(context.Background())
	a, err := app.New(ctx, cfg, opts...)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- a.Serve(ctx, httpLn, grpcLn) }()
	s := &testServer{t: t, URL: "http://" + httpLn.Addr().String(), Cfg: cfg, App: a}
	t.Cleanup(func() {
		cancel()
		<-done
		if s.conn != nil {
			s.conn.Close()
		}
		a.Close()
	})
	return s
}

// seedUser stores a ready-to-use account (active, no password change due)
// with an all-scopes token, as `forge admin user create --access-token`.
// passwordHashes holds the argon2id hash of each password seeded: a hash
// costs ~0.1 s of CPU under -race, and every test server seeds the same
// administrator. Accounts with one password share its salt; each hash is
// still the real thing the server checks.
var passwordHashes sync.Map

func hashPassword(password string) string {
	if h, ok := passwordHashes.Load(password); ok {
		return h.(string)
	}
	h, _ := passwordHashes.LoadOrStore(password, auth.HashPassword(password))
	return h.(string)
}

func (s *testServer) seedUser(name, password string, admin bool) string {
	s.t.Helper()
	ctx := context.Background()
	u := &store.User{Name: name, Email: name + "@example.org", PasswdHash: hashPassword(password), IsAdmin: admin, IsActive: true,
		AllowCreateOrganization: true} // as the admin API and Gitea's DEFAULT_ALLOW_CREATE_ORGANIZATION
	if err := s.App.Store.CreateUser(ctx, u); err != nil {
		s.t.Fatal(err)
	}
	plain, hash := auth.NewToken()
	tok := &store.AccessToken{UID: u.ID, Name: "seed", TokenHash: hash, TokenLastEight: plain[32:], Scope: "all"}
	if err := s.App.Store.CreateAccessToken(ctx, tok); err != nil {
		s.t.Fatal(err)
	}
	return plain
}

// sdk returns a Gitea SDK client with the given options.
func (s *testServer) sdk(opts ...gitea.ClientOption) *gitea.Client {
	s.t.Helper()
	c, err := gitea.NewClient(s.URL, opts...)
	if err != nil {
		s.t.Fatalf("gitea.NewClient: %v", err)
	}
	return c
}

// grpcConn is a real gRPC connection to the server's gRPC port.
func (s *testServer) grpcConn() *grpc.ClientConn {
	s.t.Helper()
	if s.conn == nil {
		conn, err := grpc.NewClient(s.Cfg.Server.GRPCAddr, grpc.WithTransportCredentials(insecure.NewCredentials()))
		if err != nil {
			s.t.Fatal(err)
		}
		s.conn = conn
	}
	return s.conn
}

func withToken(ctx context.Context, token string) context.Context {
	return metadata.AppendToOutgoingContext(ctx, "authorization", "token "+token)
}

// response is a raw HTTP answer.
type response struct {
	Status int
	Header http.Header
	Body   []byte
}

func (r response) json(t testing.TB, v any) {
	t.Helper()
	if err := json.Unmarshal(r.Body, v); err != nil {
		t.Fatalf("decode %q: %v", r.Body, err)
	}
}

// message is the "message" of a Gitea error body.
func (r response) message(t testing.TB) string {
	t.Helper()
	var e struct {
		Message *string `json:"message"`
		URL     string  `json:"url"`
	}
	r.json(t, &e)
	if e.Message == nil || !strings.HasSuffix(e.URL, "/api/swagger") {
		t.Fatalf("not a Gitea error body: %s", r.Body)
	}
	return *e.Message
}

// do sends a raw request; header pairs follow the body.
func (s *testServer) do(method, path, body string, header ...string) response {
	s.t.Helper()
	return s.doWith(http.DefaultClient, method, path, body, header...)
}

// doWith is do through client.
func (s *testServer) doWith(client *http.Client, method, path, body string, header ...string) response {
	s.t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, s.URL+path, rd)
	if err != nil {
		s.t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := client.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		s.t.Fatal(err)
	}
	return response{Status: resp.StatusCode, Header: resp.Header, Body: b}
}

func expectStatus(t testing.TB, r response, want int) {
	t.Helper()
	if r.Status != want {
		t.Fatalf("status %d, want %d; body %s", r.Status, want, r.Body)
	}
}

const jsonCT = "application/json"

func fmtInt(n int64) string { return strconv.FormatInt(n, 10) }
