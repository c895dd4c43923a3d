package auth

import (
	"encoding/base64"
	"errors"
	"strings"
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
