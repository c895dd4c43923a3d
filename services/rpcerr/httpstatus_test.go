package rpcerr_test

import (
	"net/http"
	"testing"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"forge/services/errs"
	"forge/services/rpcerr"
)

func TestHTTPStatus(t *testing.T) {
	err := rpcerr.Status(errs.New(errs.Locked, "locked").WithReason("REPO_ARCHIVED"))
	st := status.Convert(err)
	if st.Code() != codes.FailedPrecondition || st.Message() != "locked" {
		t.Fatalf("status: %v", err)
	}
	if got, ok := rpcerr.HTTPStatus(st); !ok || got != http.StatusLocked {
		t.Fatalf("HTTPStatus: %d %v", got, ok)
	}
	// Plain statuses and other domains' details name no status.
	if _, ok := rpcerr.HTTPStatus(status.New(codes.NotFound, "x")); ok {
		t.Fatal("plain status has an HTTP status")
	}
	other, _ := status.New(codes.Aborted, "x").WithDetails(&errdetails.ErrorInfo{Domain: "elsewhere", Metadata: map[string]string{rpcerr.HTTPStatusKey: "423"}})
	if _, ok := rpcerr.HTTPStatus(other); ok {
		t.Fatal("a foreign ErrorInfo was honoured")
	}
}
