// Package gateway is forge's REST facade: it serves Gitea's JSON API v1 by
// translating HTTP to the gRPC services and back, over an in-process
// channel that keeps the server's interceptor chain. It decides nothing
// about permissions; it only maps wire formats, statuses and headers.
package gateway

import (
	"context"
	"net/http"
	"sync"
	"time"

	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"

	"forge/gateway/giteajson"
	"forge/gateway/swaggerui"
	"forge/services/auth"
	"forge/services/paging"
)

const jsonContentType = "application/json;charset=utf-8"

// Options configure the facade.
type Options struct {
	RootURL string // ends with "/"
	Limits  paging.Limits
	// ReverseProxyHeader is forwarded to the services, which decide whether
	// to trust it.
	ReverseProxyHeader string
	// Location renders times; nil is the server's local zone.
	Location *time.Location
	// Extra handlers mounted beside the API (the git smart-HTTP endpoint),
	// tried for paths outside /api/.
	Git http.Handler
	// Swagger is the OpenAPI document buf generated (gateway/apidocs),
	// served completed at /swagger.v1.json (apiDocument) and shown by the
	// page at /api/swagger. Empty: no document (the gateway's own tests,
	// which link only some services).
	Swagger []byte
	// Version is the version /api/v1/version reports, the document's.
	Version string
	// MaxBodySize caps API request bodies (413 beyond it); 0: no cap.
	MaxBodySize int64
	// UploadMaxSize caps the files of attachment uploads (the larger of
	// the attachment and release asset limits; the service applies the
	// exact one), which are exempt from MaxBodySize. 0: MaxBodySize.
	UploadMaxSize int64
	// ReadTimeout bounds reading one API request body; 0: none.
	ReadTimeout time.Duration
	// Preflight, if set, refuses calls before their body is read.
	Preflight Preflight
	// Answers configures the answer cache (answers.go); zero: off.
	Answers AnswerCache
	// Services register the generated REST handlers of every area
	// (area.Gateways); the raw-file routes are added by the gateway.
	Services []func(context.Context, *runtime.ServeMux, grpc.ClientConnInterface) error
}

type gateway struct {
	opts       Options
	swaggerURL string
	json       *giteajson.Marshaler
	mux        *runtime.ServeMux
	// dispatch finds the mux's handler for a request without the mux's
	// scan; nil: the mux routes everything.
	dispatch *dispatcher
	proxyKey string
	routes   routeTable
	// success is each routed method's success status, declared in its
	// proto (successStatuses).
	success map[string]int
	// answers are the methods whose answer tells by a field which status
	// it takes instead (answerStatuses).
	answers map[string]statusIfSet
	// noLink are the methods whose lists send no Link header
	// (noLinkHeaders).
	noLink map[string]bool
	// replay replays declared answers while the database is unchanged
	// (answers.go); nil: off.
	replay *answers
	// cc leads to the services, for the routes served outside the mux
	// (diff.go).
	cc grpc.ClientConnInterface
	// apiDoc is the OpenAPI document served at SpecPath, built on its
	// first request (nil without opts.Swagger); ui the page.
	apiDoc *lazyDoc
	ui     *swaggerui.UI
}

// lazyDoc is the OpenAPI document and its ETag, built on first use.
type lazyDoc struct {
	once  sync.Once
	build func() ([]byte, error)
	body  []byte
	etag  string
	err   error
}

func (d *lazyDoc) get() ([]byte, string, error) {
	d.once.Do(func() {
		d.body, d.err = d.build()
		if d.err == nil {
			d.etag = swaggerui.ETag(d.body)
		}
	})
	return d.body, d.etag, d.err
}

// SpecPath serves the OpenAPI document (Gitea's path).
const SpecPath = "/swagger.v1.json"

