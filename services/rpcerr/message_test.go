package rpcerr

import (
	"errors"
	"fmt"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

func TestMessage(t *testing.T) {
	notFound := status.Error(codes.NotFound, "repository does not exist")
	cases := []struct {
		err  error
		want string
	}{
		{nil, ""},
		{notFound, "repository does not exist"},
		{fmt.Errorf("open: %w", notFound), "open: repository does not exist"},
		{fmt.Errorf("open: %v", notFound), "open: repository does not exist"},
		{status.Errorf(codes.Internal, "sync failed: %v", notFound), "sync failed: repository does not exist"},
		{errors.Join(errors.New("first"), notFound), "first\nrepository does not exist"},
		{errors.New("plain"), "plain"},
	}
	for _, c := range cases {
		if got := Message(c.err); got != c.want {
			t.Errorf("Message(%v) = %q, want %q", c.err, got, c.want)
		}
	}
}
