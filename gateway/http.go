package gateway

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
	"github.com/grpc-ecosystem/grpc-gateway/v2/utilities"
	"google.golang.org/protobuf/proto"

	"forge/gateway/giteajson"
	"forge/gateway/swaggerui"
	"forge/services/accesslog"
	"forge/services/auth"
	"forge/services/errs"
)

// QueryTokenWarning is sent (as Warning and X-Gitea-Warning) on every
// response to a request that carried ?token= or ?access_token=.
const QueryTokenWarning = "token and access_token API authentication is deprecated and will be removed; send the token in the Authorization header instead"

// Internal content types the facade assigns to bodies Gitea treats
// specially, so the decoder can answer as Gitea does.
const (
	mimeMissing = "application/x-forge-missing-content-type"
	mimeIgnored = "application/x-forge-ignored-body"
)

func (g *gateway) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Cache-Control", "max-age=0, private, must-revalidate, no-transform")
	h.Set("X-Frame-Options", "SAMEORIGIN")

	path := r.URL.Path
	switch {
	case path == "/api/healthz":
		accesslog.SetRoute(r.Context(), path)
		h.Set("Content-Type", jsonContentType)
		io.WriteString(w, `{"status":"pass"}`+"\n")
		return
	case path == "/swagger":
		http.Redirect(w, r, swaggerui.PagePath, http.StatusFound)
		return
	case path == SpecPath && g.apiDoc != nil, g.ui.Handles(path):
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			h.Set("Allow", "GET, HEAD")
			g.writeError(w, http.StatusMethodNotAllowed, http.StatusText(http.StatusMethodNotAllowed))
			return
		}
		if path == SpecPath {
			doc, etag, err := g.apiDoc.get()
			if err != nil { // built once already at start: not expected
				g.writeError(w, http.StatusInternalServerError, http.StatusText(http.StatusInternalServerError))
				return
			}
			swaggerui.Serve(w, r, jsonContentType, etag, "no-cache", doc)
			return
		}
		g.ui.ServeHTTP(w, r)
		return
	case strings.HasPrefix(path, "/api/v1/"), strings.HasPrefix(path, "/attachments/"):
		// browser_download_url is served like the API (same credentials,
		// same error bodies).
		g.serveAPI(w, r)
		return
	case g.opts.Git != nil:
		g.opts.Git.ServeHTTP(w, r)
		return
	}
	g.writeError(w, http.StatusNotFound, errs.NotFound.DefaultMessage())
}

func (g *gateway) serveAPI(w http.ResponseWriter, r *http.Request) {
	ctx := context.WithValue(r.Context(), requestKey, r)
	// Query-string tokens and ?sudo= go to the services as metadata, never
	// as request fields, and every response to a query token carries the
	// deprecation warning.
	if q := r.URL.Query(); q.Has(auth.QueryToken) || q.Has(auth.QueryAccessToken) || q.Has(auth.QuerySudo) {
		tok := q.Get(auth.QueryToken)
		if tok == "" {
			tok = q.Get(auth.QueryAccessToken)
		}
		if tok != "" {
			w.Header().Set("Warning", `299 forge "`+QueryTokenWarning+`"`)
			w.Header().Set("X-Gitea-Warning", QueryTokenWarning)
			ctx = context.WithValue(ctx, queryTokenKey, tok)
		}
		sudo := q.Get(auth.QuerySudo)
		q.Del(auth.QueryToken)
		q.Del(auth.QueryAccessToken)
		q.Del(auth.QuerySudo)
		u := *r.URL
		u.RawQuery = q.Encode()
		r = r.Clone(ctx)
		r.URL = &u
		if sudo != "" {
			r.Header.Set(auth.HeaderSudo, sudo) // the query parameter wins, as in Gitea
		}
	} else {
		r = r.WithContext(ctx)
	}
	// Gitea needs a Content-Type on POST and PUT bodies and ignores the body
	// of PATCH and DELETE without one.
	if r.Header.Get("Content-Type") == "" {
		switch r.Method {
		case http.MethodPost, http.MethodPut:
			r.Header.Set("Content-Type", mimeMissing)
		default:
			r.Header.Set("Content-Type", mimeIgnored)
		}
	}
	r = g.limitBody(w, r)
	rw := &responseWriter{ResponseWriter: w}
	if d, ok := matchDiff(r); ok {
		accesslog.SetRoute(r.Context(), d.pattern)
		if g.admit(rw, r, d.method, true) {
			g.serveDiff(rw, r, d)
		}
		return
	}
	if a, ok := matchArchive(r); ok {
		accesslog.SetRoute(r.Context(), archivePattern)
		if g.admit(rw, r, archiveMethod, true) {
			g.serveArchive(rw, r, a)
		}
		return
	}
	if g.dispatch != nil {
		if rt, params, ok := g.dispatch.match(r); ok {
			accesslog.SetRoute(r.Context(), rt.template)
			// What the mux would do with its handler, middlewares included.
			if g.admit(rw, r, rt.grpc, true) {
				g.replay.serve(g, rw, r, rt.grpc, func(w http.ResponseWriter) { rt.handler(w, r, params) })
			}
			return
		}
	}
	g.mux.ServeHTTP(rw, r)
}

