package rpcerr

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// refuseBareStatuses captures the log of the test.
func refuseBareStatuses(t *testing.T) *bytes.Buffer {
	t.Helper()
	prevLog := slog.Default()
	var logs bytes.Buffer
	slog.SetDefault(slog.New(slog.NewTextHandler(&logs, nil)))
	t.Cleanup(func() { slog.SetDefault(prevLog) })
	return &logs
}

// TestBareStatusIsRefused: a status built by hand outside this package is
// a bug: logged, and answered as a bare Internal that reveals nothing.
func TestBareStatusIsRefused(t *testing.T) {
	logs := refuseBareStatuses(t)
	for _, err := range []error{
		status.Error(codes.NotFound, "made by hand"),
		fmt.Errorf("load: %w", status.Error(codes.PermissionDenied, "made by hand")),
	} {
		logs.Reset()
		st := status.Convert(Status(err))
		if st.Code() != codes.Internal || st.Message() != "internal server error" || len(st.Details()) != 0 {
			t.Errorf("%v: answered %v %q", err, st.Code(), st.Message())
		}
		if !strings.Contains(logs.String(), "made by hand") {
			t.Errorf("%v: not logged: %s", err, logs.String())
		}
	}
}

// fakeStream is a server stream whose receives report err.
type fakeStream struct {
	grpc.ServerStream
	err error
}

func (s fakeStream) RecvMsg(any) error      { return s.err }
func (s fakeStream) SendMsg(any) error      { return s.err }
func (fakeStream) Context() context.Context { return context.Background() }

// TestStreamStatusesPass: what grpc-go itself reports on a stream (a
// message over the size limit, a client gone) reaches the caller as it
// is, also once bare statuses are refused; io.EOF reaches the handler
// unchanged.
func TestStreamStatusesPass(t *testing.T) {
	refuseBareStatuses(t)
	tooLarge := status.Error(codes.ResourceExhausted, "grpc: received message larger than max (9 vs. 4)")
	recv := func(_ any, ss grpc.ServerStream) error { return ss.RecvMsg(nil) }
	send := func(_ any, ss grpc.ServerStream) error { return fmt.Errorf("send: %w", ss.SendMsg(nil)) }
	for _, h := range []grpc.StreamHandler{recv, send} {
		st := status.Convert(Stream(nil, fakeStream{err: tooLarge}, nil, h))
		if st.Code() != codes.ResourceExhausted || !strings.Contains(st.Message(), "larger than max") {
			t.Errorf("transport status answered %v %q", st.Code(), st.Message())
		}
	}
	var seen error
	Stream(nil, fakeStream{err: io.EOF}, nil, func(_ any, ss grpc.ServerStream) error {
		seen = ss.RecvMsg(nil)
		return nil
	})
	if seen != io.EOF {
		t.Errorf("RecvMsg at the end: %v", seen)
	}
	// A handler's own status is no transport status.
	st := status.Convert(Stream(nil, fakeStream{}, nil, func(any, grpc.ServerStream) error {
		return status.Error(codes.NotFound, "made by hand")
	}))
	if st.Code() != codes.Internal {
		t.Errorf("a handler's status passed: %v", st.Code())
	}
	if !errors.Is(fromTransport(tooLarge), tooLarge) {
		t.Error("a marked status does not unwrap to itself")
	}
}