// NewHandler builds the HTTP handler for everything forge serves on its
// HTTP port. cc must lead to the gRPC services through their interceptors
// (an in-process channel, or a real connection).
func NewHandler(opts Options, cc grpc.ClientConnInterface) (http.Handler, error) {
	g := &gateway{
		opts:       opts,
		swaggerURL: opts.RootURL + "api/swagger",
		json:       giteajson.New(opts.Location),
		proxyKey:   http.CanonicalHeaderKey(opts.ReverseProxyHeader),
		cc:         cc,
	}
	routes, err := loadRoutes()
	if err != nil {
		return nil, err
	}
	g.routes = routes
	if g.success, err = successStatuses(routes); err != nil {
		return nil, err
	}
	if g.answers, err = answerStatuses(routes); err != nil {
		return nil, err
	}
	if g.noLink, err = noLinkHeaders(routes); err != nil {
		return nil, err
	}
	if g.replay, err = newAnswers(opts.Answers, routes); err != nil {
		return nil, err
	}
	if len(opts.Swagger) > 0 {
		// Built on its first request, not at start: the ~1 MB document
		// would stay in every process's heap for the few that serve it,
		// and building it costs ~25 ms of each cold start. It depends on
		// nothing but the binary, so TestAPIDocumentation's build refuses
		// a route documented twice or not at all.
		g.apiDoc = &lazyDoc{build: func() ([]byte, error) { return g.apiDocument(opts.Swagger, opts.Version) }}
	}
	if g.ui, err = swaggerui.New(SpecPath); err != nil {
		return nil, err
	}
	handlers := &capture{}
	g.mux = runtime.NewServeMux(
		runtime.WithMiddlewares(g.guard, handlers.middleware),
		runtime.WithUnescapingMode(muxUnescaping),
		runtime.WithMarshalerOption("application/json", g.json),
		runtime.WithMarshalerOption(runtime.MIMEWildcard, rejectBody{g.json, "[]: Unsupported Content-Type"}),
		runtime.WithMarshalerOption(mimeMissing, rejectBody{g.json, "[]: Empty Content-Type"}),
		runtime.WithMarshalerOption(mimeIgnored, ignoreBody{g.json}),
		runtime.WithMarshalerOption("application/x-www-form-urlencoded", formBody{g.json}),
		runtime.WithErrorHandler(g.handleError),
		runtime.WithRoutingErrorHandler(g.handleRoutingError),
		runtime.WithForwardResponseOption(g.forwardResponse),
		runtime.WithIncomingHeaderMatcher(g.incomingHeader),
		runtime.WithOutgoingHeaderMatcher(outgoingHeader),
		runtime.WithForwardResponseRewriter(restBody),
		runtime.WithMetadata(g.metadata),
		runtime.WithDisablePathLengthFallback(),
	)
	ctx := context.Background()
	for _, r := range opts.Services {
		if err := r(ctx, g.mux, cc); err != nil {
			return nil, err
		}
	}
	if err := registerRaw(g.mux, cc); err != nil {
		return nil, err
	}
	if err := g.registerAttachments(cc); err != nil {
		return nil, err
	}
	g.dispatch = newDispatcher(g.mux, handlers, routes)
	return g, nil
}

// incomingHeader forwards only the headers the services read; Authorization
// is always forwarded by grpc-gateway itself.
func (g *gateway) incomingHeader(key string) (string, bool) {
	switch key {
	case auth.HeaderOTP:
		return auth.MDOTP, true
	case auth.HeaderSudo:
		return auth.MDSudo, true
	case g.proxyKey:
		return g.opts.ReverseProxyHeader, true
	}
	return "", false
}

type ctxKey int

const (
	requestKey ctxKey = iota
	queryTokenKey
)

// metadata passes what the services need from the HTTP request itself.
func (g *gateway) metadata(ctx context.Context, r *http.Request) metadata.MD {
	md := metadata.Pairs(auth.MDRemoteAddr, r.RemoteAddr)
	if tok, _ := ctx.Value(queryTokenKey).(string); tok != "" {
		md.Set(auth.MDQueryToken, tok)
	}
	return md
}
