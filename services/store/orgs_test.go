package store_test

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"

	"forge/services/access"
	"forge/services/auth"
	"forge/services/store"
	"forge/services/store/migrations"
	"forge/services/store/storetest"
)

// newOrg creates the organization name owned by the given users (the
// first creates it; the others join its Owners team).
func newOrg(t *testing.T, s *store.Store, name string, vis store.Visibility, owners ...*store.User) (*store.User, *store.Team) {
	t.Helper()
	ctx := context.Background()
	org := &store.User{Name: name, Visibility: vis}
	if err := s.CreateOrganization(ctx, org, owners[0].ID); err != nil {
		t.Fatal(err)
	}
	team, err := s.TeamByName(ctx, org.ID, store.OwnersTeamName)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range owners[1:] {
		if err := s.AddTeamMember(ctx, team.ID, o.ID); err != nil {
			t.Fatal(err)
		}
	}
	return org, team
}

func mkUsers(t *testing.T, s *store.Store, names ...string) []*store.User {
	t.Helper()
	out := make([]*store.User, len(names))
	for i, n := range names {
		out[i] = newUser(n, n+"@x.org", false)
		if err := s.CreateUser(context.Background(), out[i]); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// TestOwnersTeamInvariants: an organization is made with its Owners team
// holding the creator; that team cannot be deleted, nor left empty by a
// team removal, a membership removal or a user deletion, even when the
// last two owners are removed at the same time.
func TestOwnersTeamInvariants(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		u := mkUsers(t, s, "ann", "ben")
		ann, ben := u[0], u[1]
		org, owners := newOrg(t, s, "acme", store.VisibilityPublic, ann)
		if owners.Authorize != store.AccessOwner || !owners.IncludesAllRepositories || !owners.CanCreateOrgRepo || owners.NumMembers != 1 {
			t.Fatalf("Owners team %+v", owners)
		}
		if m, err := s.OrgMembership(ctx, org.ID, ann.ID); err != nil || !m.Member || !m.Owner {
			t.Fatalf("creator membership %+v %v", m, err)
		}
		if err := s.DeleteTeam(ctx, owners.ID); !errors.Is(err, store.ErrOwnersTeam) {
			t.Fatalf("DeleteTeam(Owners): %v", err)
		}
		if err := s.RemoveTeamMember(ctx, owners.ID, ann.ID); !errors.Is(err, store.ErrLastOrgOwner) {
			t.Fatalf("removing the last owner from the team: %v", err)
		}
		if err := s.RemoveOrgMember(ctx, org.ID, ann.ID); !errors.Is(err, store.ErrLastOrgOwner) {
			t.Fatalf("removing the last owner from the organization: %v", err)
		}
		if err := s.DeleteUser(ctx, "ann", nil); !errors.Is(err, store.ErrLastOrgOwner) {
			t.Fatalf("deleting the last owner: %v", err)
		}

		// Two owners removed at once: exactly one removal wins.
		for round := 0; round < 5; round++ {
			if err := s.AddTeamMember(ctx, owners.ID, ben.ID); err != nil {
				t.Fatal(err)
			}
			var wg sync.WaitGroup
			errs := make([]error, 2)
			for i, who := range []*store.User{ann, ben} {
				wg.Add(1)
				go func() {
					defer wg.Done()
					if i == 0 {
						errs[i] = s.RemoveTeamMember(ctx, owners.ID, who.ID)
					} else {
						errs[i] = s.RemoveOrgMember(ctx, org.ID, who.ID)
					}
				}()
			}
			wg.Wait()
			ok := 0
			for _, err := range errs {
				switch {
				case err == nil:
					ok++
				case !errors.Is(err, store.ErrLastOrgOwner):
					t.Fatalf("round %d: %v", round, err)
				}
			}
			members, n, err := s.ListTeamMembers(ctx, owners.ID, store.UserFilter{All: true}, 0, 10)
			if err != nil || n != 1 || ok != 1 {
				t.Fatalf("round %d: %d removals succeeded, %d owners left (%v)", round, ok, n, err)
			}
			if members[0].ID != ann.ID {
				// Put ann back as the one remaining for the next round.
				if err := s.AddTeamMember(ctx, owners.ID, ann.ID); err != nil {
					t.Fatal(err)
				}
				if err := s.RemoveTeamMember(ctx, owners.ID, ben.ID); err != nil {
					t.Fatal(err)
				}
			}
		}
		if t2, err := s.TeamByID(ctx, owners.ID); err != nil || t2.NumMembers != 1 {
			t.Fatalf("Owners team after the rounds: %+v %v", t2, err)
		}
	})
}

