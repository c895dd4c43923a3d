package gateway

import (
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

var templateVar = regexp.MustCompile(`\{([A-Za-z0-9_.]+)(=\*\*)?\}`)

// TestPreflightSeesEveryRoute: for every route declared in the protos
// (option (google.api.http)) and every hand-written route (raw files,
// attachments) the guard learns the gRPC method the request is routed
// to, before the generated handler runs; a route it missed would reach the
// services' decoder unchecked.
func TestPreflightSeesEveryRoute(t *testing.T) {
	var asked string
	stop := status.Error(codes.Unauthenticated, "stop here")
	h, err := NewHandler(withServices(Options{RootURL: "http://forge.test/", Preflight: func(method string, md metadata.MD) error {
		asked = method
		return stop
	}}), nil)
	if err != nil {
		t.Fatal(err)
	}
	routes, err := loadRoutes()
	if err != nil {
		t.Fatal(err)
	}
	if len(routes) < 40 {
		t.Fatalf("only %d routes learned", len(routes))
	}
	for key, want := range routes {
		method, tmpl, _ := strings.Cut(key, " ")
		path := templateVar.ReplaceAllStringFunc(tmpl, func(v string) string {
			if strings.HasSuffix(v, "=**}") {
				return "dir/file.txt"
			}
			return "v" + strings.Trim(v, "{}=*")
		})
		asked = ""
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(method, path, strings.NewReader("{}")))
		if asked != want {
			t.Errorf("%s %s: preflight asked about %q, want %q (status %d)", method, path, asked, want, rec.Code)
			continue
		}
		if rec.Code != http.StatusUnauthorized {
			t.Errorf("%s %s: status %d, want the preflight's 401", method, path, rec.Code)
		}
	}
}

// TestBodyLimit: a body longer than the limit is refused with 413 whether
// it declares its length or not, and the reader stops at the limit.
func TestBodyLimit(t *testing.T) {
	h, err := NewHandler(withServices(Options{RootURL: "http://forge.test/", MaxBodySize: 1000, Preflight: func(string, metadata.MD) error { return nil }}), nil)
	if err != nil {
		t.Fatal(err)
	}
	huge := `{"name":"` + strings.Repeat("a", 1<<20) + `"}`
	for _, declared := range []bool{true, false} {
		body := &countingReader{r: strings.NewReader(huge)}
		req := httptest.NewRequest(http.MethodPost, "/api/v1/user/repos", body)
		req.Header.Set("Content-Type", "application/json")
		if !declared {
			req.ContentLength = -1
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusRequestEntityTooLarge || !strings.Contains(rec.Body.String(), `"message":"request body too large`) {
			t.Errorf("declared=%v: %d %s", declared, rec.Code, rec.Body)
		}
		if body.n > 1001 {
			t.Errorf("declared=%v: read %d bytes of the body", declared, body.n)
		}
	}
}

type countingReader struct {
	r interface{ Read([]byte) (int, error) }
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}
