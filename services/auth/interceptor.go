package auth

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strings"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/peer"

	"forge/services/accesslog"
	"forge/services/config"
	"forge/services/errs"
	"forge/services/store"
)

// QueryTokenDisabledMessage is the 401 text when DISABLE_QUERY_AUTH_TOKEN
// is on and a request carries ?token= or ?access_token=.
const QueryTokenDisabledMessage = "query-string tokens (token, access_token) are disabled on this server; send the token in the Authorization header"

// OTPInvalidMessage refuses Basic password authentication of a TOTP user
// without a valid X-Gitea-OTP code.
const OTPInvalidMessage = "invalid provided OTP"

// Store is what authentication reads.
type Store interface {
	AccessTokenByHash(ctx context.Context, hash string) (*store.AccessToken, *store.User, error)
	// AuthGeneration changes with every commit that may change what a
	// token authenticates as (see principalCache).
	AuthGeneration(ctx context.Context) (store.Generation, error)
	UserByName(ctx context.Context, name string) (*store.User, error)
	// ClaimTOTPStep records a TOTP time step as used; false when it (or a
	// later one) already was.
	ClaimTOTPStep(ctx context.Context, id, step int64) (bool, error)
}

// The refusals of callers without credentials, Gitea's words.
var (
	errTokenRequired = errs.New(errs.Unauthenticated, "token is required")
	errAuthRequired  = errs.New(errs.Unauthenticated, "auth required")
)

// Authenticator is the gRPC interceptor that authenticates every call and
// enforces the method's Policy before the handler runs. REST requests reach
// it through the in-process channel, so both transports meet one check.
type Authenticator struct {
	store             Store
	policies          Policies
	usage             *UsageRecorder
	totp              *TOTP
	hashes            *HashGate
	failures          *FailureLimiter
	cfg               *config.Config
	resources         ResourceAuthorizer // resolves Policy.Resource (access.Checker)
	proxyKey          string             // lower-case metadata key of the reverse-proxy header
	principals        principalCache     // what tokens authenticate as (cache.go)
	mustChangeMessage string
	external          External // sign-in through login sources (LDAP)
}

// External signs in the users of external authentication sources
// (services/ldapauth). Its errors have kind Unauthenticated for refused
// credentials and Unavailable when a source cannot answer.
type External interface {
	// Verify checks password for u, whose login_source is not 0, at that
	// source, and returns u as it is after the sign-in (the source may
	// change is_admin).
	Verify(ctx context.Context, u *store.User, password string) (*store.User, error)
	// SignInNew signs in a name without an account through the active
	// sources and creates the account on the first that accepts it.
	SignInNew(ctx context.Context, login, password string) (*store.User, error)
}

// WithExternal sets the login sources password sign-ins go through for
// users of a source (login_source > 0) and for unknown names.
func (a *Authenticator) WithExternal(e External) *Authenticator {
	a.external = e
	return a
}

// NewAuthenticator builds the interceptor. Every service method must have a
// policy; calls to undeclared methods are refused.
func NewAuthenticator(cfg *config.Config, s Store, policies Policies, usage *UsageRecorder, totp *TOTP) *Authenticator {
	return &Authenticator{
		store:    s,
		policies: policies,
		usage:    usage,
		totp:     totp,
		hashes:   NewHashGate(cfg.Security.PasswordHashConcurrency, cfg.Security.PasswordHashQueue),
		failures: NewFailureLimiter(cfg.Security.LoginMaxFailuresPerAccount, cfg.Security.LoginMaxFailuresPerAddress,
			time.Duration(cfg.Security.LoginFailureWindowSeconds)*time.Second, cfg.Security.LoginFailureMaxTracked),
		cfg:               cfg,
		proxyKey:          strings.ToLower(cfg.Security.ReverseProxyAuthUser),
		mustChangeMessage: "You must change your password. Change it at: " + cfg.Server.RootURL + "user/change_password",
	}
}

