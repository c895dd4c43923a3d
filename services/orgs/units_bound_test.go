package orgs

import (
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	optionsv1 "forge/gen/forge/options/v1"
	orgsv1 "forge/gen/forge/orgs/v1"
)

// TestTeamUnitListsAreBoundedByTheUnits: a team's unit lists declare
// max_items equal to the number of units there are, so a unit added here
// without raising the bound fails.
func TestTeamUnitListsAreBoundedByTheUnits(t *testing.T) {
	for _, md := range []protoreflect.MessageDescriptor{
		(&orgsv1.CreateTeamRequest{}).ProtoReflect().Descriptor(),
		(&orgsv1.EditTeamRequest{}).ProtoReflect().Descriptor(),
	} {
		for _, name := range []protoreflect.Name{"units", "units_map"} {
			fd := md.Fields().ByName(name)
			r, _ := proto.GetExtension(fd.Options(), optionsv1.E_Rules).(*optionsv1.FieldRules)
			if got := int(r.GetMaxItems()); got != len(unitNames) {
				t.Errorf("%s: max_items %d, want %d (the units)", fd.FullName(), got, len(unitNames))
			}
		}
	}
}
