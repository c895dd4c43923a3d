package auth

import "strings"

// Access is who may call a method at all.
type Access int

const (
	// Public methods accept anonymous callers.
	Public Access = iota
	// SignedIn methods need an authenticated caller ("tok").
	SignedIn
	// SiteAdmin methods need a site administrator.
	SiteAdmin
	// SelfOrAdmin methods act on the user named by the request's username
	// field: the caller must be that user or a site administrator. An
	// anonymous caller is refused with 403, as Gitea does.
	SelfOrAdmin
)

// Policy is the declared rule for one gRPC method.
type Policy struct {
	Access Access
	// BasicOnly requires HTTP Basic (password or token as password) or
	// reverse-proxy authentication, checked after Access.
	BasicOnly bool
	// Scopes are the token scope categories required, all of them, at
	// Level; none means any token works.
	Scopes []Category
	Level  Level
	// CallerUnused marks a method whose answer is the same for every
	// caller (the version probe). Credentials are still checked, but a
	// one-time code is not spent, so a client sending the same code on
	// its probe and its next call is not refused.
	CallerUnused bool
}

// Policies maps full gRPC method names to their policy. Each service
// package declares its own next to its registration; cmd merges them.
type Policies map[string]Policy

// Merge returns the union of several tables; a method declared twice
// panics at start-up.
func Merge(tables ...Policies) Policies {
	out := Policies{}
	for _, t := range tables {
		for m, p := range t {
			if _, dup := out[m]; dup {
				panic("auth: policy declared twice for " + m)
			}
			out[m] = p
		}
	}
	return out
}

// infrastructure methods (reflection, health) need no policy.
func infrastructure(method string) bool {
	return strings.HasPrefix(method, "/grpc.reflection.") || strings.HasPrefix(method, "/grpc.health.")
}

// Read and Write are shorthands for policies.
func Read(access Access, cats ...Category) Policy {
	return Policy{Access: access, Scopes: cats, Level: LevelRead}
}

func Write(access Access, cats ...Category) Policy {
	return Policy{Access: access, Scopes: cats, Level: LevelWrite}
}
