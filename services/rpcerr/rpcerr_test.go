package rpcerr_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"log/slog"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"forge/services/errs"
	"forge/services/git"
	"forge/services/rpcerr"
	"forge/services/store"
)

func reason(st *status.Status) string {
	for _, d := range st.Details() {
		if info, ok := d.(*errdetails.ErrorInfo); ok && info.GetDomain() == rpcerr.Domain {
			return info.GetReason()
		}
	}
	return ""
}

func TestStatusOfDomainErrors(t *testing.T) {
	cases := []struct {
		err     error
		code    codes.Code
		msg     string
		http    int // 0: none declared
		wantWhy string
	}{
		{errs.New(errs.NotFound, "repository does not exist"), codes.NotFound, "repository does not exist", 0, "NOT_FOUND"},
		{errs.New(errs.Invalid, "[Name]: Required"), codes.InvalidArgument, "[Name]: Required", 0, "INVALID"},
		{errs.New(errs.Conflict, "sha mismatch"), codes.Aborted, "sha mismatch", 0, "CONFLICT"},
		{errs.New(errs.FailedPrecondition, "bad"), codes.FailedPrecondition, "bad", 0, "FAILED_PRECONDITION"},
		{errs.New(errs.Locked, "archived"), codes.FailedPrecondition, "archived", http.StatusLocked, "LOCKED"},
		{errs.New(errs.PermissionDenied, "no"), codes.PermissionDenied, "no", 0, "PERMISSION_DENIED"},
		{errs.New(errs.Unauthenticated, "who"), codes.Unauthenticated, "who", 0, "UNAUTHENTICATED"},
		{errs.New(errs.ResourceExhausted, "slow down"), codes.ResourceExhausted, "slow down", 0, "RESOURCE_EXHAUSTED"},
		{fmt.Errorf("branch x: %w", git.ErrBusy), codes.Unavailable, git.ErrBusy.Message, 0, "UNAVAILABLE"},
		{errs.New(errs.AlreadyExists, "taken").WithHTTPStatus(http.StatusConflict).WithReason("REPO_EXISTS"),
			codes.AlreadyExists, "taken", http.StatusConflict, "REPO_EXISTS"},
		{context.Canceled, codes.Canceled, context.Canceled.Error(), 0, ""},
	}
	for _, c := range cases {
		st := status.Convert(rpcerr.Status(c.err))
		if st.Code() != c.code || st.Message() != c.msg {
			t.Errorf("%v: %v %q, want %v %q", c.err, st.Code(), st.Message(), c.code, c.msg)
		}
		got, ok := rpcerr.HTTPStatus(st)
		if (c.http != 0) != ok || got != c.http {
			t.Errorf("%v: HTTP status %d %v, want %d", c.err, got, ok, c.http)
		}
		if r := reason(st); r != c.wantWhy {
			t.Errorf("%v: reason %q, want %q", c.err, r, c.wantWhy)
		}
	}
}

// TestUnknownErrorsAreLoggedNotReturned: a driver error, or a domain
// Internal with a cause, is logged with its cause and answered as a bare
// Internal.
func TestUnknownErrorsAreLoggedNotReturned(t *testing.T) {
	var logs bytes.Buffer
	prev := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&logs, nil)))
	defer slog.SetDefault(prev)

	for _, err := range []error{
		errors.New("pq: password authentication failed for user forge"),
		errs.Wrap(errors.New("pq: password authentication failed for user forge"), "list repositories"),
	} {
		logs.Reset()
		st := status.Convert(rpcerr.Status(err))
		if st.Code() != codes.Internal || st.Message() != "internal server error" || len(st.Details()) != 0 {
			t.Errorf("%v: answered %v %q %v", err, st.Code(), st.Message(), st.Details())
		}
		if !strings.Contains(logs.String(), "password authentication failed") {
			t.Errorf("%v: cause not logged: %s", err, logs.String())
		}
	}
	if rpcerr.Status(nil) != nil {
		t.Fatal("Status(nil) is not nil")
	}
}

