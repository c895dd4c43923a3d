package gateway

import (
	"context"
	"errors"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"strconv"
	"strings"

	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"

	attachmentsv1 "forge/gen/forge/attachments/v1"
	"forge/services/errs"
)

// Gitea's attachment uploads are multipart/form-data bodies (file field
// "attachment", optional "name" in the query or as a form field before
// the file), which grpc-gateway cannot decode. Each upload route streams
// the file part to a client-streaming method: the first message names the
// parent and the file (so the interceptor authorizes the call before any
// file byte is read), the following ones carry 64 KiB of data each.
// Nothing is buffered beyond one chunk.

// uploadChunk is the data size of each upload message.
const uploadChunk = 64 << 10

// multipartSlack is what an upload body may carry beyond the file itself
// (part headers, boundaries, a name field).
const multipartSlack = 1 << 20

type uploadRoute struct {
	pattern string
	method  string
	desc    *grpc.StreamDesc
	// first builds the first message from the path and the file name;
	// chunk a data message; reply the empty response.
	first func(params map[string]string, name string) proto.Message
	chunk func(data []byte) proto.Message
	reply func() interface {
		GetAttachment() *attachmentsv1.Attachment
	}
}

func streamDesc(method string) *grpc.StreamDesc {
	sd := &attachmentsv1.AttachmentService_ServiceDesc
	name := method[strings.LastIndex(method, "/")+1:]
	for i := range sd.Streams {
		if sd.Streams[i].StreamName == name {
			return &sd.Streams[i]
		}
	}
	panic("gateway: no stream " + method)
}

func param(params map[string]string, name string) int64 {
	n, _ := strconv.ParseInt(params[name], 10, 64)
	return n
}

var uploadRoutes = []uploadRoute{
	{
		pattern: "/api/v1/repos/{owner}/{repo}/releases/{id}/assets",
		method:  attachmentsv1.AttachmentService_CreateReleaseAttachment_FullMethodName,
		first: func(p map[string]string, name string) proto.Message {
			return &attachmentsv1.CreateReleaseAttachmentRequest{Owner: p["owner"], Repo: p["repo"], Id: param(p, "id"), Name: name}
		},
		chunk: func(d []byte) proto.Message { return &attachmentsv1.CreateReleaseAttachmentRequest{Data: d} },
		reply: func() interface {
			GetAttachment() *attachmentsv1.Attachment
		} {
			return &attachmentsv1.CreateReleaseAttachmentResponse{}
		},
	},
	{
		pattern: "/api/v1/repos/{owner}/{repo}/issues/{index}/assets",
		method:  attachmentsv1.AttachmentService_CreateIssueAttachment_FullMethodName,
		first: func(p map[string]string, name string) proto.Message {
			return &attachmentsv1.CreateIssueAttachmentRequest{Owner: p["owner"], Repo: p["repo"], Index: param(p, "index"), Name: name}
		},
		chunk: func(d []byte) proto.Message { return &attachmentsv1.CreateIssueAttachmentRequest{Data: d} },
		reply: func() interface {
			GetAttachment() *attachmentsv1.Attachment
		} {
			return &attachmentsv1.CreateIssueAttachmentResponse{}
		},
	},
	{
		pattern: "/api/v1/repos/{owner}/{repo}/issues/comments/{id}/assets",
		method:  attachmentsv1.AttachmentService_CreateCommentAttachment_FullMethodName,
		first: func(p map[string]string, name string) proto.Message {
			return &attachmentsv1.CreateCommentAttachmentRequest{Owner: p["owner"], Repo: p["repo"], Id: param(p, "id"), Name: name}
		},
		chunk: func(d []byte) proto.Message { return &attachmentsv1.CreateCommentAttachmentRequest{Data: d} },
		reply: func() interface {
			GetAttachment() *attachmentsv1.Attachment
		} {
			return &attachmentsv1.CreateCommentAttachmentResponse{}
		},
	},
}

