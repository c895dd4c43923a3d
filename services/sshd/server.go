// Package sshd is forge's built-in SSH server for git: clients sign in
// with a user's key or a deploy key (services/keys), and a session runs
// git-upload-pack or git-receive-pack through services/githost, the same
// authorization and push processing as git over HTTP. Nothing else is
// served: no shell, no terminal, no forwarding.
package sshd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/crypto/ssh"

	"forge/services/accesslog"
	"forge/services/auth"
	"forge/services/errs"
	"forge/services/git"
	"forge/services/githost"
	"forge/services/store"
)

// Store is what signing in with a key reads.
type Store interface {
	// PublicKeyByFingerprint returns store.ErrNotFound for an unknown key.
	PublicKeyByFingerprint(ctx context.Context, fingerprint string) (*store.PublicKey, error)
	// UserByID returns store.ErrNotFound for an unknown id.
	UserByID(ctx context.Context, id int64) (*store.User, error)
	// AnyPublicKeyByID returns store.ErrNotFound for an unknown id.
	AnyPublicKeyByID(ctx context.Context, id int64) (*store.PublicKey, error)
	DeployKeyRepos(ctx context.Context, keyID int64) (map[int64]store.AccessMode, error)
}

// Git opens git sessions for a signed-in caller (githost.Service).
type Git interface {
	OpenAs(ctx context.Context, caller *auth.Principal, owner, name string, service git.Service) (*githost.Session, error)
}

// Options configure the server; zero limits take the defaults.
type Options struct {
	// HostKeyDir holds the host keys (generated there once).
	HostKeyDir string
	Store      Store
	Git        Git
	// HandshakeTimeout bounds the key exchange and sign-in (30 s).
	HandshakeTimeout time.Duration
	// IdleTimeout closes a connection silent that long (10 min).
	IdleTimeout time.Duration
	// MaxSessionsPerKey bounds the git sessions one key runs at once (10).
	MaxSessionsPerKey int
	// MaxHandshakes bounds the connections not yet signed in (64).
	MaxHandshakes int
	// Access records each git command (the access log and metrics); nil:
	// none.
	Access *accesslog.Recorder
}

// Server serves git over SSH.
type Server struct {
	opts   Options
	config *ssh.ServerConfig

	handshakes chan struct{}
	mu         sync.Mutex
	sessions   map[int64]int // public key id → running git sessions
	wg         sync.WaitGroup
}

// The permission extension that carries the signed-in key's id.
const keyIDExtension = "forge-key-id"

// New builds the server, loading or generating its host keys.
func New(o Options) (*Server, error) {
	if o.HandshakeTimeout <= 0 {
		o.HandshakeTimeout = 30 * time.Second
	}
	if o.IdleTimeout <= 0 {
		o.IdleTimeout = 10 * time.Minute
	}
	if o.MaxSessionsPerKey <= 0 {
		o.MaxSessionsPerKey = 10
	}
	if o.MaxHandshakes <= 0 {
		o.MaxHandshakes = 64
	}
	s := &Server{opts: o, handshakes: make(chan struct{}, o.MaxHandshakes), sessions: map[int64]int{}}
	s.config = &ssh.ServerConfig{
		PublicKeyCallback: s.publicKey,
		MaxAuthTries:      6,
		ServerVersion:     "SSH-2.0-forge",
	}
	keys, err := hostKeys(o.HostKeyDir)
	if err != nil {
		return nil, err
	}
	for _, k := range keys {
		s.config.AddHostKey(k)
	}
	return s, nil
}

// publicKey signs a client in with a key forge knows (a user's or a
// deploy key); which repositories it reaches is decided per session.
func (s *Server) publicKey(conn ssh.ConnMetadata, key ssh.PublicKey) (*ssh.Permissions, error) {
	ctx, cancel := context.WithTimeout(context.Background(), s.opts.HandshakeTimeout)
	defer cancel()
	k, err := s.opts.Store.PublicKeyByFingerprint(ctx, ssh.FingerprintSHA256(key))
	if err != nil {
		if !errors.Is(err, store.ErrNotFound) {
			slog.Error("ssh: look up a key", "err", err)
		}
		return nil, errors.New("unknown public key")
	}
	return &ssh.Permissions{Extensions: map[string]string{keyIDExtension: strconv.FormatInt(k.ID, 10)}}, nil
}

