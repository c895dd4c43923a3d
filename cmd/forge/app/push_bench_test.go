package app_test

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"forge/services/store/storetest"
)

// BenchmarkPush pushes one commit with the real `git push` over smart HTTP
// into a repository with 10 and 10,000 branches, and the same commit into
// a plain copy of that repository served by git alone, and reports per
// push (wall time of the server side of the push's two requests, the ref
// advertisement and the receive-pack POST; not the client's time):
//
//   - forge-ms/op: forge's handlers, everything included (authentication,
//     git receive-pack, forge's hooks, the branch records);
//
//   - git-ms/op: the same two requests answered by bare
//     `git receive-pack --stateless-rpc [--advertise-refs]` on the plain
//     copy, with the git configuration forge passes to receive-pack but no
//     hooks: the work git itself must do for this push;
//
//   - own-ms/op: forge-ms/op minus git-ms/op, forge's own time. The two
//     pushes alternate in one loop, so both see the same machine load.
//
//     go test -run '^$' -bench Push -benchtime 20x ./cmd/forge/app/
func BenchmarkPush(b *testing.B) {
	for _, n := range []int{10, 10000} {
		b.Run(fmt.Sprintf("sqlite/branches=%d", n), func(b *testing.B) { benchPush(b, storetest.Backends[0], n, 0) })
	}
	// The pre-receive check of branch protection: 50 rules (49 globs that
	// do not match, then "main" with protected file patterns, so the push
	// is checked for force push and its changed files).
	b.Run("sqlite/branches=10/rules=50", func(b *testing.B) { benchPush(b, storetest.Backends[0], 10, 50) })
}

// pushTimer adds up the server-side wall time of a push's two requests.
type pushTimer struct {
	mu                 sync.Mutex
	advertise, receive time.Duration
}

func (pt *pushTimer) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t0 := time.Now()
		h.ServeHTTP(w, r)
		d := time.Since(t0)
		pt.mu.Lock()
		defer pt.mu.Unlock()
		switch {
		case strings.HasSuffix(r.URL.Path, "/git-receive-pack"):
			pt.receive += d
		case strings.HasSuffix(r.URL.Path, "/info/refs") && r.URL.Query().Get("service") == "git-receive-pack":
			pt.advertise += d
		}
	})
}

func (pt *pushTimer) reset() {
	pt.mu.Lock()
	pt.advertise, pt.receive = 0, 0
	pt.mu.Unlock()
}

func (pt *pushTimer) total() time.Duration {
	pt.mu.Lock()
	defer pt.mu.Unlock()
	return pt.advertise + pt.receive
}

// serveTimed serves h on a loopback listener of its own until the
// benchmark ends and returns the listener's address.
func serveTimed(b *testing.B, h http.Handler) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	srv := &http.Server{Handler: h}
	go srv.Serve(ln)
	b.Cleanup(func() { srv.Close() })
	return ln.Addr().String()
}

// plainReceivePack answers a push to the bare repository dir the way git's
// own smart HTTP does, with nothing around git receive-pack.
func plainReceivePack(dir string) http.Handler {
	receivePack := func(r *http.Request, w io.Writer, args ...string) error {
		cmd := exec.Command("git", append([]string{
			"-c", "receive.autogc=false", "-c", "core.alternateRefsCommand=true",
			"receive-pack", "--stateless-rpc"}, append(args, dir)...)...)
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "LC_ALL=C",
			"GIT_PROTOCOL="+r.Header.Get("Git-Protocol"))
		cmd.Stdin, cmd.Stdout = r.Body, w
		return cmd.Run()
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case strings.HasSuffix(r.URL.Path, "/info/refs"):
			w.Header().Set("Content-Type", "application/x-git-receive-pack-advertisement")
			io.WriteString(w, "001f# service=git-receive-pack\n0000")
			receivePack(r, w, "--advertise-refs")
		case strings.HasSuffix(r.URL.Path, "/git-receive-pack"):
			w.Header().Set("Content-Type", "application/x-git-receive-pack-result")
			receivePack(r, w)
		default:
			http.NotFound(w, r)
		}
	})
}

