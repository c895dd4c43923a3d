// Package swaggerui serves the API documentation page: forge's own page
// around Swagger UI (vendored in dist/ by tools/swagger-ui/vendor.sh),
// reading the OpenAPI document from the same origin. Nothing is loaded
// from elsewhere.
package swaggerui

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"html/template"
	"net/http"
	"path"
	"strings"
	"time"
)

// PagePath is the page; its assets are under PagePath + "/".
const PagePath = "/api/swagger"

//go:embed index.html forge-swagger.js dist/swagger-ui.css dist/swagger-ui-bundle.js dist/VERSION
var files embed.FS

// ContentSecurityPolicy of the page: everything from the same origin;
// Swagger UI sets inline styles and draws data: images.
const ContentSecurityPolicy = "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; " +
	"object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'self'"

type asset struct {
	contentType string
	body        []byte
	etag        string
}

// UI serves the page and its assets. Asset paths carry a digest of their
// content, so they are cached for good; the page is revalidated (ETag).
type UI struct {
	page   asset
	assets map[string]asset // by path
}

// Version is the vendored Swagger UI release.
func Version() string {
	b, _ := files.ReadFile("dist/VERSION")
	return strings.TrimSpace(string(b))
}

// New builds the page for the OpenAPI document at specURL.
func New(specURL string) (*UI, error) {
	u := &UI{assets: map[string]asset{}}
	urls := map[string]string{}
	for key, f := range map[string]struct{ name, contentType string }{
		"CSS":    {"dist/swagger-ui.css", "text/css; charset=utf-8"},
		"Bundle": {"dist/swagger-ui-bundle.js", "text/javascript; charset=utf-8"},
		"Init":   {"forge-swagger.js", "text/javascript; charset=utf-8"},
	} {
		b, err := files.ReadFile(f.name)
		if err != nil {
			return nil, err
		}
		a := newAsset(f.contentType, b)
		// The digest in the path (not only in the ETag) lets the asset be
		// cached as immutable.
		p := PagePath + "/" + strings.Trim(a.etag, `"`)[:16] + "/" + path.Base(f.name)
		u.assets[p] = a
		urls[key] = p
	}
	src, err := files.ReadFile("index.html")
	if err != nil {
		return nil, err
	}
	tmpl, err := template.New("index.html").Parse(string(src))
	if err != nil {
		return nil, err
	}
	var page bytes.Buffer
	if err := tmpl.Execute(&page, struct{ CSS, Bundle, Init, Spec string }{urls["CSS"], urls["Bundle"], urls["Init"], specURL}); err != nil {
		return nil, fmt.Errorf("swaggerui: %w", err)
	}
	u.page = newAsset("text/html; charset=utf-8", page.Bytes())
	return u, nil
}

func newAsset(contentType string, body []byte) asset {
	sum := sha256.Sum256(body)
	return asset{contentType: contentType, body: body, etag: `"` + hex.EncodeToString(sum[:]) + `"`}
}

// Handles reports whether path is the page or one of its assets.
func (u *UI) Handles(p string) bool {
	if p == PagePath {
		return true
	}
	_, ok := u.assets[p]
	return ok
}

// ServeHTTP serves the page or an asset (Handles must have said yes) to a
// GET or HEAD.
func (u *UI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == PagePath {
		w.Header().Set("Content-Security-Policy", ContentSecurityPolicy)
		Serve(w, r, u.page.contentType, u.page.etag, "no-cache", u.page.body)
		return
	}
	a := u.assets[r.URL.Path]
	Serve(w, r, a.contentType, a.etag, "public, max-age=31536000, immutable", a.body)
}

// Serve answers a GET or HEAD with body, its ETag (If-None-Match: 304)
// and cache-control.
func Serve(w http.ResponseWriter, r *http.Request, contentType, etag, cacheControl string, body []byte) {
	h := w.Header()
	h.Set("Content-Type", contentType)
	h.Set("Cache-Control", cacheControl)
	h.Set("ETag", etag)
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(body))
}

// ETag is a strong validator of body.
func ETag(body []byte) string { return newAsset("", body).etag }
