package auth

import (
	"strings"

	"forge/services/errs"
)

// Covers reports whether s grants everything other does: every category at
// least at other's level (write covers read), and no wider visibility (a
// public-only set covers only public-only sets).
func (s Scopes) Covers(other Scopes) bool {
	if s.PublicOnly && !other.PublicOnly {
		return false
	}
	for c, l := range other.levels {
		if s.levels[c] < l {
			return false
		}
	}
	return true
}

// MayGrant checks that the caller's credential may hand out a new
// credential with the scopes want. A password (with its one-time code when
// enrolled, which the authenticator has checked) or a trusted reverse proxy
// may grant anything; a token grants at most what it holds itself, so a
// narrow or public-only token cannot mint a wider one. This applies to site
// administrators acting for other users too.
func MayGrant(p *Principal, want Scopes) error {
	if p == nil {
		return errAuthRequired
	}
	if p.Token == nil || p.Scopes.Covers(want) {
		return nil
	}
	return errs.Newf(errs.PermissionDenied,
		"the access token used to authenticate cannot grant scopes it does not have: requested [%s], token has [%s]",
		strings.Join(want.Names(), " "), strings.Join(p.Scopes.Names(), " "))
}
