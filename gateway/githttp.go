package gateway

import (
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"google.golang.org/grpc/metadata"

	"forge/services/accesslog"
	"forge/services/auth"
	"forge/services/errs"
	"forge/services/git"
	"forge/services/githost"
	"forge/services/rpcerr"
)

// gitHTTP mounts git's smart HTTP protocol at /{owner}/{repo}[.git]/...:
// it turns the HTTP request into the credentials metadata the services
// read, and streams; githost decides who may do what.
type gitHTTP struct {
	svc        *githost.Service
	proxyKey   string // canonical reverse-proxy header name
	progress   time.Duration
	swaggerURL string
}

// GitOptions configure the git smart-HTTP endpoint.
type GitOptions struct {
	RootURL            string // ends with "/"
	ReverseProxyHeader string
	// ProgressTimeout ends a transfer whose request body and response
	// both make no progress for this long; 0: never.
	ProgressTimeout time.Duration
}

// NewGitHandler serves clone, fetch and push over HTTP.
func NewGitHandler(svc *githost.Service, opts GitOptions) http.Handler {
	return &gitHTTP{svc: svc, proxyKey: http.CanonicalHeaderKey(opts.ReverseProxyHeader),
		progress: opts.ProgressTimeout, swaggerURL: opts.RootURL + "api/swagger"}
}

func (h *gitHTTP) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	owner, repo, action, ok := splitGitPath(r.URL.Path)
	if !ok {
		http.Error(w, "Not found", http.StatusNotFound)
		return
	}
	var service git.Service
	switch {
	case action == "info/refs" && r.Method == http.MethodGet:
		s, err := git.ParseService(r.URL.Query().Get("service"))
		if err != nil {
			http.Error(w, "only the smart HTTP protocol is served", http.StatusForbidden)
			return
		}
		service = s
	case (action == "git-upload-pack" || action == "git-receive-pack") && r.Method == http.MethodPost:
		service, _ = git.ParseService(action)
		if r.Header.Get("Content-Type") != service.RequestContentType() {
			http.Error(w, "unexpected content type", http.StatusUnsupportedMediaType)
			return
		}
	default:
		http.Error(w, "Not found", http.StatusNotFound)
		return
	}

	accesslog.SetRoute(r.Context(), "/{owner}/{repo}/"+action) // one of the three actions above
	md := metadata.Pairs(auth.MDRemoteAddr, r.RemoteAddr)
	for header, key := range map[string]string{auth.HeaderAuthorization: auth.MDAuthorization, auth.HeaderOTP: auth.MDOTP, h.proxyKey: strings.ToLower(h.proxyKey)} {
		if v := r.Header.Get(header); v != "" {
			md.Set(key, v)
		}
	}
	session, err := h.svc.Open(r.Context(), md, owner, repo, service)
	if err != nil {
		h.writeError(w, err)
		return
	}
	// From here on the transfer must keep moving: the watchdog ends it
	// (cancelling git) when neither the body nor the response advances.
	t := h.watch(w, r)
	defer t.stop()
	ctx := t.ctx
	gitProtocol := r.Header.Get("Git-Protocol")
	w.Header().Set("Cache-Control", "no-cache, max-age=0, must-revalidate")
	if action == "info/refs" {
		w.Header().Set("Content-Type", service.AdvertisementContentType())
		h.finish(t, owner, repo, "advertise refs", session.AdvertiseRefs(ctx, gitProtocol, t))
		return
	}
	body, err := git.DecodeRequestBody(t.body(r.Body), r.Header.Get("Content-Encoding"))
	if err != nil {
		http.Error(w, "bad request body", http.StatusBadRequest)
		return
	}
	defer body.Close()
	w.Header().Set("Content-Type", service.ResultContentType())
	h.finish(t, owner, repo, string(service), session.Run(ctx, body, t, gitProtocol))
}

// retryAfter is the Retry-After (seconds) sent when git is busy.
const retryAfter = "10"

// finish reports how a transfer ended. Too many running git processes is
// a 503 the client may retry, when nothing has been sent yet.
func (h *gitHTTP) finish(t *transfer, owner, repo, what string, err error) {
	switch {
	case err == nil:
	case errors.Is(err, git.ErrBusy) && !t.wrote.Load():
		h.writeError(t.w, err)
	case t.stalled():
		slog.Warn("git "+what+": no progress, ended", "repo", owner+"/"+repo, "after", h.progress)
	default:
		slog.Warn("git "+what, "repo", owner+"/"+repo, "err", err)
	}
}

// splitGitPath parses /owner/repo[.git]/info/refs and friends.
func splitGitPath(path string) (owner, repo, action string, ok bool) {
	parts := strings.SplitN(strings.TrimPrefix(path, "/"), "/", 3)
	if len(parts) != 3 || parts[0] == "" || parts[1] == "" {
		return "", "", "", false
	}
	return parts[0], strings.TrimSuffix(parts[1], ".git"), parts[2], true
}

func (h *gitHTTP) writeError(w http.ResponseWriter, err error) {
	if errors.Is(err, git.ErrBusy) || errs.KindOf(err) == errs.Unavailable {
		// Too many git processes (ErrBusy is Unavailable): a clear,
		// retryable refusal.
		msg := rpcerr.Message(err)
		if errors.Is(err, git.ErrBusy) {
			msg = git.ErrBusy.Error()
		}
		w.Header().Set("Retry-After", retryAfter)
		writeJSONError(w, http.StatusServiceUnavailable, msg, h.swaggerURL)
		return
	}
	code := rpcerr.HTTPStatusOf(err)
	switch code {
	case http.StatusUnauthorized:
		w.Header().Set("WWW-Authenticate", `Basic realm="Gitea"`)
	case http.StatusTooManyRequests:
		setRetryAfter(w, err)
	}
	msg := rpcerr.Message(err)
	if code == http.StatusInternalServerError {
		slog.Error("git request", "err", err)
		msg = errs.Internal.DefaultMessage()
	}
	http.Error(w, msg, code)
}
