package bench_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"forge/cmd/forge/app"
	"forge/cmd/forge/bench"
	"forge/services/auth"
	"forge/services/config"
	"forge/services/store"
	"forge/services/store/storetest"
)

// startForge runs a real forge (SQLite in a temporary directory, HTTP and
// gRPC on loopback) and returns its URL and a site administrator's token.
func startForge(t *testing.T) (string, string) {
	t.Helper()
	cfg := config.Default()
	cfg.Server.AppDataPath = t.TempDir()
	cfg.Database = storetest.Database(t, "sqlite3")
	cfg.Repository.Root = cfg.Server.AppDataPath + "/repositories"
	cfg.Security.SecretKey = "bench-test-secret-key"
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
	ctx, cancel := context.WithCancel(context.Background())
	a, err := app.New(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- a.Serve(ctx, httpLn, grpcLn) }()
	t.Cleanup(func() { cancel(); <-done; a.Close() })

	// The administrator, as `forge admin user create --admin --access-token`.
	u := &store.User{Name: "root", Email: "root@example.org", PasswdHash: auth.HashPassword("root-password-1"),
		IsAdmin: true, IsActive: true, AllowCreateOrganization: true}
	if err := a.Store.CreateUser(ctx, u); err != nil {
		t.Fatal(err)
	}
	plain, hash := auth.NewToken()
	tok := &store.AccessToken{UID: u.ID, Name: "root", TokenHash: hash, TokenLastEight: plain[32:], Scope: "all"}
	if err := a.Store.CreateAccessToken(ctx, tok); err != nil {
		t.Fatal(err)
	}
	return "http://" + httpLn.Addr().String(), plain
}

// get is an authenticated GET: status, X-Total-Count and body.
func get(t *testing.T, url, token string) (int, string, []byte) {
	t.Helper()
	req, err := http.NewRequest("GET", url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "token "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header.Get("X-Total-Count"), b
}

// dataset is what the API shows of the seeded repository.
type dataset struct {
	Labels  []string
	Issues  map[string][2]int // title → labels, comments
	Commits string            // X-Total-Count of the commit list
	README  bool
}

func readDataset(t *testing.T, base, token string) dataset {
	t.Helper()
	repo := base + "/api/v1/repos/bench/bench"
	var ds dataset
	status, _, body := get(t, repo+"/labels?limit=50", token)
	var labels []struct{ Name string }
	if status != 200 || json.Unmarshal(body, &labels) != nil {
		t.Fatalf("labels: %d %s", status, body)
	}
	for _, l := range labels {
		ds.Labels = append(ds.Labels, l.Name)
	}
	status, _, body = get(t, repo+"/issues?state=all&limit=50", token)
	var issues []struct {
		Title    string
		Labels   []struct{ Name string }
		Comments int
	}
	if status != 200 || json.Unmarshal(body, &issues) != nil {
		t.Fatalf("issues: %d %s", status, body)
	}
	ds.Issues = map[string][2]int{}
	for _, is := range issues {
		ds.Issues[is.Title] = [2]int{len(is.Labels), is.Comments}
	}
	status, ds.Commits, body = get(t, repo+"/commits?limit=1", token)
	if status != 200 {
		t.Fatalf("commits: %d %s", status, body)
	}
	status, _, body = get(t, repo+"/raw/README.md", token)
	ds.README = status == 200 && bytes.HasPrefix(body, []byte("# bench"))
	return ds
}

type point struct {
	Endpoint   string  `json:"endpoint"`
	Method     string  `json:"method"`
	Path       string  `json:"path"`
	Target     string  `json:"target"`
	Ceiling    bool    `json:"ceiling"`
	RPS        float64 `json:"rps"`
	Errors     uint64  `json:"errors"`
	Requests   uint64  `json:"requests"`
	Ratio      float64 `json:"ratio"`
	BodySHA256 string  `json:"body_sha256"`
	RSSBytes   int64   `json:"rss_bytes"`
}

var allEndpoints = []string{"version-anon", "version", "user", "repo", "labels", "issues", "issue",
	"branches", "contents", "raw", "commits", "create-issue"}

// TestBenchAgainstForge seeds a tiny dataset on a real forge, measures
// every endpoint briefly against it and the ceiling, and runs again to see
// that seeding is idempotent.
func TestBenchAgainstForge(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a server and measures for seconds")
	}
	base, token := startForge(t)
	t.Setenv(bench.TokenEnv, token)
	out := t.TempDir()
	args := []string{"--url", base, "--name", "forge", "--labels", "3", "--issues", "4", "--comments", "1",
		"--commits", "2", "--concurrency", "1", "--duration", "300ms", "--pid", strconv.Itoa(os.Getpid()), "--out", out}
	var stdout, stderr bytes.Buffer
	if code := bench.Run(args, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d\nstderr:\n%s", code, stderr.String())
	}
	if strings.Contains(stdout.String()+stderr.String(), token) {
		t.Error("the administrator's token was printed")
	}

	// The dataset is there, as the API shows it.
	first := readDataset(t, base, token)
	if len(first.Labels) != 3 || len(first.Issues) != 4 || first.Commits != "2" || !first.README {
		t.Fatalf("seeded dataset: %+v", first)
	}
	for title, lc := range first.Issues {
		if lc != [2]int{2, 1} {
			t.Errorf("issue %q has %d labels and %d comments, want 2 and 1", title, lc[0], lc[1])
		}
	}

	// Every endpoint was measured on forge and on the ceiling, with
	// answers and no errors; the table shows each row.
	var res struct {
		Points []point `json:"points"`
	}
	j, err := os.ReadFile(filepath.Join(out, "bench.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(j, &res); err != nil {
		t.Fatal(err)
	}
	byKey := map[string]point{}
	for _, p := range res.Points {
		byKey[p.Endpoint+" "+p.Target] = p
	}
	table := stdout.String()
	for _, e := range allEndpoints {
		for _, target := range []string{"forge", "ceiling"} {
			p, ok := byKey[e+" "+target]
			if !ok {
				t.Errorf("%s on %s not measured", e, target)
				continue
			}
			if p.RPS <= 0 || p.Errors != 0 || p.Requests == 0 {
				t.Errorf("%s on %s: %.1f req/s, %d errors of %d", e, target, p.RPS, p.Errors, p.Requests)
			}
			if !containsRow(table, e, target) {
				t.Errorf("table has no row for %s on %s:\n%s", e, target, table)
			}
		}
		f, c := byKey[e+" forge"], byKey[e+" ceiling"]
		if f.Ratio <= 0 || f.RSSBytes <= 0 {
			t.Errorf("%s: ratio %v, RSS %d", e, f.Ratio, f.RSSBytes)
		}
		// The ceiling serves the bytes forge served.
		if f.Method == "GET" && (f.BodySHA256 == "" || f.BodySHA256 != c.BodySHA256) {
			t.Errorf("%s: forge answered sha256 %s, the ceiling %s", e, f.BodySHA256, c.BodySHA256)
		}
	}
	// And those bytes are what forge answers now, for one read.
	labels := byKey["labels forge"]
	_, _, body := get(t, base+labels.Path, token)
	if sum := sha256.Sum256(body); hex.EncodeToString(sum[:]) != byKey["labels ceiling"].BodySHA256 {
		t.Errorf("the ceiling's labels differ from forge's %s", body)
	}
	for _, name := range []string{"bench.png", "bench.svg"} {
		if st, err := os.Stat(filepath.Join(out, name)); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", name, err)
		}
	}

	// A second run finds the dataset complete and creates nothing.
	stdout.Reset()
	stderr.Reset()
	args = []string{"--url", base, "--labels", "3", "--issues", "4", "--comments", "1", "--commits", "2",
		"--concurrency", "1", "--duration", "100ms", "--endpoints", "version,create-issue", "--no-ceiling"}
	if code := bench.Run(args, &stdout, &stderr); code != 0 {
		t.Fatalf("second run: exit %d\nstderr:\n%s", code, stderr.String())
	}
	if !strings.Contains(stderr.String(), "nothing to create") {
		t.Errorf("second run seeded:\n%s", stderr.String())
	}
	if second := readDataset(t, base, token); !sameDataset(first, second) {
		t.Errorf("second run changed the dataset:\nbefore %+v\nafter  %+v", first, second)
	}
	if strings.Contains(stdout.String(), "ceiling") {
		t.Errorf("--no-ceiling measured the ceiling:\n%s", stdout.String())
	}

	// A user forge bench did not create is left alone: no password reset.
	stderr.Reset()
	args = []string{"--url", base, "--user", "root", "--labels", "1", "--issues", "1", "--comments", "0", "--commits", "1",
		"--concurrency", "1", "--duration", "100ms", "--endpoints", "version"}
	if code := bench.Run(args, &stdout, &stderr); code != 1 || !strings.Contains(stderr.String(), `user "root" exists and was not created by forge bench`) {
		t.Errorf("bench as an existing user: exit %d, stderr %s", code, stderr.String())
	}
	req, _ := http.NewRequest("GET", base+"/api/v1/user", nil)
	req.SetBasicAuth("root", "root-password-1")
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != 200 {
		t.Errorf("root's password no longer works: %v %v", resp, err)
	} else {
		resp.Body.Close()
	}
}

