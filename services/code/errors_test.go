package code

import (
	"errors"
	"net/http"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"forge/services/git"
	"forge/services/rpcerr"
)

// TestWriteErrKeepsSentinelKinds: git write errors, typed ones included,
// keep their sentinel's kind and text; only the stale-sha status is the
// caller's to declare.
func TestWriteErrKeepsSentinelKinds(t *testing.T) {
	cases := []struct {
		err  error
		code codes.Code
		http int
	}{
		{&git.SHAMismatchError{Path: "a", Given: "1", Current: "2"}, codes.Aborted, http.StatusBadRequest},
		{&git.FileExistsError{Path: "a"}, codes.AlreadyExists, http.StatusUnprocessableEntity},
		{git.ErrInvalid, codes.InvalidArgument, http.StatusUnprocessableEntity},
		{errors.New("git update-ref: exit status 128"), codes.Internal, http.StatusInternalServerError},
	}
	for _, c := range cases {
		translated := rpcerr.Status(writeErr(c.err, http.StatusBadRequest))
		st := status.Convert(translated)
		if st.Code() != c.code {
			t.Errorf("%v: %v, want %v", c.err, st.Code(), c.code)
		}
		if got := rpcerr.HTTPStatusOf(translated); got != c.http {
			t.Errorf("%v: HTTP %d, want %d", c.err, got, c.http)
		}
		if c.code != codes.Internal && st.Message() != c.err.Error() {
			t.Errorf("%v: message %q", c.err, st.Message())
		}
	}
}