// WithResources sets the resolver of the resources policies declare
// (Policy.Resource). Without one, every method declaring a resource is
// refused (fail closed).
func (a *Authenticator) WithResources(r ResourceAuthorizer) *Authenticator {
	a.resources = r
	return a
}

// Unary is the unary server interceptor.
func (a *Authenticator) Unary(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	ctx, err := a.check(ctx, info.FullMethod, req)
	if err != nil {
		return nil, err
	}
	return handler(ctx, req)
}

// Stream is the stream server interceptor. Streaming methods have no
// request message at the start, so SelfOrAdmin policies do not apply, and
// the declared resource is resolved when the first message arrives, before
// the handler sees it (server-streaming handlers receive it first).
func (a *Authenticator) Stream(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
	ctx, err := a.check(ss.Context(), info.FullMethod, nil)
	if err != nil {
		return err
	}
	w := &wrappedStream{ServerStream: ss, ctx: ctx}
	if pol := a.policies[info.FullMethod]; pol.Resolves() {
		w.resolve = func(ctx context.Context, req any) (context.Context, error) {
			return a.authorizeResource(ctx, pol, req)
		}
	}
	return handler(srv, w)
}

type wrappedStream struct {
	grpc.ServerStream
	ctx context.Context
	// resolve authorizes the declared resource from the first message;
	// nil once done or when the method declares none.
	resolve func(ctx context.Context, req any) (context.Context, error)
}

func (w *wrappedStream) Context() context.Context { return w.ctx }

func (w *wrappedStream) RecvMsg(m any) error {
	if err := w.ServerStream.RecvMsg(m); err != nil {
		return err
	}
	if w.resolve == nil {
		return nil
	}
	ctx, err := w.resolve(w.ctx, m)
	if err != nil {
		return err
	}
	w.ctx, w.resolve = ctx, nil
	return nil
}

// authorizeResource resolves pol.Resource for the caller in ctx.
// repoPrefetcher is implemented by a ResourceAuthorizer (access.Checker)
// that can name the repository a call will resolve before it resolves
// it, so that the first generation read of the check brings its counters.
type repoPrefetcher interface {
	CachedRepoID(pol Policy, req any) int64
}

func (a *Authenticator) authorizeResource(ctx context.Context, pol Policy, req any) (context.Context, error) {
	if a.resources == nil {
		return nil, errs.New(errs.PermissionDenied, "no resolver for the method's resource")
	}
	return a.resources.AuthorizeResource(ctx, pol, req, FromContext(ctx))
}

func (a *Authenticator) check(ctx context.Context, method string, req any) (context.Context, error) {
	ctx, _, err := a.Authorize(ctx, method, req)
	return ctx, err
}

// Authorize is the interceptor's whole check of one call to method with
// req, for surfaces served outside gRPC as well (git's smart HTTP, whose
// policies forge.githost.v1 declares): it authenticates the call in ctx,
// applies the method's policy and resolves its resource and rule, and
// returns ctx carrying the caller and what was resolved. The caller is
// returned also when the policy refuses (nil when anonymous), so that a
// protocol can answer in its own way (git asks an anonymous caller for
// credentials).
func (a *Authenticator) Authorize(ctx context.Context, method string, req any) (context.Context, *Principal, error) {
	if infrastructure(method) {
		return ctx, nil, nil
	}
	pol, ok := a.policies[method]
	if !ok {
		return nil, nil, errs.Newf(errs.PermissionDenied, "method %s has no access policy", method)
	}
	ctx, slot := withGenerationSlot(ctx)
	defer slot.close()
	if pf, ok := a.resources.(repoPrefetcher); ok && pol.Resolves() {
		if id := pf.CachedRepoID(pol, req); id != 0 {
			var done func()
			ctx, done = store.WithCountersPrefetch(ctx, id)
			defer done()
		}
	}
	p, err := a.authenticate(ctx, !pol.CallerUnused)
	if err == nil {
		p, err = a.sudo(ctx, method, p)
	}
	if err != nil {
		return nil, nil, err
	}
	logCaller(ctx, p)
	if err := a.authorize(p, pol, req); err != nil {
		return nil, p, err
	}
	if p != nil {
		ctx = NewContext(ctx, p)
	}
	if pol.Resolves() && req != nil {
		ctx, err = a.authorizeResource(ctx, pol, req)
	}
	return ctx, p, err
}

