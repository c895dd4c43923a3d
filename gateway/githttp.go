package gateway

import (
	"log/slog"
	"net/http"
	"strings"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"forge/services/auth"
	"forge/services/git"
	"forge/services/githost"
)

// gitHTTP mounts git's smart HTTP protocol at /{owner}/{repo}[.git]/...:
// it turns the HTTP request into the credentials metadata the services
// read, and streams; githost decides who may do what.
type gitHTTP struct {
	svc      *githost.Service
	proxyKey string // canonical reverse-proxy header name
}

// NewGitHandler serves clone, fetch and push over HTTP.
func NewGitHandler(svc *githost.Service, reverseProxyHeader string) http.Handler {
	return &gitHTTP{svc: svc, proxyKey: http.CanonicalHeaderKey(reverseProxyHeader)}
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

	md := metadata.Pairs(auth.MDRemoteAddr, r.RemoteAddr)
	for header, key := range map[string]string{"Authorization": "authorization", "X-Gitea-Otp": auth.MDOTP, h.proxyKey: strings.ToLower(h.proxyKey)} {
		if v := r.Header.Get(header); v != "" {
			md.Set(key, v)
		}
	}
	ctx := r.Context()
	session, err := h.svc.Open(ctx, md, owner, repo, service)
	if err != nil {
		writeGitError(w, err)
		return
	}
	gitProtocol := r.Header.Get("Git-Protocol")
	w.Header().Set("Cache-Control", "no-cache, max-age=0, must-revalidate")
	if action == "info/refs" {
		w.Header().Set("Content-Type", service.AdvertisementContentType())
		if err := session.AdvertiseRefs(ctx, gitProtocol, w); err != nil {
			slog.Warn("git advertise refs", "repo", owner+"/"+repo, "err", err)
		}
		return
	}
	body, err := git.DecodeRequestBody(r.Body, r.Header.Get("Content-Encoding"))
	if err != nil {
		http.Error(w, "bad request body", http.StatusBadRequest)
		return
	}
	defer body.Close()
	w.Header().Set("Content-Type", service.ResultContentType())
	if err := session.Run(ctx, body, w, gitProtocol); err != nil {
		slog.Warn("git "+string(service), "repo", owner+"/"+repo, "err", err)
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

func writeGitError(w http.ResponseWriter, err error) {
	st := status.Convert(err)
	code := http.StatusInternalServerError
	switch st.Code() {
	case codes.Unauthenticated:
		w.Header().Set("WWW-Authenticate", `Basic realm="Gitea"`)
		code = http.StatusUnauthorized
	case codes.NotFound:
		code = http.StatusNotFound
	case codes.PermissionDenied:
		code = http.StatusForbidden
	case codes.ResourceExhausted:
		setRetryAfter(w, st)
		code = http.StatusTooManyRequests
	}
	msg := st.Message()
	if code == http.StatusInternalServerError {
		slog.Error("git request", "err", err)
		msg = "internal server error"
	}
	http.Error(w, msg, code)
}