// TestEveryStoreSentinelMaps: every error value the store declares is in
// store.Sentinels and translates to a code other than Internal or Unknown,
// with its own message.
func TestEveryStoreSentinelMaps(t *testing.T) {
	declared := storeSentinelNames(t)
	sentinels := store.Sentinels()
	if len(declared) != len(sentinels) {
		t.Fatalf("store declares %d Err* values %v, store.Sentinels lists %d: keep them in step", len(declared), declared, len(sentinels))
	}
	seen := map[error]bool{}
	for _, s := range sentinels {
		if seen[s] {
			t.Errorf("%v listed twice", s)
		}
		seen[s] = true
		st := status.Convert(rpcerr.Status(fmt.Errorf("op: %w", s)))
		if st.Code() == codes.Internal || st.Code() == codes.Unknown {
			t.Errorf("store sentinel %q translates to %v", s, st.Code())
		}
		if e, _ := errs.As(s); st.Message() != e.Message {
			t.Errorf("store sentinel %q: message %q", s, st.Message())
		}
	}
	for _, s := range []error{git.ErrNotFound, git.ErrAlreadyExists, git.ErrConflict, git.ErrInvalid, git.ErrBusy} {
		if c := status.Code(rpcerr.Status(s)); c == codes.Internal || c == codes.Unknown {
			t.Errorf("git sentinel %q translates to %v", s, c)
		}
	}
}

// storeSentinelNames are the package-level Err* variables of the store's
// non-test sources.
func storeSentinelNames(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob("../store/*.go")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	fset := token.NewFileSet()
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, decl := range file.Decls {
			gen, ok := decl.(*ast.GenDecl)
			if !ok || gen.Tok != token.VAR {
				continue
			}
			for _, spec := range gen.Specs {
				for _, n := range spec.(*ast.ValueSpec).Names {
					if strings.HasPrefix(n.Name, "Err") {
						names = append(names, n.Name)
					}
				}
			}
		}
	}
	return names
}

// TestStoreOutcomesGiteaStatus: the store's outcomes that Gitea answers
// with another status than their kind's default get it from rpcerr, for
// every caller and for derived errors; the store itself knows no HTTP.
func TestStoreOutcomesGiteaStatus(t *testing.T) {
	cases := []struct {
		err  error
		http int
	}{
		{store.ErrRepoExists, http.StatusConflict},
		{fmt.Errorf("transfer: %w", store.ErrRepoExists), http.StatusConflict},
		{store.ErrTokenNameUsed, http.StatusBadRequest},
		{store.ErrDependencyExists, http.StatusConflict},
		{store.ErrDependenciesOpen, http.StatusPreconditionFailed},
		{store.ErrLastOrgOwner, http.StatusUnprocessableEntity},
		{store.ErrOwnersTeam, http.StatusUnprocessableEntity},
		{store.ErrOrgOwnsRepos, http.StatusUnprocessableEntity},
		{store.ErrRepoNotInOrg.WithMessage("another message"), http.StatusUnprocessableEntity},
		// A call site's own status wins (a used e-mail in an admin edit).
		{store.ErrEmailUsed.WithHTTPStatus(http.StatusBadRequest), http.StatusBadRequest},
		// Kinds' defaults.
		{store.ErrUserExists, http.StatusUnprocessableEntity},
		{store.ErrNotFound, http.StatusNotFound},
		// A store outcome as the cause of another error lends it nothing.
		{errs.New(errs.Invalid, "bad").WithCause(store.ErrRepoExists), http.StatusUnprocessableEntity},
	}
	for _, c := range cases {
		translated := rpcerr.Status(c.err)
		if got := rpcerr.HTTPStatusOf(translated); got != c.http {
			t.Errorf("%v: HTTP %d, want %d", c.err, got, c.http)
		}
		if got := rpcerr.HTTPStatusOf(c.err); got != c.http {
			t.Errorf("%v untranslated: HTTP %d, want %d", c.err, got, c.http)
		}
	}
	for _, s := range store.Sentinels() {
		if e, _ := errs.As(s); e.HTTPStatus != 0 {
			t.Errorf("store sentinel %q declares HTTP status %d; say it in rpcerr", s, e.HTTPStatus)
		}
	}
}

