package auth

import (
	"context"
	"errors"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"forge/services/config"
	"forge/services/rpcerr"
	"forge/services/store"
)

type resolvedKey struct{}

// fakeResources refuses the repository "secret" and otherwise records the
// request it resolved in the context.
type fakeResources struct{ calls int }

func (f *fakeResources) AuthorizeResource(ctx context.Context, pol Policy, req any, _ *Principal) (context.Context, error) {
	f.calls++
	name := req.(*string)
	if *name == "secret" {
		return nil, status.Error(codes.NotFound, "The target couldn't be found.")
	}
	return context.WithValue(ctx, resolvedKey{}, *name), nil
}

// recvStream is a server stream whose one request message is a string.
type recvStream struct {
	grpc.ServerStream
	msg string
}

func (s *recvStream) Context() context.Context { return context.Background() }
func (s *recvStream) RecvMsg(m any) error      { *m.(*string) = s.msg; return nil }

// TestResourceAuthorization: a method declaring a resource is resolved
// before its handler runs, for unary calls and, on the first message, for
// streams; without a resolver it is refused (fail closed).
func TestResourceAuthorization(t *testing.T) {
	pols := Policies{
		"/p/Repo": {Access: Public, Level: LevelRead, Resource: Resource{Kind: RepositoryResource, Unit: UnitCode, Need: store.AccessRead}},
		"/p/None": {Access: Public, Level: LevelRead},
	}
	res := &fakeResources{}
	a := NewAuthenticator(config.Default(), nil, pols, nil, nil).WithResources(res)
	ctx := metadata.NewIncomingContext(context.Background(), metadata.MD{})
	ran := false
	handler := func(ctx context.Context, req any) (any, error) {
		ran = true
		return ctx.Value(resolvedKey{}), nil
	}
	for _, name := range []string{"open", "secret"} {
		ran = false
		got, err := a.Unary(ctx, &name, &grpc.UnaryServerInfo{FullMethod: "/p/Repo"}, handler)
		if name == "open" && (err != nil || got != "open" || !ran) {
			t.Fatalf("open: %v %v %v", got, err, ran)
		}
		if name == "secret" && (status.Code(err) != codes.NotFound || ran) {
			t.Fatalf("secret: %v, handler ran %v", err, ran)
		}
	}
	if _, err := a.Unary(ctx, new(string), &grpc.UnaryServerInfo{FullMethod: "/p/None"}, handler); err != nil || res.calls != 2 {
		t.Fatalf("no resource: %v, resolver calls %d", err, res.calls)
	}

	stream := func(msg string) (string, error) {
		var seen string
		err := a.Stream(nil, &recvStream{msg: msg}, &grpc.StreamServerInfo{FullMethod: "/p/Repo", IsServerStream: true},
			func(_ any, ss grpc.ServerStream) error {
				var m string
				if err := ss.RecvMsg(&m); err != nil {
					return err
				}
				seen, _ = ss.Context().Value(resolvedKey{}).(string)
				return nil
			})
		return seen, err
	}
	if seen, err := stream("open"); err != nil || seen != "open" {
		t.Fatalf("stream open: %q %v", seen, err)
	}
	if _, err := stream("secret"); status.Code(err) != codes.NotFound {
		t.Fatalf("stream secret: %v", err)
	}

	closed := NewAuthenticator(config.Default(), nil, pols, nil, nil)
	name := "open"
	if _, err := closed.Unary(ctx, &name, &grpc.UnaryServerInfo{FullMethod: "/p/Repo"}, handler); status.Code(rpcerr.Status(err)) != codes.PermissionDenied {
		t.Fatalf("no resolver: %v", err)
	}
}

// TestOTPErrorIsTyped: the refusal for a missing or wrong one-time code is
// recognised by type (git smart HTTP answers it in its own words) and is
// still Unauthenticated, with its message, on the wire.
func TestOTPErrorIsTyped(t *testing.T) {
	for _, err := range []error{errBadOTP, errOTPMissing} {
		var otp *OTPError
		st := status.Convert(rpcerr.Status(err))
		if !errors.As(err, &otp) || st.Code() != codes.Unauthenticated || st.Message() != OTPInvalidMessage {
			t.Fatalf("%v", err)
		}
	}
}