// Serve accepts connections on ln until ctx is done, then closes them
// and waits for their sessions.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() { <-ctx.Done(); ln.Close() }()
	defer s.wg.Wait()
	for {
		c, err := ln.Accept()
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				time.Sleep(10 * time.Millisecond)
				continue
			}
			return err
		}
		select {
		case s.handshakes <- struct{}{}:
		default:
			c.Close() // too many clients signing in at once
			continue
		}
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			s.serveConn(ctx, c)
		}()
	}
}

// idleConn closes the connection when it has been silent for timeout:
// each read or write moves the deadline.
type idleConn struct {
	net.Conn
	timeout atomic.Int64 // a time.Duration; the read loop runs beside serveConn
}

func (c *idleConn) Read(b []byte) (int, error) {
	c.extend()
	return c.Conn.Read(b)
}

func (c *idleConn) Write(b []byte) (int, error) {
	c.extend()
	return c.Conn.Write(b)
}

// extend moves the deadline; before the sign-in (timeout 0) the
// handshake's fixed deadline stands, so a trickling client cannot stretch
// it.
func (c *idleConn) extend() {
	if d := time.Duration(c.timeout.Load()); d > 0 {
		c.Conn.SetDeadline(time.Now().Add(d))
	}
}

func (s *Server) serveConn(ctx context.Context, c net.Conn) {
	defer c.Close()
	released := false
	release := func() {
		if !released {
			released = true
			<-s.handshakes
		}
	}
	defer release()
	// The handshake's deadline first; the idle deadline once signed in.
	c.SetDeadline(time.Now().Add(s.opts.HandshakeTimeout))
	ic := &idleConn{Conn: c}
	conn, chans, reqs, err := ssh.NewServerConn(ic, s.config)
	release()
	if err != nil {
		return // a refused key or a broken client: nothing to tell
	}
	defer conn.Close()
	ic.timeout.Store(int64(s.opts.IdleTimeout))
	c.SetDeadline(time.Now().Add(s.opts.IdleTimeout))
	keyID, _ := strconv.ParseInt(conn.Permissions.Extensions[keyIDExtension], 10, 64)

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// The sessions' git processes end with the connection, and the
	// connection with the server.
	go func() { conn.Wait(); cancel() }()
	go func() { <-ctx.Done(); conn.Close() }()
	go ssh.DiscardRequests(reqs)
	var sessions sync.WaitGroup
	defer sessions.Wait()
	var open atomic.Int32 // session channels open on this connection
	for nc := range chans {
		if nc.ChannelType() != "session" {
			nc.Reject(ssh.Prohibited, "forge serves git over SSH sessions only")
			continue
		}
		if int(open.Load()) >= s.opts.MaxSessionsPerKey {
			nc.Reject(ssh.ResourceShortage, "too many sessions on this connection")
			continue
		}
		ch, creqs, err := nc.Accept()
		if err != nil {
			continue
		}
		open.Add(1)
		sessions.Add(1)
		go func() {
			defer sessions.Done()
			defer open.Add(-1)
			s.session(ctx, ch, creqs, keyID, c.RemoteAddr().String())
		}()
	}
}

// maxGitProtocol bounds the GIT_PROTOCOL value a client may send.
const maxGitProtocol = 256

