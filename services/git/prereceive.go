package git

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// Pre-receive checks. A push whose repository has something to check
// (branch protection) passes a PreReceiveFunc to ReceivePackChecked. Per
// push, forge makes two named pipes in a private directory and names them
// to receive-pack's environment; forge's pre-receive hook (a shell
// script, no extra binary) writes the quarantine environment and its
// "old new ref" lines into the first and prints the verdict it reads from
// the second (lines for the client, which git shows as "remote: ...", and
// the exit status). The check itself runs here, in forge, reading the
// pushed objects in quarantine through the environment the hook passed
// (Quarantine). A push without a check sets no variable and the hook
// spawns nothing more than before.

// Environment names the hook reads.
const (
	preInEnv  = "FORGE_PRE_IN"
	preOutEnv = "FORGE_PRE_OUT"
)

// quarantineEnv is the environment git gives a pre-receive hook to see
// the objects of the push before they are moved into the repository.
var quarantineEnv = []string{"GIT_OBJECT_DIRECTORY", "GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_QUARANTINE_PATH"}

// Quarantine is a push under check: its ref updates and the environment
// that shows its objects.
type Quarantine struct {
	Path    string
	Updates []RefUpdate
	env     []string
}

// PreReceiveFunc decides a push: lines to print to the client and
// whether to accept it. It runs while receive-pack waits.
type PreReceiveFunc func(ctx context.Context, q *Quarantine) (lines []string, ok bool)

// preReceiveProtocol is the hook side (appended to the pre-receive hook).
const preReceiveProtocol = `
if [ -n "$` + preInEnv + `" ]; then
	exec 3>&-
	while IFS= read -r line; do
		case "$line" in
		"exit 0") ;;
		"exit "*) status=1 ;;
		*) printf '%s\n' "$line" >&2 ;;
		esac
	done <"$` + preOutEnv + `"
fi
`

// preReceiveOpen is run by the hook before it reads its input.
const preReceiveOpen = `if [ -n "$` + preInEnv + `" ]; then
	exec 3>"$` + preInEnv + `"
	printf 'env GIT_OBJECT_DIRECTORY=%s\nenv GIT_ALTERNATE_OBJECT_DIRECTORIES=%s\nenv GIT_QUARANTINE_PATH=%s\n' \
		"$GIT_OBJECT_DIRECTORY" "$GIT_ALTERNATE_OBJECT_DIRECTORIES" "$GIT_QUARANTINE_PATH" >&3
fi
`

// preReceiveLine is run by the hook for each ref line.
const preReceiveLine = `	[ -z "$` + preInEnv + `" ] || printf 'ref %s %s %s\n' "$old" "$new" "$ref" >&3
`

// maxVerdictLines bounds what a check prints.
const maxVerdictLines = 50

// serveCheck runs check against what the hook sends through the pipes in
// dir, until the hook is answered or nobody is left to answer.
func (s *Store) serveCheck(ctx context.Context, path, in, out string, check PreReceiveFunc) {
	f, err := os.OpenFile(in, os.O_RDONLY, 0)
	if err != nil {
		return
	}
	q := &Quarantine{Path: path}
	sc := bufio.NewScanner(io.LimitReader(f, 64<<20))
	sc.Buffer(make([]byte, 64<<10), 64<<10)
	started := false
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "env "):
			started = true
			kv := strings.TrimPrefix(line, "env ")
			if i := strings.IndexByte(kv, '='); i > 0 && kv[i+1:] != "" {
				q.env = append(q.env, kv)
			}
		case strings.HasPrefix(line, "ref "):
			parts := strings.SplitN(strings.TrimPrefix(line, "ref "), " ", 3)
			if len(parts) == 3 {
				q.Updates = append(q.Updates, RefUpdate{OldSHA: parts[0], NewSHA: parts[1], Name: parts[2]})
			}
		}
	}
	f.Close()
	if !started {
		return // woken by ReceivePackChecked: the hook never ran
	}
	lines, ok := check(ctx, q)
	w, err := os.OpenFile(out, os.O_WRONLY, 0)
	if err != nil {
		return
	}
	defer w.Close()
	var b bytes.Buffer
	for i, l := range lines {
		if i == maxVerdictLines {
			break
		}
		b.WriteString(strings.NewReplacer("\n", " ", "\r", " ").Replace(l) + "\n")
	}
	if ok {
		b.WriteString("exit 0\n")
	} else {
		b.WriteString("exit 1\n")
	}
	w.Write(b.Bytes())
}

// ReceivePackChecked is ReceivePack with check deciding the push before
// any ref moves (nil: no check, exactly ReceivePack).
func (s *Store) ReceivePackChecked(ctx context.Context, path string, body io.Reader, w io.Writer, gitProtocol string, check PreReceiveFunc) ([]RefUpdate, error) {
	return s.receivePackChecked(ctx, path, body, w, gitProtocol, check, false)
}

