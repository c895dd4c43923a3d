package gateway

import (
	"errors"
	"net/http"
	"net/url"
	"regexp"
	"strings"

	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
)

// grpc-gateway's ServeMux finds a request's handler by trying every
// pattern registered for its HTTP method in turn, newest first, each try
// allocating; with forge's 160 routes that scan cost more than the rest
// of an anonymous GET. The dispatcher below goes straight to the handler
// the mux would have chosen, and hands everything else (unknown paths
// and methods, and anything it cannot be sure of) to the mux itself, so
// 404, 405 and 400 answers are the mux's own.
//
// It knows the mux's handlers, their patterns and their precedence
// without reaching into grpc-gateway: a middleware (capture) sees every
// handler as the mux registers it, in registration order, and at start-up
// one request per known route (a probe, built from the route table) is
// sent through the mux to learn which handler, and which runtime.Pattern,
// answers it. A request is then matched by the same Pattern.MatchAndEscape
// the mux calls, on the same path components, against only the patterns
// whose literal segments fit the path (a trie), newest first: the mux's
// answer without the scan.

// muxUnescaping is the mux's path unescaping mode; the dispatcher matches
// with the same one (only the legacy mode matches on r.URL.Path).
const muxUnescaping = runtime.UnescapingModeLegacy

// capture is the innermost mux middleware: it records each handler in
// registration order and, while probing, reports which handler the mux
// chose instead of running it.
type capture struct {
	handlers []runtime.HandlerFunc
	probing  bool
	hit      *probeHit
}

type probeHit struct {
	index   int
	pattern runtime.Pattern
}

func (c *capture) middleware(next runtime.HandlerFunc) runtime.HandlerFunc {
	index := len(c.handlers)
	c.handlers = append(c.handlers, next)
	return func(w http.ResponseWriter, r *http.Request, params map[string]string) {
		if c.probing {
			pat, _ := runtime.HTTPPattern(r.Context())
			c.hit = &probeHit{index: index, pattern: pat}
			return
		}
		next(w, r, params)
	}
}

// route is one registered handler as the dispatcher calls it.
type route struct {
	method   string // HTTP
	template string // as Pattern.String() prints it
	pattern  runtime.Pattern
	// handler is the handler inside the mux's middlewares; nil: a request
	// this route could match is left to the mux.
	handler runtime.HandlerFunc
	grpc    string // the gRPC method (routeTable)
	order   int    // registration order: the mux tries later ones first
}

// node is a trie node on path segments.
type node struct {
	literal map[string]*node
	any     *node    // a one-segment variable
	end     []*route // patterns that end here
	deep    []*route // patterns with a multi-segment part from here on
}

type dispatcher struct {
	methods map[string]*node
	// verbs: some pattern has a ":verb" suffix; requests whose last
	// segment holds a colon go to the mux, which treats them specially.
	verbs bool
}

// newDispatcher probes mux for every route of the table. A route whose
// probe another pattern answers (GET .../contents is also matched by the
// newer .../contents/{filepath=**}) is left to the mux: a request it
// could match goes to the mux. A route whose probe nothing answers is not
// registered. It returns nil (every request goes to the mux) unless every
// handler of the mux was identified or is one of those left to the mux: a
// handler it does not know could take precedence. (Every handler's
// pattern is a route of the table: both come from the same declarations,
// and TestPreflightSeesEveryRoute holds them together.)
func newDispatcher(mux *runtime.ServeMux, c *capture, routes routeTable) *dispatcher {
	if muxUnescaping != runtime.UnescapingModeLegacy {
		return nil // the mux would match on r.URL.RawPath
	}
	found := make([]*route, len(c.handlers))
	identified := 0
	var shadowed []*route
	c.probing = true
	for key, grpcMethod := range routes {
		method, template, _ := strings.Cut(key, " ")
		r := &http.Request{Method: method, URL: &url.URL{Path: samplePath(template)}, Header: http.Header{}, Body: http.NoBody}
		c.hit = nil
		mux.ServeHTTP(discard{}, r)
		if c.hit == nil {
			continue
		}
		if c.hit.pattern.String() != template {
			shadowed = append(shadowed, &route{method: method, template: template})
			continue
		}
		found[c.hit.index] = &route{
			method: method, template: template, pattern: c.hit.pattern, handler: c.handlers[c.hit.index],
			grpc: grpcMethod, order: c.hit.index,
		}
		identified++
	}
	c.probing, c.hit = false, nil
	if identified+len(shadowed) != len(c.handlers) {
		return nil
	}
	d := &dispatcher{methods: map[string]*node{}}
	for _, rt := range found {
		if rt != nil {
			d.insert(rt)
		}
	}
	for _, rt := range shadowed {
		d.insert(rt)
	}
	return d
}