// AuthorizeAs is Authorize for a caller another transport authenticated
// (SSH keys): the same policy, resource and rule checks, with p (never
// nil) as the caller; no sudo.
func (a *Authenticator) AuthorizeAs(ctx context.Context, p *Principal, method string, req any) (context.Context, error) {
	pol, ok := a.policies[method]
	if !ok {
		return nil, errs.Newf(errs.PermissionDenied, "method %s has no access policy", method)
	}
	if p.Deploy == nil {
		if err := a.verify(p.User); err != nil {
			return nil, err
		}
	}
	ctx, slot := withGenerationSlot(ctx)
	defer slot.close()
	logCaller(ctx, p)
	if err := a.authorize(p, pol, req); err != nil {
		return nil, err
	}
	ctx = NewContext(ctx, p)
	if pol.Resolves() && req != nil {
		return a.authorizeResource(ctx, pol, req)
	}
	return ctx, nil
}

// logCaller names the caller in the request's access-log line; a sudo
// call names both accounts.
func logCaller(ctx context.Context, p *Principal) {
	if p == nil || p.User == nil {
		return
	}
	name := p.User.Name
	if p.Sudoer != nil {
		name = p.Sudoer.Name + " as " + name
	}
	accesslog.SetUser(ctx, name)
}

func (a *Authenticator) authorize(p *Principal, pol Policy, req any) error {
	switch pol.Access {
	case SignedIn:
		if p == nil {
			return errTokenRequired
		}
	case SiteAdmin:
		if p == nil {
			return errTokenRequired
		}
		if !p.IsAdmin() {
			return errs.New(errs.PermissionDenied, "user should be the site admin")
		}
	case SelfOrAdmin:
		named, _ := req.(interface{ GetUsername() string })
		if p == nil || named == nil || !(p.IsAdmin() || strings.EqualFold(p.User.Name, named.GetUsername())) {
			return errs.New(errs.PermissionDenied, "doer should be the site admin or be same as the contextUser")
		}
	}
	if pol.BasicOnly && (p == nil || (p.Method != MethodBasicPassword && p.Method != MethodBasicToken && p.Method != MethodReverseProxy)) {
		return errAuthRequired
	}
	if p != nil && p.Token != nil {
		for _, c := range pol.Scopes {
			if !p.Scopes.Has(c, pol.Level) {
				return errs.Newf(errs.PermissionDenied, "token does not have at least one of required scope(s): %s", requiredScopes(pol))
			}
		}
	}
	return nil
}

func requiredScopes(pol Policy) string {
	prefix := "read:"
	if pol.Level == LevelWrite {
		prefix = "write:"
	}
	names := make([]string, len(pol.Scopes))
	for i, c := range pol.Scopes {
		names[i] = prefix + c.String()
	}
	return "[" + strings.Join(names, " ") + "]"
}

// Authenticate identifies the caller from the call's metadata: nil for an
// anonymous call, an Unauthenticated/PermissionDenied error for bad or
// refused credentials. Exported for the git smart-HTTP endpoint.
func (a *Authenticator) Authenticate(ctx context.Context) (*Principal, error) {
	return a.authenticate(ctx, true)
}

// authenticate is Authenticate; spendOTP false checks a one-time code
// without spending it, for methods whose answer does not depend on the
// caller (Policy.CallerUnused).
func (a *Authenticator) authenticate(ctx context.Context, spendOTP bool) (*Principal, error) {
	md, _ := metadata.FromIncomingContext(ctx)
	first := func(key string) string {
		if v := md.Get(key); len(v) > 0 {
			return v[0]
		}
		return ""
	}
	p, err := a.identify(ctx, first(MDAuthorization), first(MDQueryToken), otpCode{first(MDOTP), spendOTP}, first(a.proxyKey), first(MDRemoteAddr))
	if err != nil || p == nil {
		return nil, err
	}
	if err := a.verify(p.User); err != nil {
		return nil, err
	}
	if p.Token != nil && a.usage != nil {
		a.usage.Record(p.Token.ID)
	}
	return p, nil
}

