package git

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// configOf decodes the GIT_CONFIG_* entries of env.
func configOf(t *testing.T, env []string) map[string]string {
	t.Helper()
	vars := map[string]string{}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		vars[k] = v
	}
	out := map[string]string{}
	for i := 0; ; i++ {
		n := string(rune('0' + i))
		key, ok := vars["GIT_CONFIG_KEY_"+n]
		if !ok {
			if vars["GIT_CONFIG_COUNT"] != n && len(env) > 0 {
				t.Fatalf("GIT_CONFIG_COUNT=%s, %d entries: %v", vars["GIT_CONFIG_COUNT"], i, env)
			}
			return out
		}
		out[key] = vars["GIT_CONFIG_VALUE_"+n]
	}
}

func TestRemoteCall(t *testing.T) {
	local := t.TempDir()
	basic := func(userPass string) string {
		return "Authorization: Basic " + base64.StdEncoding.EncodeToString([]byte(userPass))
	}
	addrs := func(list ...string) []netip.Addr {
		var out []netip.Addr
		for _, a := range list {
			out = append(out, netip.MustParseAddr(a))
		}
		return out
	}
	for _, tc := range []struct {
		name   string
		remote Remote
		url    string            // on the command line
		config map[string]string // given through the environment
	}{
		{"credentials move to a header", Remote{URL: "https://alice:p%40ss@example.org/o/r.git"},
			"https://example.org/o/r.git", map[string]string{"http.extraHeader": basic("alice:p@ss")}},
		{"token as user name", Remote{URL: "http://0123456789abcdef@example.org:8080/r"},
			"http://example.org:8080/r", map[string]string{"http.extraHeader": basic("0123456789abcdef:")}},
		{"pinned name, default port", Remote{URL: "https://Git.Example.org/r.git", Addrs: addrs("93.184.216.34", "2606:2800:220:1::1")},
			"https://Git.Example.org/r.git", map[string]string{"http.curloptResolve": "git.example.org:443:93.184.216.34,[2606:2800:220:1::1]"}},
		{"pinned name with port and credentials", Remote{URL: "http://u:pw@pinned.example:3000/r.git", Addrs: addrs("::ffff:127.0.0.1")},
			"http://pinned.example:3000/r.git", map[string]string{"http.curloptResolve": "pinned.example:3000:127.0.0.1", "http.extraHeader": basic("u:pw")}},
		{"trailing dot kept as curl sees it", Remote{URL: "http://pinned.example./r.git", Addrs: addrs("127.0.0.1")},
			"http://pinned.example./r.git", map[string]string{"http.curloptResolve": "pinned.example.:80:127.0.0.1"}},
		{"an address is not resolved", Remote{URL: "http://127.0.0.1:3000/r.git", Addrs: addrs("10.0.0.1")},
			"http://127.0.0.1:3000/r.git", map[string]string{}},
		{"git:// connects to the checked address", Remote{URL: "git://pinned.example/r.git", Addrs: addrs("127.0.0.1")},
			"git://127.0.0.1/r.git", map[string]string{}},
		{"git:// IPv6 with port", Remote{URL: "git://u:pw@pinned.example:9418/r.git", Addrs: addrs("::1")},
			"git://[::1]:9418/r.git", map[string]string{}},
		{"local path", Remote{URL: local}, local, map[string]string{}},
		{"file URL", Remote{URL: "file://" + local}, "file://" + local, map[string]string{}},
		{"ssh keeps its user name", Remote{URL: "ssh://git@example.org/r.git"}, "ssh://git@example.org/r.git", map[string]string{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rc, err := tc.remote.call()
			if err != nil {
				t.Fatal(err)
			}
			if rc.url != tc.url {
				t.Errorf("url %q, want %q", rc.url, tc.url)
			}
			if got := configOf(t, rc.env); len(got) != len(tc.config) || !mapsEqual(got, tc.config) {
				t.Errorf("config %v, want %v", got, tc.config)
			}
		})
	}
	for _, bad := range []Remote{
		{URL: local, Addrs: addrs("127.0.0.1")},             // nothing to pin
		{URL: "ssh://u:pw@example.org/r.git"},               // no way to pass the password
		{URL: "file:///srv/r.git", Addrs: addrs("1.2.3.4")}, // no host to pin
		{URL: "http://u:p@exa mple.org/r.git"},              // does not parse
		{URL: "-uhttp://example.org/r.git"},
	} {
		if rc, err := bad.call(); err == nil {
			t.Errorf("call(%+v) = %+v, want an error", bad, rc)
		}
	}
}