// containsRow reports whether a table line starts with the endpoint and
// names the target.
func containsRow(table, endpoint, target string) bool {
	for _, line := range strings.Split(table, "\n") {
		f := strings.Fields(line)
		if len(f) > 2 && f[0] == endpoint && f[2] == target {
			return true
		}
	}
	return false
}

func sameDataset(a, b dataset) bool {
	if strings.Join(a.Labels, ",") != strings.Join(b.Labels, ",") || a.Commits != b.Commits || a.README != b.README ||
		len(a.Issues) != len(b.Issues) {
		return false
	}
	for k, v := range a.Issues {
		if b.Issues[k] != v {
			return false
		}
	}
	return true
}

// TestBenchRefusesTokenFlagsAndBadInput: the token comes from the
// environment or a file only, and bad flags are usage errors.
func TestBenchRefusesTokenFlagsAndBadInput(t *testing.T) {
	t.Setenv(bench.TokenEnv, "")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--url", "http://127.0.0.1:1", "--token", "x"}, "flag provided but not defined: -token"},
		{[]string{"--url", "http://127.0.0.1:1"}, "no administrator token"},
		{[]string{"--url", "http://u:p@127.0.0.1:1"}, "must not carry credentials"},
		{[]string{"--url", "127.0.0.1:1"}, "--url must be an http(s) URL"},
		{[]string{"--url", "http://127.0.0.1:1", "--concurrency", "1,0"}, "not a positive number"},
		{[]string{"--url", "http://127.0.0.1:1", "--issues", "0"}, "--issues and --commits at least 1"},
		{[]string{"--url", "http://127.0.0.1:1", "--name", "ceiling"}, `--name "ceiling" is the bare-HTTP reference's`},
		{[]string{"--url", "http://127.0.0.1:1", "--endpoints", "version,nope"}, `unknown endpoint "nope"`},
	} {
		var stdout, stderr bytes.Buffer
		if code := bench.Run(tc.args, &stdout, &stderr); code != 2 || !strings.Contains(stderr.String(), tc.want) {
			t.Errorf("%v: exit %d, stderr %q, want 2 and %q", tc.args, code, stderr.String(), tc.want)
		}
	}
}
