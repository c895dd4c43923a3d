// Package rpcerr is the one place where internal errors become gRPC
// statuses. Services, store and git describe outcomes as *errs.Error; Status
// (run for every call by the Unary and Stream interceptors) turns one into a
// canonical gRPC code with an ErrorInfo (reason, and Gitea's HTTP status
// where it differs from the code's default), and anything unexpected is
// logged with its cause and answered as a bare Internal. HTTPStatusOf is
// the one table from there to Gitea's HTTP statuses, for every HTTP
// transport.
package rpcerr

import (
	"context"
	"errors"
	"io"
	"log/slog"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"forge/services/errs"
)

// codeOf is each kind's canonical gRPC code. The code table (HTTPStatus)
// gives each code Gitea's default status; a kind whose Gitea status no code
// has (Locked, 423) carries it in ErrorInfo.
var codeOf = map[errs.Kind]codes.Code{
	errs.Internal:           codes.Internal,
	errs.NotFound:           codes.NotFound,
	errs.Invalid:            codes.InvalidArgument,
	errs.AlreadyExists:      codes.AlreadyExists,
	errs.Conflict:           codes.Aborted,
	errs.FailedPrecondition: codes.FailedPrecondition,
	errs.PermissionDenied:   codes.PermissionDenied,
	errs.Unauthenticated:    codes.Unauthenticated,
	errs.Locked:             codes.FailedPrecondition,
	errs.Unavailable:        codes.Unavailable,
	errs.ResourceExhausted:  codes.ResourceExhausted,
}

// Code is the canonical gRPC code of kind.
func Code(kind errs.Kind) codes.Code {
	if c, ok := codeOf[kind]; ok {
		return c
	}
	return codes.Internal
}

// KindOf is the kind of err: a domain error's own; for a status (what
// services/access returns until it is converted, what a client receives)
// the kind its code stands for; Internal for anything else.
func KindOf(err error) errs.Kind {
	if _, isStatus := outermost(err); !isStatus {
		return errs.KindOf(err)
	}
	st := status.Convert(err)
	if s, ok := HTTPStatus(st); ok && s == httpStatusOfKind[errs.Locked] {
		return errs.Locked
	}
	for kind, code := range codeOf {
		if code == st.Code() && kind != errs.Locked {
			return kind
		}
	}
	return errs.Internal
}

var (
	internalMessage = errs.Internal.DefaultMessage()
	internalStatus  = status.Error(codes.Internal, internalMessage)
)

// Status translates err for a gRPC caller: nil stays nil; a domain error
// becomes its kind's code with its message and an ErrorInfo; a context
// error its own code; a status the stream itself reported (a client gone,
// a message over the size limit) passes unchanged; anything else (and a
// status built by hand) is logged with its cause and answered a bare
// Internal that reveals nothing of it. A domain Internal is logged too and
// answered a bare Internal with its own message (errs.Wrap's is the
// generic one).
func Status(err error) error {
	if err == nil {
		return nil
	}
	out, unexpected := translate(err)
	if unexpected {
		slog.Error("internal error", "err", err)
	}
	return out
}

// translate is Status without the log; unexpected reports an error that
// Status logs.
func translate(err error) (out error, unexpected bool) {
	e, isStatus := outermost(err)
	switch {
	case isStatus:
		var t *transportError
		if errors.As(err, &t) {
			return err, false
		}
		return internalStatus, true
	case e != nil && e.Kind != errs.Internal:
		return fromDomain(e), false
	case errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded):
		return status.FromContextError(err).Err(), false
	case e != nil && e.Message != internalMessage:
		// A domain Internal says what failed in words meant for the
		// caller (errs.Wrap's never do): a bare Internal with them.
		return status.Error(codes.Internal, e.Message), true
	}
	return internalStatus, true
}

// outermost finds the first domain error or status error in err's chain;
// what a caller wrapped last decides (an errs.Wrap around a status is an
// Internal).
func outermost(err error) (e *errs.Error, isStatus bool) {
	for x := err; x != nil; x = errors.Unwrap(x) {
		if d, ok := x.(*errs.Error); ok {
			return d, false
		}
		if _, ok := x.(interface{ GRPCStatus() *status.Status }); ok {
			return nil, true
		}
	}
	// A joined error: any domain error in it, else any status.
	if d, ok := errs.As(err); ok {
		return d, false
	}
	_, isStatus = status.FromError(err)
	return nil, isStatus
}

func fromDomain(e *errs.Error) error {
	err := withInfo(Code(e.Kind), e.Message, e.ReasonOrKind(), domainHTTPStatus(e), e.RetryAfter)
	if len(e.Fields) > 0 {
		return withBodyFields(err, e.Fields)
	}
	return err
}

// Unary translates every unary handler's error (Status). It belongs in the
// one interceptor chain both transports share.
func Unary(ctx context.Context, req any, _ *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	resp, err := handler(ctx, req)
	if err != nil {
		return nil, Status(err)
	}
	return resp, nil
}

// Stream translates every streaming handler's error (Status). The errors
// of the stream's own receives and sends are grpc-go's statuses; they are
// marked so that Status answers them as they are.
func Stream(srv any, ss grpc.ServerStream, _ *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
	return Status(handler(srv, transportStream{ss}))
}

// transportStream marks the statuses its RecvMsg and SendMsg report.
type transportStream struct{ grpc.ServerStream }

func (s transportStream) RecvMsg(m any) error { return fromTransport(s.ServerStream.RecvMsg(m)) }
func (s transportStream) SendMsg(m any) error { return fromTransport(s.ServerStream.SendMsg(m)) }

// transportError is a status the stream itself reported. It still is
// that status (GRPCStatus) and unwraps to it.
type transportError struct{ err error }

func (e *transportError) Error() string              { return e.err.Error() }
func (e *transportError) Unwrap() error              { return e.err }
func (e *transportError) GRPCStatus() *status.Status { return status.Convert(e.err) }

func fromTransport(err error) error {
	if err == nil || err == io.EOF {
		return err
	}
	if _, ok := status.FromError(err); !ok {
		return err
	}
	return &transportError{err}
}