// ReceivePackDuplex is ReceivePackChecked over a full-duplex connection
// (SSH): git advertises the refs itself on out, then reads the commands
// and the pack from in, as `git receive-pack` does over SSH.
func (s *Store) ReceivePackDuplex(ctx context.Context, path string, in io.Reader, out io.Writer, gitProtocol string, check PreReceiveFunc) ([]RefUpdate, error) {
	return s.receivePackChecked(ctx, path, in, out, gitProtocol, check, true)
}

func (s *Store) receivePackChecked(ctx context.Context, path string, body io.Reader, w io.Writer, gitProtocol string, check PreReceiveFunc, duplex bool) ([]RefUpdate, error) {
	if check == nil {
		return s.receivePack(ctx, path, body, w, gitProtocol, nil, duplex)
	}
	if err := s.setup(); err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp(s.tmpDir, "pre-*")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	in, out := filepath.Join(dir, "in"), filepath.Join(dir, "out")
	for _, p := range []string{in, out} {
		if err := syscall.Mkfifo(p, 0o600); err != nil {
			return nil, fmt.Errorf("pre-receive pipe: %w", err)
		}
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		s.serveCheck(ctx, path, in, out, check)
	}()
	updates, err := s.receivePack(ctx, path, body, w, gitProtocol, []string{preInEnv + "=" + in, preOutEnv + "=" + out}, duplex)
	// After a normal push the checker is done. If the hook never ran
	// (nothing to update, or git failed first) or left early, the checker
	// waits on a pipe with nobody at the other end: open the other end
	// until it is through (a non-blocking open of the writing end succeeds
	// only while the reader waits, so it is retried).
	for {
		select {
		case <-done:
			return updates, err
		default:
		}
		if f, oerr := os.OpenFile(in, os.O_WRONLY|syscall.O_NONBLOCK, 0); oerr == nil {
			f.Close()
		}
		if f, oerr := os.OpenFile(out, os.O_RDONLY|syscall.O_NONBLOCK, 0); oerr == nil {
			f.Close()
		}
		select {
		case <-done:
			return updates, err
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// runQuarantined runs a git command that reads the pushed objects; it
// takes no process slot (receive-pack, waiting for it, holds one).
func (s *Store) runQuarantined(ctx context.Context, q *Quarantine, stdout io.Writer, args ...string) error {
	inv := invocation{gitDir: q.Path, args: args, env: q.env, stdout: stdout}
	cmd, stderr, err := s.command(ctx, inv)
	if err != nil {
		return err
	}
	cmd.slots = nil
	return s.wrapErr(ctx, inv, stderr, cmd.Run())
}

// QuarantineIsAncestor reports whether commit a is an ancestor of b (or b itself).
func (s *Store) QuarantineIsAncestor(ctx context.Context, q *Quarantine, a, b string) (bool, error) {
	err := s.runQuarantined(ctx, q, nil, "merge-base", "--is-ancestor", a, b)
	var ee *exec.ExitError
	if errors.As(err, &ee) && ee.ExitCode() == 1 {
		return false, nil
	}
	return err == nil, err
}

// ChangedPaths lists the paths that differ between commits a and b
// (renames as a deletion and an addition), at most max.
func (s *Store) ChangedPaths(ctx context.Context, q *Quarantine, a, b string, max int) ([]string, error) {
	var out bytes.Buffer
	if err := s.runQuarantined(ctx, q, &out, "diff", "--no-renames", "--name-only", "-z", a, b); err != nil {
		return nil, err
	}
	var paths []string
	for _, p := range strings.Split(out.String(), "\x00") {
		if p != "" && len(paths) < max {
			paths = append(paths, p)
		}
	}
	return paths, nil
}

// FirstUnsigned returns the first commit reachable from b and not from a
// (nor from any branch when a is ZeroSHA) that carries no signature, ""
// when all do. One process reads every commit's headers.
func (s *Store) FirstUnsigned(ctx context.Context, q *Quarantine, a, b string) (string, error) {
	args := []string{"rev-list", "--format=raw", b}
	if a == ZeroSHA || a == "" {
		args = append(args, "--not", "--branches")
	} else {
		args = append(args, "^"+a)
	}
	var out bytes.Buffer
	if err := s.runQuarantined(ctx, q, &out, args...); err != nil {
		return "", err
	}
	// Each commit: "commit <sha>", its headers, a blank line, the
	// indented message.
	cur, signed, inHeaders := "", false, false
	for _, line := range strings.Split(out.String(), "\n") {
		switch {
		case strings.HasPrefix(line, "commit "):
			if cur != "" && !signed {
				return cur, nil
			}
			cur, signed, inHeaders = strings.TrimPrefix(line, "commit "), false, true
		case line == "":
			inHeaders = false
		case inHeaders && (strings.HasPrefix(line, "gpgsig ") || strings.HasPrefix(line, "gpgsig-sha256 ")):
			signed = true
		}
	}
	if cur != "" && !signed {
		return cur, nil
	}
	return "", nil
}
