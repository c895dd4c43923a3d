package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"sync/atomic"
	"time"
)

var errNoProgress = errors.New("git transfer made no progress")

// transfer is one smart-HTTP exchange under a progress deadline. It is the
// response writer handed to git (counting writes, flushing as before) and
// wraps the request body; every byte either way is progress.
type transfer struct {
	w      http.ResponseWriter
	rc     *http.ResponseController
	ctx    context.Context
	cancel context.CancelCauseFunc
	last   atomic.Int64 // unix nanoseconds of the last progress
	wrote  atomic.Bool
	done   chan struct{}
}

// watch starts the watchdog of one transfer. Without a progress timeout
// the transfer only carries the request's context.
func (h *gitHTTP) watch(w http.ResponseWriter, r *http.Request) *transfer {
	ctx, cancel := context.WithCancelCause(r.Context())
	t := &transfer{w: w, rc: http.NewResponseController(w), ctx: ctx, cancel: cancel, done: make(chan struct{})}
	t.touch()
	if h.progress > 0 {
		go t.watchdog(h.progress)
	}
	return t
}

func (t *transfer) touch() { t.last.Store(time.Now().UnixNano()) }

// watchdog ends the transfer once it has been still for limit: git is
// cancelled (its process group killed) and the connection's deadlines are
// set to now, which unblocks a read of a trickling body or a write to a
// client that does not read.
func (t *transfer) watchdog(limit time.Duration) {
	tick := time.NewTicker(max(limit/8, 10*time.Millisecond))
	defer tick.Stop()
	for {
		select {
		case <-t.done:
			return
		case <-t.ctx.Done():
			return
		case <-tick.C:
			if time.Since(time.Unix(0, t.last.Load())) < limit {
				continue
			}
			t.cancel(errNoProgress)
			now := time.Now()
			t.rc.SetReadDeadline(now)
			t.rc.SetWriteDeadline(now)
			return
		}
	}
}

func (t *transfer) stop() {
	close(t.done)
	t.cancel(nil)
}

// stalled reports whether the watchdog ended the transfer.
func (t *transfer) stalled() bool { return errors.Is(context.Cause(t.ctx), errNoProgress) }

func (t *transfer) Header() http.Header { return t.w.Header() }

func (t *transfer) WriteHeader(code int) { t.w.WriteHeader(code) }

func (t *transfer) Write(p []byte) (int, error) {
	n, err := t.w.Write(p)
	if n > 0 {
		t.wrote.Store(true)
		t.touch()
	}
	return n, err
}

// Flush keeps git's output streaming (services/git flushes after writes).
func (t *transfer) Flush() { t.rc.Flush() }

func (t *transfer) body(r io.Reader) io.Reader { return progressReader{r: r, t: t} }

type progressReader struct {
	r io.Reader
	t *transfer
}

func (p progressReader) Read(b []byte) (int, error) {
	n, err := p.r.Read(b)
	if n > 0 {
		p.t.touch()
	}
	return n, err
}

// writeJSONError writes Gitea's error body.
func writeJSONError(w http.ResponseWriter, code int, msg, url string) {
	h := w.Header()
	h.Set("Content-Type", jsonContentType)
	h.Del("Content-Length")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(giteaError{Message: msg, URL: url})
}
