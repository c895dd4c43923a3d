// Package swaggerui serves the API documentation page: forge's own page
// around Swagger UI (vendored in dist/ by tools/swagger-ui/vendor.sh),
// reading the OpenAPI document from the same origin. Nothing is loaded
// from elsewhere.
package swaggerui

import (
	"bytes"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"fmt"
	"html/template"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"
)

// PagePath is the page; its assets are under PagePath + "/".
const PagePath = "/api/swagger"

// The files are strings: they stay in the binary's read-only data and are
// served from there (an embed.FS's ReadFile copies, and Swagger UI's 1.9
// MB would sit in the heap of every process, with the GC's headroom on
// top).
var (
	//go:embed index.html
	indexHTML string
	//go:embed forge-swagger.js
	initJS string
	//go:embed dist/swagger-ui.css
	uiCSS string
	//go:embed dist/swagger-ui-bundle.js
	bundleJS string
	//go:embed dist/VERSION
	version string
)

// ContentSecurityPolicy of the page: everything from the same origin;
// Swagger UI sets inline styles and draws data: images.
const ContentSecurityPolicy = "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; " +
	"object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'self'"

type asset struct {
	contentType string
	body        string
	etag        string
}

// UI serves the page and its assets. Asset paths carry a digest of their
// content, so they are cached for good; the page is revalidated (ETag).
// The digests are taken on the first request for the page or an asset:
// until then the 1.9 MB of Swagger UI is not even read.
type UI struct {
	specURL string
	tmpl    *template.Template

	once   sync.Once
	page   asset
	assets map[string]asset // by path
	err    error
}

// Version is the vendored Swagger UI release.
func Version() string {
	return strings.TrimSpace(version)
}

// New prepares the page for the OpenAPI document at specURL.
func New(specURL string) (*UI, error) {
	tmpl, err := template.New("index.html").Parse(indexHTML)
	if err != nil {
		return nil, err
	}
	return &UI{specURL: specURL, tmpl: tmpl}, nil
}

func (u *UI) build() error {
	u.once.Do(func() {
		u.assets = map[string]asset{}
		urls := map[string]string{}
		for key, f := range map[string]struct{ name, contentType, body string }{
			"CSS":    {"swagger-ui.css", "text/css; charset=utf-8", uiCSS},
			"Bundle": {"swagger-ui-bundle.js", "text/javascript; charset=utf-8", bundleJS},
			"Init":   {"forge-swagger.js", "text/javascript; charset=utf-8", initJS},
		} {
			a := newAsset(f.contentType, f.body)
			// The digest in the path (not only in the ETag) lets the asset
			// be cached as immutable.
			p := PagePath + "/" + strings.Trim(a.etag, `"`)[:16] + "/" + f.name
			u.assets[p] = a
			urls[key] = p
		}
		var page bytes.Buffer
		if err := u.tmpl.Execute(&page, struct{ CSS, Bundle, Init, Spec string }{urls["CSS"], urls["Bundle"], urls["Init"], u.specURL}); err != nil {
			u.err = fmt.Errorf("swaggerui: %w", err)
			return
		}
		u.page = newAsset("text/html; charset=utf-8", page.String())
	})
	return u.err
}

func newAsset(contentType, body string) asset {
	// Hashed through a small buffer: converting the whole body would copy
	// it onto the heap.
	h := sha256.New()
	var buf [32 << 10]byte
	for rest := body; rest != ""; {
		n := copy(buf[:], rest)
		h.Write(buf[:n])
		rest = rest[n:]
	}
	return asset{contentType: contentType, body: body, etag: etagOf(h.Sum(nil))}
}

func etagOf(sum []byte) string { return `"` + hex.EncodeToString(sum) + `"` }

// Handles reports whether path is the page or one of its assets.
func (u *UI) Handles(p string) bool {
	if p == PagePath {
		return true
	}
	if !strings.HasPrefix(p, PagePath+"/") || u.build() != nil {
		return false
	}
	_, ok := u.assets[p]
	return ok
}

// ServeHTTP serves the page or an asset (Handles must have said yes) to a
// GET or HEAD.
func (u *UI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if err := u.build(); err != nil {
		http.Error(w, http.StatusText(http.StatusInternalServerError), http.StatusInternalServerError)
		return
	}
	if r.URL.Path == PagePath {
		w.Header().Set("Content-Security-Policy", ContentSecurityPolicy)
		serve(w, r, u.page.contentType, u.page.etag, "no-cache", strings.NewReader(u.page.body))
		return
	}
	a := u.assets[r.URL.Path]
	serve(w, r, a.contentType, a.etag, "public, max-age=31536000, immutable", strings.NewReader(a.body))
}

// Serve answers a GET or HEAD with body, its ETag (If-None-Match: 304)
// and cache-control.
func Serve(w http.ResponseWriter, r *http.Request, contentType, etag, cacheControl string, body []byte) {
	serve(w, r, contentType, etag, cacheControl, bytes.NewReader(body))
}

func serve(w http.ResponseWriter, r *http.Request, contentType, etag, cacheControl string, body io.ReadSeeker) {
	h := w.Header()
	h.Set("Content-Type", contentType)
	h.Set("Cache-Control", cacheControl)
	h.Set("ETag", etag)
	http.ServeContent(w, r, "", time.Time{}, body)
}

// ETag is a strong validator of body.
func ETag(body []byte) string {
	sum := sha256.Sum256(body)
	return etagOf(sum[:])
}
