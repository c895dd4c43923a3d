package app_test

import (
	"net/http"
	"sort"
	"strings"
	"testing"

	"code.gitea.io/sdk/gitea"
)

func teamNames(ts []*gitea.Team) string {
	var out []string
	for _, t := range ts {
		out = append(out, t.Name)
	}
	sort.Strings(out)
	return strings.Join(out, " ")
}

// TestRepoTeamsSDK: a repository's teams, given and taken from the
// repository's side; access follows on the very next request.
func TestRepoTeamsSDK(t *testing.T) {
	t.Parallel()
	eachBackend(t, nil, func(t *testing.T, s *testServer) {
		aliceTok := s.seedUser("alice", "alice-password", false)
		bobTok := s.seedUser("bob", "bob-password", false)
		alice, bob := s.sdk(gitea.SetToken(aliceTok)), s.sdk(gitea.SetToken(bobTok))
		if _, _, err := alice.CreateOrg(gitea.CreateOrgOption{Name: "acme"}); err != nil {
			t.Fatal(err)
		}
		if _, _, err := alice.CreateOrgRepo("acme", gitea.CreateRepoOption{Name: "plans", Private: true}); err != nil {
			t.Fatal(err)
		}
		team, _, err := alice.CreateTeam("acme", gitea.CreateTeamOption{Name: "readers", Permission: gitea.AccessModeRead,
			Units: []gitea.RepoUnitType{gitea.RepoUnitCode}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := alice.AddTeamMember(team.ID, "bob"); err != nil {
			t.Fatal(err)
		}
		if _, _, err := alice.CreateTeam("acme", gitea.CreateTeamOption{Name: "everything", Permission: gitea.AccessModeRead,
			Units: []gitea.RepoUnitType{gitea.RepoUnitCode}, IncludesAllRepositories: true}); err != nil {
			t.Fatal(err)
		}

		ts, _, err := alice.GetRepoTeams("acme", "plans")
		if err != nil || teamNames(ts) != "Owners everything" {
			t.Fatalf("GetRepoTeams: %s %v", teamNames(ts), err)
		}
		if tm, _, err := alice.CheckRepoTeam("acme", "plans", "readers"); err != nil || tm != nil {
			t.Fatalf("CheckRepoTeam before AddRepoTeam: %v %v", tm, err)
		}
		if _, _, err := bob.GetRepo("acme", "plans"); err == nil {
			t.Fatal("bob sees the repository before his team has it")
		}
		if _, err := alice.AddRepoTeam("acme", "plans", "readers"); err != nil {
			t.Fatalf("AddRepoTeam: %v", err)
		}
		if _, _, err := bob.GetRepo("acme", "plans"); err != nil {
			t.Fatalf("bob does not see the repository his team was given: %v", err)
		}
		if tm, _, err := alice.CheckRepoTeam("acme", "plans", "readers"); err != nil || tm == nil || tm.Name != "readers" {
			t.Fatalf("CheckRepoTeam: %v %v", tm, err)
		}
		ts, _, _ = alice.GetRepoTeams("acme", "plans")
		if teamNames(ts) != "Owners everything readers" {
			t.Fatalf("GetRepoTeams after add: %s", teamNames(ts))
		}
		if resp, err := alice.AddRepoTeam("acme", "plans", "readers"); err == nil || resp.StatusCode != http.StatusUnprocessableEntity {
			t.Fatalf("adding twice: %v", err)
		}
		if _, err := alice.RemoveRepoTeam("acme", "plans", "readers"); err != nil {
			t.Fatalf("RemoveRepoTeam: %v", err)
		}
		if _, _, err := bob.GetRepo("acme", "plans"); err == nil {
			t.Fatal("bob still sees the repository his team lost")
		}
		if resp, err := alice.RemoveRepoTeam("acme", "plans", "readers"); err == nil || resp.StatusCode != http.StatusUnprocessableEntity {
			t.Fatalf("removing twice: %v", err)
		}
	})
}

func TestRepoTeamsREST(t *testing.T) {
	t.Parallel()
	eachBackend(t, nil, func(t *testing.T, s *testServer) {
		aliceTok := s.seedUser("alice", "alice-password", false)
		bobTok := s.seedUser("bob", "bob-password", false)
		alice := s.sdk(gitea.SetToken(aliceTok))
		if _, _, err := alice.CreateOrg(gitea.CreateOrgOption{Name: "acme"}); err != nil {
			t.Fatal(err)
		}
		if _, _, err := alice.CreateOrgRepo("acme", gitea.CreateRepoOption{Name: "plans"}); err != nil {
			t.Fatal(err)
		}
		if _, _, err := alice.CreateTeam("acme", gitea.CreateTeamOption{Name: "everything", Permission: gitea.AccessModeRead,
			Units: []gitea.RepoUnitType{gitea.RepoUnitCode}, IncludesAllRepositories: true}); err != nil {
			t.Fatal(err)
		}
		s.createRepo(t, aliceTok, "mine", false, false)
		a := []string{"Authorization", "token " + aliceTok}
		b := []string{"Authorization", "token " + bobTok}

		r := s.do("GET", "/api/v1/repos/alice/mine/teams", "", a...)
		expectStatus(t, r, http.StatusMethodNotAllowed)
		if m := r.message(t); m != "repo is not owned by an organization" {
			t.Fatalf("message %q", m)
		}
		expectStatus(t, s.do("PUT", "/api/v1/repos/alice/mine/teams/x", "", a...), http.StatusMethodNotAllowed)
		expectStatus(t, s.do("PUT", "/api/v1/repos/acme/plans/teams/nope", "", a...), http.StatusNotFound)
		r = s.do("PUT", "/api/v1/repos/acme/plans/teams/everything", "", a...)
		expectStatus(t, r, http.StatusUnprocessableEntity)
		if m := r.message(t); m != "team 'everything' is already added to repo" {
			t.Fatalf("message %q", m)
		}
		r = s.do("DELETE", "/api/v1/repos/acme/plans/teams/everything", "", a...)
		expectStatus(t, r, http.StatusUnprocessableEntity)
		expectStatus(t, s.do("GET", "/api/v1/repos/acme/plans/teams/everything", "", a...), http.StatusOK)
		// Reading the teams needs read access; changing them admin.
		expectStatus(t, s.do("GET", "/api/v1/repos/acme/plans/teams", "", b...), http.StatusOK)
		expectStatus(t, s.do("PUT", "/api/v1/repos/acme/plans/teams/Owners", "", b...), http.StatusForbidden)
	})
}
