package app_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"

	"forge/services/access"
	"forge/services/auth"
	"forge/services/store"
)

// The organization and team part of the authorization matrix: every
// method declaring an organization (request field org) or a team (field
// id) is called with only that field set, on a public and a private
// organization, by every kind of caller; each caller below the declared
// role must be refused with the right code and message, and no refused
// call may change the organization's rows; every other caller must get
// through (see TestAuthorizationMatrix).

// orgCaller is a kind of caller and what it is in both organizations.
type orgCaller struct {
	name        string
	token       string
	member      bool     // in some team of the organization
	teamMember  bool     // in the team the team methods are called on
	owner       bool     // in the Owners team
	admin       bool     // site administrator
	scopes      []string // the token's, nil for an all-scopes token
	publicOnly  bool
	description string
}

type orgMatrix struct {
	s       *testServer
	callers []orgCaller
	orgs    []*store.User   // public, private
	teams   map[int64]int64 // organization id -> its team "devs"
}

// newOrgMatrix seeds two organizations (public and private), each with
// an owner, a team "devs" (which may create repositories) holding
// "orgmember" and a team "others" holding "othermember"; the member also
// holds a scope-less and a public-only token.
func newOrgMatrix(t *testing.T, s *testServer, strangerTok string) *orgMatrix {
	ownerTok := s.seedUser("orgowner", "orgowner-password", false)
	memberTok := s.seedUser("orgmember", "orgmember-password", false)
	otherTok := s.seedUser("othermember", "othermember-password", false)
	m := &orgMatrix{s: s, teams: map[int64]int64{}}
	m.orgs = []*store.User{m.seedOrg(t, "mxpublic", store.VisibilityPublic), m.seedOrg(t, "mxprivate", store.VisibilityPrivate)}
	noScopes := []string{"read:notification"}
	noScope := s.createToken(t, "orgmember", "orgmember-password", "no-org-scope", noScopes...)
	publicOnlyScopes := []string{"public-only", "write:organization", "write:user"}
	publicOnly := s.createToken(t, "orgmember", "orgmember-password", "org-public-only", publicOnlyScopes...)
	m.callers = []orgCaller{
		{name: "anonymous"},
		{name: "stranger", token: strangerTok},
		{name: "member of another team", token: otherTok, member: true},
		{name: "team member", token: memberTok, member: true, teamMember: true},
		{name: "owner", token: ownerTok, member: true, owner: true},
		{name: "site admin", token: s.AdminToken, admin: true},
		{name: "token lacking the scope", token: noScope, member: true, teamMember: true, scopes: noScopes},
		{name: "public-only token", token: publicOnly, member: true, teamMember: true, scopes: publicOnlyScopes, publicOnly: true},
	}
	return m
}

// seedOrg makes the organization name owned by orgowner, with its teams
// "devs" (orgmember) and "others" (othermember).
func (m *orgMatrix) seedOrg(t *testing.T, name string, vis store.Visibility) *store.User {
	ctx, st := context.Background(), m.s.App.Store
	user := func(name string) *store.User {
		u, err := st.UserByName(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		return u
	}
	org := &store.User{Name: name, Visibility: vis}
	if err := st.CreateOrganization(ctx, org, user("orgowner").ID); err != nil {
		t.Fatal(err)
	}
	for _, tm := range []struct{ team, member string }{{"devs", "orgmember"}, {"others", "othermember"}} {
		team := &store.Team{OrgID: org.ID, Name: tm.team, Authorize: store.AccessWrite, CanCreateOrgRepo: tm.team == "devs",
			Units: []store.TeamUnit{{Type: store.UnitTypeCode, AccessMode: store.AccessWrite}}}
		if err := st.CreateTeam(ctx, team); err != nil {
			t.Fatal(err)
		}
		if err := st.AddTeamMember(ctx, team.ID, user(tm.member).ID); err != nil {
			t.Fatal(err)
		}
		if tm.team == "devs" {
			m.teams[org.ID] = team.ID
		}
	}
	return org
}

// rebuildOrg undoes what an allowed call did to the i-th organization
// (deleted it or a team, changed a membership): whatever is left goes and
// the organization is made again under its name.
func (m *orgMatrix) rebuildOrg(t *testing.T, i int) *store.User {
	old := m.orgs[i]
	if err := m.s.App.Store.DeleteOrganization(context.Background(), old.ID); err != nil && !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("rebuilding %s: %v", old.Name, err)
	}
	delete(m.teams, old.ID)
	m.orgs[i] = m.seedOrg(t, old.Name, old.Visibility)
	return m.orgs[i]
}