// downloadPattern serves browser_download_url.
const downloadPattern = "/attachments/{uuid}"

// isUpload reports whether method is one of the upload routes' methods.
func isUpload(method string) bool {
	for _, u := range uploadRoutes {
		if u.method == method {
			return true
		}
	}
	return false
}

// registerAttachments mounts the upload and download routes.
func (g *gateway) registerAttachments(cc grpc.ClientConnInterface) error {
	for i := range uploadRoutes {
		u := &uploadRoutes[i]
		if u.desc == nil {
			u.desc = streamDesc(u.method)
		}
		if err := g.mux.HandlePath(http.MethodPost, u.pattern, g.uploadHandler(cc, *u)); err != nil {
			return err
		}
	}
	return g.mux.HandlePath(http.MethodGet, downloadPattern, g.downloadHandler(cc))
}

// filePart finds the file part of a multipart upload, reading the small
// fields before it (only "name" is used). No file part: nil, and the
// service answers that the attachment is missing.
func filePart(r *http.Request) (part *multipart.Part, name string, err error) {
	name = r.URL.Query().Get("name")
	// What comes before the file is read before the call is authorized
	// for its repository: at most multipartSlack bytes of it.
	head := &headLimit{body: r.Body, left: multipartSlack}
	r.Body = head
	defer func() { head.left = -1 }()
	mr, err := r.MultipartReader()
	if err != nil {
		return nil, name, nil // not multipart: no file
	}
	for {
		p, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			return nil, name, nil
		}
		if err != nil {
			return nil, name, err
		}
		switch p.FormName() {
		case "attachment":
			if name == "" {
				name = p.FileName()
			}
			return p, name, nil
		case "name":
			b, err := io.ReadAll(io.LimitReader(p, 1024))
			if err != nil {
				return nil, name, err
			}
			if name == "" {
				name = strings.TrimSpace(string(b))
			}
		}
	}
}

// headLimit fails a body read once more than left bytes were read, until
// left is set to -1 (the file part was found).
type headLimit struct {
	body io.ReadCloser
	left int64
}

var errHeadTooLarge = errors.New("the multipart fields before the attachment are too large")

func (h *headLimit) Read(p []byte) (int, error) {
	if h.left < 0 {
		return h.body.Read(p)
	}
	if h.left == 0 {
		return 0, errHeadTooLarge
	}
	if int64(len(p)) > h.left {
		p = p[:h.left]
	}
	n, err := h.body.Read(p)
	h.left -= int64(n)
	return n, err
}

func (h *headLimit) Close() error { return h.body.Close() }

func (g *gateway) uploadHandler(cc grpc.ClientConnInterface, u uploadRoute) runtime.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request, params map[string]string) {
		_, outbound := runtime.MarshalerForRequest(g.mux, r)
		ctx, err := runtime.AnnotateContext(r.Context(), g.mux, r, u.method, runtime.WithHTTPPathPattern(u.pattern))
		if err != nil {
			runtime.HTTPError(r.Context(), g.mux, outbound, w, r, err)
			return
		}
		fail := func(err error) { runtime.HTTPError(ctx, g.mux, outbound, w, r, err) }
		part, name, err := filePart(r)
		if errors.Is(err, errHeadTooLarge) {
			g.writeError(w, http.StatusRequestEntityTooLarge, err.Error())
			return
		}
		if err != nil {
			if _, _, ok := bodyFailure(ctx); !ok {
				err = errs.New(errs.Invalid, "[]: malformed multipart body: "+err.Error())
			}
			fail(err)
			return
		}
		if part == nil {
			name = "" // the service refuses an upload without a file
		}
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		cs, err := cc.NewStream(ctx, u.desc, u.method)
		if err != nil {
			fail(err)
			return
		}
		// The server may end the stream early (refused, too large): Send
		// then reports io.EOF and the status comes from the reply.
		sent := cs.SendMsg(u.first(params, name))
		if sent == nil && part != nil {
			buf := make([]byte, uploadChunk)
			for {
				n, rerr := io.ReadFull(part, buf)
				if n > 0 {
					if sent = cs.SendMsg(u.chunk(buf[:n])); sent != nil {
						break
					}
				}
				if errors.Is(rerr, io.EOF) || errors.Is(rerr, io.ErrUnexpectedEOF) {
					break
				}
				if rerr != nil {
					// The body failed (too large, too slow, cut): abandon
					// the stream, so nothing is stored, and answer for the
					// body.
					cancel()
					fail(rerr)
					return
				}
			}
		}
		if sent != nil && !errors.Is(sent, io.EOF) {
			fail(sent)
			return
		}
		if err := cs.CloseSend(); err != nil && !errors.Is(err, io.EOF) {
			fail(err)
			return
		}
		reply := u.reply()
		if err := cs.RecvMsg(reply); err != nil {
			fail(err)
			return
		}
		runtime.ForwardResponseMessage(ctx, g.mux, outbound, w, r, reply.GetAttachment(), g.mux.GetForwardResponseOptions()...)
	}
}

