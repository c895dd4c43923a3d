package bench

import (
	"io"
	"net"
	"net/http"
	"strconv"
	"sync"
)

// ceiling is the bare-HTTP reference: a net/http server on loopback that
// answers each endpoint with the status, content type and encoding and the
// body bytes the target gave, doing no other work. Its req/s is what the load generator, the
// loopback network and net/http can do on this machine for those bytes, so
// target/ceiling is the share of that the server achieves.
type ceiling struct {
	URL string
	srv *http.Server
	ln  net.Listener

	mu      sync.RWMutex
	answers map[string]reply // by method and request URI
}

func startCeiling() (*ceiling, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	c := &ceiling{URL: "http://" + ln.Addr().String(), ln: ln, answers: map[string]reply{}}
	c.srv = &http.Server{Handler: c}
	go c.srv.Serve(ln)
	return c, nil
}

// record makes the ceiling answer method path with r.
func (c *ceiling) record(method, path string, r reply) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.answers[method+" "+path] = r
}

func (c *ceiling) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	io.Copy(io.Discard, req.Body) // a client may wait for its body to be read
	c.mu.RLock()
	r, ok := c.answers[req.Method+" "+req.URL.RequestURI()]
	c.mu.RUnlock()
	if !ok {
		http.NotFound(w, req)
		return
	}
	h := w.Header()
	for _, k := range []string{"Content-Type", "Content-Encoding"} {
		if v := r.header.Get(k); v != "" {
			h.Set(k, v)
		}
	}
	h.Set("Content-Length", strconv.Itoa(len(r.body)))
	w.WriteHeader(r.status)
	w.Write(r.body)
}

func (c *ceiling) Close() error { return c.srv.Close() }
