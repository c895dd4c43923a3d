package app_test

import (
	"strings"
	"testing"

	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	"forge/services/auth"
)

// TestRepositoryWritesAreDeclared: every registered write method whose
// request names a repository (owner and repo) says in its policy what it
// writes there, so that archived repositories and mirrors refuse it or let
// it through on purpose (services/access.ReadOnly). An undeclared one is
// refused on read-only repositories as if it wrote code.
func TestRepositoryWritesAreDeclared(t *testing.T) {
	s := startServer(t, "sqlite3", nil)
	policies := s.App.Policies()
	checked := 0
	for service, info := range s.App.GRPCServer().GetServiceInfo() {
		if strings.HasPrefix(service, "grpc.") { // reflection, health
			continue
		}
		d, err := protoregistry.GlobalFiles.FindDescriptorByName(protoreflect.FullName(service))
		if err != nil {
			t.Fatalf("%s: %v", service, err)
		}
		methods := d.(protoreflect.ServiceDescriptor).Methods()
		for _, m := range info.Methods {
			name := "/" + service + "/" + m.Name
			p, ok := policies[name]
			if !ok {
				t.Errorf("%s is registered without a policy", name)
				continue
			}
			fields := methods.ByName(protoreflect.Name(m.Name)).Input().Fields()
			if p.Level != auth.LevelWrite || fields.ByName("owner") == nil || fields.ByName("repo") == nil {
				continue
			}
			checked++
			if p.Writes == auth.WritesUndeclared {
				t.Errorf("%s writes in a repository but its policy does not declare what (Policy.Writes)", name)
			}
		}
	}
	if checked < 20 {
		t.Fatalf("only %d repository writes found; is the descriptor lookup right?", checked)
	}
}
