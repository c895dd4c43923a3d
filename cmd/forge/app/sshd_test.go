package app_test

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"code.gitea.io/sdk/gitea"
	"golang.org/x/crypto/ssh"

	"forge/services/config"
)

// withSSH turns the built-in SSH server on, on a free loopback port.
func withSSH(c *config.Config) {
	c.Server.SSH.Start = true
	c.Server.SSH.ListenHost = "127.0.0.1"
	c.Server.SSH.ListenPort = 0
	c.Server.SSH.User = "git"
}

// sshKey writes a fresh ed25519 private key for the OpenSSH client under
// dir and returns its file and its authorized_keys line.
func sshKey(t *testing.T, dir, name string) (string, string) {
	t.Helper()
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	block, err := ssh.MarshalPrivateKey(priv, "")
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, name)
	if err := os.WriteFile(file, pem.EncodeToMemory(block), 0o600); err != nil {
		t.Fatal(err)
	}
	signer, err := ssh.NewSignerFromKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	return file, strings.TrimSpace(string(ssh.MarshalAuthorizedKey(signer.PublicKey())))
}

// sshGit runs git in dir with the OpenSSH client signing in with key to
// the test server's SSH port (so scp-like URLs reach it too).
func (s *testServer) sshGit(dir, key string, args ...string) (string, error) {
	_, port, _ := net.SplitHostPort(s.App.SSHAddr())
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(),
		"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_TERMINAL_PROMPT=0", "LC_ALL=C",
		"GIT_AUTHOR_NAME=Tester", "GIT_AUTHOR_EMAIL=tester@example.org",
		"GIT_COMMITTER_NAME=Tester", "GIT_COMMITTER_EMAIL=tester@example.org",
		"GIT_SSH_COMMAND=ssh -i "+key+" -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o IdentitiesOnly=yes"+
			" -o BatchMode=yes -o LogLevel=ERROR -p "+port,
	)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// sshURL is the ssh:// clone URL of owner/repo on the test server.
func (s *testServer) sshURL(owner, repo string) string {
	return "ssh://git@" + s.App.SSHAddr() + "/" + owner + "/" + repo + ".git"
}

