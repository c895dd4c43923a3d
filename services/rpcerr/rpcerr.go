// Package rpcerr is the one place where internal errors become gRPC
// statuses: store sentinels map to canonical codes with clear messages, and
// anything unexpected is logged and returned as a bare Internal.
package rpcerr

import (
	"errors"
	"log/slog"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"forge/services/git"
	"forge/services/store"
)

// Internal logs err and returns a status that reveals nothing of it.
// A git operation refused because the server runs too many git processes
// is Unavailable (503), which clients may retry, not an internal failure.
func Internal(err error) error {
	if errors.Is(err, git.ErrBusy) {
		return status.Error(codes.Unavailable, git.ErrBusy.Error())
	}
	slog.Error("internal error", "err", err)
	return status.Error(codes.Internal, "internal server error")
}

// FromStore maps a store error: ErrNotFound to NotFound with notFoundMsg,
// conflicts to AlreadyExists, the last-admin rule to PermissionDenied, a
// status error unchanged, and anything else to Internal.
func FromStore(err error, notFoundMsg string) error {
	if err == nil {
		return nil
	}
	if _, ok := status.FromError(err); ok {
		return err
	}
	switch {
	case errors.Is(err, store.ErrNotFound):
		return status.Error(codes.NotFound, notFoundMsg)
	case errors.Is(err, store.ErrUserExists), errors.Is(err, store.ErrEmailUsed), errors.Is(err, store.ErrTokenNameUsed):
		return status.Error(codes.AlreadyExists, err.Error())
	case errors.Is(err, store.ErrLastAdmin):
		return status.Error(codes.PermissionDenied, err.Error())
	}
	return Internal(err)
}
