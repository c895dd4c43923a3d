package rpcerr

import (
	"reflect"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"forge/services/errs"
)

// An error's body fields reach gRPC clients as a Struct detail, beside the
// ErrorInfo, and come back out for the gateway; errors without fields
// carry none.
func TestBodyFields(t *testing.T) {
	sentinel := errs.New(errs.Invalid, "Topic names are invalid")
	err := Status(sentinel.WithFields(map[string]any{"invalidTopics": []string{"-a", "b c"}, "none": nil}))
	st := status.Convert(err)
	if st.Code() != codes.InvalidArgument || st.Message() != "Topic names are invalid" {
		t.Fatalf("status %v %q", st.Code(), st.Message())
	}
	want := map[string]any{"invalidTopics": []any{"-a", "b c"}, "none": nil}
	if got := BodyFields(err); !reflect.DeepEqual(got, want) {
		t.Fatalf("body fields %#v, want %#v", got, want)
	}
	if len(st.Details()) != 2 {
		t.Fatalf("details %v, want the ErrorInfo and the fields", st.Details())
	}
	// The gateway may be handed the domain error itself.
	if got := BodyFields(sentinel.WithFields(map[string]any{"invalidTopics": "x"})); !reflect.DeepEqual(got, map[string]any{"invalidTopics": "x"}) {
		t.Fatalf("body fields of a domain error %#v", got)
	}
	if got := BodyFields(Status(sentinel)); got != nil {
		t.Fatalf("an error without fields has %v", got)
	}
}
