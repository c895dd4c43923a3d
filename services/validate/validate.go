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
	for _, f := range rulesFor(m.Descriptor()) {
		if f.desc.HasPresence() && !m.Has(f.desc) {
			continue
		}
		if f.nested {
			if err := check(m.Get(f.desc).Message()); err != nil {
				return err
			}
			continue
		}
		if msg := f.check(m.Get(f.desc).String()); msg != "" {
			return errs.New(errs.Invalid, msg)
		}
	}
	return nil
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
	}
	return ""
}

var userName = regexp.MustCompile(`^[A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?$`)

// validUserName: letters, digits and single '-', '_', '.' between them.
func validUserName(name string) bool {
	return userName.MatchString(name) && !strings.Contains(name, "..") && !strings.Contains(name, "--") && !strings.Contains(name, "__")
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
// recursive type stops.
func collect(md protoreflect.MessageDescriptor, path map[protoreflect.FullName]bool) []*field {
	path[md.FullName()] = true
	defer delete(path, md.FullName())
	var out []*field
	fds := md.Fields()
	for i := 0; i < fds.Len(); i++ {
		fd := fds.Get(i)
		if fd.IsList() || fd.IsMap() {
			continue
		}
		if fd.Kind() == protoreflect.MessageKind {
			if !path[fd.Message().FullName()] && len(collect(fd.Message(), path)) > 0 {
				out = append(out, &field{desc: fd, nested: true})
			}
			continue
		}
		r := rulesOf(fd)
		if r == nil {
			continue
		}
		if fd.Kind() != protoreflect.StringKind {
			panic(fmt.Sprintf("validate: rules on %s, which is not a string", fd.FullName()))
		}
		name := r.GetName()
		if name == "" {
			name = goName(string(fd.Name()))
		}
		out = append(out, &field{desc: fd, name: name, rules: r})
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
