package accesslog

import (
	"bufio"
	"errors"
	"net"
	"net/http"
	"strconv"
	"time"
)

// Handler records every request to next: an Entry in the request's
// context, the X-Request-Id answer header, and the line when next returns.
func (r *Recorder) Handler(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		e := &Entry{Start: time.Now(), Transport: "http", Method: req.Method, Path: CleanPath(req.URL),
			Remote: req.RemoteAddr, RequestID: RequestID(req.Header.Get(HeaderRequestID))}
		w.Header().Set(HeaderRequestID, e.RequestID)
		sw := &statusWriter{ResponseWriter: w}
		defer func() {
			status := sw.status
			if status == 0 {
				status = http.StatusOK
			}
			e.Finish(strconv.Itoa(status), sw.bytes)
			r.Done(e)
		}()
		next.ServeHTTP(sw, req.WithContext(NewContext(req.Context(), e)))
	})
}

// statusWriter notes the status and counts the body's bytes.
type statusWriter struct {
	http.ResponseWriter
	status int
	bytes  int64
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 && code >= 200 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	n, err := w.ResponseWriter.Write(b)
	w.bytes += int64(n)
	return n, err
}

// Unwrap lets http.ResponseController reach the connection (deadlines,
// flushes of git transfers).
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (w *statusWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (w *statusWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	if h, ok := w.ResponseWriter.(http.Hijacker); ok {
		return h.Hijack()
	}
	return nil, nil, errors.New("hijacking not supported")
}
