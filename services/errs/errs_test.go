package errs_test

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"forge/services/errs"
)

func TestDerivedErrorsMatchTheirSentinel(t *testing.T) {
	sentinel := errs.New(errs.AlreadyExists, "taken")
	other := errs.New(errs.AlreadyExists, "taken")
	derived := sentinel.WithHTTPStatus(http.StatusConflict).WithMessage("The name is taken.")
	wrapped := fmt.Errorf("create: %w", derived)

	if !errors.Is(wrapped, sentinel) || !errors.Is(derived, sentinel) {
		t.Fatal("a derived error does not match its sentinel")
	}
	if errors.Is(derived, other) {
		t.Fatal("a derived error matches an unrelated error of the same kind and text")
	}
	if sentinel.HTTPStatus != 0 || sentinel.Message != "taken" {
		t.Fatal("deriving changed the sentinel")
	}
	e, ok := errs.As(wrapped)
	if !ok || e.HTTPStatus != http.StatusConflict || e.Message != "The name is taken." || e.Kind != errs.AlreadyExists {
		t.Fatalf("As: %+v %v", e, ok)
	}
}

func TestWrapKeepsTheCauseForLogsOnly(t *testing.T) {
	cause := errors.New("pq: connection refused")
	err := errs.Wrap(cause, "list repositories")
	if !errors.Is(err, cause) {
		t.Fatal("the cause is lost for errors.Is")
	}
	e, _ := errs.As(err)
	if e.Kind != errs.Internal || e.Message != "internal server error" {
		t.Fatalf("wrapped: %+v", e)
	}
	if errs.Wrap(nil, "x") != nil {
		t.Fatal("Wrap(nil) is not nil")
	}
	if errs.KindOf(cause) != errs.Internal || errs.KindOf(errs.New(errs.NotFound, "x")) != errs.NotFound {
		t.Fatal("KindOf")
	}
}

// TestDetail: a sentinel wrapped with detail keeps its kind and identity
// and shows the whole text; Internal errors and bare sentinels are as As
// finds them.
func TestDetail(t *testing.T) {
	sentinel := errs.New(errs.NotFound, "not found")
	wrapped := fmt.Errorf("branch %q: %w", "dev", sentinel)
	e, ok := errs.Detail(wrapped)
	if !ok || e.Kind != errs.NotFound || e.Message != `branch "dev": not found` || !errors.Is(e, sentinel) {
		t.Errorf("Detail(wrapped) = %+v, %v", e, ok)
	}
	if e, ok := errs.Detail(sentinel); !ok || e != sentinel {
		t.Errorf("Detail(sentinel) = %+v, %v", e, ok)
	}
	internal := errs.Wrap(errors.New("disk"), "write")
	if e, ok := errs.Detail(fmt.Errorf("x: %w", internal)); !ok || e.Kind != errs.Internal || e.Message != "internal server error" {
		t.Errorf("Detail(internal) = %+v, %v", e, ok)
	}
	if _, ok := errs.Detail(errors.New("plain")); ok {
		t.Error("Detail found a domain error in a plain one")
	}
}

// TestDefaultMessages: an error declared without a message says its
// kind's generic text, Gitea's where it has one, defined once.
func TestDefaultMessages(t *testing.T) {
	if got := errs.New(errs.NotFound, "").Message; got != "The target couldn't be found." {
		t.Errorf("NotFound default %q", got)
	}
	wrapped, _ := errs.As(errs.Wrap(errors.New("disk"), "write"))
	if got := errs.New(errs.Internal, "").Message; got != "internal server error" || got != wrapped.Message {
		t.Errorf("Internal default %q, Wrap's %q", got, wrapped.Message)
	}
	// Every named kind has one.
	for k := errs.Kind(0); !strings.HasPrefix(k.String(), "KIND_"); k++ {
		if k.DefaultMessage() == "" {
			t.Errorf("%v has no default message", k)
		}
	}
	if got := errs.New(errs.NotFound, "repository does not exist").Message; got != "repository does not exist" {
		t.Errorf("an own message was replaced: %q", got)
	}
}

// TestReplace: a caller's words for another package's outcome replace it
// only when err is that outcome.
func TestReplace(t *testing.T) {
	missing := errs.New(errs.NotFound, "not found")
	named := errs.New(errs.NotFound, "user does not exist [name: x]")
	if got := errs.Replace(fmt.Errorf("load: %w", missing.WithMessage("gone")), missing, named); got != named {
		t.Errorf("matching error: %v", got)
	}
	other := errs.New(errs.Invalid, "bad")
	if got := errs.Replace(other, missing, named); got != other {
		t.Errorf("other error: %v", got)
	}
	if errs.Replace(nil, missing, named) != nil {
		t.Error("nil became an error")
	}
}

// TestWrapKeepsUnavailable: wrapping a busy git for the log keeps it
// retryable (Unavailable, its own message), and it still matches.
func TestWrapKeepsUnavailable(t *testing.T) {
	busy := errs.New(errs.Unavailable, "too many git processes are running; try again later")
	err := errs.Wrap(fmt.Errorf("branch dev: %w", busy), "read branches")
	e, ok := errs.As(err)
	if !ok || e.Kind != errs.Unavailable || e.Message != busy.Message || !errors.Is(err, busy) {
		t.Fatalf("wrapped busy: %+v", e)
	}
	if errs.KindOf(errs.Wrap(errs.New(errs.NotFound, "x"), "y")) != errs.Internal {
		t.Fatal("a wrapped NotFound is not Internal")
	}
}

func TestWithRetryAfter(t *testing.T) {
	limited := errs.New(errs.ResourceExhausted, "slow down")
	d := limited.WithRetryAfter(3 * time.Second)
	if d.RetryAfter != 3*time.Second || limited.RetryAfter != 0 || !errors.Is(d, limited) {
		t.Fatalf("WithRetryAfter: %+v", d)
	}
}
