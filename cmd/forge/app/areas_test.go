package app_test

import (
	"context"
	"slices"
	"sort"
	"strings"
	"testing"

	"code.gitea.io/sdk/gitea"

	"forge/gateway"
	"forge/services/area"
	"forge/services/area/all"
)

// registeredMethods lists the full names of the methods the running gRPC
// server serves, reflection and health aside.
func registeredMethods(s *testServer) []string {
	var out []string
	for service, info := range s.App.GRPCServer().GetServiceInfo() {
		if strings.HasPrefix(service, "grpc.") { // reflection, health
			continue
		}
		for _, m := range info.Methods {
			out = append(out, "/"+service+"/"+m.Name)
		}
	}
	sort.Strings(out)
	return out
}

// TestAreasDeclareEveryMethod: the server registers exactly the services
// the areas declare; every registered method has a policy and a REST route
// (option (google.api.http) in its proto, or one of the gateway's
// hand-written streaming routes) unless its area marks it gRPC-only; and
// no policy or gRPC-only mark names a method nobody serves (a leftover
// that would hide the next mistake).
func TestAreasDeclareEveryMethod(t *testing.T) {
	s := startServer(t, "sqlite3", nil)
	registered := registeredMethods(s)
	if declared := area.Methods(all.Areas); !slices.Equal(registered, declared) {
		t.Fatalf("registered methods differ from the areas' services:\nregistered %v\ndeclared   %v", registered, declared)
	}
	if len(registered) < 40 {
		t.Fatalf("only %d methods registered", len(registered))
	}
	policies := s.App.Policies()
	rest, err := gateway.RESTMethods()
	if err != nil {
		t.Fatal(err)
	}
	grpcOnly := area.GRPCOnly(all.Areas)
	serves := map[string]bool{}
	for _, m := range registered {
		serves[m] = true
		if _, ok := policies[m]; !ok {
			t.Errorf("%s is registered without a policy", m)
		}
		switch {
		case rest[m] && grpcOnly[m]:
			t.Errorf("%s is marked gRPC-only but has a REST route", m)
		case !rest[m] && !grpcOnly[m]:
			t.Errorf("%s has no REST route (option (google.api.http) in its proto) and is not marked gRPC-only (Area.GRPCOnly)", m)
		}
	}
	// Surfaces (git's smart HTTP) are served outside gRPC: a policy each,
	// never registered, no REST route.
	for _, m := range area.SurfaceMethods(all.Areas) {
		if serves[m] || rest[m] {
			t.Errorf("%s is declared for a surface outside gRPC but is registered or routed", m)
		}
		if _, ok := policies[m]; !ok {
			t.Errorf("%s is declared for a surface without a policy", m)
		}
		serves[m] = true
	}
	for m := range policies {
		if !serves[m] {
			t.Errorf("policy for %s, which no area serves", m)
		}
	}
	for m := range grpcOnly {
		if !serves[m] {
			t.Errorf("gRPC-only mark for %s, which no area serves", m)
		}
	}
	for m := range rest {
		if !serves[m] {
			t.Errorf("REST route to %s, which no area serves", m)
		}
	}
}

// TestAreasOwnEveryTable: every table of the migrated schema that has a
// repo_id column is declared by an area as owned by the repository (so
// the repository delete clears it), and every user_id or uid column as
// owned by the user (areas may declare other columns holding a user's id
// too, such as issue_assignees.assignee_id; Own checks they exist); and
// what the areas declare is what the running store was given.
func TestAreasOwnEveryTable(t *testing.T) {
	t.Parallel()
	eachBackend(t, nil, func(t *testing.T, s *testServer) {
		ctx := context.Background()
		owned, err := all.Owned()
		if err != nil {
			t.Fatal(err)
		}
		repoTables, err := s.App.Store.TablesWithColumn(ctx, "repo_id")
		if err != nil {
			t.Fatal(err)
		}
		declared := slices.Sorted(slices.Values(owned.Repository))
		if !slices.Equal(repoTables, declared) {
			t.Errorf("tables with repo_id %v, declared as owned by a repository (Area.RepoTables) %v", repoTables, declared)
		}
		var userCols, declaredCols []string
		for _, column := range []string{"user_id", "uid"} {
			tables, err := s.App.Store.TablesWithColumn(ctx, column)
			if err != nil {
				t.Fatal(err)
			}
			for _, table := range tables {
				userCols = append(userCols, table+"."+column)
			}
		}
		for _, c := range owned.User {
			declaredCols = append(declaredCols, c.Table+"."+c.Column)
		}
		for _, c := range userCols {
			if !slices.Contains(declaredCols, c) {
				t.Errorf("user column %s is not declared as owned by a user (Area.UserTables: %v)", c, declaredCols)
			}
		}
		for _, c := range owned.User {
			tables, err := s.App.Store.TablesWithColumn(ctx, c.Column)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Contains(tables, c.Table) {
				t.Errorf("declared user column %s.%s does not exist", c.Table, c.Column)
			}
		}
	})
}