// session serves one session channel: GIT_PROTOCOL, then one exec of a
// git command. A shell, a terminal or any other request is refused.
func (s *Server) session(ctx context.Context, ch ssh.Channel, reqs <-chan *ssh.Request, keyID int64, remote string) {
	defer ch.Close()
	gitProtocol := ""
	for req := range reqs {
		switch req.Type {
		case "env":
			var kv struct{ Name, Value string }
			if ssh.Unmarshal(req.Payload, &kv) == nil && kv.Name == "GIT_PROTOCOL" && len(kv.Value) <= maxGitProtocol {
				gitProtocol = kv.Value
				req.Reply(true, nil)
				continue
			}
			req.Reply(false, nil)
		case "exec":
			var e struct{ Command string }
			if err := ssh.Unmarshal(req.Payload, &e); err != nil {
				req.Reply(false, nil)
				return
			}
			req.Reply(true, nil)
			go ssh.DiscardRequests(reqs)
			status := s.logged(ctx, ch, e.Command, gitProtocol, keyID, remote)
			ch.SendRequest("exit-status", false, ssh.Marshal(struct{ Status uint32 }{status}))
			return
		case "shell":
			req.Reply(true, nil)
			go ssh.DiscardRequests(reqs)
			fmt.Fprint(ch.Stderr(), "Hi there! You've successfully authenticated, but forge does not provide shell access.\n"+
				"If this is unexpected, please log in with password and setup forge under another user.\n")
			ch.SendRequest("exit-status", false, ssh.Marshal(struct{ Status uint32 }{1}))
			return
		default: // pty-req, subsystem, x11-req, ...
			req.Reply(false, nil)
		}
	}
}

// fail tells the client why on its standard error, as git prints it.
func fail(ch ssh.Channel, msg string) uint32 {
	fmt.Fprintf(ch.Stderr(), "forge: %s\n", msg)
	return 1
}

// logged is exec with its access-log line: method SSH, the git service
// as route, /owner/repo as path, the exit status.
func (s *Server) logged(ctx context.Context, ch ssh.Channel, command, gitProtocol string, keyID int64, remote string) uint32 {
	if s.opts.Access == nil {
		return s.exec(ctx, ch, command, gitProtocol, keyID)
	}
	e := &accesslog.Entry{Start: time.Now(), Transport: "ssh", Method: "SSH", Remote: remote, RequestID: accesslog.RequestID("")}
	if service, owner, name, err := parseCommand(command); err == nil {
		e.Path = "/" + owner + "/" + name
		ctx = accesslog.NewContext(ctx, e)
		accesslog.SetRoute(ctx, string(service))
	} else {
		e.Path = "(not a git command)"
		ctx = accesslog.NewContext(ctx, e)
	}
	status := s.exec(ctx, ch, command, gitProtocol, keyID)
	e.Finish(strconv.FormatUint(uint64(status), 10), e.Bytes.Load())
	s.opts.Access.Done(e)
	return status
}

// exec runs one git command for the key's owner (or the deploy key) and
// returns its exit status.
func (s *Server) exec(ctx context.Context, ch ssh.Channel, command, gitProtocol string, keyID int64) uint32 {
	service, owner, name, err := parseCommand(command)
	if err != nil {
		return fail(ch, err.Error())
	}
	if !s.acquire(keyID) {
		return fail(ch, "too many concurrent sessions for this key")
	}
	defer s.release(keyID)
	caller, err := s.principal(ctx, keyID)
	if err != nil {
		return fail(ch, message(err))
	}
	sess, err := s.opts.Git.OpenAs(ctx, caller, owner, name, service)
	if err != nil {
		return fail(ch, message(err))
	}
	out := io.Writer(ch)
	if e := accesslog.FromContext(ctx); e != nil {
		out = &countingWriter{w: ch, n: &e.Bytes}
	}
	if err := sess.RunDuplex(ctx, ch, out, gitProtocol); err != nil {
		if ctx.Err() == nil {
			slog.Warn("ssh: git session", "service", string(service), "repo", owner+"/"+name, "key", keyID, "err", err)
		}
		return 1
	}
	return 0
}

// message is what a client is told of err: a domain error's message, the
// rest only as an internal error (logged).
func message(err error) string {
	if e, ok := errs.As(err); ok && e.Kind != errs.Internal {
		if e.Message == "" {
			return e.Kind.DefaultMessage()
		}
		return e.Message
	}
	slog.Error("ssh: open a git session", "err", err)
	return "internal error"
}