func mapsEqual(a, b map[string]string) bool {
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return len(a) == len(b)
}

// authGate is a git HTTP server that requires Basic credentials and, when
// armed, holds the next request until the test has looked at the running
// git processes.
type authGate struct {
	next       http.Handler
	user, pass string
	armed      atomic.Bool
	hit        chan struct{}
	release    chan struct{}
	denied     atomic.Int64
}

func (g *authGate) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if u, p, ok := r.BasicAuth(); !ok || u != g.user || p != g.pass {
		g.denied.Add(1)
		w.Header().Set("WWW-Authenticate", `Basic realm="test"`)
		http.Error(w, "Unauthorized", http.StatusUnauthorized)
		return
	}
	if g.armed.CompareAndSwap(true, false) {
		g.hit <- struct{}{}
		<-g.release
	}
	g.next.ServeHTTP(w, r)
}

// whileBlocked runs op, and while its first request is held, calls look.
func (g *authGate) whileBlocked(t *testing.T, op func() error, look func()) {
	t.Helper()
	g.armed.Store(true)
	done := make(chan error, 1)
	go func() { done <- op() }()
	select {
	case <-g.hit:
	case err := <-done:
		t.Fatalf("finished without reaching the server: %v", err)
	case <-time.After(30 * time.Second):
		t.Fatal("no request reached the server")
	}
	look()
	g.release <- struct{}{}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// gitProcesses returns the command lines (arguments joined by spaces) and
// environments of this user's running processes that mention marker, and
// fails the test if any process's command line contains a secret.
func gitProcesses(t *testing.T, marker string, secrets ...string) (cmdlines []string, environs []string) {
	t.Helper()
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, dir := range dirs {
		raw, err := os.ReadFile(dir + "/cmdline")
		if err != nil {
			continue // gone meanwhile
		}
		cmdline := strings.ReplaceAll(string(raw), "\x00", " ")
		for _, s := range secrets {
			if strings.Contains(cmdline, s) {
				t.Errorf("process %s has a credential on its command line: %s", filepath.Base(dir), cmdline)
			}
		}
		if strings.Contains(cmdline, marker) {
			cmdlines = append(cmdlines, cmdline)
			env, _ := os.ReadFile(dir + "/environ")
			environs = append(environs, string(env))
		}
	}
	return cmdlines, environs
}

// TestMirrorCredentialsStayOffCommandLine clones, fetches and pushes with
// credentials through a name only the pin resolves, and checks the git
// processes while they run: no password (nor its Basic encoding) on any
// command line, the credentials in the environment.
func TestMirrorCredentialsStayOffCommandLine(t *testing.T) {
	ctx := context.Background()
	s := newTestStore(t)
	src := newRepo(t, s, "up", "stream")
	commitFiles(t, s, src, "main", "one", create("a", "a"))
	g, _ := startGitServer(t, s)
	b := make([]byte, 8)
	rand.Read(b)
	gate := &authGate{next: g, user: "alice", pass: "pw-" + hex.EncodeToString(b), hit: make(chan struct{}), release: make(chan struct{})}
	srv := httptest.NewServer(gate)
	defer srv.Close()
	port := srv.URL[strings.LastIndex(srv.URL, ":")+1:]
	// "pinned.invalid" resolves nowhere: git reaches the server only
	// through the pin.
	remote := Remote{
		URL:   "http://alice:" + gate.pass + "@pinned.invalid:" + port + "/up/stream.git",
		Addrs: []netip.Addr{netip.MustParseAddr("127.0.0.1")},
	}
	secrets := []string{gate.pass, base64.StdEncoding.EncodeToString([]byte("alice:" + gate.pass))}
	look := func(what string) func() {
		return func() {
			cmdlines, environs := gitProcesses(t, "pinned.invalid:"+port, secrets...)
			if !slices.ContainsFunc(cmdlines, func(c string) bool { return strings.Contains(c, "remote-http") }) {
				t.Errorf("%s: no git-remote-http process found while the request was held: %q", what, cmdlines)
			}
			for i, env := range environs {
				if !strings.Contains(env, "Authorization: Basic "+secrets[1]) || !strings.Contains(env, "pinned.invalid:"+port+":127.0.0.1") {
					t.Errorf("%s: process %q lacks the credentials or the pin in its environment", what, cmdlines[i])
				}
			}
		}
	}

	mirror, _ := s.RepoPath("me", "mirror")
	gate.whileBlocked(t, func() error { return s.CloneMirror(ctx, remote, mirror) }, look("clone"))
	c2 := commitFiles(t, s, src, "main", "two", create("b", "b"))
	gate.whileBlocked(t, func() error {
		ups, err := s.FetchMirror(ctx, mirror, remote)
		if err == nil && (len(ups) != 1 || ups[0].NewSHA != c2) {
			t.Errorf("fetch updates %v", ups)
		}
		return err
	}, look("fetch"))
	newRepo(t, s, "down", "stream")
	push := remote
	push.URL = strings.Replace(remote.URL, "/up/", "/down/", 1)
	gate.whileBlocked(t, func() error { return s.PushMirror(ctx, mirror, push) }, look("push"))
	if got, err := s.GetBranch(ctx, filepath.Join(filepath.Dir(filepath.Dir(mirror)), "down", "stream.git"), "main"); err != nil || got.Commit.SHA != c2 {
		t.Fatalf("pushed main: %+v %v", got, err)
	}
	if n := gate.denied.Load(); n != 0 {
		t.Errorf("%d requests came without the credentials", n)
	}
	// The mirror's config keeps neither the credentials nor the address.
	cfg, err := os.ReadFile(filepath.Join(mirror, "config"))
	if err != nil || strings.Contains(string(cfg), gate.pass) || !strings.Contains(string(cfg), "http://pinned.invalid:"+port+"/up/stream.git") {
		t.Fatalf("mirror config %s (%v)", cfg, err)
	}

	// Without the pin the name does not resolve: the pin is what connected.
	if err := s.CloneMirror(ctx, Remote{URL: remote.URL}, mirror+"2"); err == nil || strings.Contains(err.Error(), gate.pass) {
		t.Fatalf("unpinned clone of an unresolvable name: %v", err)
	}
	// Wrong credentials: refused, and the password is not in the error.
	bad := remote
	bad.URL = "http://alice:wrong-" + gate.pass + "@pinned.invalid:" + port + "/up/stream.git"
	if err := s.CloneMirror(ctx, bad, mirror+"3"); err == nil || strings.Contains(err.Error(), gate.pass) {
		t.Fatalf("clone with wrong credentials: %v", err)
	}
}

// TestMirrorNoRedirects: a pinned remote that redirects elsewhere does not
// take git (nor the credentials) there.
func TestMirrorNoRedirects(t *testing.T) {
	ctx := context.Background()
	s := newTestStore(t)
	src := newRepo(t, s, "up", "stream")
	commitFiles(t, s, src, "main", "one", create("a", "a"))
	g, _ := startGitServer(t, s)
	var reached atomic.Int64
	elsewhere := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reached.Add(1)
		g.ServeHTTP(w, r)
	}))
	defer elsewhere.Close()
	redirector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, elsewhere.URL+r.URL.RequestURI(), http.StatusFound)
	}))
	defer redirector.Close()
	port := redirector.URL[strings.LastIndex(redirector.URL, ":")+1:]
	remote := Remote{URL: "http://alice:pw-redirected@pinned.invalid:" + port + "/up/stream.git", Addrs: []netip.Addr{netip.MustParseAddr("127.0.0.1")}}
	path, _ := s.RepoPath("me", "mirror")
	if err := s.CloneMirror(ctx, remote, path); err == nil || strings.Contains(err.Error(), "pw-redirected") {
		t.Fatalf("clone through a redirect: %v", err)
	}
	if n := reached.Load(); n != 0 {
		t.Fatalf("git followed the redirect (%d requests)", n)
	}
}
