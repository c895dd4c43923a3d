package gateway

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"forge/services/auth"
	"forge/services/rpcerr"
)

// httpStatus maps canonical gRPC codes to Gitea's statuses. Services use
// InvalidArgument for malformed input (Gitea's 422 binding errors) and
// FailedPrecondition for requests that break a rule (Gitea's 400).
var httpStatus = map[codes.Code]int{
	codes.OK:                 http.StatusOK,
	codes.Canceled:           499,
	codes.InvalidArgument:    http.StatusUnprocessableEntity,
	codes.FailedPrecondition: http.StatusBadRequest,
	codes.NotFound:           http.StatusNotFound,
	codes.AlreadyExists:      http.StatusUnprocessableEntity,
	codes.PermissionDenied:   http.StatusForbidden,
	codes.Unauthenticated:    http.StatusUnauthorized,
	codes.ResourceExhausted:  http.StatusTooManyRequests,
	codes.Aborted:            http.StatusConflict,
	codes.OutOfRange:         http.StatusBadRequest,
	codes.Unimplemented:      http.StatusNotImplemented,
	codes.Unavailable:        http.StatusServiceUnavailable,
	codes.DeadlineExceeded:   http.StatusGatewayTimeout,
}

// giteaError is Gitea's error body. Errors is only sent with 404, as
// Gitea's not-found helper does.
type giteaError struct {
	Errors  *[]string `json:"errors,omitempty"`
	Message string    `json:"message"`
	URL     string    `json:"url"`
}

// statusFor is the one place a status becomes Gitea's HTTP status: the
// status Gitea uses where it differs from its code's default, as the
// service declared it on the error (rpcerr's ErrorInfo: a taken repository
// name is 409, 423 Locked), else the code's default.
func statusFor(st *status.Status) int {
	if s, ok := rpcerr.HTTPStatus(st); ok {
		return s
	}
	if s, ok := httpStatus[st.Code()]; ok {
		return s
	}
	return http.StatusInternalServerError
}

// handleError writes a gRPC error as Gitea's error body.
func (g *gateway) handleError(ctx context.Context, _ *runtime.ServeMux, _ runtime.Marshaler, w http.ResponseWriter, _ *http.Request, err error) {
	if code, msg, ok := bodyFailure(ctx); ok {
		g.writeError(w, code, msg)
		return
	}
	st := status.Convert(err)
	setRetryAfter(w, st)
	g.writeErrorBody(w, statusFor(st), rpcerr.Message(err), rpcerr.BodyFields(st))
}

// setRetryAfter turns a status's RetryInfo (a throttled sign-in) into the
// Retry-After header.
func setRetryAfter(w http.ResponseWriter, st *status.Status) {
	if secs, ok := auth.RetryAfter(st); ok {
		w.Header().Set("Retry-After", strconv.FormatInt(secs, 10))
	}
}

// handleRoutingError answers unknown paths (404) and unknown methods (405).
func (g *gateway) handleRoutingError(_ context.Context, _ *runtime.ServeMux, _ runtime.Marshaler, w http.ResponseWriter, _ *http.Request, code int) {
	msg := http.StatusText(code)
	if code == http.StatusNotFound {
		msg = "The target couldn't be found."
	}
	g.writeError(w, code, msg)
}

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
