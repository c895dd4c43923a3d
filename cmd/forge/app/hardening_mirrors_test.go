package app_test

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"code.gitea.io/sdk/gitea"
)

// holdingProxy forwards git's requests to forge and, when armed, holds
// the next one until the test has looked at the running git processes.
type holdingProxy struct {
	next    http.Handler
	armed   atomic.Bool
	hit     chan struct{}
	release chan struct{}
}

func newHoldingProxy(t *testing.T, target string) (*holdingProxy, string) {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	p := &holdingProxy{next: httputil.NewSingleHostReverseProxy(u), hit: make(chan struct{}), release: make(chan struct{})}
	srv := httptest.NewServer(p)
	t.Cleanup(srv.Close)
	return p, srv.URL
}

func (p *holdingProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if p.armed.CompareAndSwap(true, false) {
		p.hit <- struct{}{}
		<-p.release
	}
	p.next.ServeHTTP(w, r)
}

// whileHeld runs op and, while git's first request is held, calls look.
func (p *holdingProxy) whileHeld(t *testing.T, op func() error, look func()) {
	t.Helper()
	p.armed.Store(true)
	done := make(chan error, 1)
	go func() { done <- op() }()
	select {
	case <-p.hit:
	case err := <-done:
		p.armed.Store(false)
		t.Fatalf("finished without git reaching the remote: %v", err)
	case <-time.After(60 * time.Second):
		t.Fatal("git did not reach the remote")
	}
	look()
	p.release <- struct{}{}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// scanProcesses fails the test when the command line of any process
// (ps, /proc/PID/cmdline) holds a secret, and returns the command lines
// and environments of those that mention marker (the git processes
// talking to the remote).
func scanProcesses(t *testing.T, marker string, secrets ...string) (cmdlines, environs []string) {
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
			env, _ := os.ReadFile(dir + "/environ")
			cmdlines, environs = append(cmdlines, cmdline), append(environs, string(env))
		}
	}
	return cmdlines, environs
}