// waitRefsPacked waits until the repository at dir holds at most one
// loose branch (the one pushed last).
func waitRefsPacked(b *testing.B, dir string) {
	deadline := time.Now().Add(5 * time.Minute)
	for {
		loose, err := os.ReadDir(filepath.Join(dir, "refs", "heads"))
		if err != nil {
			b.Fatal(err)
		}
		if len(loose) <= 1 {
			return
		}
		if time.Now().After(deadline) {
			b.Fatalf("%d loose branches after 5 minutes", len(loose))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func benchPush(b *testing.B, kind string, branches, rules int) {
	s := startServer(b, kind, nil)
	if r := s.do("POST", "/api/v1/user/repos", `{"name":"many","auto_init":true}`,
		"Authorization", "token "+s.AdminToken, "Content-Type", jsonCT); r.Status != 201 {
		b.Fatalf("create repository: %d %s", r.Status, r.Body)
	}
	for i := 0; i < rules; i++ {
		body := fmt.Sprintf(`{"rule_name":"rule-%02d/*","enable_push":true}`, i)
		if i == rules-1 {
			body = `{"rule_name":"main","enable_push":true,"protected_file_patterns":"*.lock;secret/**"}`
		}
		if r := s.do("POST", "/api/v1/repos/root/many/branch_protections", body,
			"Authorization", "token "+s.AdminToken, "Content-Type", jsonCT); r.Status != 201 {
			b.Fatalf("create rule: %d %s", r.Status, r.Body)
		}
	}
	var forgeTime, gitTime pushTimer
	// A token as the password, as CI pushes: a password would add its hash
	// check to each of the push's two requests.
	remote := fmt.Sprintf("http://root:%s@%s/root/many.git", s.AdminToken, serveTimed(b, forgeTime.wrap(s.App.Handler())))
	plainDir := filepath.Join(b.TempDir(), "plain.git")
	plainRemote := fmt.Sprintf("http://%s/plain.git", serveTimed(b, gitTime.wrap(plainReceivePack(plainDir))))

	work := b.TempDir()
	git := func(args ...string) string {
		b.Helper()
		out, err := gitTry(work, args...)
		if err != nil {
			b.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return out
	}
	git("clone", "-q", remote, ".")
	git("init", "-q", "--bare", plainDir)
	git("remote", "add", "plain", plainRemote)
	head := strings.TrimSpace(git("rev-parse", "HEAD"))
	var in strings.Builder
	for i := 1; i < branches; i++ { // main exists
		fmt.Fprintf(&in, "create refs/heads/branch-%05d %s\n", i, head)
	}
	cmd := exec.Command("git", "update-ref", "--stdin")
	cmd.Dir, cmd.Stdin = work, strings.NewReader(in.String())
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("update-ref: %v\n%s", err, out)
	}
	// One request, one ref transaction: no rewind on a retry, and git
	// runs the reference-transaction hook once, not once per branch.
	git("-c", "http.postBuffer=104857600", "push", "-q", "--atomic", "origin", "--all")
	git("push", "-q", "--atomic", plainDir, "--all")
	git("-C", plainDir, "pack-refs", "--all")
	if r := s.do("GET", "/api/v1/repos/root/many/branches?limit=1", "", "Authorization", "token "+s.AdminToken); r.Status != 200 {
		b.Fatalf("branches: %d %s", r.Status, r.Body)
	}
	// Time pushes of one commit, not the housekeeping after the setup
	// push (which packs the branches it left loose).
	waitRefsPacked(b, filepath.Join(s.Cfg.Repository.Root, "root", "many.git"))

	forgeTime.reset()
	gitTime.reset()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		os.WriteFile(work+"/f.txt", []byte(fmt.Sprint(i)), 0o644)
		git("add", "f.txt")
		git("commit", "-q", "-m", fmt.Sprint("c", i))
		b.StartTimer()
		git("push", "-q", "origin", "main")
		b.StopTimer()
		git("push", "-q", "plain", "main")
		b.StartTimer()
	}
	b.StopTimer()
	perPush := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 / float64(b.N) }
	b.ReportMetric(perPush(forgeTime.advertise), "advertise-ms/op")
	b.ReportMetric(perPush(forgeTime.receive), "receive-ms/op")
	b.ReportMetric(perPush(forgeTime.total()), "forge-ms/op")
	b.ReportMetric(perPush(gitTime.total()), "git-ms/op")
	b.ReportMetric(perPush(forgeTime.total()-gitTime.total()), "own-ms/op")
	// The record follows the push.
	sha := strings.TrimSpace(git("rev-parse", "HEAD"))
	if r := s.do("GET", "/api/v1/repos/root/many/branches/main", "", "Authorization", "token "+s.AdminToken); !strings.Contains(string(r.Body), sha) {
		b.Fatalf("branch record: %d %s", r.Status, r.Body)
	}
	if got := strings.Fields(git("ls-remote", plainDir, "refs/heads/main")); len(got) == 0 || got[0] != sha {
		b.Fatalf("plain push: %v", got)
	}
}
