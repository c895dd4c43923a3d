package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"forge/services/errs"
	"forge/services/rpcerr"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// failingConn answers every call with err.
type failingConn struct{ err error }

func (c failingConn) Invoke(context.Context, string, any, any, ...grpc.CallOption) error {
	return c.err
}

func (c failingConn) NewStream(context.Context, *grpc.StreamDesc, string, ...grpc.CallOption) (grpc.ClientStream, error) {
	return nil, c.err
}

// TestErrorsWithoutRPCWrapper: whatever shape a service error has, a REST
// client reads the status's message, not grpc-go's "rpc error: code = ...
// desc = ..." rendering, and gets the status's HTTP code.
func TestErrorsWithoutRPCWrapper(t *testing.T) {
	notFound := status.Error(codes.NotFound, "repository does not exist")
	for _, err := range []error{
		notFound,
		fmt.Errorf("lookup: %w", notFound),
		status.Errorf(codes.NotFound, "lookup: %v", notFound),
	} {
		h, herr := NewHandler(withServices(Options{RootURL: "http://forge.test/"}), failingConn{err})
		if herr != nil {
			t.Fatal(herr)
		}
		for _, path := range []string{"/api/v1/repos/o/r", "/api/v1/repos/o/r/raw/README.md"} {
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
			body := rec.Body.String()
			if rec.Code != http.StatusNotFound || strings.Contains(body, "rpc error") || !strings.Contains(body, "repository does not exist") {
				t.Errorf("%s with %v: %d %s", path, err, rec.Code, body)
			}
		}
	}
}

// TestDeclaredHTTPStatus: the status a service declares on its error wins
// over the code's default on every route, with no per-method table.
func TestDeclaredHTTPStatus(t *testing.T) {
	cases := []struct {
		err  error
		want int
	}{
		{rpcerr.Status(errs.New(errs.AlreadyExists, "taken")), http.StatusUnprocessableEntity},
		{rpcerr.Status(errs.New(errs.AlreadyExists, "taken").WithHTTPStatus(http.StatusConflict)), http.StatusConflict},
		{rpcerr.Status(errs.New(errs.Conflict, "moved")), http.StatusConflict},
		{rpcerr.Status(errs.New(errs.Locked, "archived")), http.StatusLocked},
		{rpcerr.Status(errors.New("driver: connection reset")), http.StatusInternalServerError},
	}
	for _, c := range cases {
		h, err := NewHandler(withServices(Options{RootURL: "http://forge.test/"}), failingConn{c.err})
		if err != nil {
			t.Fatal(err)
		}
		for _, path := range []string{"/api/v1/repos/o/r", "/api/v1/repos/o/r/commits"} {
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
			if rec.Code != c.want || strings.Contains(rec.Body.String(), "driver") {
				t.Errorf("%s with %v: %d %s, want %d", path, c.err, rec.Code, rec.Body, c.want)
			}
		}
	}
}

// TestErrorBodyFields: the members an error declares (errs.Error.Fields)
// are written beside Gitea's message on any route, and cannot replace the
// standard members.
func TestErrorBodyFields(t *testing.T) {
	e := errs.New(errs.Invalid, "Topic names are invalid").
		WithFields(map[string]any{"invalidTopics": []string{"-a"}, "message": "not this", "url": "nor this"})
	h, err := NewHandler(withServices(Options{RootURL: "http://forge.test/"}), failingConn{rpcerr.Status(e)})
	if err != nil {
		t.Fatal(err)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/api/v1/repos/o/r", nil))
	var body map[string]any
	if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"invalidTopics": []any{"-a"}, "message": "Topic names are invalid", "url": "http://forge.test/api/swagger"}
	if rec.Code != http.StatusUnprocessableEntity || !reflect.DeepEqual(body, want) {
		t.Fatalf("%d %s", rec.Code, rec.Body)
	}
}
