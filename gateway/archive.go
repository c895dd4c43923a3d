package gateway

import (
	"errors"
	"io"
	"mime"
	"net/http"
	"strings"

	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"

	commitsv1 "forge/gen/forge/commits/v1"
)

// Gitea serves a repository archive at
//
//	GET /api/v1/repos/{owner}/{repo}/archive/{ref}.zip (.tar.gz, .bundle)
//
// The body is the archive git writes, streamed from the server-streaming
// GetArchive (never held whole), so the route is matched here, like the
// diff routes, and called through an annotated context: authentication,
// policies and error bodies are those of every route.
const (
	archivePattern = "/api/v1/repos/{owner}/{repo}/archive/{archive=**}"
	archiveMethod  = commitsv1.GitDataService_GetArchive_FullMethodName
)

// archiveRoute is a request to the archive route.
type archiveRoute struct{ owner, repo, archive string }

// matchArchive recognizes a GET of the archive route.
func matchArchive(r *http.Request) (archiveRoute, bool) {
	if r.Method != http.MethodGet || !strings.HasPrefix(r.URL.Path, "/api/v1/repos/") {
		return archiveRoute{}, false
	}
	parts := strings.SplitN(strings.TrimPrefix(r.URL.Path, "/api/v1/repos/"), "/", 4)
	if len(parts) != 4 || parts[0] == "" || parts[1] == "" || parts[2] != "archive" || parts[3] == "" {
		return archiveRoute{}, false
	}
	return archiveRoute{owner: parts[0], repo: parts[1], archive: parts[3]}, true
}

// serveArchive streams the archive a names as an attachment.
func (g *gateway) serveArchive(w http.ResponseWriter, r *http.Request, a archiveRoute) {
	const method = archiveMethod
	_, outbound := runtime.MarshalerForRequest(g.mux, r)
	ctx, err := runtime.AnnotateContext(r.Context(), g.mux, r, method, runtime.WithHTTPPathPattern(archivePattern))
	if err != nil {
		runtime.HTTPError(r.Context(), g.mux, outbound, w, r, err)
		return
	}
	stream, err := openStream(ctx, g.cc, method, &commitsv1.GetArchiveRequest{Owner: a.owner, Repo: a.repo, Archive: a.archive})
	first := &commitsv1.GetArchiveResponse{}
	if err == nil {
		err = stream.RecvMsg(first)
	}
	if err != nil {
		runtime.HTTPError(ctx, g.mux, outbound, w, r, err)
		return
	}
	h := w.Header()
	h.Set("Content-Type", first.GetContentType())
	h.Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": first.GetName()}))
	h.Set("Access-Control-Expose-Headers", "Content-Disposition")
	w.WriteHeader(http.StatusOK)
	if _, err := w.Write(first.GetData()); err != nil {
		return
	}
	for {
		msg := &commitsv1.GetArchiveResponse{}
		err := stream.RecvMsg(msg)
		if errors.Is(err, io.EOF) {
			return
		}
		if err != nil {
			// The status line is out: cut the connection so the client
			// sees a truncated body, not a complete-looking archive.
			panic(http.ErrAbortHandler)
		}
		if _, err := w.Write(msg.GetData()); err != nil {
			return
		}
	}
}