// errSudoRefused answers a sudo request from anyone but a site
// administrator (anonymous callers included), Gitea's words.
var errSudoRefused = errs.New(errs.PermissionDenied, "Only administrators allowed to sudo.")

// sudo applies Gitea's sudo to the authenticated caller p: a site
// administrator naming a user (metadata MDSudo) acts as that user, so the
// policy and every rule are judged for that user, while the
// administrator's token scopes still bound the call. Anyone else naming a
// user is refused; an unknown user (or an organization) is not found.
// git's smart HTTP never passes a sudo user (gateway/githttp.go), so it
// has no sudo, as in Gitea.
func (a *Authenticator) sudo(ctx context.Context, method string, p *Principal) (*Principal, error) {
	md, _ := metadata.FromIncomingContext(ctx)
	v := md.Get(MDSudo)
	if len(v) == 0 || v[0] == "" {
		return p, nil
	}
	if !p.IsAdmin() {
		return nil, errSudoRefused
	}
	u, err := a.store.UserByName(ctx, v[0])
	if errors.Is(err, store.ErrNotFound) || (err == nil && u.Type != store.UserTypeIndividual) {
		return nil, errs.New(errs.NotFound, "")
	}
	if err != nil {
		return nil, errs.Wrap(err, "load sudo user")
	}
	slog.InfoContext(ctx, "sudo", "admin", p.User.Name, "admin_id", p.User.ID, "as", u.Name, "as_id", u.ID, "method", method)
	return &Principal{User: u, Method: p.Method, Token: p.Token, Scopes: p.Scopes, Sudoer: p.User}, nil
}

// PasswordHashPeak is the largest number of password checks that ran at
// once (for tests and diagnostics).
func (a *Authenticator) PasswordHashPeak() int { return a.hashes.Peak() }

// identify tries the methods in Gitea's order: token header, query token,
// Basic, reverse proxy. The client address (remoteAddr, from the gateway)
// is parsed only by the methods that use it, not for every token call.
func (a *Authenticator) identify(ctx context.Context, authz, queryToken string, otp otpCode, proxyUser, remoteAddr string) (*Principal, error) {
	// Disabled query tokens refuse the request whatever else it carries:
	// checked first, so that a header credential beside one does not
	// quietly win (forge's contract, row 2).
	if queryToken != "" && a.cfg.Security.DisableQueryAuthToken {
		return nil, errs.New(errs.Unauthenticated, QueryTokenDisabledMessage)
	}
	cred, err := ParseAuthorization(authz)
	if err != nil {
		return nil, errs.New(errs.Unauthenticated, err.Error())
	}
	switch cred.Scheme {
	case SchemeToken:
		return a.byToken(ctx, cred.Token, MethodToken)
	case SchemeBasic:
		return a.byBasic(ctx, cred.User, cred.Pass, otp, remoteIP(ctx, remoteAddr))
	}
	if queryToken != "" {
		return a.byToken(ctx, queryToken, MethodToken)
	}
	if proxyUser == "" || !a.cfg.Service.EnableReverseProxyAuthAPI {
		return nil, nil
	}
	if remote := remoteIP(ctx, remoteAddr); remote != nil && a.cfg.Security.Trusted(remote) {
		u, err := a.store.UserByName(ctx, proxyUser)
		if errors.Is(err, store.ErrNotFound) || (err == nil && u.Type != store.UserTypeIndividual) {
			return nil, errs.Newf(errs.Unauthenticated, "user does not exist [name: %s]", proxyUser)
		}
		if err != nil {
			return nil, errs.Wrap(err, "load reverse-proxy user")
		}
		return &Principal{User: u, Method: MethodReverseProxy}, nil
	}
	return nil, nil
}

var errBadToken = errs.New(errs.Unauthenticated, "invalid or revoked access token")

