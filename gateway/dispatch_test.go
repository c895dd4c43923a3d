package gateway

import (
	"context"
	"net/http"
	"net/http/httptest"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

// recordingConn answers every call with NotFound and remembers the last
// method called.
type recordingConn struct{ method string }

func (c *recordingConn) Invoke(_ context.Context, method string, _, _ any, _ ...grpc.CallOption) error {
	c.method = method
	return status.Error(codes.NotFound, "not here: "+method)
}

func (c *recordingConn) NewStream(_ context.Context, _ *grpc.StreamDesc, method string, _ ...grpc.CallOption) (grpc.ClientStream, error) {
	c.method = method
	return nil, status.Error(codes.NotFound, "not here: "+method)
}

var routeVar = regexp.MustCompile(`\{([A-Za-z0-9_.]+)(=\*\*?)?\}`)

// routeRequest is a request for a route template, with "1" for a
// variable (numeric ids parse) and "dir/file.txt" for a multi-segment one.
func routeRequest(method, tmpl string) *http.Request {
	path := routeVar.ReplaceAllStringFunc(tmpl, func(v string) string {
		if strings.HasSuffix(v, "=**}") {
			return "dir/file.txt"
		}
		return "1"
	})
	return apiRequest(method, path)
}

func apiRequest(method, path string) *http.Request {
	var r *http.Request
	if method == http.MethodPost || method == http.MethodPut || method == http.MethodPatch {
		r = httptest.NewRequest(method, path, strings.NewReader("{}"))
		r.Header.Set("Content-Type", "application/json")
	} else {
		r = httptest.NewRequest(method, path, nil)
	}
	r.RemoteAddr = "192.0.2.1:1234"
	return r
}

func newTestGateway(t *testing.T, cc grpc.ClientConnInterface) *gateway {
	t.Helper()
	h, err := NewHandler(withServices(Options{
		RootURL:     "http://forge.test/",
		MaxBodySize: 1000,
		// refuses creations, so the guard's answer is compared too
		Preflight: func(method string, _ metadata.MD) error {
			if strings.Contains(method, "/Create") {
				return status.Error(codes.PermissionDenied, "no creating")
			}
			return nil
		},
	}), cc)
	if err != nil {
		t.Fatal(err)
	}
	return h.(*gateway)
}

// leftToMux are the routes whose path a newer pattern also matches, so
// that the mux answers them (with the same rpc).
var leftToMux = map[string]bool{
	// also .../contents/{filepath=**} with an empty filepath
	"GET /api/v1/repos/{owner=*}/{repo=*}/contents": true,
}

// TestDispatchReachesEveryRoute: every route declared in the protos and
// every hand-written one is found by the dispatcher, without the mux's
// scan, and its request reaches the route's rpc.
func TestDispatchReachesEveryRoute(t *testing.T) {
	cc := &recordingConn{}
	g := newTestGateway(t, cc)
	if g.dispatch == nil {
		t.Fatal("the dispatcher did not identify every handler of the mux")
	}
	for key, want := range g.routes {
		method, tmpl, _ := strings.Cut(key, " ")
		rt, _, ok := g.dispatch.match(routeRequest(method, tmpl))
		if ok == leftToMux[key] || ok && (rt.grpc != want || rt.pattern.String() != tmpl) {
			t.Errorf("%s: dispatched to %+v (found %v), want %s", key, rt, ok, want)
			continue
		}
		cc.method = ""
		rec := httptest.NewRecorder()
		g.ServeHTTP(rec, routeRequest(method, tmpl))
		if strings.Contains(want, "/Create") && method != http.MethodGet && method != http.MethodDelete {
			want = "" // refused by the preflight before the call
		}
		if cc.method != want {
			t.Errorf("%s: called %q, want %q (%d %s)", key, cc.method, want, rec.Code, rec.Body)
		}
	}
}

// TestDispatchAnswersAsTheMux: for every route's path, variants of it
// that match no route or another one, and unknown paths, under every
// method, the gateway answers exactly (status, headers, body, rpc called)
// as it does with grpc-gateway's ServeMux routing everything.
func TestDispatchAnswersAsTheMux(t *testing.T) {
	ccNew, ccOld := &recordingConn{}, &recordingConn{}
	fast := newTestGateway(t, ccNew)
	old := newTestGateway(t, ccOld)
	old.dispatch = nil
	if fast.dispatch == nil {
		t.Fatal("no dispatcher")
	}
	paths := []string{
		"/api/v1/", "/api/v1", "/api/v1/nope", "/api/v1/version/", "/api/v1//version",
		"/api/v1/version/x", "/api/v1/VERSION", "/api/v1/version:get", "/api/v1/user:x",
		"/api/v1/repos/o/r/raw/", "/api/v1/repos/o/r/raw", "/api/v1/repos/o/r/raw/a%2Fb",
		"/api/v1/repos/o%2Fx/r", "/api/v1/repos/o/r/contents/a//b/", "/api/v1/repos/o/r/branches/",
		"/api/v1/repos/o/r/issues/1/x/y/z", "/api/v1/repos/%25zz/r", "/attachments/", "/attachments/u/",
		"/api/v1/repos/o/r/releases/tags/v1/x", "/api/v1/repos/issues/search",
	}
	for key := range fast.routes {
		method, tmpl, _ := strings.Cut(key, " ")
		p := routeRequest(method, tmpl).URL.Path
		i := strings.LastIndex(p, "/")
		paths = append(paths, p, p+"/", p+"/x", p[:i], p[:i]+"//"+p[i+1:], p+":verb")
	}
	methods := []string{"GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS", "FOO"}
	for _, p := range paths {
		for _, m := range methods {
			ccNew.method, ccOld.method = "", ""
			got, want := httptest.NewRecorder(), httptest.NewRecorder()
			fast.ServeHTTP(got, apiRequest(m, p))
			old.ServeHTTP(want, apiRequest(m, p))
			if got.Code != want.Code || !reflect.DeepEqual(got.Header(), want.Header()) ||
				got.Body.String() != want.Body.String() || ccNew.method != ccOld.method {
				t.Errorf("%s %s: dispatched %d %v %q calling %q; mux %d %v %q calling %q", m, p,
					got.Code, got.Header(), got.Body, ccNew.method, want.Code, want.Header(), want.Body, ccOld.method)
			}
		}
	}
}

// TestRoutingCostIsFlat: finding a route costs the same wherever it is
// in the table. grpc-gateway's ServeMux tries the patterns of a method
// newest first, allocating for each, so the first route registered
// (/version) cost some 160 allocations more than the last (attachment
// downloads).
func TestRoutingCostIsFlat(t *testing.T) {
	h, err := NewHandler(withServices(Options{RootURL: "http://forge.test/"}), failingConn{status.Error(codes.NotFound, "no")})
	if err != nil {
		t.Fatal(err)
	}
	allocs := func(path string) float64 {
		return testing.AllocsPerRun(50, func() {
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
			if rec.Code != http.StatusNotFound {
				t.Fatalf("%s: %d %s", path, rec.Code, rec.Body)
			}
		})
	}
	first, last := allocs("/api/v1/version"), allocs("/attachments/some-uuid")
	if first > last+20 {
		t.Errorf("GET /api/v1/version: %.0f allocations, GET /attachments/{uuid}: %.0f", first, last)
	}
}

// TestDispatchOffWithUnknownHandler: a handler whose pattern is not in
// the route table could take precedence over a known route, so the mux
// routes everything, and the handler is reached.
func TestDispatchOffWithUnknownHandler(t *testing.T) {
	opts := withServices(Options{RootURL: "http://forge.test/"})
	opts.Services = append(opts.Services, func(_ context.Context, mux *runtime.ServeMux, _ grpc.ClientConnInterface) error {
		return mux.HandlePath(http.MethodGet, "/api/v1/{anything}", func(w http.ResponseWriter, _ *http.Request, p map[string]string) {
			w.Write([]byte("extra " + p["anything"]))
		})
	})
	h, err := NewHandler(opts, &recordingConn{})
	if err != nil {
		t.Fatal(err)
	}
	if h.(*gateway).dispatch != nil {
		t.Fatal("dispatching with a handler it does not know")
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/api/v1/version", nil))
	if rec.Code != http.StatusOK || rec.Body.String() != "extra version" {
		t.Errorf("%d %s", rec.Code, rec.Body)
	}
}
