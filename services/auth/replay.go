package auth

import (
	"context"

	"google.golang.org/grpc/metadata"
)

// CallerKey identifies a caller for a cache of answers (the gateway's
// answer cache): the user the call acts as, the token that authenticated
// it (its scopes come with it). Zero is the anonymous caller.
type CallerKey struct{ User, Token int64 }

// ReplayCaller identifies the caller presenting md as the interceptor
// does (the same identification, account checks, record of the token's
// use and access-log name), for a transport that may replay an
// answer it computed earlier for the same caller instead of calling
// method. ok is false when the call must go to the services: a method
// without a policy, credentials whose check has effects of its own
// (a password, with its failed-attempt count and one-time codes; a
// reverse-proxy header, trusted by address; a sudo, logged for each
// call), and any caller the interceptor would refuse, so that the refusal
// is the interceptor's.
//
// The policy and the object rules are not judged here: an answer is
// replayed only to the caller it was computed for, while the database
// has committed nothing since, so they would judge as they did then.
func (a *Authenticator) ReplayCaller(ctx context.Context, method string, md metadata.MD) (key CallerKey, ok bool) {
	if _, ok := a.policies[method]; !ok || infrastructure(method) {
		return key, false
	}
	for _, h := range []string{MDOTP, MDSudo, a.proxyKey} {
		if h != "" && len(md.Get(h)) > 0 {
			return key, false
		}
	}
	if v := md.Get(MDAuthorization); len(v) > 0 {
		if cred, err := ParseAuthorization(v[0]); err != nil || cred.Scheme != SchemeToken {
			return key, false
		}
	}
	ctx = metadata.NewIncomingContext(ctx, md)
	p, err := a.authenticate(ctx, false)
	if err != nil {
		return key, false
	}
	logCaller(ctx, p)
	if p == nil {
		return key, true
	}
	key.User = p.User.ID
	if p.Token != nil {
		key.Token = p.Token.ID
	}
	return key, true
}
