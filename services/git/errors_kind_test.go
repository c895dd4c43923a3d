package git

import (
	"errors"
	"fmt"
	"testing"

	"forge/services/errs"
)

// TestTypedErrorsCarryTheirKind: git's typed errors match their sentinel
// (errors.Is) and show the translator their kind with their own text
// (errs.As), wrapped or not; a process error still unwraps to *Error.
func TestTypedErrorsCarryTheirKind(t *testing.T) {
	for _, c := range []struct {
		err  error
		kind errs.Kind
		is   *errs.Error
	}{
		{&FileExistsError{Path: "a"}, errs.AlreadyExists, ErrAlreadyExists},
		{&SHAMismatchError{Path: "a", Given: "1", Current: "2"}, errs.Conflict, ErrConflict},
		{&refMovedError{ref: "refs/heads/main"}, errs.Conflict, ErrConflict},
	} {
		for _, err := range []error{c.err, fmt.Errorf("change: %w", c.err)} {
			e, ok := errs.As(err)
			if !ok || e.Kind != c.kind || e.Message != c.err.Error() || !errors.Is(err, c.is) || !errors.Is(e, c.is) {
				t.Errorf("%v: As = %+v, %v", err, e, ok)
			}
		}
	}
	var ge *Error
	if err := fmt.Errorf("x: %w", &Error{Command: "update-ref", Err: errors.New("exit status 1")}); !errors.As(err, &ge) {
		t.Error("*Error not found")
	}
}
