package gateway

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"

	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"

	"forge/services/rpcerr"
)

// giteaError is Gitea's error body. Errors is only sent with 404, as
// Gitea's not-found helper does.
type giteaError struct {
	Errors  *[]string `json:"errors,omitempty"`
	Message string    `json:"message"`
	URL     string    `json:"url"`
}

// handleError writes a gRPC error as Gitea's error body.
func (g *gateway) handleError(ctx context.Context, _ *runtime.ServeMux, _ runtime.Marshaler, w http.ResponseWriter, _ *http.Request, err error) {
	if code, msg, ok := bodyFailure(ctx); ok {
		g.writeError(w, code, msg)
		return
	}
	g.writeServiceError(w, err)
}

// writeServiceError writes err, a status from the services or a domain
// error of the gateway's own, with the status rpcerr's one table gives it
// (the status the service declared, else its code's default).
func (g *gateway) writeServiceError(w http.ResponseWriter, err error) {
	setRetryAfter(w, err)
	g.writeErrorBody(w, rpcerr.HTTPStatusOf(err), rpcerr.Message(err), rpcerr.BodyFields(err))
}

// setRetryAfter turns the delay an error suggests (a throttled sign-in's
// RetryInfo) into the Retry-After header.
func setRetryAfter(w http.ResponseWriter, err error) {
	if secs, ok := rpcerr.RetryAfter(err); ok {
		w.Header().Set("Retry-After", strconv.FormatInt(secs, 10))
	}
}

// handleRoutingError answers unknown paths (404) and unknown methods (405).
// An unknown route's message names it, unlike a missing object's ("The
// target couldn't be found."), so a client tells "not served" from "no
// such repository".
func (g *gateway) handleRoutingError(_ context.Context, _ *runtime.ServeMux, _ runtime.Marshaler, w http.ResponseWriter, r *http.Request, code int) {
	msg := http.StatusText(code)
	if code == http.StatusNotFound {
		path := r.URL.Path // never the query, which may carry a token
		if len(path) > maxRoutePathInMessage {
			path = path[:maxRoutePathInMessage] + "..."
		}
		msg = fmt.Sprintf("The route %s %s does not exist.", r.Method, path)
	}
	g.writeError(w, code, msg)
}

// maxRoutePathInMessage bounds the path an unknown route's message repeats.
const maxRoutePathInMessage = 200

func (g *gateway) writeError(w http.ResponseWriter, code int, msg string) {
	g.writeErrorBody(w, code, msg, nil)
}

// writeErrorBody writes Gitea's error body with the members the error
// declared beside the message (rpcerr.BodyFields; "invalidTopics" of a
// topics request); the standard members win over a field of their name.
func (g *gateway) writeErrorBody(w http.ResponseWriter, code int, msg string, fields map[string]any) {
	body := giteaError{Message: msg, URL: g.swaggerURL}
	if code == http.StatusNotFound {
		var none []string // Gitea sends "errors": null
		body.Errors = &none
	}
	var out any = body
	if len(fields) > 0 {
		merged := make(map[string]any, len(fields)+3)
		for k, v := range fields {
			merged[k] = v
		}
		merged["message"], merged["url"] = body.Message, body.URL
		if body.Errors != nil {
			merged["errors"] = nil
		}
		out = merged
	}
	h := w.Header()
	h.Set("Content-Type", jsonContentType)
	h.Del("Content-Length")
	if code == http.StatusUnauthorized {
		h.Set("WWW-Authenticate", `Basic realm="forge"`)
	}
	if code == http.StatusServiceUnavailable {
		h.Set("Retry-After", retryAfter)
	}
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(out)
}