// TestSSHGit drives the built-in SSH server with the real OpenSSH client
// and git: the owner's key clones a private repository and pushes (the
// branch and the pull request's head follow, as over HTTP); a stranger's
// key and an unknown key are refused; a read-only deploy key clones but
// may not push, and says why; a read-write deploy key pushes to its own
// repository only; a protected branch refuses a push over SSH with the
// message HTTP gives; and no shell is served.
func TestSSHGit(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("ssh"); err != nil {
		t.Skip("no OpenSSH client")
	}
	eachBackend(t, withSSH, func(t *testing.T, s *testServer) {
		dir, keys := t.TempDir(), t.TempDir()
		aliceTok := s.seedUser("alice", "alice-password", false)
		bobTok := s.seedUser("bob", "bob-password", false)
		alice, bob := s.sdk(gitea.SetToken(aliceTok)), s.sdk(gitea.SetToken(bobTok))
		s.createRepo(t, aliceTok, "proj", true, true)
		s.createRepo(t, aliceTok, "other", true, true)

		aliceKey, aliceLine := sshKey(t, keys, "alice")
		bobKey, bobLine := sshKey(t, keys, "bob")
		unknownKey, _ := sshKey(t, keys, "unknown")
		roKey, roLine := sshKey(t, keys, "ro")
		rwKey, rwLine := sshKey(t, keys, "rw")
		for _, k := range []struct {
			c          *gitea.Client
			title, key string
		}{{alice, "alice", aliceLine}, {bob, "bob", bobLine}} {
			if _, _, err := k.c.CreatePublicKey(gitea.CreateKeyOption{Title: k.title, Key: k.key}); err != nil {
				t.Fatal(err)
			}
		}
		if _, _, err := alice.CreateDeployKey("alice", "proj", gitea.CreateKeyOption{Title: "ro", Key: roLine, ReadOnly: true}); err != nil {
			t.Fatal(err)
		}
		if _, _, err := alice.CreateDeployKey("alice", "proj", gitea.CreateKeyOption{Title: "rw", Key: rwLine}); err != nil {
			t.Fatal(err)
		}

		repo, _, err := alice.GetRepo("alice", "proj")
		if err != nil || repo.SSHURL != "git@127.0.0.1:alice/proj.git" {
			t.Fatalf("ssh_url: %q %v", repo.SSHURL, err)
		}

		// The owner clones (scp-like form through ssh_config would need a
		// port; the ssh:// form carries it) and pushes.
		work := filepath.Join(dir, "work")
		if out, err := s.sshGit(dir, aliceKey, "clone", "-q", s.sshURL("alice", "proj"), work); err != nil {
			t.Fatalf("clone as the owner: %v\n%s", err, out)
		}
		// The scp-like form of ssh_url, the port from the client's options.
		if out, err := s.sshGit(dir, aliceKey, "ls-remote", "git@127.0.0.1:alice/proj.git", "main"); err != nil ||
			!strings.Contains(out, "refs/heads/main") {
			t.Fatalf("ls-remote with the scp-like URL: %v\n%s", err, out)
		}
		commitFile(t, work, "a.txt", "a\n", "over ssh")
		if out, err := s.sshGit(work, aliceKey, "push", "-q", "origin", "HEAD:feature"); err != nil {
			t.Fatalf("push as the owner: %v\n%s", err, out)
		}
		head := strings.TrimSpace(gitCmd(t, work, "rev-parse", "HEAD"))
		br, _, err := alice.GetRepoBranch("alice", "proj", "feature")
		if err != nil || br.Commit == nil || br.Commit.ID != head {
			t.Fatalf("the pushed branch in the API: %+v %v", br, err)
		}
		pr, _, err := alice.CreatePullRequest("alice", "proj", gitea.CreatePullRequestOption{Head: "feature", Base: "main", Title: "t"})
		if err != nil {
			t.Fatal(err)
		}
		commitFile(t, work, "b.txt", "b\n", "second")
		if out, err := s.sshGit(work, aliceKey, "push", "-q", "origin", "HEAD:feature"); err != nil {
			t.Fatalf("push to the pull request's head: %v\n%s", err, out)
		}
		head = strings.TrimSpace(gitCmd(t, work, "rev-parse", "HEAD"))
		// The refresher follows the push, as after a push over HTTP.
		waitFor(t, 10*time.Second, "the pull request's head after the push", func() bool {
			got, _, err := alice.GetPullRequest("alice", "proj", pr.Index)
			return err == nil && got.Head != nil && got.Head.Sha == head
		})

		// A stranger's key and an unknown key.
		if out, err := s.sshGit(dir, bobKey, "clone", "-q", s.sshURL("alice", "proj"), filepath.Join(dir, "bob")); err == nil ||
			!strings.Contains(out, "forge: ") {
			t.Fatalf("a stranger clones a private repository: %v\n%s", err, out)
		}
		if out, err := s.sshGit(dir, unknownKey, "clone", "-q", s.sshURL("alice", "proj"), filepath.Join(dir, "unknown")); err == nil ||
			!strings.Contains(out, "Permission denied") {
			t.Fatalf("an unknown key clones: %v\n%s", err, out)
		}

		// A read-only deploy key clones; its push is refused, with why.
		ro := filepath.Join(dir, "ro")
		if out, err := s.sshGit(dir, roKey, "clone", "-q", s.sshURL("alice", "proj"), ro); err != nil {
			t.Fatalf("clone with a read-only deploy key: %v\n%s", err, out)
		}
		commitFile(t, ro, "c.txt", "c\n", "by a deploy key")
		if out, err := s.sshGit(ro, roKey, "push", "-q", "origin", "HEAD:main"); err == nil || !strings.Contains(out, "forge: user should have a permission to write to a repo") {
			t.Fatalf("push with a read-only deploy key: %v\n%s", err, out)
		}
		// A read-write deploy key pushes to its repository, not to another.
		if out, err := s.sshGit(ro, rwKey, "push", "-q", "origin", "HEAD:deployed"); err != nil {
			t.Fatalf("push with a read-write deploy key: %v\n%s", err, out)
		}
		if _, _, err := alice.GetRepoBranch("alice", "proj", "deployed"); err != nil {
			t.Fatalf("the deploy key's branch: %v", err)
		}
		if out, err := s.sshGit(ro, rwKey, "push", "-q", s.sshURL("alice", "other"), "HEAD:main"); err == nil ||
			!strings.Contains(out, "forge: ") {
			t.Fatalf("a deploy key pushes to another repository: %v\n%s", err, out)
		}

		// A protected branch: the same refusal as over HTTP.
		if _, _, err := alice.CreateBranchProtection("alice", "proj", gitea.CreateBranchProtectionOption{RuleName: "main"}); err != nil {
			t.Fatal(err)
		}
		commitFile(t, work, "d.txt", "d\n", "to a protected branch")
		out, err := s.sshGit(work, aliceKey, "push", "origin", "HEAD:main")
		if err == nil || !strings.Contains(out, "remote: Not allowed to push to protected branch main") ||
			!strings.Contains(out, "pre-receive hook declined") {
			t.Fatalf("push to a protected branch over SSH: %v\n%s", err, out)
		}

		// No shell, no other command.
		host, port, _ := net.SplitHostPort(s.App.SSHAddr())
		sh := exec.Command("ssh", "-i", aliceKey, "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null",
			"-o", "IdentitiesOnly=yes", "-o", "BatchMode=yes", "-o", "LogLevel=ERROR", "-p", port, "git@"+host, "ls /")
		if out, err := sh.CombinedOutput(); err == nil || !strings.Contains(string(out), "forge: only git-upload-pack and git-receive-pack") {
			t.Fatalf("a command other than git's: %v\n%s", err, out)
		}
		sh = exec.Command("ssh", "-T", "-i", aliceKey, "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null",
			"-o", "IdentitiesOnly=yes", "-o", "BatchMode=yes", "-o", "LogLevel=ERROR", "-p", port, "git@"+host)
		sh.Stdin = strings.NewReader("")
		if out, err := sh.CombinedOutput(); err == nil || !strings.Contains(string(out), "does not provide shell access") {
			t.Fatalf("a shell: %v\n%s", err, out)
		}
	})
}

