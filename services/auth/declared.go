package auth

import (
	"fmt"

	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	optionsv1 "forge/gen/forge/options/v1"
	"forge/services/store"
)

// Declared reads the policies that the methods of services declare in
// their protos (option (forge.options.v1.policy)), keyed by full method
// name. Methods declaring none are left out; the interceptor refuses them.
// A declaration that does not make sense (no caller, an unknown scope, a
// need the resource kind does not have) is an error, so a typo fails at
// start-up rather than opening a method.
func Declared(services []*grpc.ServiceDesc) (Policies, error) {
	out := Policies{}
	for _, sd := range services {
		d, err := protoregistry.GlobalFiles.FindDescriptorByName(protoreflect.FullName(sd.ServiceName))
		if err != nil {
			return nil, fmt.Errorf("auth: service %s: %w", sd.ServiceName, err)
		}
		svc, ok := d.(protoreflect.ServiceDescriptor)
		if !ok {
			return nil, fmt.Errorf("auth: %s is not a service", sd.ServiceName)
		}
		methods := svc.Methods()
		for i := 0; i < methods.Len(); i++ {
			md := methods.Get(i)
			if !proto.HasExtension(md.Options(), optionsv1.E_Policy) {
				continue
			}
			name := "/" + sd.ServiceName + "/" + string(md.Name())
			decl := proto.GetExtension(md.Options(), optionsv1.E_Policy).(*optionsv1.Policy)
			pol, err := policyOf(decl)
			if err == nil {
				err = checkWriterFields(pol, md.Input())
			}
			if err != nil {
				return nil, fmt.Errorf("auth: %s: %w", name, err)
			}
			out[name] = pol
		}
	}
	return out, nil
}

func policyOf(d *optionsv1.Policy) (Policy, error) {
	var p Policy
	switch d.GetCaller() {
	case optionsv1.Caller_CALLER_PUBLIC:
		p.Access = Public
	case optionsv1.Caller_CALLER_SIGNED_IN:
		p.Access = SignedIn
	case optionsv1.Caller_CALLER_SITE_ADMIN:
		p.Access = SiteAdmin
	case optionsv1.Caller_CALLER_SELF_OR_ADMIN:
		p.Access = SelfOrAdmin
	default:
		return p, fmt.Errorf("policy declares no caller")
	}
	p.BasicOnly = d.GetBasicOnly()
	p.CallerUnused = d.GetCallerUnused()
	for _, name := range d.GetScopes() {
		c := categoryByName(name)
		if c < 0 {
			return p, fmt.Errorf("unknown scope category %q", name)
		}
		p.Scopes = append(p.Scopes, c)
	}
	switch d.GetScopeLevel() {
	case optionsv1.ScopeLevel_SCOPE_LEVEL_READ:
		p.Level = LevelRead
	case optionsv1.ScopeLevel_SCOPE_LEVEL_WRITE:
		p.Level = LevelWrite
	default:
		if len(p.Scopes) > 0 {
			return p, fmt.Errorf("scopes declared without scope_level")
		}
	}
	writes := map[optionsv1.Writes]RepoWrite{
		optionsv1.Writes_WRITES_UNSPECIFIED: WritesUndeclared,
		optionsv1.Writes_WRITES_NOTHING:     WritesNothing,
		optionsv1.Writes_WRITES_SETTINGS:    WritesSettings,
		optionsv1.Writes_WRITES_CODE:        WritesCode,
		optionsv1.Writes_WRITES_RELEASES:    WritesReleases,
		optionsv1.Writes_WRITES_MIRRORING:   WritesMirroring,
		optionsv1.Writes_WRITES_ISSUES:      WritesIssues,
		optionsv1.Writes_WRITES_PUSH:        WritesPush,
	}
	w, ok := writes[d.GetWrites()]
	if !ok {
		return p, fmt.Errorf("unknown writes %v", d.GetWrites())
	}
	p.Writes = w
	r, err := resourceOf(d.GetResource())
	if err != nil {
		return p, err
	}
	p.Resource = r
	p.Rule = d.GetRule()
	p.WriterFields = d.GetWriterFields()
	return p, nil
}

// checkWriterFields verifies that writer fields name fields of the
// request, on a method whose repository resource gives the mode they
// depend on.
func checkWriterFields(p Policy, in protoreflect.MessageDescriptor) error {
	if len(p.WriterFields) > 0 && p.Resource.Kind != RepositoryResource {
		return fmt.Errorf("writer_fields without a repository resource")
	}
	for _, f := range p.WriterFields {
		if in.Fields().ByName(protoreflect.Name(f)) == nil {
			return fmt.Errorf("writer field %q is not a field of %s", f, in.FullName())
		}
	}
	return nil
}

func resourceOf(d *optionsv1.Resource) (Resource, error) {
	var r Resource
	switch d.GetKind() {
	case optionsv1.ResourceKind_RESOURCE_KIND_UNSPECIFIED:
		if d != nil && (d.GetNeed() != 0 || d.GetUnit() != 0 || d.GetById()) {
			return r, fmt.Errorf("resource declares a need but no kind")
		}
		return r, nil
	case optionsv1.ResourceKind_RESOURCE_KIND_REPOSITORY:
		r.Kind = RepositoryResource
		units := map[optionsv1.Unit]Unit{
			optionsv1.Unit_UNIT_CODE:            UnitCode,
			optionsv1.Unit_UNIT_ISSUES:          UnitIssues,
			optionsv1.Unit_UNIT_PULLS:           UnitPulls,
			optionsv1.Unit_UNIT_RELEASES:        UnitReleases,
			optionsv1.Unit_UNIT_WIKI:            UnitWiki,
			optionsv1.Unit_UNIT_ANY:             UnitAny,
			optionsv1.Unit_UNIT_ISSUES_OR_PULLS: UnitIssuesOrPulls,
		}
		u, ok := units[d.GetUnit()]
		if !ok {
			return r, fmt.Errorf("repository resource declares no unit")
		}
		r.Unit = u
		needs := map[optionsv1.Need]store.AccessMode{
			optionsv1.Need_NEED_READ:  store.AccessRead,
			optionsv1.Need_NEED_WRITE: store.AccessWrite,
			optionsv1.Need_NEED_ADMIN: store.AccessAdmin,
			optionsv1.Need_NEED_OWNER: store.AccessOwner,
		}
		n, ok := needs[d.GetNeed()]
		if !ok {
			return r, fmt.Errorf("repository resource needs %v, not read, write, admin or owner", d.GetNeed())
		}
		r.Need = n
		r.ByID = d.GetById()
	case optionsv1.ResourceKind_RESOURCE_KIND_ORGANIZATION, optionsv1.ResourceKind_RESOURCE_KIND_TEAM:
		r.Kind = OrganizationResource
		if d.GetKind() == optionsv1.ResourceKind_RESOURCE_KIND_TEAM {
			r.Kind = TeamResource
		}
		roles := map[optionsv1.Need]OrgRole{
			optionsv1.Need_NEED_READ:   OrgVisible,
			optionsv1.Need_NEED_MEMBER: OrgMember,
			optionsv1.Need_NEED_OWNER:  OrgOwner,
		}
		role, ok := roles[d.GetNeed()]
		if !ok {
			return r, fmt.Errorf("organization resource needs %v, not read, member or owner", d.GetNeed())
		}
		if d.GetUnit() != 0 || d.GetById() {
			return r, fmt.Errorf("organization resource declares a unit or by_id")
		}
		r.Role = role
	default:
		return r, fmt.Errorf("unknown resource kind %v", d.GetKind())
	}
	return r, nil
}
