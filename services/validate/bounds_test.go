package validate_test

import (
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	optionsv1 "forge/gen/forge/options/v1"
	"forge/services/area/all"
)

// boundedInUseCase lists the repeated request fields whose bound a use
// case checks itself because Gitea answers it with its own message; each
// names where.
var boundedInUseCase = map[protoreflect.FullName]string{
	"forge.repos.v1.SetRepoTopicsRequest.topics": "services/repos maxTopicNames (Gitea's too-many-topics 422)",
}

// requestMessages is every message a registered rpc receives, and every
// message reachable from one through its fields (protobuf's own types
// aside), by name.
func requestMessages(t *testing.T) map[protoreflect.FullName]protoreflect.MessageDescriptor {
	t.Helper()
	out := map[protoreflect.FullName]protoreflect.MessageDescriptor{}
	var walk func(md protoreflect.MessageDescriptor)
	walk = func(md protoreflect.MessageDescriptor) {
		if out[md.FullName()] != nil || md.ParentFile().Package() == "google.protobuf" {
			return
		}
		out[md.FullName()] = md
		for i := 0; i < md.Fields().Len(); i++ {
			fd := md.Fields().Get(i)
			if fd.IsMap() {
				fd = fd.MapValue()
			}
			if fd.Message() != nil {
				walk(fd.Message())
			}
		}
	}
	for _, a := range all.Areas {
		for _, sd := range a.Services {
			d, err := protoregistry.GlobalFiles.FindDescriptorByName(protoreflect.FullName(sd.ServiceName))
			if err != nil {
				t.Fatalf("service %s: %v", sd.ServiceName, err)
			}
			methods := d.(protoreflect.ServiceDescriptor).Methods()
			for i := 0; i < methods.Len(); i++ {
				walk(methods.Get(i).Input())
			}
		}
	}
	return out
}

// TestEveryRequestListIsBounded: a list or map a client sends is bounded
// by a declared max_items (answered 422 "[Field]: MaxSize" before the
// handler), so no handler or query meets a list of unbounded length.
func TestEveryRequestListIsBounded(t *testing.T) {
	msgs := requestMessages(t)
	if len(msgs) < 100 {
		t.Fatalf("only %d request messages found; are the areas linked?", len(msgs))
	}
	lists := 0
	for _, md := range msgs {
		for i := 0; i < md.Fields().Len(); i++ {
			fd := md.Fields().Get(i)
			if !fd.IsList() && !fd.IsMap() {
				continue
			}
			lists++
			if _, ok := boundedInUseCase[fd.FullName()]; ok {
				continue
			}
			var max int32
			if opts := fd.Options(); opts != nil && proto.HasExtension(opts, optionsv1.E_Rules) {
				max = proto.GetExtension(opts, optionsv1.E_Rules).(*optionsv1.FieldRules).GetMaxItems()
			}
			if max <= 0 {
				t.Errorf("%s is a list in a request and declares no max_items", fd.FullName())
			}
		}
	}
	if lists == 0 {
		t.Fatal("no list fields in any request; is the walk broken?")
	}
}

// TestEveryWebsiteIsAURL: a website a client sets is an http(s) URL, one
// rule for users, organizations and repositories.
func TestEveryWebsiteIsAURL(t *testing.T) {
	for _, md := range requestMessages(t) {
		fd := md.Fields().ByName("website")
		if fd == nil {
			continue
		}
		var format optionsv1.Format
		if opts := fd.Options(); opts != nil && proto.HasExtension(opts, optionsv1.E_Rules) {
			format = proto.GetExtension(opts, optionsv1.E_Rules).(*optionsv1.FieldRules).GetFormat()
		}
		if format != optionsv1.Format_FORMAT_URL {
			t.Errorf("%s declares no format: FORMAT_URL", fd.FullName())
		}
	}
}
