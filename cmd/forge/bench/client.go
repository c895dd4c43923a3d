package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"
)

// client calls the API of the server under test with one Authorization
// header. It never follows redirects: the only host contacted is the one
// in --url.
type client struct {
	base string // no trailing slash
	auth string // Authorization header value; empty for anonymous calls
	http *http.Client
	// wire asks for gzip itself, so that a compressed answer is read as
	// sent (with its Content-Encoding) rather than decompressed.
	wire bool
}

func newClient(base, auth string) *client {
	return &client{base: base, auth: auth, http: &http.Client{
		Timeout:       time.Minute,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}}
}

// with is c with another Authorization header.
func (c *client) with(auth string) *client {
	return &client{base: c.base, auth: auth, http: c.http}
}

// reply is one answer.
type reply struct {
	status int
	header http.Header
	body   []byte
}

// call sends a request to base+path with body (JSON-encoded unless it is
// already []byte) and reads the whole answer.
func (c *client) call(ctx context.Context, method, path string, body any) (reply, error) {
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case []byte:
		rd = bytes.NewReader(b)
	default:
		j, err := json.Marshal(b)
		if err != nil {
			return reply{}, err
		}
		rd = bytes.NewReader(j)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, rd)
	if err != nil {
		return reply{}, err
	}
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.auth != "" {
		req.Header.Set("Authorization", c.auth)
	}
	if c.wire {
		req.Header.Set("Accept-Encoding", "gzip")
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return reply{}, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return reply{}, err
	}
	return reply{status: resp.StatusCode, header: resp.Header, body: b}, nil
}

// json sends a request, requires one of the wanted statuses and decodes
// the body into out (when out is not nil). It returns the status.
func (c *client) json(ctx context.Context, method, path string, body, out any, want ...int) (int, error) {
	r, err := c.call(ctx, method, path, body)
	if err != nil {
		return 0, err
	}
	for _, w := range want {
		if r.status == w {
			if out != nil && len(r.body) > 0 && r.status < 300 {
				if err := json.Unmarshal(r.body, out); err != nil {
					return r.status, fmt.Errorf("%s %s: decode: %w", method, path, err)
				}
			}
			return r.status, nil
		}
	}
	return r.status, fmt.Errorf("%s %s: status %d: %s", method, path, r.status, clip(r.body))
}

// clip shortens a body for an error message.
func clip(b []byte) string {
	if len(b) > 300 {
		return string(b[:300]) + "…"
	}
	return string(b)
}
