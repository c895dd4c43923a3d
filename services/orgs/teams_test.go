package orgs

import (
	"testing"

	"forge/services/store"
)

// TestApplyUnits pins Gitea's reading of a team's permission and units.
func TestApplyUnits(t *testing.T) {
	cases := []struct {
		name     string
		in       TeamInput
		mode     store.AccessMode
		units    map[int]store.AccessMode
		creating bool
		fails    bool
	}{
		{name: "legacy units get the permission, a repeated one once", in: TeamInput{Permission: "write", Units: []string{"repo.code", "repo.issues", "repo.code"}},
			mode: store.AccessWrite, units: map[int]store.AccessMode{store.UnitTypeCode: store.AccessWrite, store.UnitTypeIssues: store.AccessWrite}, creating: true},
		{name: "units_map wins and sets the lowest mode", in: TeamInput{Permission: "write", Units: []string{"repo.wiki"},
			UnitsMap: map[string]string{"repo.code": "write", "repo.issues": "read", "repo.wiki": "none", "repo.ext_issues": "read"}},
			mode: store.AccessRead, units: map[int]store.AccessMode{store.UnitTypeCode: store.AccessWrite, store.UnitTypeIssues: store.AccessRead,
				store.UnitTypeWiki: store.AccessNone, store.UnitTypeExternalTracker: store.AccessRead}, creating: true},
		{name: "admin ignores units_map", in: TeamInput{Permission: "admin", UnitsMap: map[string]string{"repo.code": "read"}},
			mode: store.AccessAdmin, creating: true},
		{name: "owner is not a team permission", in: TeamInput{Permission: "owner", Units: []string{"repo.code"}},
			mode: store.AccessNone, units: map[int]store.AccessMode{store.UnitTypeCode: store.AccessNone}, creating: true},
		{name: "creating without units fails", in: TeamInput{Permission: "read"}, creating: true, fails: true},
		{name: "an unknown unit fails", in: TeamInput{Permission: "read", Units: []string{"repo.code", "repo.nope"}}, creating: true, fails: true},
		{name: "an unknown units_map unit fails", in: TeamInput{Permission: "read", UnitsMap: map[string]string{"repo.nope": "read"}}, creating: true, fails: true},
		{name: "a unit's admin is write below an admin team", in: TeamInput{Permission: "read", UnitsMap: map[string]string{"repo.code": "admin", "repo.issues": "read"}},
			mode: store.AccessRead, units: map[int]store.AccessMode{store.UnitTypeCode: store.AccessWrite, store.UnitTypeIssues: store.AccessRead}, creating: true},
		{name: "units_map cannot make an admin team", in: TeamInput{Permission: "read", UnitsMap: map[string]string{"repo.code": "admin"}},
			mode: store.AccessWrite, units: map[int]store.AccessMode{store.UnitTypeCode: store.AccessWrite}, creating: true},
		{name: "editing units_map without permission keeps the team's", in: TeamInput{UnitsMap: map[string]string{"repo.code": "owner", "repo.pulls": "admin"}},
			mode: store.AccessNone, units: map[int]store.AccessMode{store.UnitTypeCode: store.AccessNone, store.UnitTypePullRequests: store.AccessWrite}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			team := &store.Team{}
			err := applyUnits(team, c.in, c.creating)
			if (err != nil) != c.fails {
				t.Fatalf("err %v", err)
			}
			if c.fails {
				return
			}
			if team.Authorize != c.mode {
				t.Fatalf("mode %v, want %v", team.Authorize, c.mode)
			}
			if c.mode >= store.AccessAdmin {
				if len(team.Units) != len(store.AllUnitTypes()) || team.UnitMode(store.UnitTypeCode) != store.AccessAdmin ||
					team.UnitMode(store.UnitTypeExternalWiki) != store.AccessRead {
					t.Fatalf("admin units %+v", team.Units)
				}
				return
			}
			if len(team.Units) != len(c.units) {
				t.Fatalf("units %+v, want %v", team.Units, c.units)
			}
			for u, m := range c.units {
				if team.UnitMode(u) != m {
					t.Fatalf("unit %d: %v, want %v", u, team.UnitMode(u), m)
				}
			}
		})
	}
}