// TestSSHSessionBounds: one key runs at most 10 git sessions at once (the
// 11th is told why), a connection holds at most 10 session channels, env other than GIT_PROTOCOL and terminals are
// refused, and a session's git ends with its client.
func TestSSHSessionBounds(t *testing.T) {
	t.Parallel()
	s := startServer(t, "sqlite3", withSSH)
	tok := s.seedUser("alice", "alice-password", false)
	s.createRepo(t, tok, "proj", true, true)
	line, signer := newAuthorizedKey(t)
	if _, _, err := s.sdk(gitea.SetToken(tok)).CreatePublicKey(gitea.CreateKeyOption{Title: "k", Key: line}); err != nil {
		t.Fatal(err)
	}
	dial := func() *ssh.Client {
		t.Helper()
		c, err := ssh.Dial("tcp", s.App.SSHAddr(), &ssh.ClientConfig{User: "git", Auth: []ssh.AuthMethod{ssh.PublicKeys(signer)},
			HostKeyCallback: ssh.InsecureIgnoreHostKey(), Timeout: 10 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
	client := dial()

	probe, err := client.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	if err := probe.Setenv("GIT_PROTOCOL", "version=2"); err != nil {
		t.Errorf("GIT_PROTOCOL refused: %v", err)
	}
	if err := probe.Setenv("LD_PRELOAD", "/tmp/x.so"); err == nil {
		t.Error("an env variable other than GIT_PROTOCOL was accepted")
	}
	if err := probe.RequestPty("xterm", 24, 80, ssh.TerminalModes{}); err == nil {
		t.Error("a terminal was granted")
	}
	probe.Close()

	// Ten fetches wait for their client after the advertisement.
	var held []*ssh.Session
	for i := range 10 {
		sess, err := client.NewSession()
		if err != nil {
			t.Fatal(err)
		}
		held = append(held, sess)
		out, err := sess.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := sess.StdinPipe(); err != nil { // kept open: git waits
			t.Fatal(err)
		}
		if err := sess.Start("git-upload-pack 'alice/proj.git'"); err != nil {
			t.Fatal(err)
		}
		buf := make([]byte, 4)
		if _, err := io.ReadFull(out, buf); err != nil {
			t.Fatalf("session %d: no advertisement: %v", i, err)
		}
	}
	// An 11th session channel on the connection is refused; on another
	// connection of the key, its git is.
	if _, err := client.NewSession(); err == nil || !strings.Contains(err.Error(), "too many sessions on this connection") {
		t.Fatalf("an 11th session channel: %v", err)
	}
	other := dial()
	over, err := other.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	out, err := over.CombinedOutput("git-upload-pack 'alice/proj.git'")
	if err == nil || !strings.Contains(string(out), "forge: too many concurrent sessions for this key") {
		t.Fatalf("the 11th session: %v\n%s", err, out)
	}
	// One ends: the next session runs.
	held[0].Close()
	waitFor(t, 10*time.Second, "a session slot", func() bool {
		sess, err := other.NewSession()
		if err != nil {
			return false
		}
		defer sess.Close()
		sess.Stdin = strings.NewReader("0000")
		out, err := sess.CombinedOutput("git-upload-pack 'alice/proj.git'")
		return err == nil && strings.Contains(string(out), "refs/heads/main")
	})
	for _, h := range held[1:] {
		h.Close()
	}
}
