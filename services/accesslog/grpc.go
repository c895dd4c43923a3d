package accesslog

import (
	"context"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/peer"
	"google.golang.org/grpc/tap"

	"forge/services/rpcerr"
)

// mdRequestID is the request id's metadata key.
const mdRequestID = "x-request-id"

// Unary records a gRPC call: a line of its own when it came over gRPC's
// port, only the gRPC metrics when it serves an HTTP request (whose line
// the HTTP handler writes). It belongs outermost, around the error
// translator, so that it sees the status the client gets.
func (r *Recorder) Unary(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	ctx, e, own := r.begin(ctx, info.FullMethod)
	resp, err := handler(ctx, req)
	r.end(e, own, info.FullMethod, err)
	return resp, err
}

// Stream is Unary for streaming calls.
func (r *Recorder) Stream(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
	ctx, e, own := r.begin(ss.Context(), info.FullMethod)
	err := handler(srv, &stream{ServerStream: ss, ctx: ctx})
	r.end(e, own, info.FullMethod, err)
	return err
}

func (r *Recorder) begin(ctx context.Context, method string) (context.Context, *Entry, bool) {
	if e := FromContext(ctx); e != nil {
		return ctx, &Entry{Start: time.Now()}, false
	}
	var incoming string
	if md, ok := metadata.FromIncomingContext(ctx); ok {
		if v := md.Get(mdRequestID); len(v) > 0 {
			incoming = v[0]
		}
	}
	e := &Entry{Start: time.Now(), Transport: "grpc", Method: "GRPC", Path: method, RequestID: RequestID(incoming)}
	if p, ok := peer.FromContext(ctx); ok && p.Addr != nil {
		e.Remote = p.Addr.String()
	}
	e.route = method
	grpc.SetHeader(ctx, metadata.Pairs(mdRequestID, e.RequestID))
	return NewContext(ctx, e), e, true
}

func (r *Recorder) end(e *Entry, own bool, method string, err error) {
	code := rpcerr.CodeName(err)
	d := time.Since(e.Start)
	if r.Observer != nil {
		r.Observer.Observe("grpc", "GRPC", method, code, d)
	}
	if own {
		e.Finish(code, 0)
		r.write(e, d)
	}
}

type stream struct {
	grpc.ServerStream
	ctx context.Context
}

func (s *stream) Context() context.Context { return s.ctx }

// Tap wraps the gRPC server's tap handle (grpc.InTapHandle), which may
// refuse a call before the interceptors run: a refusal gets its line and
// its count too. Known tells the methods served from any other name a
// client sends, which is counted as "unmatched".
func (r *Recorder) Tap(next tap.ServerInHandle, known func(method string) bool) tap.ServerInHandle {
	return func(ctx context.Context, info *tap.Info) (context.Context, error) {
		start := time.Now()
		out, err := next(ctx, info)
		if err == nil {
			return out, nil
		}
		var incoming string
		if v := info.Header.Get(mdRequestID); len(v) > 0 {
			incoming = v[0]
		}
		method := info.FullMethodName
		if len(method) > 200 {
			method = method[:200]
		}
		e := &Entry{Start: start, Transport: "grpc", Method: "GRPC", Path: method, RequestID: RequestID(incoming)}
		if p, ok := peer.FromContext(ctx); ok && p.Addr != nil {
			e.Remote = p.Addr.String()
		}
		if known(info.FullMethodName) {
			e.route = info.FullMethodName
		}
		code, d := rpcerr.CodeName(err), time.Since(start)
		if r.Observer != nil {
			r.Observer.Observe("grpc", "GRPC", e.route, code, d)
		}
		e.Finish(code, 0)
		r.write(e, d)
		return out, err
	}
}
