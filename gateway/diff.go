package gateway

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"

	pullsv1 "forge/gen/forge/pulls/v1"
)

// Gitea serves a pull request's and a commit's plain-text diff and patch
// at the number or sha with a .diff or .patch suffix:
//
//	GET /api/v1/repos/{owner}/{repo}/pulls/{index}.diff (.patch)
//	GET /api/v1/repos/{owner}/{repo}/git/commits/{sha}.diff (.patch)
//
// grpc-gateway's patterns cannot express a suffix on a variable (the
// generated /pulls/{index} and /git/commits/{sha} routes would take
// "1.diff" for the variable), and the body is text streamed from a
// server-streaming rpc, so these routes are matched here, before the
// dispatcher and the mux, and answered as the raw-file routes are: the
// call goes through an annotated context, so authentication, policies and
// error bodies are those of every route.

// diffPatterns are the routes' templates, as the route table lists them
// (their methods are REST methods; the mux never sees them).
var diffPatterns = map[string]string{
	"/api/v1/repos/{owner}/{repo}/pulls/{index}.{format}":     pullsv1.PullDiffService_GetPullRequestDiff_FullMethodName,
	"/api/v1/repos/{owner}/{repo}/git/commits/{sha}.{format}": pullsv1.PullDiffService_GetCommitDiff_FullMethodName,
}

// diffRoute is a request to one of the diff routes.
type diffRoute struct {
	method  string // gRPC
	pattern string
	owner   string
	repo    string
	id      string // the pull request number or the commit sha
	format  pullsv1.DiffFormat
}

// matchDiff recognizes a GET of a diff route.
func matchDiff(r *http.Request) (diffRoute, bool) {
	if r.Method != http.MethodGet {
		return diffRoute{}, false
	}
	var format pullsv1.DiffFormat
	p := r.URL.Path
	switch {
	case strings.HasSuffix(p, ".diff"):
		format, p = pullsv1.DiffFormat_DIFF_FORMAT_DIFF, strings.TrimSuffix(p, ".diff")
	case strings.HasSuffix(p, ".patch"):
		format, p = pullsv1.DiffFormat_DIFF_FORMAT_PATCH, strings.TrimSuffix(p, ".patch")
	default:
		return diffRoute{}, false
	}
	parts := strings.Split(strings.TrimPrefix(p, "/api/v1/repos/"), "/")
	if !strings.HasPrefix(p, "/api/v1/repos/") || len(parts) < 4 || parts[0] == "" || parts[1] == "" {
		return diffRoute{}, false
	}
	d := diffRoute{owner: parts[0], repo: parts[1], format: format}
	switch {
	case len(parts) == 4 && parts[2] == "pulls" && parts[3] != "":
		d.method, d.id = pullsv1.PullDiffService_GetPullRequestDiff_FullMethodName, parts[3]
		d.pattern = "/api/v1/repos/{owner}/{repo}/pulls/{index}.{format}"
	case len(parts) == 5 && parts[2] == "git" && parts[3] == "commits" && parts[4] != "":
		d.method, d.id = pullsv1.PullDiffService_GetCommitDiff_FullMethodName, parts[4]
		d.pattern = "/api/v1/repos/{owner}/{repo}/git/commits/{sha}.{format}"
	default:
		return diffRoute{}, false
	}
	return d, true
}

// serveDiff streams the diff or patch d names as text/plain.
func (g *gateway) serveDiff(w http.ResponseWriter, r *http.Request, d diffRoute) {
	_, outbound := runtime.MarshalerForRequest(g.mux, r)
	ctx, err := runtime.AnnotateContext(r.Context(), g.mux, r, d.method, runtime.WithHTTPPathPattern(d.pattern))
	if err != nil {
		runtime.HTTPError(r.Context(), g.mux, outbound, w, r, err)
		return
	}
	var req proto.Message
	switch d.method {
	case pullsv1.PullDiffService_GetPullRequestDiff_FullMethodName:
		index, perr := strconv.ParseInt(d.id, 10, 64)
		if perr != nil {
			// Gitea's route wants a number; anything else names no pull request.
			g.writeError(w, http.StatusNotFound, "")
			return
		}
		binary, _ := strconv.ParseBool(r.URL.Query().Get("binary"))
		req = &pullsv1.GetPullRequestDiffRequest{Owner: d.owner, Repo: d.repo, Index: index, Format: d.format, Binary: binary}
	default:
		req = &pullsv1.GetCommitDiffRequest{Owner: d.owner, Repo: d.repo, Sha: d.id, Format: d.format}
	}
	stream, err := openStream(ctx, g.cc, d.method, req)
	var first chunk
	if err == nil {
		first, err = recvChunk(stream, d.method)
	}
	if err != nil {
		runtime.HTTPError(ctx, g.mux, outbound, w, r, err)
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(http.StatusOK)
	if _, err := w.Write(first.GetData()); err != nil {
		return
	}
	for {
		msg, err := recvChunk(stream, d.method)
		if errors.Is(err, io.EOF) {
			return
		}
		if err != nil {
			// The status line is out: cut the connection so the client
			// sees a truncated body, not a complete-looking diff.
			panic(http.ErrAbortHandler)
		}
		if _, err := w.Write(msg.GetData()); err != nil {
			return
		}
	}
}

// chunk is either diff response message (both carry data only).
type chunk interface{ GetData() []byte }

// recvChunk reads one message of the stream of method.
func recvChunk(cs grpc.ClientStream, method string) (chunk, error) {
	var m interface {
		proto.Message
		chunk
	} = &pullsv1.GetCommitDiffResponse{}
	if method == pullsv1.PullDiffService_GetPullRequestDiff_FullMethodName {
		m = &pullsv1.GetPullRequestDiffResponse{}
	}
	if err := cs.RecvMsg(m); err != nil {
		return nil, err
	}
	return m, nil
}

// openStream starts a server-streaming call as openRaw does (a call the
// interceptor refused reports its status at the first receive).
func openStream(ctx context.Context, cc grpc.ClientConnInterface, method string, req proto.Message) (grpc.ClientStream, error) {
	desc := &grpc.StreamDesc{ServerStreams: true}
	cs, err := cc.NewStream(ctx, desc, method)
	if err != nil {
		return nil, err
	}
	if err := cs.SendMsg(req); err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	if err := cs.CloseSend(); err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	return cs, nil
}
