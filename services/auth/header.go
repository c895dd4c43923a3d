package auth

import (
	"encoding/base64"
	"errors"
	"strings"
)

// Where a caller puts its credentials, named once for the gateway (which
// reads HTTP requests) and the interceptor (which reads gRPC metadata).
// The reverse-proxy header is a setting, [security]
// REVERSE_PROXY_AUTHENTICATION_USER.
const (
	// HeaderAuthorization carries "token T", "Bearer T" or "Basic …"
	// (ParseAuthorization).
	HeaderAuthorization = "Authorization"
	// HeaderOTP carries the TOTP code that goes with a Basic password:
	// Gitea's X-Gitea-OTP, in the canonical form net/http keys headers by.
	HeaderOTP = "X-Gitea-Otp"
	// QueryToken and QueryAccessToken are the deprecated query parameters
	// carrying a token (refused with [security] DISABLE_QUERY_AUTH_TOKEN).
	QueryToken       = "token"
	QueryAccessToken = "access_token"
	// HeaderSudo and QuerySudo name the user a site administrator acts as
	// (Gitea's sudo); the query parameter wins over the header.
	HeaderSudo = "Sudo"
	QuerySudo  = "sudo"
)

// Metadata keys the interceptor reads. MDAuthorization and MDOTP are the
// headers above as gRPC carries them (lower case); the others are set by
// the REST gateway on in-process calls, and it never forwards client
// headers with their names.
const (
	MDAuthorization = "authorization"
	MDOTP           = "x-gitea-otp"
	MDQueryToken    = "x-forge-query-token"
	MDRemoteAddr    = "x-forge-remote-addr"
	// MDSudo is the user to act as: the Sudo header (or the sudo query
	// parameter) from the gateway, or a gRPC client's own metadata.
	MDSudo = "sudo"
)

// Scheme is the kind of credential an Authorization header carries.
type Scheme int

const (
	SchemeNone  Scheme = iota // no header, or a scheme forge does not read
	SchemeToken               // "token X" (exact case, as Gitea) or "Bearer X" (any case)
	SchemeBasic               // "Basic base64(user:password)" (any case)
)

// Credentials is a parsed Authorization header.
type Credentials struct {
	Scheme Scheme
	Token  string // SchemeToken
	User   string // SchemeBasic
	Pass   string // SchemeBasic; everything after the first colon
}

// ErrMalformedBasic is a Basic header whose payload is not base64.
var ErrMalformedBasic = errors.New("malformed Basic authorization header")

// ParseAuthorization reads an Authorization header value. It only parses:
// whether a token or password is valid is for the authenticator to say.
func ParseAuthorization(header string) (Credentials, error) {
	scheme, cred, _ := strings.Cut(header, " ")
	cred = strings.TrimSpace(cred)
	switch {
	case scheme == "token" || strings.EqualFold(scheme, "bearer"):
		return Credentials{Scheme: SchemeToken, Token: cred}, nil
	case strings.EqualFold(scheme, "basic"):
		raw, err := base64.StdEncoding.DecodeString(cred)
		if err != nil {
			return Credentials{}, ErrMalformedBasic
		}
		user, pass, _ := strings.Cut(string(raw), ":")
		return Credentials{Scheme: SchemeBasic, User: user, Pass: pass}, nil
	}
	return Credentials{}, nil
}
