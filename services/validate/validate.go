// Package validate checks requests against the rules their proto fields
// declare (forge.options.v1.rules, proto/forge/options/v1/validate.proto)
// before the handler runs, with Gitea's binding messages ("[Name]:
// Required"). It is the one place field rules are enforced: one interceptor
// in the chain serves gRPC and REST alike. Rules that need the database or
// git stay in the use cases.
package validate

import (
	"context"
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"

	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	optionsv1 "forge/gen/forge/options/v1"
	"forge/services/errs"
	"forge/services/git"
)

// Unary checks each request before the handler.
func Unary(ctx context.Context, req any, _ *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	if err := Check(req); err != nil {
		return nil, err
	}
	return handler(ctx, req)
}

// Stream checks each message a streaming handler receives.
func Stream(srv any, ss grpc.ServerStream, _ *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
	return handler(srv, checkedStream{ss})
}

type checkedStream struct{ grpc.ServerStream }

func (s checkedStream) RecvMsg(m any) error {
	if err := s.ServerStream.RecvMsg(m); err != nil {
		return err
	}
	return Check(m)
}

// Check returns an errs.Invalid error for the first rule m breaks, in field
// order, nested messages in place; nil when m is not a proto message or
// breaks none. Callers that bypass the interceptor (the command line) call
// it themselves.
func Check(m any) error {
	msg, ok := m.(proto.Message)
	if !ok {
		return nil
	}
	return check(msg.ProtoReflect())
}

func check(m protoreflect.Message) error {
	if err := checkRules(m); err != nil {
		return err
	}
	return checkText(m, "")
}

func checkRules(m protoreflect.Message) error {
	for _, f := range rulesFor(m.Descriptor()) {
		if f.desc.HasPresence() && !m.Has(f.desc) {
			continue
		}
		if f.nested {
			if err := checkRules(m.Get(f.desc).Message()); err != nil {
				return err
			}
			continue
		}
		if f.desc.IsList() || f.desc.IsMap() {
			if n := entries(m.Get(f.desc), f.desc); n > int(f.rules.GetMaxItems()) {
				return errs.Newf(errs.Invalid, "[%s]: MaxSize", f.name)
			}
			continue
		}
		if msg := f.check(m.Get(f.desc).String()); msg != "" {
			return errs.New(errs.Invalid, msg)
		}
	}
	return nil
}

// entries is the length of a list or map value.
func entries(v protoreflect.Value, fd protoreflect.FieldDescriptor) int {
	if fd.IsMap() {
		return v.Map().Len()
	}
	return v.List().Len()
}

// checkText refuses a string anywhere in m (nested messages, list and map
// entries, map keys) that holds a NUL character or is not UTF-8: no
// database column takes the first (PostgreSQL answers SQLSTATE 22021) and
// no text is the second. It needs no declaration, so no field is
// forgotten. outer names the field holding m when m is one of protobuf's
// own types (google.protobuf.Value in a label list), whose field names
// mean nothing to a client.
func checkText(m protoreflect.Message, outer string) error {
	var err error
	wellKnown := m.Descriptor().ParentFile().Package() == "google.protobuf"
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		name := outer
		if !wellKnown || name == "" {
			name = fieldName(fd)
		}
		switch {
		case fd.IsMap():
			v.Map().Range(func(k protoreflect.MapKey, mv protoreflect.Value) bool {
				err = checkValue(fd.MapKey(), k.Value(), name)
				if err == nil {
					err = checkValue(fd.MapValue(), mv, name)
				}
				return err == nil
			})
		case fd.IsList():
			l := v.List()
			for i := 0; i < l.Len() && err == nil; i++ {
				err = checkValue(fd, l.Get(i), name)
			}
		default:
			err = checkValue(fd, v, name)
		}
		return err == nil
	})
	return err
}

func checkValue(fd protoreflect.FieldDescriptor, v protoreflect.Value, name string) error {
	switch fd.Kind() {
	case protoreflect.StringKind:
		s := v.String()
		if strings.IndexByte(s, 0) >= 0 {
			return errs.Newf(errs.Invalid, "[%s]: contains a NUL character", name)
		}
		if !utf8.ValidString(s) {
			return errs.Newf(errs.Invalid, "[%s]: is not valid UTF-8", name)
		}
	case protoreflect.MessageKind, protoreflect.GroupKind:
		return checkText(v.Message(), name)
	}
	return nil
}

// names caches fieldName per field.
var names sync.Map // protoreflect.FullName → string

// fieldName is the name a message shows for fd: its rules' name, else the
// CamelCase of the proto name.
func fieldName(fd protoreflect.FieldDescriptor) string {
	if v, ok := names.Load(fd.FullName()); ok {
		return v.(string)
	}
	name := rulesOf(fd).GetName()
	if name == "" {
		name = goName(string(fd.Name()))
	}
	names.Store(fd.FullName(), name)
	return name
}

