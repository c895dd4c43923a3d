package app_test

import (
	"net/http"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"forge/gateway"
)

// apiDoc is the part of the OpenAPI document the tests read.
type apiDoc struct {
	Swagger string `json:"swagger"`
	Info    struct {
		Title   string `json:"title"`
		Version string `json:"version"`
	} `json:"info"`
	BasePath            string                                `json:"basePath"`
	Schemes             []string                              `json:"schemes"`
	Host                string                                `json:"host"`
	SecurityDefinitions map[string]map[string]string          `json:"securityDefinitions"`
	Security            []map[string][]string                 `json:"security"`
	Paths               map[string]map[string]apiDocOperation `json:"paths"`
	Definitions         map[string]map[string]any             `json:"definitions"`
}

type apiDocOperation struct {
	OperationID string                    `json:"operationId"`
	Responses   map[string]map[string]any `json:"responses"`
}

// TestAPIDocumentation: /swagger.v1.json is forge's OpenAPI document
// (title, the version /api/v1/version reports, paths under /api/v1, the
// token header as a security scheme) listing every REST route the gateway
// mounts with the success status its rpc declares; /api/swagger is the
// page, its assets served from the binary and cached for good.
func TestAPIDocumentation(t *testing.T) {
	t.Parallel()
	s := startServer(t, "sqlite3", nil)

	r := s.do("GET", "/swagger.v1.json", "")
	expectStatus(t, r, http.StatusOK)
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Errorf("Content-Type %q", ct)
	}
	etag := r.Header.Get("ETag")
	if etag == "" || r.Header.Get("Cache-Control") != "no-cache" {
		t.Errorf("ETag %q, Cache-Control %q", etag, r.Header.Get("Cache-Control"))
	}
	if again := s.do("GET", "/swagger.v1.json", "", "If-None-Match", etag); again.Status != http.StatusNotModified {
		t.Errorf("If-None-Match: %d, want 304", again.Status)
	}
	var doc apiDoc
	r.json(t, &doc)

	var version struct{ Version string }
	s.do("GET", "/api/v1/version", "").json(t, &version)
	if doc.Swagger != "2.0" || doc.Info.Title != "forge API" || doc.Info.Version != version.Version || version.Version == "" {
		t.Errorf("swagger %q, title %q, version %q (the server reports %q)", doc.Swagger, doc.Info.Title, doc.Info.Version, version.Version)
	}
	// No host or scheme: "Try it out" calls the origin of the page.
	if doc.BasePath != "/api/v1" || doc.Host != "" || len(doc.Schemes) != 0 {
		t.Errorf("basePath %q, host %q, schemes %v", doc.BasePath, doc.Host, doc.Schemes)
	}
	tok := doc.SecurityDefinitions["AuthorizationHeaderToken"]
	if tok["type"] != "apiKey" || tok["in"] != "header" || tok["name"] != "Authorization" {
		t.Errorf("token security definition %v", tok)
	}
	if !slices.ContainsFunc(doc.Security, func(m map[string][]string) bool { _, ok := m["AuthorizationHeaderToken"]; return ok }) {
		t.Errorf("security %v does not offer the token header", doc.Security)
	}

	// Every route is documented, and nothing else.
	routes, err := gateway.RESTRoutes()
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, rt := range routes {
		method, path, _ := strings.Cut(rt, " ")
		if path == "/attachments/{uuid}" { // the download link, outside the API
			continue
		}
		if !strings.HasPrefix(path, "/api/v1/") {
			t.Errorf("route %s outside /api/v1", rt)
			continue
		}
		want = append(want, method+" "+strings.TrimPrefix(path, "/api/v1"))
	}
	var got []string
	ids := map[string]string{}
	for path, ops := range doc.Paths {
		for verb, op := range ops {
			key := strings.ToUpper(verb) + " " + path
			got = append(got, key)
			if other, dup := ids[op.OperationID]; dup || op.OperationID == "" {
				t.Errorf("%s: operationId %q (also %s)", key, op.OperationID, other)
			}
			ids[op.OperationID] = key
			var success []string
			for code := range op.Responses {
				if strings.HasPrefix(code, "2") {
					success = append(success, code)
				}
			}
			if len(success) != 1 {
				t.Errorf("%s: success responses %v", key, success)
			}
			if ref, _ := op.Responses["default"]["schema"].(map[string]any)["$ref"].(string); ref != "#/definitions/APIError" {
				t.Errorf("%s: error response %v", key, op.Responses["default"])
			}
		}
	}
	sort.Strings(want)
	sort.Strings(got)
	if !slices.Equal(got, want) {
		t.Errorf("documented operations differ from the routes:\n%s", diffLists(want, got))
	}
	if len(got) < 200 {
		t.Errorf("only %d operations", len(got))
	}

	// The declared statuses, as the server answers.
	for key, code := range map[string]int{
		"POST /admin/users":                               http.StatusCreated,
		"POST /user/repos":                                http.StatusCreated,
		"DELETE /repos/{owner}/{repo}":                    http.StatusNoContent,
		"GET /repos/{owner}/{repo}":                       http.StatusOK,
		"GET /version":                                    http.StatusOK,
		"POST /repos/{owner}/{repo}/releases/{id}/assets": http.StatusCreated,
		"GET /repos/{owner}/{repo}/raw/{filepath}":        http.StatusOK,
	} {
		verb, path, _ := strings.Cut(key, " ")
		op, ok := doc.Paths[path][strings.ToLower(verb)]
		if !ok {
			t.Errorf("%s is not documented", key)
			continue
		}
		resp, ok := op.Responses[strconv.Itoa(code)]
		if !ok {
			t.Errorf("%s: responses %v, want %d", key, keys(op.Responses), code)
			continue
		}
		if _, body := resp["schema"]; body == (code == http.StatusNoContent) {
			t.Errorf("%s: %d response %v", key, code, resp)
		}
	}
	create := s.do("POST", "/api/v1/user/repos", `{"name":"documented"}`, "Authorization", "token "+s.AdminToken, "Content-Type", "application/json")
	expectStatus(t, create, http.StatusCreated)

	// The page and its assets.
	page := s.do("GET", "/api/swagger", "")
	expectStatus(t, page, http.StatusOK)
	if ct := page.Header.Get("Content-Type"); ct != "text/html; charset=utf-8" {
		t.Errorf("page Content-Type %q", ct)
	}
	if csp := page.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'self'") {
		t.Errorf("page Content-Security-Policy %q", csp)
	}
	if page.Header.Get("ETag") == "" {
		t.Error("page without ETag")
	}
	html := string(page.Body)
	if !strings.Contains(html, `data-spec="/swagger.v1.json"`) {
		t.Errorf("page does not name the document:\n%s", html)
	}
	if strings.Contains(html, "//") && regexp.MustCompile(`(https?:)?//[a-z]`).MatchString(html) {
		t.Errorf("page refers to another origin:\n%s", html)
	}
	assets := regexp.MustCompile(`(?:href|src)="(/api/swagger/[^"]+)"`).FindAllStringSubmatch(html, -1)
	if len(assets) != 3 {
		t.Fatalf("assets %v", assets)
	}
	for _, a := range assets {
		r := s.do("GET", a[1], "")
		expectStatus(t, r, http.StatusOK)
		ct := r.Header.Get("Content-Type")
		if !strings.HasPrefix(ct, "text/css") && !strings.HasPrefix(ct, "text/javascript") {
			t.Errorf("%s: Content-Type %q", a[1], ct)
		}
		if cc := r.Header.Get("Cache-Control"); !strings.Contains(cc, "immutable") {
			t.Errorf("%s: Cache-Control %q", a[1], cc)
		}
		if strings.Contains(string(r.Body), "sourceMappingURL=") {
			t.Errorf("%s names a source map that is not served", a[1])
		}
	}
	if r := s.do("GET", "/api/swagger/0000000000000000/swagger-ui.css", ""); r.Status != http.StatusNotFound {
		t.Errorf("unknown asset: %d", r.Status)
	}
	if r := s.do("POST", "/swagger.v1.json", "{}", "Content-Type", "application/json"); r.Status != http.StatusMethodNotAllowed {
		t.Errorf("POST /swagger.v1.json: %d", r.Status)
	}
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	if r := s.doWith(noRedirect, "GET", "/swagger", ""); r.Status != http.StatusFound || r.Header.Get("Location") != "/api/swagger" {
		t.Errorf("/swagger: %d to %q", r.Status, r.Header.Get("Location"))
	}
}

func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// diffLists lists what only one of two sorted lists holds.
func diffLists(want, got []string) string {
	var b strings.Builder
	for _, w := range want {
		if _, found := slices.BinarySearch(got, w); !found {
			b.WriteString("  undocumented: " + w + "\n")
		}
	}
	for _, g := range got {
		if _, found := slices.BinarySearch(want, g); !found {
			b.WriteString("  not routed:   " + g + "\n")
		}
	}
	return b.String()
}
