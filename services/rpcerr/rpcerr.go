// Package rpcerr is the one place where internal errors become gRPC
// statuses. Services, store and git describe outcomes as *errs.Error; Status
// (run for every call by the Unary and Stream interceptors) turns one into a
// canonical gRPC code with an ErrorInfo (reason, and Gitea's HTTP status
// where it differs from the code's default), and anything unexpected is
// logged with its cause and answered as a bare Internal.
package rpcerr

import (
	"context"
	"errors"
	"log/slog"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"forge/services/errs"
	"forge/services/store"
)

// codeOf is each kind's canonical gRPC code. The gateway's code table gives
// each code Gitea's default status; a kind whose Gitea status no code has
// (Locked, 423) carries it in ErrorInfo.
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

// kindHTTPStatus is the Gitea status of the kinds whose status no gRPC code
// maps to.
var kindHTTPStatus = map[errs.Kind]int{
	errs.Locked: 423,
}

// Code is the canonical gRPC code of kind.
func Code(kind errs.Kind) codes.Code {
	if c, ok := codeOf[kind]; ok {
		return c
	}
	return codes.Internal
}

var internalStatus = status.Error(codes.Internal, "internal server error")

// Status translates err for a gRPC caller: nil stays nil, a status error
// passes unchanged, a domain error becomes its kind's code with its message
// and an ErrorInfo, a context error its own code, and anything else (and a
// domain Internal) is logged with its cause and answered 500 without it.
func Status(err error) error {
	if err == nil {
		return nil
	}
	if _, ok := status.FromError(err); ok {
		return err
	}
	if e, ok := errs.As(err); ok && e.Kind != errs.Internal {
		return fromDomain(e)
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return status.FromContextError(err).Err()
	}
	slog.Error("internal error", "err", err)
	return internalStatus
}

func fromDomain(e *errs.Error) error {
	httpStatus := e.HTTPStatus
	if httpStatus == 0 {
		httpStatus = kindHTTPStatus[e.Kind]
	}
	err := withInfo(Code(e.Kind), e.Message, e.ReasonOrKind(), httpStatus)
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

// Stream translates every streaming handler's error (Status).
func Stream(srv any, ss grpc.ServerStream, _ *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
	return Status(handler(srv, ss))
}

// Internal logs err and returns a status that reveals nothing of it. An
// error that is Unavailable (a git operation refused because the server
// runs too many git processes) stays Unavailable (503), which clients may
// retry.
func Internal(err error) error {
	if errs.KindOf(err) == errs.Unavailable {
		return Status(err)
	}
	slog.Error("internal error", "err", err)
	return internalStatus
}

// FromStore maps a store error: ErrNotFound to NotFound with notFoundMsg,
// a status error unchanged, and any other error through Status (store
// sentinels are domain errors carrying their own kind and message).
func FromStore(err error, notFoundMsg string) error {
	if err == nil {
		return nil
	}
	if _, ok := status.FromError(err); ok {
		return err
	}
	if errors.Is(err, store.ErrNotFound) {
		return status.Error(codes.NotFound, notFoundMsg)
	}
	return Status(err)
}
