package bench

import (
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"net"
	"net/http"
	"testing"
	"time"
)

// A server that compresses its answers (Gitea with ENABLE_GZIP) is
// compared with a ceiling that sends the same compressed bytes, not the
// decompressed ones.
func TestCeilingServesTheCompressedBytes(t *testing.T) {
	plain := bytes.Repeat([]byte(`{"name":"label"},`), 200)
	var zipped bytes.Buffer
	zw := gzip.NewWriter(&zipped)
	zw.Write(plain)
	zw.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.Header.Get("Accept-Encoding") == "gzip" {
			w.Header().Set("Content-Encoding", "gzip")
			w.Write(zipped.Bytes())
			return
		}
		w.Write(plain)
	})}
	go srv.Serve(ln)
	defer srv.Close()
	base := "http://" + ln.Addr().String()

	o := &options{url: base, name: "gz", concurrency: []int{1}, duration: 50 * time.Millisecond}
	ds := dataset{Token: "t"}
	res, err := measure(context.Background(), o, ds, []endpoint{{Name: "x", Method: "GET", Path: "/x"}}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Points) != 2 || res.Points[0].BodySHA256 != res.Points[1].BodySHA256 || res.Points[1].Errors != 0 {
		t.Fatalf("points: %+v", res.Points)
	}

	// What the ceiling sends on the wire, read without decompressing.
	c, err := startCeiling()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	e := endpoint{Name: "x", Method: "GET", Path: "/x"}
	r, err := capture(context.Background(), newClient(base, ""), e, ds)
	if err != nil {
		t.Fatal(err)
	}
	c.record("GET", "/x", r)
	got, err := newClientWire(c.URL).call(context.Background(), "GET", "/x", nil)
	if err != nil {
		t.Fatal(err)
	}
	if got.header.Get("Content-Encoding") != "gzip" || !bytes.Equal(got.body, zipped.Bytes()) {
		t.Fatalf("ceiling sent %q with %d bytes, want gzip with the server's %d", got.header.Get("Content-Encoding"), len(got.body), zipped.Len())
	}
}

func newClientWire(base string) *client {
	c := newClient(base, "")
	c.wire = true
	return c
}
