package gateway

import (
	"fmt"
	"net/http"
	"sort"
	"strings"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	optionsv1 "forge/gen/forge/options/v1"
)

// successStatuses reads, once at start-up, the success status each routed
// gRPC method declares in its proto (forge.options.v1.success_status),
// keyed by full method name; methods that declare none answer 200. A
// method the registry does not know, or a status other than 200, 201, 202,
// 204 or 205, is a start-up error.
func successStatuses(routes routeTable) (map[string]int, error) {
	out := map[string]int{}
	for _, method := range routes {
		if _, done := out[method]; done {
			continue
		}
		md, err := methodDescriptor(method)
		if err != nil {
			return nil, err
		}
		code := int(proto.GetExtension(md.Options(), optionsv1.E_SuccessStatus).(int32))
		switch code {
		case 0:
			code = http.StatusOK
		case http.StatusOK, http.StatusCreated, http.StatusAccepted, http.StatusNoContent, http.StatusResetContent:
		default:
			return nil, fmt.Errorf("gateway: %s: success_status %d is not 200, 201, 202, 204 or 205", method, code)
		}
		out[method] = code
	}
	return out, nil
}

// noLinkHeaders reads, once at start-up, the routed methods whose lists
// carry X-Total-Count without a Link header (forge.options.v1.no_link_header).
func noLinkHeaders(routes routeTable) (map[string]bool, error) {
	out := map[string]bool{}
	for _, method := range routes {
		md, err := methodDescriptor(method)
		if err != nil {
			return nil, err
		}
		if proto.GetExtension(md.Options(), optionsv1.E_NoLinkHeader).(bool) {
			out[method] = true
		}
	}
	return out, nil
}

// statusIfSet is the status an answer takes, instead of its method's
// success status, when its field is true (forge.options.v1.status_if_set),
// and whether the body is dropped.
type statusIfSet struct {
	field  protoreflect.FieldDescriptor
	status int
	noBody bool
}

// answerStatuses reads, once at start-up, the field of each routed
// method's answer that changes its status (forge.options.v1.status_if_set),
// keyed by full method name. The option on a field that is not a bool,
// on two fields of one answer, or with a status other than 200, 201 or 202
// is a start-up error.
func answerStatuses(routes routeTable) (map[string]statusIfSet, error) {
	out := map[string]statusIfSet{}
	seen := map[string]bool{}
	for _, method := range routes {
		if seen[method] {
			continue
		}
		seen[method] = true
		md, err := methodDescriptor(method)
		if err != nil {
			return nil, err
		}
		fields := md.Output().Fields()
		for i := 0; i < fields.Len(); i++ {
			fd := fields.Get(i)
			if !proto.HasExtension(fd.Options(), optionsv1.E_StatusIfSet) {
				continue
			}
			opt := proto.GetExtension(fd.Options(), optionsv1.E_StatusIfSet).(*optionsv1.StatusIfSet)
			switch {
			case fd.Kind() != protoreflect.BoolKind || fd.IsList():
				return nil, fmt.Errorf("gateway: %s: status_if_set on %s, which is not a bool", method, fd.FullName())
			case opt.GetStatus() != http.StatusOK && opt.GetStatus() != http.StatusCreated && opt.GetStatus() != http.StatusAccepted:
				return nil, fmt.Errorf("gateway: %s: status_if_set %d on %s is not 200, 201 or 202", method, opt.GetStatus(), fd.FullName())
			}
			if prev, ok := out[method]; ok {
				return nil, fmt.Errorf("gateway: %s: status_if_set on both %s and %s", method, prev.field.FullName(), fd.FullName())
			}
			out[method] = statusIfSet{field: fd, status: int(opt.GetStatus()), noBody: opt.GetNoBody()}
		}
	}
	return out, nil
}

// methodDescriptor finds a full method name (/pkg.Service/Method) in the
// registry of compiled-in descriptors.
func methodDescriptor(method string) (protoreflect.MethodDescriptor, error) {
	name := strings.Replace(strings.TrimPrefix(method, "/"), "/", ".", 1)
	d, err := protoregistry.GlobalFiles.FindDescriptorByName(protoreflect.FullName(name))
	if err != nil {
		return nil, fmt.Errorf("gateway: %s: %w", method, err)
	}
	md, ok := d.(protoreflect.MethodDescriptor)
	if !ok {
		return nil, fmt.Errorf("gateway: %s is not a method", method)
	}
	return md, nil
}

// RESTMethods returns the full gRPC method names that some REST route
// calls: those with an option (google.api.http) in their proto and those of
// the gateway's hand-written streaming routes (raw files, attachments). The
// server's areas test uses it to find a method that has no route and is
// not declared gRPC-only.
func RESTMethods() (map[string]bool, error) {
	routes, err := loadRoutes()
	if err != nil {
		return nil, err
	}
	out := make(map[string]bool, len(routes))
	for _, method := range routes {
		out[method] = true
	}
	for _, method := range diffPatterns {
		out[method] = true
	}
	out[archiveMethod] = true
	return out, nil
}

// RESTRoutes returns every route the gateway mounts as "<METHOD>
// <template>", variables as {name}: the google.api.http bindings, the
// hand-written streaming routes and the diff routes. The server's tests
// compare it with the OpenAPI document.
func RESTRoutes() ([]string, error) {
	routes, err := loadRoutes()
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(routes)+len(diffPatterns))
	for key := range routes {
		out = append(out, templateVariable.ReplaceAllString(key, "{${1}}"))
	}
	for path := range diffPatterns {
		out = append(out, http.MethodGet+" "+path)
	}
	out = append(out, http.MethodGet+" "+templateVariable.ReplaceAllString(archivePattern, "{${1}}"))
	sort.Strings(out)
	return out, nil
}