// TestHTTPStatusOf: the one table, for statuses received from the
// services and for errors of the HTTP side itself.
func TestHTTPStatusOf(t *testing.T) {
	cases := []struct {
		err  error
		http int
	}{
		{nil, http.StatusOK},
		{errs.New(errs.NotFound, ""), http.StatusNotFound},
		{errs.New(errs.Invalid, "[]: malformed multipart body"), http.StatusUnprocessableEntity},
		{errs.New(errs.Locked, "archived"), http.StatusLocked},
		{errs.New(errs.Conflict, "moved"), http.StatusConflict},
		{errs.New(errs.FailedPrecondition, "rule"), http.StatusBadRequest},
		{errs.New(errs.Unauthenticated, "who"), http.StatusUnauthorized},
		{errs.New(errs.PermissionDenied, "no"), http.StatusForbidden},
		{errs.New(errs.ResourceExhausted, "slow"), http.StatusTooManyRequests},
		{git.ErrBusy, http.StatusServiceUnavailable},
		{status.Error(codes.NotFound, "received"), http.StatusNotFound},
		{rpcerr.Status(errs.New(errs.Locked, "archived")), http.StatusLocked},
		{context.Canceled, 499},
		{context.DeadlineExceeded, http.StatusGatewayTimeout},
		{errors.New("plain"), http.StatusInternalServerError},
		{status.Error(codes.Unknown, "odd"), http.StatusInternalServerError},
	}
	for _, c := range cases {
		if got := rpcerr.HTTPStatusOf(c.err); got != c.http {
			t.Errorf("%v: %d, want %d", c.err, got, c.http)
		}
	}
}

// TestInternalWithItsOwnWords: a domain Internal declared with a message
// (Gitea answers 500 with it) keeps it; errs.Wrap's says nothing.
func TestInternalWithItsOwnWords(t *testing.T) {
	st := status.Convert(rpcerr.Status(errs.Newf(errs.Internal, "push mirror sync failed for %v; see last_error", []string{"a"})))
	if st.Code() != codes.Internal || st.Message() != "push mirror sync failed for [a]; see last_error" || len(st.Details()) != 0 {
		t.Fatalf("answered %v %q %v", st.Code(), st.Message(), st.Details())
	}
	st = status.Convert(rpcerr.Status(errs.Wrap(errors.New("secret cause"), "sync")))
	if st.Message() != "internal server error" {
		t.Fatalf("Wrap answered %q", st.Message())
	}
}

// TestRetryAfter: an error's retry advice reaches gRPC clients as
// RetryInfo and the HTTP side in whole seconds.
func TestRetryAfter(t *testing.T) {
	err := errs.New(errs.ResourceExhausted, "slow down").WithRetryAfter(3 * time.Second)
	st := status.Convert(rpcerr.Status(err))
	if st.Code() != codes.ResourceExhausted || reason(st) != "RESOURCE_EXHAUSTED" {
		t.Fatalf("answered %v %v", st.Code(), st.Details())
	}
	for _, e := range []error{err, rpcerr.Status(err)} {
		if secs, ok := rpcerr.RetryAfter(e); !ok || secs != 3 {
			t.Errorf("%v: retry after %d %v", e, secs, ok)
		}
	}
	if _, ok := rpcerr.RetryAfter(errs.New(errs.ResourceExhausted, "no advice")); ok {
		t.Error("advice without one")
	}
}

// TestKindOf: the kind of domain errors and of received statuses alike.
func TestKindOf(t *testing.T) {
	cases := []struct {
		err  error
		kind errs.Kind
	}{
		{errs.New(errs.NotFound, "x"), errs.NotFound},
		{fmt.Errorf("x: %w", git.ErrBusy), errs.Unavailable},
		{status.Error(codes.NotFound, "x"), errs.NotFound},
		{rpcerr.Status(errs.New(errs.Locked, "archived")), errs.Locked},
		{rpcerr.Status(errs.New(errs.FailedPrecondition, "rule")), errs.FailedPrecondition},
		{rpcerr.Status(errs.New(errs.Conflict, "moved")), errs.Conflict},
		{errors.New("plain"), errs.Internal},
	}
	for _, c := range cases {
		if got := rpcerr.KindOf(c.err); got != c.kind {
			t.Errorf("%v: %v, want %v", c.err, got, c.kind)
		}
	}
}