// orgObjectRules are what the object rules that organization methods
// declare (policy.rule, services/access) answer to each caller the
// resource lets through, by rule name.
var orgObjectRules = map[string]func(c orgCaller) (codes.Code, string){
	// org-repo-creator: site administrators and members of a team that may
	// create repositories (devs here, and the Owners team).
	"org-repo-creator": func(c orgCaller) (codes.Code, string) {
		if c.admin || c.owner || c.teamMember {
			return codes.OK, ""
		}
		return codes.PermissionDenied, "Given user is not allowed to create repository in organization."
	},
}

// expectCall is expect, then the method's object rule, if any.
func (c orgCaller) expectCall(method string, pol auth.Policy, org *store.User) (codes.Code, string) {
	want, msg := c.expect(pol, org)
	if rule := orgObjectRules[pol.Rule]; rule != nil && want == codes.OK {
		return rule(c)
	}
	return want, msg
}

// expect is the code a call by c must get, in the resolver's order:
// sign-in, token scope, visibility (404), public-only tokens, role; and
// the message of a role refusal.
func (c orgCaller) expect(pol auth.Policy, org *store.User) (codes.Code, string) {
	private := org.Visibility != store.VisibilityPublic
	switch {
	case c.token == "" && pol.Access != auth.Public:
		return codes.Unauthenticated, ""
	case !tokenHas(c.scopes, pol):
		return codes.PermissionDenied, ""
	}
	team := pol.Resource.Kind == auth.TeamResource
	if !c.admin && ((team && !c.member) || (!team && private && !c.member)) {
		return codes.NotFound, ""
	}
	if c.publicOnly && private {
		return codes.PermissionDenied, access.PublicOnlyOrgMessage
	}
	if c.admin {
		return codes.OK, ""
	}
	if team {
		if pol.Resource.Role >= auth.OrgMember && !c.teamMember && !c.owner {
			return codes.PermissionDenied, access.NeedTeamMemberMsg
		}
		if pol.Resource.Role == auth.OrgOwner && !c.owner {
			return codes.PermissionDenied, access.NeedOrgOwnerMessage
		}
		return codes.OK, ""
	}
	switch {
	case pol.Resource.Role == auth.OrgMember && !c.member:
		return codes.PermissionDenied, access.NeedOrgMemberMessage
	case pol.Resource.Role == auth.OrgOwner && !c.owner:
		return codes.PermissionDenied, access.NeedOrgOwnerMessage
	}
	return codes.OK, ""
}