// field is one field that has rules or holds a message that may have some.
type field struct {
	desc   protoreflect.FieldDescriptor
	name   string
	rules  *optionsv1.FieldRules
	nested bool
}

// check returns the message for the first rule value breaks, "" if none.
func (f *field) check(value string) string {
	r := f.rules
	switch {
	case r.GetRequired() && strings.TrimSpace(value) == "":
		return fmt.Sprintf("[%s]: Required", f.name)
	case r.GetMaxLen() > 0 && utf8.RuneCountInString(value) > int(r.GetMaxLen()):
		return fmt.Sprintf("[%s]: MaxSize", f.name)
	case value == "":
		return ""
	}
	switch r.GetFormat() {
	case optionsv1.Format_FORMAT_REPO_NAME:
		if !git.ValidName(value) {
			return fmt.Sprintf("[%s]: invalid repository name %q (letters, digits, '-', '_', '.')", f.name, value)
		}
	case optionsv1.Format_FORMAT_GIT_REF_NAME:
		if !git.ValidRefName(value) {
			return fmt.Sprintf("[%s]: GitRefName", f.name)
		}
	case optionsv1.Format_FORMAT_USER_NAME:
		if !validUserName(value) {
			return fmt.Sprintf("[%s]: invalid user name %q (letters, digits, and single '-', '_' or '.' between them)", f.name, value)
		}
	case optionsv1.Format_FORMAT_URL:
		if !validURL(value) {
			return fmt.Sprintf("[%s]: Url", f.name)
		}
	}
	return ""
}

var userName = regexp.MustCompile(`^[A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?$`)

// validUserName: letters, digits and single '-', '_', '.' between them.
func validUserName(name string) bool {
	return userName.MatchString(name) && !strings.Contains(name, "..") && !strings.Contains(name, "--") && !strings.Contains(name, "__")
}

// validURL: an absolute http or https URL with a host (url.Parse lowers
// the scheme), so javascript:, data: and relative links are refused.
func validURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}

// cache holds each message type's checked fields, read once per type.
var cache sync.Map // protoreflect.FullName → []*field

func rulesFor(md protoreflect.MessageDescriptor) []*field {
	if v, ok := cache.Load(md.FullName()); ok {
		return v.([]*field)
	}
	fields := collect(md, map[protoreflect.FullName]bool{})
	cache.Store(md.FullName(), fields)
	return fields
}

// collect lists md's fields with rules and its singular message fields whose
// type (transitively) has some; path holds the types being collected, so a
// recursive type stops. A rule that cannot apply to its field panics.
func collect(md protoreflect.MessageDescriptor, path map[protoreflect.FullName]bool) []*field {
	path[md.FullName()] = true
	defer delete(path, md.FullName())
	var out []*field
	fds := md.Fields()
	for i := 0; i < fds.Len(); i++ {
		fd := fds.Get(i)
		r := rulesOf(fd)
		repeated := fd.IsList() || fd.IsMap()
		if !repeated && fd.Kind() == protoreflect.MessageKind {
			if !path[fd.Message().FullName()] && len(collect(fd.Message(), path)) > 0 {
				out = append(out, &field{desc: fd, nested: true})
			}
			continue
		}
		if r == nil {
			continue
		}
		switch {
		case repeated && (r.GetRequired() || r.GetMaxLen() != 0 || r.GetFormat() != optionsv1.Format_FORMAT_UNSPECIFIED):
			panic(fmt.Sprintf("validate: string rules on %s, which is repeated", fd.FullName()))
		case repeated && r.GetMaxItems() <= 0:
			panic(fmt.Sprintf("validate: %s is repeated and declares no positive max_items", fd.FullName()))
		case !repeated && r.GetMaxItems() != 0:
			panic(fmt.Sprintf("validate: max_items on %s, which is not repeated", fd.FullName()))
		case !repeated && fd.Kind() != protoreflect.StringKind:
			panic(fmt.Sprintf("validate: rules on %s, which is not a string", fd.FullName()))
		}
		out = append(out, &field{desc: fd, name: fieldName(fd), rules: r})
	}
	return out
}

func rulesOf(fd protoreflect.FieldDescriptor) *optionsv1.FieldRules {
	opts := fd.Options()
	if opts == nil || !proto.HasExtension(opts, optionsv1.E_Rules) {
		return nil
	}
	return proto.GetExtension(opts, optionsv1.E_Rules).(*optionsv1.FieldRules)
}

// goName is the CamelCase of a snake_case proto field name, as Gitea's Go
// struct field is usually named (repo_name → RepoName).
func goName(s string) string {
	parts := strings.Split(s, "_")
	for i, p := range parts {
		if p != "" {
			parts[i] = strings.ToUpper(p[:1]) + p[1:]
		}
	}
	return strings.Join(parts, "")
}
