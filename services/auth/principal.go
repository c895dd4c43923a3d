package auth

import (
	"context"

	"forge/services/store"
)

// Method is how a caller authenticated.
type Method int

const (
	MethodToken         Method = iota + 1 // Authorization: token/Bearer, or query token
	MethodBasicPassword                   // Basic with the account password (+ OTP)
	MethodBasicToken                      // Basic with a token as password
	MethodReverseProxy                    // trusted reverse-proxy header
	MethodLocal                           // the forge command line, which has the database anyway
	MethodSSHKey                          // an SSH key (services/sshd): a user's key or a deploy key
)

// Principal is the authenticated caller.
type Principal struct {
	User   *store.User
	Method Method
	// Token and Scopes are set for token authentication (header, query or
	// Basic); scopes are enforced only then.
	Token  *store.AccessToken
	Scopes Scopes
	// Sudoer is the site administrator who authenticated and acts as User
	// (sudo), nil otherwise. Token and Scopes stay the administrator's,
	// so the token still bounds what may be done.
	Sudoer *store.User
	// Deploy is set for a deploy key signed in over SSH: User is then a
	// placeholder without id, and the key reaches only its repositories,
	// each at its mode (access.Checker).
	Deploy *DeployKey
}

// DeployKey is what a deploy key may reach: repository id → its mode
// there (store.AccessRead or store.AccessWrite).
type DeployKey struct {
	KeyID int64
	Repos map[int64]store.AccessMode
}

// IsAdmin reports whether the caller is a site administrator.
func (p *Principal) IsAdmin() bool { return p != nil && p.Deploy == nil && p.User.IsAdmin }

// ID is the caller's user id, 0 when anonymous.
func (p *Principal) ID() int64 {
	if p == nil {
		return 0
	}
	return p.User.ID
}

// PublicOnly reports whether a public-only token restricts the caller to
// public repositories and organizations.
func (p *Principal) PublicOnly() bool { return p != nil && p.Token != nil && p.Scopes.PublicOnly }

type principalKey struct{}

// FromContext returns the caller, or nil when anonymous.
func FromContext(ctx context.Context) *Principal {
	p, _ := ctx.Value(principalKey{}).(*Principal)
	return p
}

// NewContext attaches a principal; used by the interceptor and by tests of
// service packages.
func NewContext(ctx context.Context, p *Principal) context.Context {
	return context.WithValue(ctx, principalKey{}, p)
}
