// Package accesslog records one line per request, whatever the transport
// (REST, git over HTTP, gRPC, git over SSH), and feeds the same
// observations to the metrics. A request's Entry travels in its context:
// the layers that learn the route pattern (the gateway) and the caller
// (the interceptor) fill it in, the outermost layer writes it when the
// request ends.
package accesslog

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fullstorydev/grpchan/inprocgrpc"
)

// Entry is one request as the access log writes it.
type Entry struct {
	Start     time.Time
	Transport string // http, grpc, ssh
	Method    string // HTTP method, gRPC method, or SSH
	Path      string // the path, query tokens and credentials removed
	Remote    string
	RequestID string
	// Bytes counts a streamed answer's bytes as they go (git over SSH);
	// Finish records the total.
	Bytes atomic.Int64

	mu     sync.Mutex
	route  string
	user   string
	status string
	bytes  int64
}

type entryKey struct{}

// NewContext attaches e.
func NewContext(ctx context.Context, e *Entry) context.Context {
	return context.WithValue(ctx, entryKey{}, e)
}

// FromContext is the request's entry, nil outside a logged request. A
// call over the in-process channel finds the entry of the HTTP request
// that made it.
func FromContext(ctx context.Context) *Entry {
	if e, ok := ctx.Value(entryKey{}).(*Entry); ok {
		return e
	}
	if cc := inprocgrpc.ClientContext(ctx); cc != nil {
		e, _ := cc.Value(entryKey{}).(*Entry)
		return e
	}
	return nil
}

// SetRoute records the route pattern that served the request
// ("/api/v1/repos/{owner}/{repo}"; grpc-gateway's one-segment variables
// "{owner=*}" are written the short way); the first one set stays.
func SetRoute(ctx context.Context, route string) {
	if e := FromContext(ctx); e != nil {
		route = strings.ReplaceAll(route, "=*}", "}")
		e.mu.Lock()
		if e.route == "" {
			e.route = route
		}
		e.mu.Unlock()
	}
}

// SetUser records who the request was made as.
func SetUser(ctx context.Context, name string) {
	if e := FromContext(ctx); e != nil {
		e.mu.Lock()
		e.user = name
		e.mu.Unlock()
	}
}

// Route is the recorded route pattern, "" when none matched.
func (e *Entry) Route() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.route
}

// Finish records the outcome.
func (e *Entry) Finish(status string, bytes int64) {
	e.mu.Lock()
	e.status, e.bytes = status, bytes
	e.mu.Unlock()
}

// Observer receives every finished request (the metrics).
type Observer interface {
	Observe(transport, method, route, status string, d time.Duration)
}

// Recorder writes finished entries to a logger (nil: no lines) and
// reports them to an observer (nil: none).
type Recorder struct {
	Log      *slog.Logger
	Observer Observer
}

// Done reports e, ended now, to the observer and writes its line.
func (r *Recorder) Done(e *Entry) {
	if r == nil {
		return
	}
	d := time.Since(e.Start)
	if r.Observer != nil {
		e.mu.Lock()
		route, status := e.route, e.status
		e.mu.Unlock()
		r.Observer.Observe(e.Transport, e.Method, route, status, d)
	}
	r.write(e, d)
}

// write writes e's line.
func (r *Recorder) write(e *Entry, d time.Duration) {
	if r.Log == nil {
		return
	}
	e.mu.Lock()
	route, user, status, bytes := e.route, e.user, e.status, e.bytes
	e.mu.Unlock()
	if route == "" {
		route = "-"
	}
	if user == "" {
		user = "-"
	}
	r.Log.LogAttrs(context.Background(), slog.LevelInfo, "access",
		slog.String("transport", e.Transport),
		slog.String("method", e.Method),
		slog.String("route", route),
		slog.String("path", e.Path),
		slog.String("status", status),
		slog.Int64("bytes", bytes),
		slog.Duration("duration", d),
		slog.String("user", user),
		slog.String("remote", e.Remote),
		slog.String("request_id", e.RequestID),
	)
}

// HeaderRequestID is the request id's header, on requests and answers.
const HeaderRequestID = "X-Request-Id"

// RequestID is the id of a request: the client's, when it is a sane one
// (at most 64 letters, digits, '-', '_', '.', ':'), else a new random one.
func RequestID(incoming string) string {
	if sane(incoming) {
		return incoming
	}
	var b [12]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

func sane(id string) bool {
	if id == "" || len(id) > 64 {
		return false
	}
	for _, c := range id {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '-', c == '_', c == '.', c == ':':
		default:
			return false
		}
	}
	return true
}

// secretParams are query parameters whose values are credentials.
var secretParams = map[string]bool{"token": true, "access_token": true, "password": true, "passwd": true,
	"secret": true, "otp": true, "code": true, "client_secret": true, "sig": true, "signature": true}

// CleanPath is u's path and query with credential values removed.
func CleanPath(u *url.URL) string {
	path := u.EscapedPath()
	if u.RawQuery == "" {
		return path
	}
	q, err := url.ParseQuery(u.RawQuery)
	if err != nil {
		return path + "?(unparsable query)"
	}
	for k := range q {
		if secretParams[strings.ToLower(k)] {
			q[k] = []string{"REDACTED"}
		}
	}
	return path + "?" + q.Encode()
}