func (a *Authenticator) byToken(ctx context.Context, plain string, method Method) (*Principal, error) {
	if !LooksLikeToken(plain) {
		return nil, errBadToken
	}
	hash := HashToken(plain)
	// The generation is read first: what is loaded after it is at least as
	// new as it (see principalCache).
	g, err := CurrentGeneration(ctx, a.store)
	if err != nil {
		return nil, errs.Wrap(err, "read authentication generation")
	}
	gen := g.Auth
	if p := a.principals.get(gen, hash, method); p != nil {
		return p, nil
	}
	tok, u, err := a.store.AccessTokenByHash(ctx, hash)
	if errors.Is(err, store.ErrNotFound) {
		return nil, errBadToken
	}
	if err != nil {
		return nil, errs.Wrap(err, "load access token")
	}
	if subtle.ConstantTimeCompare([]byte(tok.TokenHash), []byte(hash)) != 1 {
		return nil, errBadToken
	}
	scopes, err := ParseScopes([]string{tok.Scope})
	if err != nil {
		return nil, errs.Wrap(err, fmt.Sprintf("token %d: stored scope", tok.ID))
	}
	a.principals.put(gen, hash, tok, u, scopes)
	return &Principal{User: u, Method: method, Token: tok, Scopes: scopes}, nil
}

var errBadPassword = errs.New(errs.Unauthenticated, "invalid user name, password or token")

// errSourceDown refuses a sign-in whose login source (an LDAP directory)
// cannot answer: 401, and the failure allowance is given back, since
// nothing was learnt about the password.
var errSourceDown = errs.New(errs.Unauthenticated, "the authentication source is unavailable, try again later")

func (a *Authenticator) byBasic(ctx context.Context, user, pass string, otp otpCode, remote net.IP) (*Principal, error) {
	// A token may stand in the password, or in the user name with an empty
	// (or x-oauth-basic) password.
	candidate := pass
	if pass == "" || pass == "x-oauth-basic" {
		candidate = user
	}
	if LooksLikeToken(candidate) {
		p, err := a.byToken(ctx, candidate, MethodBasicToken)
		if err == nil {
			return p, nil
		}
		if errs.KindOf(err) != errs.Unauthenticated {
			return nil, err
		}
	}
	if user == "" || pass == "" {
		return nil, errBadPassword
	}
	return a.byPassword(ctx, user, pass, otp, remote)
}

// byPassword checks a password (and the one-time code of a TOTP user).
// Every attempt first takes a failure allowance for the account and the
// client address, given back on success; an exhausted one refuses the
// attempt before any hash runs.
func (a *Authenticator) byPassword(ctx context.Context, user, pass string, otp otpCode, remote net.IP) (*Principal, error) {
	attempt := NewAttempt(user, remote)
	if err := a.failures.Take(attempt); err != nil {
		return nil, err
	}
	p, err := a.checkPassword(ctx, user, pass, otp)
	// Only a judged failure keeps the allowance spent. A refusal for load or
	// a store error says nothing about the password; neither does a right
	// password sent without its one-time code (what git and a first SDK
	// call do), so that is not held against the account either.
	var otpErr *OTPError
	if errs.KindOf(err) != errs.Unauthenticated || (errors.As(err, &otpErr) && otpErr.Missing) || errors.Is(err, errSourceDown) {
		a.failures.Refund(attempt)
	}
	return p, err
}

