package gateway

import (
	"fmt"
	"net/http"
	"regexp"

	"google.golang.org/genproto/googleapis/api/annotations"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	attachmentsv1 "forge/gen/forge/attachments/v1"
	contentsv1 "forge/gen/forge/contents/v1"
)

// routeTable maps "<HTTP method> <path template>" (in the form
// runtime.Pattern.String() prints, variables as {name=*}) to the full
// gRPC method name. The gateway reads it to learn which gRPC method a
// route calls before the generated handler runs (and reads the body).
type routeTable map[string]string

// loadRoutes reads the routes the generated handlers serve from the same
// place buf generated them from: each rpc's option (google.api.http) and
// its additional bindings, in the compiled-in descriptors of every service
// linked into the binary. It then adds the gateway's hand-written routes.
// A route declared twice is an error: the mux would call one method while
// the preflight asks about the other.
func loadRoutes() (routeTable, error) {
	t := routeTable{}
	var err error
	protoregistry.GlobalFiles.RangeFiles(func(f protoreflect.FileDescriptor) bool {
		for i := range f.Services().Len() {
			methods := f.Services().Get(i).Methods()
			for j := range methods.Len() {
				md := methods.Get(j)
				if !proto.HasExtension(md.Options(), annotations.E_Http) {
					continue
				}
				rule := proto.GetExtension(md.Options(), annotations.E_Http).(*annotations.HttpRule)
				if err = t.addRule(fullMethod(md), rule); err != nil {
					return false
				}
			}
		}
		return true
	})
	if err != nil {
		return nil, err
	}
	for _, p := range rawPatterns {
		if err := t.add(http.MethodGet, p, contentsv1.ContentService_GetRawFile_FullMethodName); err != nil {
			return nil, err
		}
	}
	for _, u := range uploadRoutes {
		if err := t.add(http.MethodPost, u.pattern, u.method); err != nil {
			return nil, err
		}
	}
	if err := t.add(http.MethodGet, downloadPattern, attachmentsv1.AttachmentService_DownloadAttachment_FullMethodName); err != nil {
		return nil, err
	}
	return t, nil
}

// addRule adds a rule's binding and its additional bindings.
func (t routeTable) addRule(grpcMethod string, rule *annotations.HttpRule) error {
	var method, template string
	switch p := rule.GetPattern().(type) {
	case *annotations.HttpRule_Get:
		method, template = http.MethodGet, p.Get
	case *annotations.HttpRule_Put:
		method, template = http.MethodPut, p.Put
	case *annotations.HttpRule_Post:
		method, template = http.MethodPost, p.Post
	case *annotations.HttpRule_Delete:
		method, template = http.MethodDelete, p.Delete
	case *annotations.HttpRule_Patch:
		method, template = http.MethodPatch, p.Patch
	case *annotations.HttpRule_Custom:
		method, template = p.Custom.GetKind(), p.Custom.GetPath()
	}
	if method == "" || template == "" {
		return fmt.Errorf("gateway: %s: a google.api.http binding without an HTTP method and path", grpcMethod)
	}
	if err := t.add(method, template, grpcMethod); err != nil {
		return err
	}
	for _, b := range rule.GetAdditionalBindings() {
		if err := t.addRule(grpcMethod, b); err != nil {
			return err
		}
	}
	return nil
}

// fullMethod is the gRPC full method name (/pkg.Service/Method) of md.
func fullMethod(md protoreflect.MethodDescriptor) string {
	return "/" + string(md.Parent().FullName()) + "/" + string(md.Name())
}

var bareVariable = regexp.MustCompile(`\{([A-Za-z0-9_.]+)\}`)

func (t routeTable) add(method, template, grpcMethod string) error {
	key := method + " " + bareVariable.ReplaceAllString(template, "{${1}=*}")
	if other, ok := t[key]; ok && other != grpcMethod {
		return fmt.Errorf("gateway: %s is routed to both %s and %s", key, other, grpcMethod)
	}
	t[key] = grpcMethod
	return nil
}

// lookup returns the gRPC method served for an HTTP method and the
// matched pattern (runtime.Pattern.String()).
func (t routeTable) lookup(method, pattern string) (string, bool) {
	m, ok := t[method+" "+pattern]
	return m, ok
}