// downloadHandler serves a file by uuid from DownloadAttachment, with
// its length and a Content-Disposition that lets browsers show only
// inert types inline.
func (g *gateway) downloadHandler(cc grpc.ClientConnInterface) runtime.HandlerFunc {
	method := attachmentsv1.AttachmentService_DownloadAttachment_FullMethodName
	desc := streamDesc(method)
	return func(w http.ResponseWriter, r *http.Request, params map[string]string) {
		_, outbound := runtime.MarshalerForRequest(g.mux, r)
		ctx, err := runtime.AnnotateContext(r.Context(), g.mux, r, method, runtime.WithHTTPPathPattern(downloadPattern))
		if err != nil {
			runtime.HTTPError(r.Context(), g.mux, outbound, w, r, err)
			return
		}
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		var first attachmentsv1.DownloadAttachmentResponse
		cs, err := cc.NewStream(ctx, desc, method)
		if err == nil {
			if err = cs.SendMsg(&attachmentsv1.DownloadAttachmentRequest{Uuid: params["uuid"]}); err != nil && errors.Is(err, io.EOF) {
				err = nil // refused before reading: the status comes with Recv
			}
		}
		if err == nil {
			if err = cs.CloseSend(); err != nil && errors.Is(err, io.EOF) {
				err = nil
			}
		}
		if err == nil {
			err = cs.RecvMsg(&first)
		}
		if err != nil {
			runtime.HTTPError(ctx, g.mux, outbound, w, r, err)
			return
		}
		h := w.Header()
		h.Set("Content-Type", first.GetContentType())
		h.Set("Content-Length", strconv.FormatInt(first.GetSize(), 10))
		disposition := "attachment"
		if inlineType(first.GetContentType()) {
			disposition = "inline"
		}
		h.Set("Content-Disposition", mime.FormatMediaType(disposition, map[string]string{"filename": first.GetName()}))
		h.Set("Content-Security-Policy", "default-src 'none'; sandbox")
		h.Set("Access-Control-Expose-Headers", "Content-Disposition")
		w.WriteHeader(http.StatusOK)
		if _, err := w.Write(first.GetData()); err != nil {
			return
		}
		for {
			var msg attachmentsv1.DownloadAttachmentResponse
			err := cs.RecvMsg(&msg)
			if errors.Is(err, io.EOF) {
				return
			}
			if err != nil {
				panic(http.ErrAbortHandler) // truncated, never complete-looking
			}
			if _, err := w.Write(msg.GetData()); err != nil {
				return
			}
		}
	}
}

// inlineType: types a browser shows without running anything.
func inlineType(t string) bool {
	base, _, _ := mime.ParseMediaType(t)
	switch {
	case base == "text/plain", base == "application/pdf",
		strings.HasPrefix(base, "image/"), strings.HasPrefix(base, "video/"), strings.HasPrefix(base, "audio/"):
		return true
	}
	return false
}