// TestTeamMembershipRows: adding to a team makes a member; leaving the
// last team, deleting the team or deleting the user leaves no rows.
func TestTeamMembershipRows(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		u := mkUsers(t, s, "ann", "dev", "gone")
		ann, dev, gone := u[0], u[1], u[2]
		org, _ := newOrg(t, s, "acme", store.VisibilityPublic, ann)
		team := &store.Team{OrgID: org.ID, Name: "devs", Authorize: store.AccessWrite,
			Units: []store.TeamUnit{{Type: store.UnitTypeCode, AccessMode: store.AccessWrite}}}
		if err := s.CreateTeam(ctx, team); err != nil {
			t.Fatal(err)
		}
		if err := s.CreateTeam(ctx, &store.Team{OrgID: org.ID, Name: "DEVS"}); !errors.Is(err, store.ErrTeamExists) {
			t.Fatalf("duplicate team name: %v", err)
		}
		for _, who := range []*store.User{dev, gone} {
			if err := s.AddTeamMember(ctx, team.ID, who.ID); err != nil {
				t.Fatal(err)
			}
		}
		if m, _ := s.OrgMembership(ctx, org.ID, dev.ID); !m.Member || m.Owner {
			t.Fatalf("dev's membership %+v", m)
		}
		if err := s.RemoveTeamMember(ctx, team.ID, dev.ID); err != nil {
			t.Fatal(err)
		}
		if m, _ := s.OrgMembership(ctx, org.ID, dev.ID); m.Member {
			t.Fatal("dev is still a member after leaving their only team")
		}
		if err := s.DeleteUser(ctx, "gone", nil); err != nil {
			t.Fatal(err)
		}
		var n int64
		for _, table := range []string{"team_users", "org_users"} {
			s.DB().Table(table).Where("uid = ?", gone.ID).Count(&n)
			if n != 0 {
				t.Fatalf("%s keeps %d rows of a deleted user", table, n)
			}
		}
		if got, _ := s.TeamByID(ctx, team.ID); got.NumMembers != 0 {
			t.Fatalf("num_members %d after the last member went", got.NumMembers)
		}
	})
}

