package git

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"time"
)

// gitBinary is the git executable, looked up in PATH.
const gitBinary = "git"

// waitDelay bounds how long a cancelled git process (and any child still
// holding its pipes) may linger before its pipes are closed forcibly.
const waitDelay = 5 * time.Second

// stderrLimit is how much of git's diagnostics an error keeps (the tail).
const stderrLimit = 8 << 10

// passThroughEnv are the only variables of forge's own environment git sees
// besides PATH: temp dir and proxy settings that mirrors may need.
var passThroughEnv = []string{
	"TMPDIR",
	"http_proxy", "https_proxy", "no_proxy", "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "ALL_PROXY",
	"SSL_CERT_FILE", "SSL_CERT_DIR",
}

// invocation is one git process.
type invocation struct {
	gitDir  string   // repository; run as `git --git-dir=<gitDir>` from inside it; "" = none
	config  []string // key=value pairs passed as -c
	args    []string // subcommand and its arguments
	env     []string // extra environment entries
	stdin   io.Reader
	stdout  io.Writer
	secrets []string // URLs whose user-info is scrubbed from diagnostics
}

// env is the fixed environment of every git process.
func (s *Store) env(extra []string) []string {
	env := []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + s.homeDir, // forge-owned and empty: no ~/.config/git/attributes etc.
		"LC_ALL=C",
		"LANGUAGE=C",
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_CONFIG_GLOBAL=/dev/null",
		"GIT_ATTR_NOSYSTEM=1",
		"GIT_TERMINAL_PROMPT=0",
		"GIT_LITERAL_PATHSPECS=1",
		"GIT_NO_REPLACE_OBJECTS=1",
		journalEnv + "=" + s.journalDir,
	}
	for _, k := range passThroughEnv {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	return append(env, extra...)
}

// command builds the process for inv. The caller starts and waits it; the
// returned buffer collects the tail of stderr.
func (s *Store) command(ctx context.Context, inv invocation) (*limitedCmd, *tailBuffer, error) {
	if err := s.setup(); err != nil {
		return nil, nil, err
	}
	args := make([]string, 0, 2*len(inv.config)+len(inv.args)+3)
	dir := s.root
	// forge's hooks only, for every command: the reference-transaction hook
	// journals every ref move, whatever runs it (journal.go).
	args = append(args, "-c", "core.hooksPath="+s.hooksDir)
	if inv.gitDir != "" {
		abs, err := filepath.Abs(inv.gitDir)
		if err != nil {
			return nil, nil, err
		}
		args = append(args, "--git-dir="+abs)
		dir = abs
	}
	for _, kv := range inv.config {
		args = append(args, "-c", kv)
	}
	args = append(args, inv.args...)
	gc := s.newCmd(ctx, gitBinary, args...)
	cmd := gc.Cmd
	cmd.Dir = dir
	cmd.Env = s.env(inv.env)
	cmd.Stdin = inv.stdin
	cmd.Stdout = inv.stdout
	stderr := &tailBuffer{limit: stderrLimit}
	cmd.Stderr = stderr
	cmd.WaitDelay = waitDelay
	killProcessGroup(cmd)
	s.watchMoves(ctx, gc)
	return gc, stderr, nil
}

// run runs inv to completion.
func (s *Store) run(ctx context.Context, inv invocation) error {
	cmd, stderr, err := s.command(ctx, inv)
	if err != nil {
		return err
	}
	return s.wrapErr(ctx, inv, stderr, cmd.Run())
}

// output runs `git --git-dir=gitDir args...` and returns its stdout.
func (s *Store) output(ctx context.Context, gitDir string, args ...string) ([]byte, error) {
	var out bytes.Buffer
	err := s.run(ctx, invocation{gitDir: gitDir, args: args, stdout: &out})
	return out.Bytes(), err
}

// outputIn is output with stdin.
func (s *Store) outputIn(ctx context.Context, gitDir string, stdin io.Reader, env []string, args ...string) ([]byte, error) {
	var out bytes.Buffer
	err := s.run(ctx, invocation{gitDir: gitDir, args: args, stdout: &out, stdin: stdin, env: env})
	return out.Bytes(), err
}

// wrapErr turns a process error into *Error with redacted diagnostics.
func (s *Store) wrapErr(ctx context.Context, inv invocation, stderr *tailBuffer, err error) error {
	if err == nil {
		return nil
	}
	if ctxErr := ctx.Err(); ctxErr != nil {
		err = errors.Join(ctxErr, err)
	}
	name := ""
	if len(inv.args) > 0 {
		name = inv.args[0]
	}
	text := ""
	if stderr != nil {
		text = redactText(stderr.String(), inv.secrets...)
	}
	return &Error{Command: name, Stderr: text, Err: err}
}

// absPath makes a repository path absolute for commands that take it as an
// argument (they run with the store root as working directory).
func absPath(p string) string {
	if abs, err := filepath.Abs(p); err == nil {
		return abs
	}
	return p
}

// tailBuffer keeps the last limit bytes written to it.
type tailBuffer struct {
	limit int
	buf   []byte
}

func (b *tailBuffer) Write(p []byte) (int, error) {
	n := len(p)
	if len(p) >= b.limit {
		b.buf = append(b.buf[:0], p[len(p)-b.limit:]...)
		return n, nil
	}
	if over := len(b.buf) + len(p) - b.limit; over > 0 {
		b.buf = append(b.buf[:0], b.buf[over:]...)
	}
	b.buf = append(b.buf, p...)
	return n, nil
}

func (b *tailBuffer) String() string { return string(b.buf) }
