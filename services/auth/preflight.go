package auth

import (
	"context"

	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/tap"

	"forge/services/errs"
	"forge/services/rpcerr"
)

// Preflight tells a transport, before it reads a request body, whether a
// call to method by a caller presenting md is sure to be refused: md
// carries no credentials at all (no authorization, query token or
// reverse-proxy header) nor a sudo user, and the method's policy refuses
// anonymous callers.
// It returns the refusal the interceptor would return (401 "token is
// required", 403 for SelfOrAdmin), or nil when the call may go on; the
// interceptor still makes the real check, so a nil here grants nothing.
func (a *Authenticator) Preflight(method string, md metadata.MD) error {
	if infrastructure(method) {
		return nil
	}
	pol, ok := a.policies[method]
	if !ok {
		return errs.Newf(errs.PermissionDenied, "method %s has no access policy", method)
	}
	if a.carriesCredentials(md) {
		return nil
	}
	return a.authorize(nil, pol, nil)
}

// Tap is Preflight for the gRPC server (grpc.InTapHandle): it runs when a
// call's headers arrive, before its request message is received, outside
// the interceptor chain, so it translates its refusal itself.
func (a *Authenticator) Tap(ctx context.Context, info *tap.Info) (context.Context, error) {
	return ctx, rpcerr.Status(a.Preflight(info.FullMethodName, info.Header))
}

// carriesCredentials reports whether md holds anything identify reads, or
// a sudo user (refused with its own answer, which the interceptor gives).
func (a *Authenticator) carriesCredentials(md metadata.MD) bool {
	for _, key := range []string{MDAuthorization, MDQueryToken, a.proxyKey, MDSudo} {
		for _, v := range md.Get(key) {
			if v != "" {
				return true
			}
		}
	}
	return false
}