// TestTeamAccessAgrees: the repository lists (access.Filter) show what
// the single-object rule (access.Checker.Mode) lets a viewer read, for
// organization repositories reached through teams, and members see their
// private organization.
func TestTeamAccessAgrees(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		u := mkUsers(t, s, "ann", "dev", "all", "stranger")
		ann, dev, all, stranger := u[0], u[1], u[2], u[3]
		org, _ := newOrg(t, s, "hidden", store.VisibilityPrivate, ann)
		var repos []*store.Repository
		for _, name := range []string{"a", "b", "pub"} {
			r := &store.Repository{OwnerID: org.ID, OwnerName: org.Name, Name: name, IsPrivate: name != "pub", DefaultBranch: "main"}
			if err := s.CreateRepository(ctx, r, ann.ID); err != nil {
				t.Fatal(err)
			}
			repos = append(repos, r)
		}
		devs := &store.Team{OrgID: org.ID, Name: "devs", Authorize: store.AccessWrite,
			Units: []store.TeamUnit{{Type: store.UnitTypeCode, AccessMode: store.AccessWrite}, {Type: store.UnitTypeIssues, AccessMode: store.AccessRead}}}
		readers := &store.Team{OrgID: org.ID, Name: "readers", Authorize: store.AccessRead, IncludesAllRepositories: true,
			Units: []store.TeamUnit{{Type: store.UnitTypeCode, AccessMode: store.AccessRead}}}
		for _, tm := range []*store.Team{devs, readers} {
			if err := s.CreateTeam(ctx, tm); err != nil {
				t.Fatal(err)
			}
		}
		must := func(err error) {
			t.Helper()
			if err != nil {
				t.Fatal(err)
			}
		}
		must(s.AddTeamMember(ctx, devs.ID, dev.ID))
		must(s.AddTeamRepo(ctx, devs.ID, repos[0].ID))
		must(s.AddTeamMember(ctx, readers.ID, all.ID))

		checker := access.NewChecker(s)
		cases := []struct {
			viewer *store.User
			want   string
		}{
			{ann, "a b pub"},
			{dev, "a pub"}, // pub is public, in a private organization its members see
			{all, "a b pub"},
			{stranger, ""},
		}
		for _, c := range cases {
			p := &auth.Principal{User: c.viewer}
			listed, _, err := s.ListRepositories(ctx, store.RepoListOptions{OwnerID: org.ID, RepoFilter: access.Filter(p), Limit: 50})
			must(err)
			var names []string
			for _, r := range listed {
				names = append(names, r.Name)
			}
			var single []string
			for _, r := range repos {
				mode, err := checker.Mode(ctx, r, p)
				must(err)
				visible, err := access.SeesUser(ctx, s, org, p)
				must(err)
				if mode > store.AccessNone && visible {
					single = append(single, r.Name)
				}
			}
			sort.Strings(single)
			if got, one := strings.Join(names, " "), strings.Join(single, " "); got != c.want || one != c.want {
				t.Errorf("%s: lists %q, one by one %q, want %q", c.viewer.Name, got, one, c.want)
			}
		}
		// Per unit: dev writes code on a, reads its issues, and has only
		// the public read on pub.
		p := &auth.Principal{User: dev}
		for _, c := range []struct {
			repo *store.Repository
			unit auth.Unit
			want store.AccessMode
		}{
			{repos[0], auth.UnitCode, store.AccessWrite},
			{repos[0], auth.UnitIssues, store.AccessRead},
			{repos[0], auth.UnitReleases, store.AccessNone},
			{repos[2], auth.UnitCode, store.AccessRead},
			{repos[1], auth.UnitCode, store.AccessNone},
		} {
			got, err := checker.UnitMode(ctx, c.repo, p, c.unit)
			must(err)
			if got != c.want {
				t.Errorf("dev on %s unit %d: %v, want %v", c.repo.Name, c.unit, got, c.want)
			}
		}
		// Owners own every repository of the organization.
		if m, err := checker.Mode(ctx, repos[1], &auth.Principal{User: ann}); err != nil || m != store.AccessOwner {
			t.Errorf("owner's mode %v %v", m, err)
		}
		// A page's modes, read at once (repository lists), are the modes
		// one by one, for every kind of viewer: collaborator, team member
		// (explicit, all repositories, Owners), restricted, site
		// administrator, anonymous.
		collab := mkUsers(t, s, "collab")[0]
		must(s.SetCollaborator(ctx, repos[1].ID, collab.ID, store.AccessWrite))
		must(s.SetCollaborator(ctx, repos[0].ID, dev.ID, store.AccessAdmin))
		rst := mkUsers(t, s, "rst")[0]
		rst.Restricted = true
		must(s.AddTeamMember(ctx, readers.ID, rst.ID))
		admin := mkUsers(t, s, "site")[0]
		admin.IsAdmin = true
		page := []store.Repository{*repos[0], *repos[1], *repos[2]}
		for _, v := range []*store.User{ann, dev, all, stranger, collab, rst, admin, nil} {
			var p *auth.Principal
			if v != nil {
				p = &auth.Principal{User: v}
			}
			got, err := checker.Modes(ctx, page, p)
			must(err)
			for _, r := range repos {
				one, err := checker.Mode(ctx, r, p)
				must(err)
				if got[r.ID] != one {
					t.Errorf("%v on %s: page mode %v, one by one %v", v, r.Name, got[r.ID], one)
				}
			}
		}
	})
}