// check runs method for every caller on both organizations, counting
// the calls in count.
func (m *orgMatrix) check(t *testing.T, mx *matrix, md protoreflect.MethodDescriptor, method string, pol auth.Policy, count *matrixCount) {
	for i := range m.orgs {
		org := m.orgs[i]
		before := m.fingerprint(t, org)
		var allowed []orgCaller
		for _, c := range m.callers {
			want, msg := c.expectCall(method, pol, org)
			if want == codes.OK {
				allowed = append(allowed, c)
				continue
			}
			count.refused++
			err := mx.invoke(md, method, m.request(t, md, method, pol, org.Name, m.teams[org.ID]), c.token)
			got := status.Convert(err)
			if got.Code() != want {
				t.Errorf("%s on %s as %s: %v, want %v", method, org.Name, c.name, err, want)
				continue
			}
			if msg != "" && got.Message() != msg {
				t.Errorf("%s on %s as %s: message %q, want %q", method, org.Name, c.name, got.Message(), msg)
			}
		}
		if after := m.fingerprint(t, org); after != before {
			t.Errorf("%s: refused calls changed %s:\nbefore %s\nafter  %s", method, org.Name, before, after)
		}
		// The answer for an organization (team) that does not exist, as
		// the site administrator gets it, with this organization's name:
		// an allowed caller must not get it.
		hidden := status.Convert(mx.invoke(md, method, m.request(t, md, method, pol, "mx-missing", 1<<40), mx.s.AdminToken))
		if p := hidden.Proto(); p != nil {
			p.Message = strings.ReplaceAll(p.Message, "mx-missing", org.Name)
			hidden = status.FromProto(p)
		}
		for _, c := range allowed {
			count.allowed++
			err := mx.invoke(md, method, m.request(t, md, method, pol, org.Name, m.teams[org.ID]), c.token)
			if why := refusal(err, hidden); why != "" {
				t.Errorf("%s on %s as %s: %s (%v); the policy lets this caller through", method, org.Name, c.name, why, err)
			}
			if after := m.fingerprint(t, org); after != before {
				org = m.rebuildOrg(t, i)
				before = m.fingerprint(t, org)
			}
		}
	}
}

// request is method's request naming only the organization org or, for
// a team method, the team id.
func (m *orgMatrix) request(t *testing.T, md protoreflect.MethodDescriptor, method string, pol auth.Policy, org string, team int64) *dynamicpb.Message {
	req := dynamicpb.NewMessage(md.Input())
	if pol.Resource.Kind == auth.TeamResource {
		f := md.Input().Fields().ByName("id")
		if f == nil || f.Kind() != protoreflect.Int64Kind {
			t.Fatalf("%s: a team method's request needs an int64 id field", method)
		}
		req.Set(f, protoreflect.ValueOfInt64(team))
		return req
	}
	f := md.Input().Fields().ByName("org")
	if f == nil || f.Kind() != protoreflect.StringKind {
		t.Fatalf("%s: an organization method's request needs a string org field", method)
	}
	req.Set(f, protoreflect.ValueOfString(org))
	return req
}

// fingerprint is everything a refused call could have changed in org:
// its record, teams with units, members and repositories.
func (m *orgMatrix) fingerprint(t *testing.T, org *store.User) string {
	t.Helper()
	db := m.s.App.Store.DB().WithContext(context.Background())
	var b strings.Builder
	var rec store.User
	if err := db.Where("id = ?", org.ID).Take(&rec).Error; err != nil {
		return "deleted: " + err.Error()
	}
	rec.Version, rec.UpdatedUnix = 0, 0
	row, _ := json.Marshal(rec)
	b.Write(row)
	for _, q := range []struct{ table, cols string }{
		{"teams", "id, lower_name, description, authorize, includes_all_repositories, can_create_org_repo"},
		{"team_units", "team_id, type, access_mode"},
		{"team_users", "team_id, uid"},
		{"team_repos", "team_id, repo_id"},
		{"org_users", "uid, is_public"},
	} {
		var rows []map[string]any
		if err := db.Table(q.table).Select(q.cols).Where("org_id = ?", org.ID).Order(q.cols).Find(&rows).Error; err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, " %s=%v", q.table, rows)
	}
	var repos int64
	db.Model(&store.Repository{}).Where("owner_id = ?", org.ID).Count(&repos)
	fmt.Fprintf(&b, " repos=%d", repos)
	return b.String()
}

// namesOrganization reports a request with a string org field: its
// method must declare an organization or a team.
func namesOrganization(in protoreflect.MessageDescriptor) bool {
	f := in.Fields().ByName("org")
	return f != nil && f.Kind() == protoreflect.StringKind
}