// TestMirrorCredentialsOffCommandLine migrates (mirror and plain), syncs a
// pull mirror and a push mirror with credentials, against a remote that
// requires them, and looks at every process while git talks to it: the
// password is on no command line; git has it, in its environment.
func TestMirrorCredentialsOffCommandLine(t *testing.T) {
	t.Parallel()
	eachBackend(t, allowLocal, func(t *testing.T, s *testServer) {
		b := make([]byte, 8)
		rand.Read(b)
		alicePW := "pw-" + hex.EncodeToString(b)
		aliceTok := s.seedUser("alice", alicePW, false)
		carolTok := s.seedUser("carol", "carol-password", false)
		s.createRepo(t, aliceTok, "source", true, true) // private: reading it needs alice's credentials
		s.createRepo(t, aliceTok, "backup", false, true)
		proxy, proxyURL := newHoldingProxy(t, s.URL)
		marker := strings.TrimPrefix(proxyURL, "http://")
		secrets := []string{alicePW, base64.StdEncoding.EncodeToString([]byte("alice:" + alicePW))}
		look := func(what string) func() {
			return func() {
				cmdlines, environs := scanProcesses(t, marker, secrets...)
				if len(cmdlines) < 2 { // git and its git-remote-http
					t.Errorf("%s: git processes talking to the remote: %q", what, cmdlines)
				}
				for i, env := range environs {
					if !strings.Contains(env, "Authorization: Basic "+secrets[1]) {
						t.Errorf("%s: %q runs without the credentials in its environment", what, cmdlines[i])
					}
				}
			}
		}

		carol := s.sdk(gitea.SetToken(carolTok))
		var mirror *gitea.Repository
		proxy.whileHeld(t, func() error {
			repo, _, err := carol.MigrateRepo(gitea.MigrateRepoOption{
				CloneAddr: proxyURL + "/alice/source.git", RepoName: "copy", Mirror: true, Service: gitea.GitServicePlain,
				AuthUsername: "alice", AuthPassword: alicePW,
			})
			mirror = repo
			return err
		}, look("mirror migration"))
		if mirror == nil || !mirror.Mirror || mirror.Empty {
			t.Fatalf("migrated mirror: %+v", mirror)
		}
		// Credentials in the clone address itself, plain migration.
		withUser, _ := url.Parse(proxyURL + "/alice/source.git")
		withUser.User = url.UserPassword("alice", alicePW)
		proxy.whileHeld(t, func() error {
			_, _, err := carol.MigrateRepo(gitea.MigrateRepoOption{CloneAddr: withUser.String(), RepoName: "plain", Service: gitea.GitServicePlain})
			return err
		}, look("plain migration"))

		// A new commit reaches the mirror through a sync.
		work := t.TempDir()
		gitCmd(t, work, "clone", "-q", s.gitURL("alice", alicePW, "alice", "source"), ".")
		commitFile(t, work, "new.txt", "new\n", "new")
		gitCmd(t, work, "push", "-q", "origin", "main")
		proxy.whileHeld(t, func() error {
			_, err := carol.MirrorSync("carol", "copy")
			return err
		}, look("mirror sync"))
		if got := lsRemote(t, s.gitURL("carol", "carol-password", "carol", "copy"))["refs/heads/main"]; got != revParse(t, work, "HEAD") {
			t.Fatalf("mirror main at %q after the sync, want %q", got, revParse(t, work, "HEAD"))
		}

		// A push mirror with credentials.
		alice := s.sdk(gitea.SetToken(aliceTok))
		if _, _, err := alice.PushMirrors("alice", "source", gitea.CreatePushMirrorOption{
			RemoteAddress: proxyURL + "/alice/backup.git", RemoteUsername: "alice", RemotePassword: alicePW, Interval: "0",
		}); err != nil {
			t.Fatal(err)
		}
		proxy.whileHeld(t, func() error {
			resp, err := alice.TriggerPushMirrorsSync("alice", "source")
			if err == nil && resp.StatusCode != 200 {
				err = errors.New(resp.Status)
			}
			return err
		}, look("push mirror sync"))
		if got := lsRemote(t, s.gitURL("alice", alicePW, "alice", "backup"))["refs/heads/main"]; got != revParse(t, work, "HEAD") {
			t.Fatalf("backup main at %q after the push, want %q", got, revParse(t, work, "HEAD"))
		}
	})
}

// TestMigrateRefusesEmbeddedIPv4: IPv6 spellings of loopback and metadata
// addresses are refused like the IPv4 addresses they carry.
func TestMigrateRefusesEmbeddedIPv4(t *testing.T) {
	s := startServer(t, "sqlite3", nil) // ALLOW_LOCALNETWORKS = false
	aliceTok := s.seedUser("alice", "alice-password", false)
	s.createRepo(t, aliceTok, "source", true, false)
	port := s.URL[strings.LastIndex(s.URL, ":")+1:]
	for _, host := range []string{
		"[::127.0.0.1]:" + port,
		"[::7f00:1]:" + port,
		"[::169.254.169.254]",
		"[::ffff:0:127.0.0.1]:" + port,
		"[::ffff:127.0.0.1]:" + port,
		"[64:ff9b::127.0.0.1]:" + port,
		"[2002:7f00:1::]:" + port,
	} {
		r := s.do("POST", "/api/v1/repos/migrate", `{"clone_addr":"http://`+host+`/alice/source.git","repo_name":"copy","mirror":true}`,
			"Authorization", "token "+aliceTok, "Content-Type", jsonCT)
		expectStatus(t, r, 422)
		if msg := r.message(t); msg != "You can not import from disallowed hosts." {
			t.Fatalf("%s: %q", host, msg)
		}
	}
	expectStatus(t, s.do("GET", "/api/v1/repos/alice/copy", "", "Authorization", "token "+aliceTok), 404)
}
