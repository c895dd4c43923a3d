package app

import (
	"context"

	"google.golang.org/grpc"
)

// chainUnary folds interceptors into one, first outermost, as
// grpc.ChainUnaryInterceptor does, for the in-process channel (which takes
// a single interceptor).
func chainUnary(ics []grpc.UnaryServerInterceptor) grpc.UnaryServerInterceptor {
	return func(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
		next := handler
		for i := len(ics) - 1; i >= 0; i-- {
			ic, inner := ics[i], next
			next = func(ctx context.Context, req any) (any, error) { return ic(ctx, req, info, inner) }
		}
		return next(ctx, req)
	}
}

func chainStream(ics []grpc.StreamServerInterceptor) grpc.StreamServerInterceptor {
	return func(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
		next := handler
		for i := len(ics) - 1; i >= 0; i-- {
			ic, inner := ics[i], next
			next = func(srv any, ss grpc.ServerStream) error { return ic(srv, ss, info, inner) }
		}
		return next(srv, ss)
	}
}