// responseWriter drops the body grpc-gateway writes after a 204, and
// after a status an answer took without its body (noBody: status_if_set).
type responseWriter struct {
	http.ResponseWriter
	status int
	noBody bool
}

func (w *responseWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *responseWriter) Write(b []byte) (int, error) {
	if w.status == http.StatusNoContent || w.noBody {
		return len(b), nil
	}
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

func (w *responseWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

type totalCounter interface{ GetTotalCount() int64 }

// forwardResponse sets paging headers and the success status.
func (g *gateway) forwardResponse(ctx context.Context, w http.ResponseWriter, resp proto.Message) error {
	method, _ := runtime.RPCMethod(ctx)
	if tc, ok := resp.(totalCounter); ok {
		total := tc.GetTotalCount()
		w.Header().Set("X-Total-Count", strconv.FormatInt(total, 10))
		w.Header().Set("Access-Control-Expose-Headers", "X-Total-Count, Link")
		if r, ok := ctx.Value(requestKey).(*http.Request); ok && !g.noLink[method] {
			if link := g.linkHeader(r, total); link != "" {
				w.Header().Set("Link", link)
			}
		}
	}
	// An answer that tells how the request ended (created, found there
	// already, left pending) takes that ending's status, declared on its
	// field (answerStatuses).
	if a, ok := g.answers[method]; ok {
		if m := resp.ProtoReflect(); m.Descriptor().FullName() == a.field.ContainingMessage().FullName() && m.Get(a.field).Bool() {
			if rw, ok := w.(*responseWriter); ok && a.noBody {
				rw.noBody = true
			}
			if a.status != http.StatusOK {
				w.WriteHeader(a.status)
			}
			return nil
		}
	}
	if code := g.success[method]; code != 0 && code != http.StatusOK {
		w.WriteHeader(code)
	}
	return nil
}

// linkHeader builds Gitea's Link header: next, last, first, prev.
func (g *gateway) linkHeader(r *http.Request, total int64) string {
	q := r.URL.Query()
	page, _ := strconv.Atoi(q.Get("page"))
	limit, _ := strconv.Atoi(q.Get("limit"))
	p := g.opts.Limits.Normalize(page, limit)
	last := int((total + int64(p.Size) - 1) / int64(p.Size))
	if last < 1 {
		last = 1
	}
	base := g.opts.RootURL + strings.TrimPrefix(r.URL.Path, "/")
	link := func(n int, rel string) string {
		qq := url.Values{}
		for k, v := range q {
			qq[k] = v
		}
		qq.Set("page", strconv.Itoa(n))
		return "<" + base + "?" + qq.Encode() + `>; rel="` + rel + `"`
	}
	var links []string
	if p.Number < last {
		links = append(links, link(p.Number+1, "next"), link(last, "last"))
	}
	if p.Number > 1 {
		links = append(links, link(1, "first"), link(p.Number-1, "prev"))
	}
	return strings.Join(links, ",")
}

// rejectBody answers like the JSON marshaler but refuses to decode a body,
// with Gitea's 422 message.
type rejectBody struct {
	*giteajson.Marshaler
	msg string
}

func (m rejectBody) NewDecoder(io.Reader) runtime.Decoder {
	return runtime.DecoderFunc(func(any) error { return bodyError(m.msg) })
}

func (m rejectBody) Unmarshal([]byte, any) error { return bodyError(m.msg) }

type bodyError string

func (e bodyError) Error() string { return string(e) }

// formBody decodes application/x-www-form-urlencoded bodies, which Gitea
// accepts beside JSON, with grpc-gateway's query-parameter parser (field
// names as in JSON).
type formBody struct{ *giteajson.Marshaler }

func (m formBody) NewDecoder(r io.Reader) runtime.Decoder {
	return runtime.DecoderFunc(func(v any) error {
		b, err := io.ReadAll(io.LimitReader(r, 10<<20))
		if err != nil {
			return err
		}
		return m.Unmarshal(b, v)
	})
}

func (formBody) Unmarshal(data []byte, v any) error {
	msg, ok := v.(proto.Message)
	if !ok {
		return bodyError("[]: unsupported form target")
	}
	values, err := url.ParseQuery(string(data))
	if err != nil {
		return bodyError("[]: " + err.Error())
	}
	if err := (&runtime.DefaultQueryParser{}).Parse(msg, values, utilities.NewDoubleArray(nil)); err != nil {
		return bodyError("[]: " + err.Error())
	}
	return nil
}

// ignoreBody decodes nothing: Gitea ignores PATCH/DELETE bodies without a
// Content-Type.
type ignoreBody struct{ *giteajson.Marshaler }

func (ignoreBody) NewDecoder(io.Reader) runtime.Decoder {
	return runtime.DecoderFunc(func(any) error { return io.EOF })
}

func (ignoreBody) Unmarshal([]byte, any) error { return nil }

// restBody lets a response choose its body at run time, for the Gitea
// endpoints whose body is an object or an array depending on the result
// (contents: a file or a directory) or null (the branches of an empty
// repository), which a static response_body cannot express. A response
// message with a oneof named rest_body is written as the member that is
// set: a message as an object, a message with a single repeated field (a
// list) as that JSON array, no member as null. Other responses pass as
// they are.
func restBody(_ context.Context, resp proto.Message) (any, error) {
	m := resp.ProtoReflect()
	od := m.Descriptor().Oneofs().ByName("rest_body")
	if od == nil {
		return resp, nil
	}
	fd := m.WhichOneof(od)
	if fd == nil || fd.Message() == nil {
		return nil, nil
	}
	v := m.Get(fd).Message()
	if fs := v.Descriptor().Fields(); fs.Len() == 1 && fs.Get(0).IsList() && fs.Get(0).Message() != nil {
		l := v.Get(fs.Get(0)).List()
		list := make([]proto.Message, l.Len())
		for i := range list {
			list[i] = l.Get(i).Message().Interface()
		}
		return list, nil
	}
	return v.Interface(), nil
}

// outgoingHeader passes on the legacy paging headers Gitea sends with
// commit lists (X-Page, X-PerPage, X-Total, X-PageCount, X-HasMore), which
// services set as gRPC header metadata; no other metadata reaches HTTP.
func outgoingHeader(key string) (string, bool) {
	switch key {
	case "x-page", "x-perpage", "x-total", "x-pagecount", "x-hasmore":
		return key, true
	}
	return "", false
}
