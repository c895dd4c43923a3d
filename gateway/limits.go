package gateway

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
	"google.golang.org/grpc/metadata"

	"forge/services/accesslog"
	"forge/services/auth"
)

// Preflight is asked, before a request body is read, whether the call to
// the gRPC method with the caller's credentials md (authorization, query
// token, reverse-proxy header, sudo) is sure to be refused; a non-nil error is
// the refusal. The services decide; the gateway only asks, so an
// anonymous client cannot make the server read (and decode) a body for a
// method it may not call.
type Preflight func(method string, md metadata.MD) error

// guard is the mux middleware that runs once the route is matched and
// before the generated handler decodes the body: it refuses callers the
// services would refuse anyway, then declared bodies over the limit.
func (g *gateway) guard(next runtime.HandlerFunc) runtime.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request, params map[string]string) {
		method, routed := "", false
		if pat, ok := runtime.HTTPPattern(r.Context()); ok {
			accesslog.SetRoute(r.Context(), pat.String())
			method, routed = g.routes.lookup(r.Method, pat.String())
		}
		if g.admit(w, r, method, routed) {
			next(w, r, params)
		}
	}
}

// admit is the guard's check of a request routed to the gRPC method
// (routed: the method is known); false: it has answered.
func (g *gateway) admit(w http.ResponseWriter, r *http.Request, method string, routed bool) bool {
	// The preflight exists so that a body is never read for a caller
	// the interceptor would refuse; without a body the interceptor
	// gives the same answer, so bodiless requests (most reads) skip it.
	if g.opts.Preflight != nil && r.ContentLength != 0 && routed {
		if err := g.opts.Preflight(method, g.credentials(r)); err != nil {
			g.writeServiceError(w, err)
			return false
		}
	}
	max := g.opts.MaxBodySize
	if routed && isUpload(method) {
		// An attachment upload streams a file that may be far larger
		// than an API body; it gets its own limit, and its read
		// deadline bounds silence rather than the whole transfer.
		max = g.uploadLimit()
		if lb, ok := r.Context().Value(bodyKey{}).(*limitedBody); ok {
			lb.forUpload(max)
		}
	}
	if max > 0 && r.ContentLength > max {
		g.writeError(w, http.StatusRequestEntityTooLarge, tooLargeMessage(max))
		return false
	}
	return true
}

// uploadLimit is the body limit of attachment uploads: the largest file
// plus the multipart framing.
func (g *gateway) uploadLimit() int64 {
	if g.opts.UploadMaxSize <= 0 {
		return g.opts.MaxBodySize
	}
	return g.opts.UploadMaxSize + multipartSlack
}

// credentials is what the services read to identify a REST caller.
func (g *gateway) credentials(r *http.Request) metadata.MD {
	md := metadata.MD{}
	if v := r.Header.Get(auth.HeaderAuthorization); v != "" {
		md.Set(auth.MDAuthorization, v)
	}
	if tok, _ := r.Context().Value(queryTokenKey).(string); tok != "" {
		md.Set(auth.MDQueryToken, tok)
	}
	if v := r.Header.Get(auth.HeaderSudo); v != "" {
		md.Set(auth.MDSudo, v)
	}
	if g.proxyKey != "" {
		if v := r.Header.Get(g.proxyKey); v != "" {
			md.Set(g.opts.ReverseProxyHeader, v)
		}
	}
	return md
}

func tooLargeMessage(max int64) string {
	return fmt.Sprintf("request body too large: the limit is %d bytes", max)
}

var errBodyTooLarge = errors.New("request body too large")

// limitedBody ends a request body at max bytes: the read that would pass
// the limit fails and cancels the request, so neither the decoder nor
// grpc-gateway's drain of trailing bytes reads further, and the error
// handler answers 413. At the end of the body the API read deadline is
// lifted: it bounds reading the request, not the work that follows.
type limitedBody struct {
	body     io.ReadCloser
	left     int64
	max      int64
	cancel   context.CancelCauseFunc
	atEOF    func()
	exceeded bool
	timedOut bool // the read deadline passed before the body arrived
	// rc and timeout set the read deadline; with progress, every read
	// that returns data pushes it timeout further (uploads).
	rc       *http.ResponseController
	timeout  time.Duration
	progress bool
}

// forUpload raises the limit to max (0: none) and turns the read deadline
// into a progress deadline.
func (b *limitedBody) forUpload(max int64) {
	b.max = max
	b.left = max
	if max <= 0 {
		b.left = 1<<63 - 2
	}
	b.progress = b.rc != nil
}

func (b *limitedBody) Read(p []byte) (int, error) {
	if b.exceeded {
		return 0, errBodyTooLarge
	}
	if int64(len(p)) > b.left+1 {
		p = p[:b.left+1] // one byte past the limit tells "too large" from "exactly max"
	}
	n, err := b.body.Read(p)
	if int64(n) > b.left {
		b.exceeded = true
		b.cancel(errBodyTooLarge)
		return int(b.left), errBodyTooLarge
	}
	b.left -= int64(n)
	if b.progress && n > 0 && b.atEOF != nil {
		b.rc.SetReadDeadline(time.Now().Add(b.timeout))
	}
	if ne, ok := err.(net.Error); ok && ne.Timeout() {
		b.timedOut = true
	}
	if err == io.EOF && b.atEOF != nil {
		b.atEOF()
		b.atEOF = nil
	}
	return n, err
}

func (b *limitedBody) Close() error { return b.body.Close() }

type bodyKey struct{}

// limitBody wraps r's body with the size limit and the read deadline.
func (g *gateway) limitBody(w http.ResponseWriter, r *http.Request) *http.Request {
	if r.Body == nil || r.Body == http.NoBody {
		return r // nothing to read, nothing to time out
	}
	ctx, cancel := context.WithCancelCause(r.Context())
	lb := &limitedBody{body: r.Body, left: g.opts.MaxBodySize, max: g.opts.MaxBodySize, cancel: cancel}
	if lb.max <= 0 {
		lb.left = 1<<63 - 2
	}
	if d := g.opts.ReadTimeout; d > 0 {
		rc := http.NewResponseController(w)
		if rc.SetReadDeadline(time.Now().Add(d)) == nil {
			lb.atEOF = func() { rc.SetReadDeadline(time.Time{}) }
			lb.rc, lb.timeout = rc, d
		}
	}
	r = r.WithContext(context.WithValue(ctx, bodyKey{}, lb))
	r.Body = lb
	return r
}

// bodyFailure is the status and message for a request whose body could
// not be read whole: over the limit (413) or not in time (408).
func bodyFailure(ctx context.Context) (int, string, bool) {
	lb, ok := ctx.Value(bodyKey{}).(*limitedBody)
	switch {
	case !ok:
		return 0, "", false
	case lb.exceeded:
		return http.StatusRequestEntityTooLarge, tooLargeMessage(lb.max), true
	case lb.timedOut:
		return http.StatusRequestTimeout, "request body not received in time", true
	}
	return 0, "", false
}
