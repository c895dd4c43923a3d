package git

import (
	"errors"
	"fmt"
	"strings"

	"forge/services/errs"
)

// Sentinel errors, domain errors of package errs. Returned errors wrap them
// with detail; test with errors.Is. Their messages are generic: callers
// that show one to a person choose Gitea's words for the object involved.
var (
	// ErrNotFound: the repository, ref, commit, path or object does not exist.
	ErrNotFound = errs.New(errs.NotFound, "not found")
	// ErrAlreadyExists: the repository, branch, tag or file already exists.
	ErrAlreadyExists = errs.New(errs.AlreadyExists, "already exists")
	// ErrConflict: the state changed underneath the caller (a ref moved, a
	// blob sha does not match) or a ref name collides with an existing one.
	ErrConflict = errs.New(errs.Conflict, "conflict")
	// ErrInvalid: the input is malformed (bad name, path, service, option).
	ErrInvalid = errs.New(errs.Invalid, "invalid argument")
	// ErrBusy: the cap on concurrent git processes (LimitProcesses) is
	// reached; the operation was not started and may be retried later.
	ErrBusy = errs.New(errs.Unavailable, "too many git processes are running; try again later")
)

// Error describes a git process that failed. Stderr has credentials removed.
type Error struct {
	Command string // git subcommand, e.g. "update-ref"
	Stderr  string // tail of git's diagnostics, redacted
	Err     error  // the process error (exit status, context cancellation)
}

func (e *Error) Error() string {
	msg := strings.TrimSpace(e.Stderr)
	if msg == "" {
		return fmt.Sprintf("git %s: %v", e.Command, e.Err)
	}
	return fmt.Sprintf("git %s: %v: %s", e.Command, e.Err, msg)
}

func (e *Error) Unwrap() error { return e.Err }

// stderrContains reports whether err is a git failure whose diagnostics
// contain any of the given substrings. Messages are stable because git runs
// with LC_ALL=C.
func stderrContains(err error, subs ...string) bool {
	var ge *Error
	if !errors.As(err, &ge) {
		return false
	}
	for _, s := range subs {
		if strings.Contains(ge.Stderr, s) {
			return true
		}
	}
	return false
}

func notFoundf(format string, args ...any) error {
	return fmt.Errorf(format+": %w", append(args, ErrNotFound)...)
}

func invalidf(format string, args ...any) error {
	return fmt.Errorf(format+": %w", append(args, ErrInvalid)...)
}

func conflictf(format string, args ...any) error {
	return fmt.Errorf(format+": %w", append(args, ErrConflict)...)
}

func existsf(format string, args ...any) error {
	return fmt.Errorf(format+": %w", append(args, ErrAlreadyExists)...)
}

// asKind implements As for git's typed errors: an *errs.Error target gets
// sentinel with err's text, so the error carries its domain kind to the
// translator like the wrapped sentinels do (errs.Detail), while errors.Is
// still matches the sentinel.
func asKind(target any, sentinel *errs.Error, err error) bool {
	t, ok := target.(**errs.Error)
	if !ok {
		return false
	}
	*t = sentinel.WithMessage(err.Error())
	return true
}