// TestTeamMoveKeepsMembership: a member of one team only is moved to
// another team by two concurrent requests (a drop from the first, an add
// to the second), each through its own store on one database as two
// servers would. The drop is a removal from the team, or the deletion of
// the team; whatever the interleaving, the user ends in the second team
// and in the organization: the drop must not decide the user is teamless
// on a snapshot that misses the add. A removal from the organization
// racing an add leaves the rows agreeing too: a member exactly when in a
// team.
func TestTeamMoveKeepsMembership(t *testing.T) {
	for _, kind := range storetest.Backends {
		t.Run(kind, func(t *testing.T) {
			ctx := context.Background()
			stores := storesOnOneDatabase(t, kind, 2)
			s := stores[0]
			u := mkUsers(t, s, "ann", "mover")
			ann, mover := u[0], u[1]
			org, _ := newOrg(t, s, "acme", store.VisibilityPublic, ann)
			n := 0
			newTeam := func() *store.Team {
				t.Helper()
				n++
				tm := &store.Team{OrgID: org.ID, Name: fmt.Sprintf("t%d", n), Authorize: store.AccessRead,
					Units: []store.TeamUnit{{Type: store.UnitTypeCode, AccessMode: store.AccessRead}}}
				if err := s.CreateTeam(ctx, tm); err != nil {
					t.Fatal(err)
				}
				return tm
			}
			from := newTeam()
			if err := s.AddTeamMember(ctx, from.ID, mover.ID); err != nil {
				t.Fatal(err)
			}
			// race runs drop and add at once, through the two stores.
			race := func(drop func(*store.Store) error, add func(*store.Store) error) (error, error) {
				var wg sync.WaitGroup
				var dropErr, addErr error
				start := make(chan struct{})
				wg.Add(2)
				go func() { defer wg.Done(); <-start; dropErr = drop(stores[0]) }()
				go func() { defer wg.Done(); <-start; addErr = add(stores[1]) }()
				close(start)
				wg.Wait()
				return dropErr, addErr
			}
			rounds := 150
			if testing.Short() {
				rounds = 30
			}
			for round := range rounds {
				to := newTeam()
				deleteTeam := round%2 == 1
				dropErr, addErr := race(func(st *store.Store) error {
					if deleteTeam {
						return st.DeleteTeam(ctx, from.ID)
					}
					return st.RemoveTeamMember(ctx, from.ID, mover.ID)
				}, func(st *store.Store) error {
					return st.AddTeamMember(ctx, to.ID, mover.ID)
				})
				if dropErr != nil || addErr != nil {
					t.Fatalf("round %d (delete team %v): drop %v, add %v", round, deleteTeam, dropErr, addErr)
				}
				if in, err := s.IsTeamMember(ctx, to.ID, mover.ID); err != nil || !in {
					t.Fatalf("round %d: mover not in team %s (%v)", round, to.Name, err)
				}
				m, err := s.OrgMembership(ctx, org.ID, mover.ID)
				if err != nil || !m.Member {
					t.Fatalf("round %d (delete team %v): mover is in team %s but not a member of the organization (%+v, %v)", round, deleteTeam, to.Name, m, err)
				}
				if !deleteTeam {
					if err := s.DeleteTeam(ctx, from.ID); err != nil {
						t.Fatal(err)
					}
				}
				from = to
			}

			// Removal from the organization against an add: either order
			// is fine, as long as the rows agree.
			for round := range rounds / 3 {
				to := newTeam()
				orgErr, addErr := race(func(st *store.Store) error {
					return st.RemoveOrgMember(ctx, org.ID, mover.ID)
				}, func(st *store.Store) error {
					return st.AddTeamMember(ctx, to.ID, mover.ID)
				})
				if orgErr != nil && !errors.Is(orgErr, store.ErrNotFound) || addErr != nil {
					t.Fatalf("round %d: remove from the organization %v, add %v", round, orgErr, addErr)
				}
				teams, _, err := s.ListTeams(ctx, store.TeamListOptions{MemberID: mover.ID, Limit: 10})
				if err != nil {
					t.Fatal(err)
				}
				m, err := s.OrgMembership(ctx, org.ID, mover.ID)
				if err != nil || m.Member != (len(teams) > 0) {
					t.Fatalf("round %d: in %d teams, organization member %v (%v)", round, len(teams), m.Member, err)
				}
				if len(teams) == 0 {
					if err := s.AddTeamMember(ctx, to.ID, mover.ID); err != nil {
						t.Fatal(err)
					}
				}
				// Leave the mover in to only.
				for _, tm := range teams {
					if tm.ID != to.ID {
						if err := s.RemoveTeamMember(ctx, tm.ID, mover.ID); err != nil {
							t.Fatal(err)
						}
					}
				}
			}
		})
	}
}

