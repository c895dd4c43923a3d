package app_test

import (
	"context"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"

	"forge/services/auth"
)

// The part of the authorization matrix for methods that declare no
// resource (the caller's own things, users, site administration): every
// such method is called by every kind of caller, with the request's
// username (a self-or-admin method's subject) the caller's own or
// another's and nothing else set; a caller the policy refuses must get
// the interceptor's code and Gitea's message, every other must get
// through (see TestAuthorizationMatrix).

// userCaller is a kind of caller for methods without a resource.
type userCaller struct {
	name          string
	authorization string // the Authorization header, "" for anonymous
	user          string // the caller, "" for anonymous
	admin         bool
	basic         bool // HTTP Basic (the token methods take nothing else)
	lacksScope    bool
	asks          string // the username a self-or-admin request names
}

type userMatrix struct {
	callers []userCaller
}

// newUserMatrix makes alice's callers (her token, her password, a token
// of hers lacking every scope a method needs, by header and as a Basic
// password) and the site administrator's, asking about alice or, to be
// refused, about stranger.
func newUserMatrix(t *testing.T, s *testServer, aliceTok string) *userMatrix {
	noScope := s.createToken(t, "alice", "alice-password", "no-user-scope", "read:misc") // misc: a category no method needs
	return &userMatrix{callers: []userCaller{
		{name: "anonymous", asks: "alice"},
		{name: "alice by token", authorization: "token " + aliceTok, user: "alice", asks: "alice"},
		{name: "alice by token, about another user", authorization: "token " + aliceTok, user: "alice", asks: "stranger"},
		{name: "alice by password", authorization: basic("alice", "alice-password"), user: "alice", basic: true, asks: "alice"},
		{name: "alice by password, about another user", authorization: basic("alice", "alice-password"), user: "alice", basic: true, asks: "stranger"},
		{name: "site admin by token", authorization: "token " + s.AdminToken, user: "root", admin: true, asks: "alice"},
		{name: "site admin by password", authorization: basic("root", rootPassword), user: "root", admin: true, basic: true, asks: "alice"},
		{name: "token lacking the scope", authorization: "token " + noScope, user: "alice", lacksScope: true, asks: "alice"},
		{name: "token lacking the scope, as a password", authorization: basic("alice", noScope), user: "alice", basic: true, lacksScope: true, asks: "alice"},
	}}
}

// expect is the code and message a call by c must get, in the
// interceptor's order: who may call (Access), Basic-only, token scopes.
func (c userCaller) expect(pol auth.Policy) (codes.Code, string) {
	signedIn := c.user != ""
	switch pol.Access {
	case auth.SignedIn:
		if !signedIn {
			return codes.Unauthenticated, "token is required"
		}
	case auth.SiteAdmin:
		if !signedIn {
			return codes.Unauthenticated, "token is required"
		}
		if !c.admin {
			return codes.PermissionDenied, "user should be the site admin"
		}
	case auth.SelfOrAdmin:
		if !signedIn || !(c.admin || c.asks == c.user) {
			return codes.PermissionDenied, "doer should be the site admin or be same as the contextUser"
		}
	}
	if pol.BasicOnly && !c.basic {
		return codes.Unauthenticated, "auth required"
	}
	if c.lacksScope && len(pol.Scopes) > 0 {
		return codes.PermissionDenied, "token does not have at least one of required scope(s): " + requiredScopeList(pol)
	}
	return codes.OK, ""
}

// requiredScopeList is the scope list Gitea's refusal names.
func requiredScopeList(pol auth.Policy) string {
	level := "read:"
	if pol.Level == auth.LevelWrite {
		level = "write:"
	}
	names := make([]string, len(pol.Scopes))
	for i, c := range pol.Scopes {
		names[i] = level + c.String()
	}
	return "[" + strings.Join(names, " ") + "]"
}

// check runs method as every caller, counting the calls in count.
func (m *userMatrix) check(t *testing.T, mx *matrix, md protoreflect.MethodDescriptor, method string, pol auth.Policy, count *matrixCount) {
	// No resource, so no 404 is a refusal: a status that is never a
	// method's answer stands for "hidden".
	none := status.New(codes.OK, "")
	for _, c := range m.callers {
		req := dynamicpb.NewMessage(md.Input())
		if f := md.Input().Fields().ByName("username"); pol.Access == auth.SelfOrAdmin {
			if f == nil || f.Kind() != protoreflect.StringKind {
				t.Fatalf("%s: a self-or-admin method's request needs a string username field", method)
			}
			req.Set(f, protoreflect.ValueOfString(c.asks))
		}
		ctx := context.Background()
		if c.authorization != "" {
			ctx = metadata.AppendToOutgoingContext(ctx, "authorization", c.authorization)
		}
		err := mx.invokeCtx(ctx, md, method, req)
		want, msg := c.expect(pol)
		if want == codes.OK {
			count.allowed++
			if why := refusal(err, none); why != "" {
				t.Errorf("%s as %s: %s (%v); the policy lets this caller through", method, c.name, why, err)
			}
			continue
		}
		count.refused++
		got := status.Convert(err)
		if got.Code() != want || (msg != "" && got.Message() != msg) {
			t.Errorf("%s as %s: %v, want %v %q", method, c.name, err, want, msg)
		}
	}
}
