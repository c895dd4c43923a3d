package errs_test

import (
	"errors"
	"fmt"
	"net/http"
	"testing"

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
