package auth

import (
	"reflect"
	"strings"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"

	miscv1 "forge/gen/forge/misc/v1"
	optionsv1 "forge/gen/forge/options/v1"
	"forge/services/store"
)

// TestPolicyOf: a declaration becomes the policy the interceptor
// enforces, and one that does not make sense is an error (start-up
// fails) rather than a method open wider than meant.
func TestPolicyOf(t *testing.T) {
	repo := optionsv1.ResourceKind_RESOURCE_KIND_REPOSITORY
	org := optionsv1.ResourceKind_RESOURCE_KIND_ORGANIZATION
	team := optionsv1.ResourceKind_RESOURCE_KIND_TEAM
	signedIn := optionsv1.Caller_CALLER_SIGNED_IN
	write := optionsv1.ScopeLevel_SCOPE_LEVEL_WRITE
	good := []struct {
		decl *optionsv1.Policy
		want Policy
	}{
		{&optionsv1.Policy{Caller: optionsv1.Caller_CALLER_PUBLIC, CallerUnused: true},
			Policy{Access: Public, CallerUnused: true}},
		{&optionsv1.Policy{Caller: optionsv1.Caller_CALLER_SELF_OR_ADMIN, BasicOnly: true, Scopes: []string{"user"}, ScopeLevel: optionsv1.ScopeLevel_SCOPE_LEVEL_READ},
			Policy{Access: SelfOrAdmin, BasicOnly: true, Scopes: []Category{CategoryUser}, Level: LevelRead}},
		{&optionsv1.Policy{Caller: signedIn, Scopes: []string{"user", "repository"}, ScopeLevel: write, Writes: optionsv1.Writes_WRITES_ISSUES,
			Resource: &optionsv1.Resource{Kind: repo, Unit: optionsv1.Unit_UNIT_ISSUES, Need: optionsv1.Need_NEED_WRITE}},
			Policy{Access: SignedIn, Scopes: []Category{CategoryUser, CategoryRepository}, Level: LevelWrite, Writes: WritesIssues,
				Resource: Resource{Kind: RepositoryResource, Unit: UnitIssues, Need: store.AccessWrite}}},
		{&optionsv1.Policy{Caller: signedIn, Resource: &optionsv1.Resource{Kind: repo, Unit: optionsv1.Unit_UNIT_CODE, Need: optionsv1.Need_NEED_OWNER, ById: true}},
			Policy{Access: SignedIn, Resource: Resource{Kind: RepositoryResource, Unit: UnitCode, Need: store.AccessOwner, ByID: true}}},
		{&optionsv1.Policy{Caller: signedIn, Resource: &optionsv1.Resource{Kind: org, Need: optionsv1.Need_NEED_MEMBER}},
			Policy{Access: SignedIn, Resource: Resource{Kind: OrganizationResource, Role: OrgMember}}},
		{&optionsv1.Policy{Caller: signedIn, Resource: &optionsv1.Resource{Kind: team, Need: optionsv1.Need_NEED_OWNER}},
			Policy{Access: SignedIn, Resource: Resource{Kind: TeamResource, Role: OrgOwner}}},
	}
	for _, c := range good {
		got, err := policyOf(c.decl)
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("policyOf(%v) = %+v, %v; want %+v", c.decl, got, err, c.want)
		}
	}
	bad := []struct {
		decl *optionsv1.Policy
		want string
	}{
		{&optionsv1.Policy{}, "no caller"},
		{&optionsv1.Policy{Scopes: []string{"repository"}, ScopeLevel: write}, "no caller"},
		{&optionsv1.Policy{Caller: signedIn, Scopes: []string{"repo"}, ScopeLevel: write}, `unknown scope category "repo"`},
		{&optionsv1.Policy{Caller: signedIn, Scopes: []string{"write:repository"}, ScopeLevel: write}, "unknown scope category"},
		{&optionsv1.Policy{Caller: signedIn, Scopes: []string{"repository"}}, "without scope_level"},
		{&optionsv1.Policy{Caller: signedIn, Writes: 99}, "unknown writes"},
		{&optionsv1.Policy{Caller: signedIn, Resource: &optionsv1.Resource{Kind: repo, Need: optionsv1.Need_NEED_READ}}, "no unit"},
		{&optionsv1.Policy{Caller: signedIn, Resource: &optionsv1.Resource{Kind: repo, Unit: optionsv1.Unit_UNIT_CODE}}, "not read, write, admin or owner"},
		{&optionsv1.Policy{Caller: signedIn, Resource: &optionsv1.Resource{Kind: repo, Unit: optionsv1.Unit_UNIT_CODE, Need: optionsv1.Need_NEED_MEMBER}}, "not read, write, admin or owner"},
		{&optionsv1.Policy{Caller: signedIn, Resource: &optionsv1.Resource{Kind: org, Need: optionsv1.Need_NEED_WRITE}}, "not read, member or owner"},
		{&optionsv1.Policy{Caller: signedIn, Resource: &optionsv1.Resource{Kind: team}}, "not read, member or owner"},
		{&optionsv1.Policy{Caller: signedIn, Resource: &optionsv1.Resource{Kind: org, Need: optionsv1.Need_NEED_OWNER, Unit: optionsv1.Unit_UNIT_CODE}}, "unit or by_id"},
		{&optionsv1.Policy{Caller: signedIn, Resource: &optionsv1.Resource{Kind: org, Need: optionsv1.Need_NEED_OWNER, ById: true}}, "unit or by_id"},
		{&optionsv1.Policy{Caller: signedIn, Resource: &optionsv1.Resource{Need: optionsv1.Need_NEED_READ}}, "no kind"},
		{&optionsv1.Policy{Caller: signedIn, Resource: &optionsv1.Resource{Unit: optionsv1.Unit_UNIT_CODE}}, "no kind"},
		{&optionsv1.Policy{Caller: signedIn, Resource: &optionsv1.Resource{Kind: 99}}, "unknown resource kind"},
	}
	for _, c := range bad {
		if _, err := policyOf(c.decl); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("policyOf(%v): %v, want an error containing %q", c.decl, err, c.want)
		}
	}
}

