// Package accesstest lets a service's unit tests call its handlers behind
// the repository authorization the auth interceptor applies in the real
// server (access.Checker.AuthorizeResource, by the service's policies),
// through an in-process gRPC channel. Errors reach the client as the
// handler returned them (domain errors); tests translate them with
// rpcerr.Status as the server's chain does. The caller is the auth.Principal in
// the client's context.
package accesstest

import (
	"context"

	"github.com/fullstorydev/grpchan/inprocgrpc"
	"google.golang.org/grpc"

	"forge/services/access"
	"forge/services/auth"
)

// Channel returns an in-process channel whose calls are authorized by c
// under pols; register the service on it and call it with its client.
// Messages are passed as they are, not copied, so a test sees exactly what
// the handler built (an empty list stays non-nil).
func Channel(c *access.Checker, pols auth.Policies) *inprocgrpc.Channel {
	return new(inprocgrpc.Channel).WithCloner(inprocgrpc.CloneFunc(func(in any) (any, error) { return in, nil })).WithServerUnaryInterceptor(
		func(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
			caller := auth.FromContext(inprocgrpc.ClientContext(ctx))
			if caller != nil {
				ctx = auth.NewContext(ctx, caller)
			}
			if pol := pols[info.FullMethod]; pol.Resolves() {
				var err error
				if ctx, err = c.AuthorizeResource(ctx, pol, req, caller); err != nil {
					return nil, err
				}
			}
			return handler(ctx, req)
		})
}