// TestDeletesLeaveNoOrphans: deleting a repository and then a user through
// the API leaves no row behind in any table the areas declare as theirs.
func TestDeletesLeaveNoOrphans(t *testing.T) {
	t.Parallel()
	eachBackend(t, allowLocal, func(t *testing.T, s *testServer) {
		ctx := context.Background()
		aliceToken := s.seedUser("alice", "password1", false)
		bobToken := s.seedUser("bob", "password1", false)
		s.createRepo(t, aliceToken, "doomed", true, false)
		alice, bob := s.sdk(gitea.SetToken(aliceToken)), s.sdk(gitea.SetToken(bobToken))
		if _, err := alice.AddCollaborator("alice", "doomed", "bob", gitea.AddCollaboratorOption{}); err != nil {
			t.Fatal(err)
		}
		if _, _, err := alice.CreateRelease("alice", "doomed", gitea.CreateReleaseOption{TagName: "v1", Title: "v1"}); err != nil {
			t.Fatal(err)
		}
		if _, err := bob.WatchRepo("alice", "doomed"); err != nil {
			t.Fatal(err)
		}
		if _, _, err := alice.PushMirrors("alice", "doomed", gitea.CreatePushMirrorOption{
			RemoteAddress: s.URL + "/alice/backup.git", Interval: "8h"}); err != nil {
			t.Fatal(err)
		}
		r, err := s.App.Store.RepositoryByName(ctx, userID(t, s, "alice"), "doomed")
		if err != nil {
			t.Fatal(err)
		}
		owned, err := all.Owned()
		if err != nil {
			t.Fatal(err)
		}
		rows := func(table, column string, id int64) int64 {
			n, err := s.App.Store.CountOwned(ctx, table, column, id)
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
		for _, table := range []string{"collaborations", "branches", "releases", "watches", "push_mirrors"} {
			if rows(table, "repo_id", r.ID) == 0 {
				t.Fatalf("setup: no %s row for the repository", table)
			}
		}
		if _, err := alice.DeleteRepo("alice", "doomed"); err != nil {
			t.Fatal(err)
		}
		for _, table := range owned.Repository {
			if n := rows(table, "repo_id", r.ID); n != 0 {
				t.Errorf("%d rows of %s survived their repository", n, table)
			}
		}

		// bob: a token, a collaboration, a watch and an assignment on
		// another repository.
		s.createRepo(t, aliceToken, "kept", false, false)
		if _, err := alice.AddCollaborator("alice", "kept", "bob", gitea.AddCollaboratorOption{}); err != nil {
			t.Fatal(err)
		}
		if _, err := bob.WatchRepo("alice", "kept"); err != nil {
			t.Fatal(err)
		}
		if _, _, err := alice.CreateIssue("alice", "kept", gitea.CreateIssueOption{Title: "for bob", Assignees: []string{"bob"}}); err != nil {
			t.Fatal(err)
		}
		bobID := userID(t, s, "bob")
		if rows("issue_assignees", "assignee_id", bobID) != 1 {
			t.Fatal("setup: bob is not assigned")
		}
		if _, err := s.sdk(gitea.SetToken(s.AdminToken)).AdminDeleteUser("bob"); err != nil {
			t.Fatal(err)
		}
		for _, c := range owned.User {
			if n := rows(c.Table, c.Column, bobID); n != 0 {
				t.Errorf("%d rows of %s survived their user", n, c.Table)
			}
		}
		if kept, _, err := alice.GetRepo("alice", "kept"); err != nil || kept.Watchers != 1 {
			t.Fatalf("watchers of kept after bob went: %v %v", kept, err)
		}
		if n := rows("issue_assignees", "assignee_id", bobID); n != 0 {
			t.Errorf("%d assignments of bob survived him", n)
		}
		if is, _, err := alice.GetIssue("alice", "kept", 1); err != nil || len(is.Assignees) != 0 {
			t.Fatalf("the issue bob was assigned to: %+v %v", is, err)
		}
	})
}

func userID(t *testing.T, s *testServer, name string) int64 {
	t.Helper()
	u, err := s.App.Store.UserByName(context.Background(), name)
	if err != nil {
		t.Fatal(err)
	}
	return u.ID
}
