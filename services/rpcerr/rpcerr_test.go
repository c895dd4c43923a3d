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
		{status.Error(codes.NotFound, "as is"), codes.NotFound, "as is", 0, ""},
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
