package gateway

import (
	_ "embed"
	"fmt"
	"net/http"
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"

	attachmentsv1 "forge/gen/forge/attachments/v1"
	contentsv1 "forge/gen/forge/contents/v1"
)

// httpRules is the REST mapping buf generates the handlers from; the
// gateway reads it again at start-up to learn which gRPC method each route
// calls before the generated handler runs (and reads the body).
//
//go:embed http_rules.yaml
var httpRules []byte

// routeTable maps "<HTTP method> <path template>" (in the form
// runtime.Pattern.String() prints, variables as {name=*}) to the full
// gRPC method name.
type routeTable map[string]string

type httpRule struct {
	Selector           string     `yaml:"selector"`
	Get                string     `yaml:"get"`
	Put                string     `yaml:"put"`
	Post               string     `yaml:"post"`
	Delete             string     `yaml:"delete"`
	Patch              string     `yaml:"patch"`
	AdditionalBindings []httpRule `yaml:"additional_bindings"`
}

// loadRoutes parses the HTTP rules and adds the hand-written routes.
func loadRoutes() (routeTable, error) {
	var doc struct {
		HTTP struct {
			Rules []httpRule `yaml:"rules"`
		} `yaml:"http"`
	}
	if err := yaml.Unmarshal(httpRules, &doc); err != nil {
		return nil, fmt.Errorf("gateway: http_rules.yaml: %w", err)
	}
	t := routeTable{}
	var add func(selector string, r httpRule) error
	add = func(selector string, r httpRule) error {
		n := 0
		for _, b := range []struct{ method, path string }{
			{http.MethodGet, r.Get}, {http.MethodPut, r.Put}, {http.MethodPost, r.Post},
			{http.MethodDelete, r.Delete}, {http.MethodPatch, r.Patch},
		} {
			if b.path != "" {
				t.add(b.method, b.path, fullMethod(selector))
				n++
			}
		}
		if n != 1 {
			return fmt.Errorf("gateway: http_rules.yaml: %s: want one HTTP method per binding, got %d", selector, n)
		}
		for _, ab := range r.AdditionalBindings {
			if err := add(selector, ab); err != nil {
				return err
			}
		}
		return nil
	}
	for _, r := range doc.HTTP.Rules {
		if err := add(r.Selector, r); err != nil {
			return nil, err
		}
	}
	for _, p := range rawPatterns {
		t.add(http.MethodGet, p, contentsv1.ContentService_GetRawFile_FullMethodName)
	}
	for _, u := range uploadRoutes {
		t.add(http.MethodPost, u.pattern, u.method)
	}
	t.add(http.MethodGet, downloadPattern, attachmentsv1.AttachmentService_DownloadAttachment_FullMethodName)
	return t, nil
}

// fullMethod turns a rule selector (pkg.Service.Method) into the gRPC
// full method name (/pkg.Service/Method).
func fullMethod(selector string) string {
	i := strings.LastIndex(selector, ".")
	return "/" + selector[:i] + "/" + selector[i+1:]
}

var bareVariable = regexp.MustCompile(`\{([A-Za-z0-9_.]+)\}`)

func (t routeTable) add(method, template, grpcMethod string) {
	t[method+" "+bareVariable.ReplaceAllString(template, "{${1}=*}")] = grpcMethod
}

// lookup returns the gRPC method served for an HTTP method and the
// matched pattern (runtime.Pattern.String()).
func (t routeTable) lookup(method, pattern string) (string, bool) {
	m, ok := t[method+" "+pattern]
	return m, ok
}