// TestTeamUnitAdminIsNotRepoAdmin: a team below admin whose unit row
// holds admin (as an earlier version stored units_map "admin") gives its
// members write on that unit, never the repository's administration; the
// migration step clamps such rows to write and leaves admin teams alone.
func TestTeamUnitAdminIsNotRepoAdmin(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		u := mkUsers(t, s, "ann", "dev", "boss")
		ann, dev, boss := u[0], u[1], u[2]
		org, _ := newOrg(t, s, "acme", store.VisibilityPublic, ann)
		r := &store.Repository{OwnerID: org.ID, OwnerName: org.Name, Name: "priv", IsPrivate: true, DefaultBranch: "main"}
		if err := s.CreateRepository(ctx, r, ann.ID); err != nil {
			t.Fatal(err)
		}
		readers := &store.Team{OrgID: org.ID, Name: "readers", Authorize: store.AccessRead, IncludesAllRepositories: true,
			Units: []store.TeamUnit{{Type: store.UnitTypeCode, AccessMode: store.AccessAdmin}, {Type: store.UnitTypeIssues, AccessMode: store.AccessRead}}}
		admins := &store.Team{OrgID: org.ID, Name: "admins", Authorize: store.AccessAdmin, IncludesAllRepositories: true,
			Units: []store.TeamUnit{{Type: store.UnitTypeCode, AccessMode: store.AccessAdmin}}}
		for _, tm := range []*store.Team{readers, admins} {
			if err := s.CreateTeam(ctx, tm); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.AddTeamMember(ctx, readers.ID, dev.ID); err != nil {
			t.Fatal(err)
		}
		if err := s.AddTeamMember(ctx, admins.ID, boss.ID); err != nil {
			t.Fatal(err)
		}
		checker := access.NewChecker(s)
		check := func(when string) {
			t.Helper()
			for _, c := range []struct {
				who  *store.User
				want store.AccessMode
			}{{dev, store.AccessWrite}, {boss, store.AccessOwner}} {
				got, err := checker.Mode(ctx, r, &auth.Principal{User: c.who})
				if err != nil || got != c.want {
					t.Errorf("%s: %s's access %v (%v), want %v", when, c.who.Name, got, err, c.want)
				}
			}
		}
		check("before the migration")
		if err := (migrations.History{}).Step0081_team_unit_modes(s.DB()); err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			team *store.Team
			want store.AccessMode
		}{{readers, store.AccessWrite}, {admins, store.AccessAdmin}} {
			got, err := s.TeamByID(ctx, c.team.ID)
			if err != nil || got.UnitMode(store.UnitTypeCode) != c.want {
				t.Errorf("%s's code unit after the migration: %+v %v, want %v", c.team.Name, got, err, c.want)
			}
		}
		if got, _ := s.TeamByID(ctx, readers.ID); got.UnitMode(store.UnitTypeIssues) != store.AccessRead {
			t.Errorf("issues unit changed: %v", got.UnitMode(store.UnitTypeIssues))
		}
		check("after the migration")
	})
}

// TestAddRacingAccountDeletion: adding a user to a team while the user,
// or the organization, is deleted leaves no team or membership row of the
// deleted account: the add either lands first (and the deletion takes its
// rows) or finds the account gone.
func TestAddRacingAccountDeletion(t *testing.T) {
	for _, kind := range storetest.Backends {
		t.Run(kind, func(t *testing.T) {
			ctx := context.Background()
			stores := storesOnOneDatabase(t, kind, 2)
			for _, s := range stores {
				if err := s.Own(ctx, *storetest.Owned); err != nil {
					t.Fatal(err)
				}
			}
			s := stores[0]
			ann := mkUsers(t, s, "ann")[0]
			race := func(del, add func() error) (error, error) {
				var wg sync.WaitGroup
				var delErr, addErr error
				start := make(chan struct{})
				wg.Add(2)
				go func() { defer wg.Done(); <-start; delErr = del() }()
				go func() { defer wg.Done(); <-start; addErr = add() }()
				close(start)
				wg.Wait()
				return delErr, addErr
			}
			rows := func(column string, id int64) int64 {
				var n, total int64
				for _, table := range []string{"team_users", "org_users"} {
					s.DB().Table(table).Where(column+" = ?", id).Count(&n)
					total += n
				}
				return total
			}
			rounds := 40
			if testing.Short() {
				rounds = 10
			}
			for round := range rounds {
				org, _ := newOrg(t, s, fmt.Sprintf("org%d", round), store.VisibilityPublic, ann)
				team := &store.Team{OrgID: org.ID, Name: "t", Authorize: store.AccessRead,
					Units: []store.TeamUnit{{Type: store.UnitTypeCode, AccessMode: store.AccessRead}}}
				if err := s.CreateTeam(ctx, team); err != nil {
					t.Fatal(err)
				}
				u := mkUsers(t, s, fmt.Sprintf("u%d", round))[0]
				if round%2 == 0 {
					delErr, addErr := race(func() error { return stores[0].DeleteUser(ctx, u.Name, nil) },
						func() error { return stores[1].AddTeamMember(ctx, team.ID, u.ID) })
					if delErr != nil || addErr != nil && !errors.Is(addErr, store.ErrNotFound) {
						t.Fatalf("round %d: delete user %v, add %v", round, delErr, addErr)
					}
					if n := rows("uid", u.ID); n != 0 {
						t.Fatalf("round %d: %d team or membership rows of the deleted user", round, n)
					}
				} else {
					delErr, addErr := race(func() error { return stores[0].DeleteOrganization(ctx, org.ID) },
						func() error { return stores[1].AddTeamMember(ctx, team.ID, u.ID) })
					if delErr != nil || addErr != nil && !errors.Is(addErr, store.ErrNotFound) {
						t.Fatalf("round %d: delete organization %v, add %v", round, delErr, addErr)
					}
					if n := rows("org_id", org.ID); n != 0 {
						t.Fatalf("round %d: %d team or membership rows of the deleted organization", round, n)
					}
				}
			}
		})
	}
}