// sampleVariable is a path variable of a route template.
var sampleVariable = regexp.MustCompile(`\{[^{}]*\}`)

// samplePath is a path the template matches: each variable is one
// segment "x" (a template with multi-segment variables of another form
// is simply not identified, and the dispatcher stays off).
func samplePath(template string) string {
	return sampleVariable.ReplaceAllString(template, "x")
}

// discard is the probes' response writer.
type discard struct{}

func (discard) Header() http.Header         { return http.Header{} }
func (discard) Write(b []byte) (int, error) { return len(b), nil }
func (discard) WriteHeader(int)             {}

// insert adds rt under the literal segments of its pattern, as far as
// they go; from a segment of any other form on, it is a candidate for
// every deeper path (MatchAndEscape decides).
func (d *dispatcher) insert(rt *route) {
	n := d.methods[rt.method]
	if n == nil {
		n = &node{}
		d.methods[rt.method] = n
	}
	s := rt.template
	if i := strings.LastIndex(s, "/"); strings.Contains(s[i:], ":") {
		d.verbs = true
		s = s[:i+strings.Index(s[i:], ":")]
	}
	for _, seg := range strings.Split(strings.TrimPrefix(s, "/"), "/") {
		switch {
		case seg == "*" || (strings.HasPrefix(seg, "{") && strings.HasSuffix(seg, "=*}") && !strings.Contains(seg[1:], "{")):
			if n.any == nil {
				n.any = &node{}
			}
			n = n.any
		case !strings.ContainsAny(seg, "{}*:"):
			if n.literal == nil {
				n.literal = map[string]*node{}
			}
			next := n.literal[seg]
			if next == nil {
				next = &node{}
				n.literal[seg] = next
			}
			n = next
		default:
			n.deep = append(n.deep, rt)
			return
		}
	}
	n.end = append(n.end, rt)
}

// candidates appends to out the routes whose literal segments fit comps.
func (n *node) candidates(comps []string, out []*route) []*route {
	out = append(out, n.deep...)
	if len(comps) == 0 {
		return append(out, n.end...)
	}
	if next := n.literal[comps[0]]; next != nil {
		out = next.candidates(comps[1:], out)
	}
	if n.any != nil {
		out = n.any.candidates(comps[1:], out)
	}
	return out
}

// match returns the route the mux would serve r with and its path
// parameters, or false when the mux must answer (no route: 404 or 405;
// or a case the mux handles specially).
func (d *dispatcher) match(r *http.Request) (*route, map[string]string, bool) {
	root := d.methods[r.Method]
	path := r.URL.Path
	if root == nil || !strings.HasPrefix(path, "/") || r.Header.Get("X-HTTP-Method-Override") != "" {
		return nil, nil, false
	}
	comps := strings.Split(path[1:], "/")
	if d.verbs && strings.Contains(comps[len(comps)-1], ":") {
		return nil, nil, false
	}
	var buf [8]*route
	cands := root.candidates(comps, buf[:0])
	// newest first, as the mux tries them
	for i := 1; i < len(cands); i++ {
		for j := i; j > 0 && cands[j].order > cands[j-1].order; j-- {
			cands[j], cands[j-1] = cands[j-1], cands[j]
		}
	}
	for _, rt := range cands {
		if rt.handler == nil {
			return nil, nil, false
		}
	}
	for _, rt := range cands {
		params, err := rt.pattern.MatchAndEscape(comps, "", muxUnescaping)
		if err == nil {
			return rt, params, true
		}
		if !errors.Is(err, runtime.ErrNotMatch) {
			return nil, nil, false // the mux answers a malformed path
		}
	}
	return nil, nil, false
}
