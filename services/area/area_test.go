package area_test

import (
	"strings"
	"testing"

	"google.golang.org/grpc"

	"forge/services/area"
	"forge/services/misc"
	"forge/services/paging"
	"forge/services/tokens"
)

// TestBind: every declared service needs exactly one implementation and
// every implementation must serve a declared service, so a forgotten or
// misplaced constructor stops start-up.
func TestBind(t *testing.T) {
	areas := []area.Area{misc.Area}
	impl := misc.NewServer(paging.Limits{Default: 30, Max: 50}, "http://localhost:3000/", misc.Settings{})
	for _, c := range []struct {
		impls []any
		want  string
	}{
		{nil, "no implementation given for forge.misc.v1.MiscService"},
		{[]any{impl, impl}, "two implementations"},
		{[]any{impl, tokens.NewServer(nil, paging.Limits{})}, "implements no declared service"},
	} {
		if _, err := area.Bind(areas, c.impls...); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Bind(%d impls): %v, want %q", len(c.impls), err, c.want)
		}
	}
	register, err := area.Bind(areas, impl)
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer()
	register(srv)
	if _, ok := srv.GetServiceInfo()["forge.misc.v1.MiscService"]; !ok {
		t.Fatalf("MiscService not registered: %v", srv.GetServiceInfo())
	}
}

// TestTablesHaveOneOwner: two areas declaring the same table is an error.
func TestTablesHaveOneOwner(t *testing.T) {
	a := area.Area{Name: "a", RepoTables: []string{"t"}, UserTables: []area.Column{{Table: "u", Column: "user_id"}}}
	b := area.Area{Name: "b", RepoTables: []string{"t"}, UserTables: []area.Column{{Table: "u", Column: "user_id"}}}
	if _, err := area.RepoTables([]area.Area{a, b}); err == nil {
		t.Error("repository table declared twice accepted")
	}
	if _, err := area.UserTables([]area.Area{a, b}); err == nil {
		t.Error("user table declared twice accepted")
	}
	if got, err := area.RepoTables([]area.Area{a}); err != nil || len(got) != 1 {
		t.Errorf("RepoTables: %v %v", got, err)
	}
	// One area may declare several user columns of its table, not one twice.
	c := area.Area{Name: "c", UserTables: []area.Column{{Table: "v", Column: "user_id"}, {Table: "v", Column: "assignee_id"}}}
	if got, err := area.UserTables([]area.Area{c}); err != nil || len(got) != 2 {
		t.Errorf("UserTables with two columns of a table: %v %v", got, err)
	}
	c.UserTables = append(c.UserTables, area.Column{Table: "v", Column: "user_id"})
	if _, err := area.UserTables([]area.Area{c}); err == nil {
		t.Error("user column declared twice accepted")
	}
}

// TestPolicies: the areas' declared policies are collected, and a method
// declared twice (a service listed by two areas) stops start-up.
func TestPolicies(t *testing.T) {
	pols, err := area.Policies([]area.Area{misc.Area, tokens.Area})
	if err != nil {
		t.Fatal(err)
	}
	if len(pols) != len(area.Methods([]area.Area{misc.Area, tokens.Area})) {
		t.Errorf("%d policies for %v", len(pols), area.Methods([]area.Area{misc.Area, tokens.Area}))
	}
	dup := area.Area{Name: "copy", Services: misc.Area.Services}
	if _, err := area.Policies([]area.Area{misc.Area, dup}); err == nil || !strings.Contains(err.Error(), "declared by misc and copy") {
		t.Errorf("service listed twice: %v", err)
	}
}
