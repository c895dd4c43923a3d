package sshd

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"forge/services/git"
)

func TestParseCommand(t *testing.T) {
	for _, c := range []struct {
		cmd         string
		service     git.Service
		owner, name string
		bad         bool
	}{
		{cmd: "git-upload-pack 'alice/proj.git'", service: git.ServiceUploadPack, owner: "alice", name: "proj"},
		{cmd: "git-receive-pack '/alice/proj.git'", service: git.ServiceReceivePack, owner: "alice", name: "proj"},
		{cmd: "git upload-pack alice/proj", service: git.ServiceUploadPack, owner: "alice", name: "proj"},
		{cmd: "git-upload-archive 'alice/proj.git'", bad: true},
		{cmd: "ls /", bad: true},
		{cmd: "git-upload-pack", bad: true},
		{cmd: "git-upload-pack 'alice'", bad: true},
		{cmd: "git-upload-pack 'alice/proj/x.git'", bad: true},
		{cmd: "git-upload-pack 'alice/proj.git'; rm -rf /", bad: true},
		{cmd: "git-upload-pack '/.git'", bad: true},
	} {
		service, owner, name, err := parseCommand(c.cmd)
		if c.bad {
			if err == nil {
				t.Errorf("%q accepted as %s %s/%s", c.cmd, service, owner, name)
			}
			continue
		}
		if err != nil || service != c.service || owner != c.owner || name != c.name {
			t.Errorf("%q: %s %s/%s %v", c.cmd, service, owner, name, err)
		}
	}
}

// TestHostKeysPersist: the host keys are generated once, private to the
// server's user, and the same on the next start.
func TestHostKeysPersist(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ssh")
	first, err := hostKeys(dir)
	if err != nil {
		t.Fatal(err)
	}
	again, err := hostKeys(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(first) != 2 || len(again) != 2 {
		t.Fatalf("%d and %d host keys, want 2", len(first), len(again))
	}
	for i := range first {
		if !bytes.Equal(first[i].PublicKey().Marshal(), again[i].PublicKey().Marshal()) {
			t.Errorf("host key %s changed on the second start", first[i].PublicKey().Type())
		}
	}
	for _, f := range []string{"forge.ed25519", "forge.rsa"} {
		st, err := os.Stat(filepath.Join(dir, f))
		if err != nil || st.Mode().Perm() != 0o600 {
			t.Errorf("%s: %v %v", f, st.Mode(), err)
		}
	}
}

// TestHandshakeTimeout: a client that connects and never finishes the
// handshake, even trickling bytes, is cut off at the handshake deadline.
func TestHandshakeTimeout(t *testing.T) {
	s, err := New(Options{HostKeyDir: filepath.Join(t.TempDir(), "ssh"), HandshakeTimeout: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, ln) }()
	defer func() { cancel(); <-done }()

	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	start := time.Now()
	go func() { // a trickle: one byte of a version line now and then
		for range 20 {
			if _, err := c.Write([]byte("S")); err != nil {
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
	}()
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	// A reset is a close too: the server hangs up with the trickle's bytes
	// unread, and the kernel answers a byte sent after that with RST.
	if _, err := io.ReadAll(c); err != nil && !errors.Is(err, syscall.ECONNRESET) {
		t.Fatalf("the connection was not closed by the server: %v", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("closed after %v, want about the handshake timeout", d)
	}
}