// TestDeclared reads the declarations from the registered descriptors: a
// method declaring none is left out (the interceptor refuses it), and one
// malformed declaration fails the whole service, naming the method.
func TestDeclared(t *testing.T) {
	registerTestServices(t)
	got, err := Declared([]*grpc.ServiceDesc{{ServiceName: "forge.authtest.Ok"}})
	if err != nil {
		t.Fatal(err)
	}
	want := Policies{"/forge.authtest.Ok/Good": {Access: SignedIn}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Declared = %+v, want %+v (Bare declares none)", got, want)
	}
	if _, err := Declared([]*grpc.ServiceDesc{{ServiceName: "forge.authtest.Broken"}}); err == nil ||
		!strings.Contains(err.Error(), "/forge.authtest.Broken/Bad: policy declares no caller") {
		t.Errorf("malformed declaration: %v", err)
	}
	if _, err := Declared([]*grpc.ServiceDesc{{ServiceName: "forge.authtest.Missing"}}); err == nil {
		t.Error("a service with no descriptor accepted")
	}
	// A real service: the compiled-in protos carry the option.
	pols, err := Declared([]*grpc.ServiceDesc{&miscv1.MiscService_ServiceDesc})
	if err != nil {
		t.Fatal(err)
	}
	if p, ok := pols[miscv1.MiscService_GetVersion_FullMethodName]; !ok || p.Access != Public || !p.CallerUnused {
		t.Errorf("GetVersion: %+v %v", p, ok)
	}
}

// registerTestServices adds forge.authtest.Ok (Good declares a policy,
// Bare none) and forge.authtest.Broken (Bad declares no caller) to the
// global registry Declared reads.
func registerTestServices(t *testing.T) {
	t.Helper()
	if _, err := protoregistry.GlobalFiles.FindFileByPath("forge/authtest/declared_test.proto"); err == nil {
		return // -count=2
	}
	withPolicy := func(p *optionsv1.Policy) *descriptorpb.MethodOptions {
		o := &descriptorpb.MethodOptions{}
		proto.SetExtension(o, optionsv1.E_Policy, p)
		return o
	}
	method := func(name string, o *descriptorpb.MethodOptions) *descriptorpb.MethodDescriptorProto {
		return &descriptorpb.MethodDescriptorProto{Name: proto.String(name), InputType: proto.String(".forge.authtest.M"),
			OutputType: proto.String(".forge.authtest.M"), Options: o}
	}
	fdp := &descriptorpb.FileDescriptorProto{
		Name:        proto.String("forge/authtest/declared_test.proto"),
		Package:     proto.String("forge.authtest"),
		Syntax:      proto.String("proto3"),
		MessageType: []*descriptorpb.DescriptorProto{{Name: proto.String("M")}},
		Service: []*descriptorpb.ServiceDescriptorProto{
			{Name: proto.String("Ok"), Method: []*descriptorpb.MethodDescriptorProto{
				method("Good", withPolicy(&optionsv1.Policy{Caller: optionsv1.Caller_CALLER_SIGNED_IN})),
				method("Bare", nil),
			}},
			{Name: proto.String("Broken"), Method: []*descriptorpb.MethodDescriptorProto{
				method("Bad", withPolicy(&optionsv1.Policy{Scopes: []string{"user"}, ScopeLevel: optionsv1.ScopeLevel_SCOPE_LEVEL_READ})),
			}},
		},
	}
	fd, err := protodesc.NewFile(fdp, protoregistry.GlobalFiles)
	if err != nil {
		t.Fatal(err)
	}
	if err := protoregistry.GlobalFiles.RegisterFile(fd); err != nil {
		t.Fatal(err)
	}
}
