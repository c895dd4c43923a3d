package gateway

import (
	"context"
	"errors"
	"io"
	"mime"
	"net/http"
	"strconv"

	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
	"google.golang.org/grpc"

	contentsv1 "forge/gen/forge/contents/v1"
)

// rawPatterns are Gitea's raw-file routes. media serves the same bytes as
// raw: forge keeps no LFS objects, so there is nothing else to resolve.
var rawPatterns = []string{
	"/api/v1/repos/{owner}/{repo}/raw/{filepath=**}",
	"/api/v1/repos/{owner}/{repo}/media/{filepath=**}",
}

// registerRaw mounts the raw-file routes. They cannot be generated: the
// body is the file's bytes, streamed from the server-streaming GetRawFile
// (grpc-gateway would wrap each chunk in JSON). The call goes through the
// same annotated context as generated handlers, so authentication,
// policies and error statuses are the same.
func registerRaw(mux *runtime.ServeMux, cc grpc.ClientConnInterface) error {
	for _, pattern := range rawPatterns {
		if err := mux.HandlePath(http.MethodGet, pattern, rawHandler(mux, cc, pattern)); err != nil {
			return err
		}
	}
	return nil
}

func rawHandler(mux *runtime.ServeMux, cc grpc.ClientConnInterface, pattern string) runtime.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request, params map[string]string) {
		_, outbound := runtime.MarshalerForRequest(mux, r)
		ctx, err := runtime.AnnotateContext(r.Context(), mux, r, contentsv1.ContentService_GetRawFile_FullMethodName,
			runtime.WithHTTPPathPattern(pattern))
		if err != nil {
			runtime.HTTPError(r.Context(), mux, outbound, w, r, err)
			return
		}
		stream, err := openRaw(ctx, cc, &contentsv1.GetRawFileRequest{
			Owner: params["owner"], Repo: params["repo"], Filepath: params["filepath"], Ref: r.URL.Query().Get("ref"),
		})
		var first *contentsv1.GetRawFileResponse
		if err == nil {
			first, err = stream.Recv()
		}
		if err != nil {
			runtime.HTTPError(ctx, mux, outbound, w, r, err)
			return
		}
		h := w.Header()
		h.Set("Content-Type", first.GetContentType())
		h.Set("Content-Length", strconv.FormatInt(first.GetSize(), 10))
		h.Set("Content-Disposition", mime.FormatMediaType("inline", map[string]string{"filename": first.GetName()}))
		h.Set("Access-Control-Expose-Headers", "Content-Disposition")
		w.WriteHeader(http.StatusOK)
		if _, err := w.Write(first.GetData()); err != nil {
			return
		}
		for {
			msg, err := stream.Recv()
			if errors.Is(err, io.EOF) {
				return
			}
			if err != nil {
				// The status line is out: cut the connection so the client
				// sees a truncated body, not a complete-looking file.
				panic(http.ErrAbortHandler)
			}
			if _, err := w.Write(msg.GetData()); err != nil {
				return
			}
		}
	}
}

// openRaw starts GetRawFile. It is the generated client's call except that
// a server that ended the stream before reading the request (an
// interceptor refused the call) is not an error here: as with grpc-go, the
// status comes from the first Recv. (The in-process channel reports io.EOF
// from SendMsg in that case, which the generated client would return.)
func openRaw(ctx context.Context, cc grpc.ClientConnInterface, req *contentsv1.GetRawFileRequest) (grpc.ServerStreamingClient[contentsv1.GetRawFileResponse], error) {
	desc := &contentsv1.ContentService_ServiceDesc.Streams[0]
	cs, err := cc.NewStream(ctx, desc, contentsv1.ContentService_GetRawFile_FullMethodName)
	if err != nil {
		return nil, err
	}
	if err := cs.SendMsg(req); err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	if err := cs.CloseSend(); err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	return &grpc.GenericClientStream[contentsv1.GetRawFileRequest, contentsv1.GetRawFileResponse]{ClientStream: cs}, nil
}
