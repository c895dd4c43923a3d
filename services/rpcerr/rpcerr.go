// Package rpcerr is the one place where internal errors become gRPC
// statuses: store sentinels map to canonical codes with clear messages, and
// anything unexpected is logged and returned as a bare Internal.
package rpcerr

import (
	"errors"
	"log/slog"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"forge/services/store"
)

// Internal logs err and returns a status that reveals nothing of it.
func Internal(err error) error {
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