// principal is who the key signs in as: its user, or for a deploy key a
// principal that reaches the key's repositories alone. Read per session,
// so a deleted key or a disabled account stops at the next command.
func (s *Server) principal(ctx context.Context, keyID int64) (*auth.Principal, error) {
	// The key as it is now (it may have been deleted since the sign-in).
	k, err := s.keyByID(ctx, keyID)
	if err != nil {
		return nil, err
	}
	if k.Type == store.KeyTypeDeploy {
		repos, err := s.opts.Store.DeployKeyRepos(ctx, k.ID)
		if err != nil {
			return nil, errs.Wrap(err, "deploy key repositories")
		}
		return &auth.Principal{User: &store.User{Name: "deploy key", IsActive: true}, Method: auth.MethodSSHKey,
			Deploy: &auth.DeployKey{KeyID: k.ID, Repos: repos}}, nil
	}
	u, err := s.opts.Store.UserByID(ctx, k.OwnerID)
	if err != nil {
		return nil, errs.Replace(err, store.ErrNotFound, errKeyGone)
	}
	return &auth.Principal{User: u, Method: auth.MethodSSHKey}, nil
}

var errKeyGone = errs.New(errs.Unauthenticated, "the key is no longer known")

// keyByID re-reads the signed-in key.
func (s *Server) keyByID(ctx context.Context, id int64) (*store.PublicKey, error) {
	k, err := s.opts.Store.AnyPublicKeyByID(ctx, id)
	if err != nil {
		return nil, errs.Replace(err, store.ErrNotFound, errKeyGone)
	}
	return k, nil
}

func (s *Server) acquire(keyID int64) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.sessions[keyID] >= s.opts.MaxSessionsPerKey {
		return false
	}
	s.sessions[keyID]++
	return true
}

func (s *Server) release(keyID int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.sessions[keyID]--; s.sessions[keyID] <= 0 {
		delete(s.sessions, keyID)
	}
}

// parseCommand reads git's exec request: `git-upload-pack 'owner/repo.git'`
// (or `git upload-pack`, a leading /, no .git). git-upload-archive is
// refused, as everything else.
func parseCommand(command string) (git.Service, string, string, error) {
	verb, arg, ok := strings.Cut(strings.TrimSpace(command), " ")
	if verb == "git" {
		var sub string
		sub, arg, ok = strings.Cut(strings.TrimSpace(arg), " ")
		verb = "git-" + sub
	}
	var service git.Service
	switch verb {
	case "git-upload-pack":
		service = git.ServiceUploadPack
	case "git-receive-pack":
		service = git.ServiceReceivePack
	case "git-upload-archive":
		return "", "", "", errors.New("git-upload-archive is not supported")
	default:
		return "", "", "", errors.New("only git-upload-pack and git-receive-pack are served over SSH")
	}
	arg = strings.TrimSpace(arg)
	if !ok || len(arg) > 512 {
		return "", "", "", errors.New("invalid repository path")
	}
	if n := len(arg); n >= 2 && (arg[0] == '\'' && arg[n-1] == '\'' || arg[0] == '"' && arg[n-1] == '"') {
		arg = arg[1 : n-1]
	}
	arg = strings.TrimPrefix(arg, "/")
	owner, name, ok := strings.Cut(arg, "/")
	name = strings.TrimSuffix(name, ".git")
	if !ok || owner == "" || name == "" || strings.ContainsAny(name, "/'\" \\") || strings.ContainsAny(owner, "'\" \\") {
		return "", "", "", errors.New("invalid repository path")
	}
	return service, owner, name, nil
}

// countingWriter counts what git sends the client (the access log's bytes).
type countingWriter struct {
	w io.Writer
	n *atomic.Int64
}

func (c *countingWriter) Write(b []byte) (int, error) {
	n, err := c.w.Write(b)
	c.n.Add(int64(n))
	return n, err
}