func (a *Authenticator) checkPassword(ctx context.Context, user, pass string, otp otpCode) (*Principal, error) {
	u, err := a.store.UserByName(ctx, user)
	if errors.Is(err, store.ErrNotFound) {
		if a.external == nil {
			return nil, errBadPassword
		}
		// A directory's user signs in for the first time.
		u, err := a.external.SignInNew(ctx, user, pass)
		if err != nil {
			return nil, externalError(ctx, err)
		}
		return &Principal{User: u, Method: MethodBasicPassword}, nil
	}
	if err != nil {
		return nil, errs.Wrap(err, "load user")
	}
	if u.Type != store.UserTypeIndividual {
		return nil, errBadPassword
	}
	if u.LoginSource > 0 {
		// The source judges the password; forge stores none.
		if a.external == nil {
			return nil, errBadPassword
		}
		if u, err = a.external.Verify(ctx, u, pass); err != nil {
			return nil, externalError(ctx, err)
		}
	} else {
		if u.PasswdHash == "" {
			return nil, errBadPassword
		}
		ok, err := a.hashes.Check(ctx, u.PasswdHash, pass)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, errBadPassword
		}
	}
	if u.TOTPSecret != nil {
		if err := a.checkOTP(ctx, u, otp); err != nil {
			return nil, err
		}
	}
	return &Principal{User: u, Method: MethodBasicPassword}, nil
}

// externalError is the refusal of a sign-in a login source did not
// accept: a wrong password 401 in the words of a local one, a source that
// cannot answer 401 errSourceDown (logged), anything else internal.
func externalError(ctx context.Context, err error) error {
	switch errs.KindOf(err) {
	case errs.Unauthenticated:
		return errBadPassword
	case errs.Unavailable:
		slog.WarnContext(ctx, "login source unavailable", "err", err)
		return errSourceDown
	}
	return errs.Wrap(err, "sign in through login source")
}

// OTPError refuses Basic password authentication of a TOTP user without a
// valid one-time code. It is Unauthenticated (it unwraps to errOTPInvalid);
// other transports (git smart HTTP) recognise it with errors.As and answer
// in their own words.
type OTPError struct {
	// Missing: no code was sent at all (what git and a first SDK call do).
	Missing bool
}

func (e *OTPError) Error() string { return OTPInvalidMessage }

// Unwrap gives the error its kind and message.
func (e *OTPError) Unwrap() error { return errOTPInvalid }

var errOTPInvalid = errs.New(errs.Unauthenticated, OTPInvalidMessage)

var (
	errBadOTP     error = &OTPError{}
	errOTPMissing error = &OTPError{Missing: true}
)

// otpCode is the X-Gitea-OTP value and whether this call spends it.
type otpCode struct {
	code  string
	spend bool
}

// checkOTP accepts a valid code once: its time step is claimed in the
// database, so a replay (on this or another process) is refused. A call
// that does not spend it (a caller-independent method, such as the
// version probe Gitea's SDK sends with every client's credentials) only
// checks it; the same code then still works for the next call.
func (a *Authenticator) checkOTP(ctx context.Context, u *store.User, otp otpCode) error {
	code := strings.TrimSpace(otp.code)
	if code == "" {
		return errOTPMissing
	}
	if a.totp == nil {
		return errBadOTP
	}
	step, ok := a.totp.Match(u.TOTPSecret, code)
	if !ok {
		return errBadOTP
	}
	if !otp.spend {
		return nil
	}
	claimed, err := a.store.ClaimTOTPStep(ctx, u.ID, step)
	if err != nil {
		return errs.Wrap(err, "claim TOTP step")
	}
	if !claimed {
		return errBadOTP
	}
	return nil
}

// verify is Gitea's global check on every authenticated request.
func (a *Authenticator) verify(u *store.User) error {
	if !u.IsActive || u.ProhibitLogin {
		return errs.New(errs.PermissionDenied, "This account is prohibited from signing in, please contact your site administrator.")
	}
	if u.MustChangePassword {
		return errs.New(errs.PermissionDenied, a.mustChangeMessage)
	}
	return nil
}

// remoteIP is the client's address: the TCP peer for gRPC clients; for
// calls from the in-process REST gateway, and for the git HTTP endpoint
// (which calls Authenticate directly, without any gRPC transport, hence no
// peer), the HTTP client address the gateway passed along.
func remoteIP(ctx context.Context, fromGateway string) net.IP {
	addr := fromGateway
	if pr, ok := peer.FromContext(ctx); ok && pr.Addr != nil && pr.Addr.Network() != "inproc" {
		addr = pr.Addr.String()
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		host = addr
	}
	return net.ParseIP(host)
}
