package access_test

import (
	"context"
	"sync/atomic"
	"testing"

	issuesv1 "forge/gen/forge/issues/v1"
	mirrorsv1 "forge/gen/forge/mirrors/v1"
	orgsv1 "forge/gen/forge/orgs/v1"
	reposv1 "forge/gen/forge/repos/v1"
	"forge/services/access"
	"forge/services/auth"
	"forge/services/errs"
	"forge/services/store"
)

// world is a small store of accounts, repositories, collaborations and
// teams for the repository and organization rules; anything else it is
// asked panics (the embedded nil interface).
type world struct {
	access.Store
	users   map[string]*store.User
	repos   map[string]*store.Repository // "owner/name"
	collabs map[[2]int64]store.AccessMode
	grants  map[[2]int64][]store.TeamGrant // repo, user
	members map[[2]int64]store.OrgMembership
	teams   map[int64]*store.Team
	inTeam  map[[2]int64]bool
	// related are the (viewer, user) pairs a relation makes visible.
	related map[[2]int64]bool
	// gen moves on every read: the maps change without telling, so
	// the checker's cache must never serve from them.
	gen atomic.Int64
}

func (w *world) AuthGeneration(context.Context) (store.Generation, error) {
	return store.Generation{Resource: w.gen.Add(1)}, nil
}

func (w *world) RepositoryCounters(_ context.Context, r *store.Repository) error {
	got, err := w.RepositoryByID(context.Background(), r.ID)
	if err != nil {
		return err
	}
	r.NumWatches, r.NumStars, r.NumForks = got.NumWatches, got.NumStars, got.NumForks
	r.NumIssues, r.NumClosedIssues, r.NumPulls, r.NumClosedPulls = got.NumIssues, got.NumClosedIssues, got.NumPulls, got.NumClosedPulls
	return nil
}

func (w *world) UserByName(_ context.Context, name string) (*store.User, error) {
	if u, ok := w.users[name]; ok {
		return u, nil
	}
	return nil, store.ErrNotFound
}

func (w *world) UserByID(_ context.Context, id int64) (*store.User, error) {
	for _, u := range w.users {
		if u.ID == id {
			return u, nil
		}
	}
	return nil, store.ErrNotFound
}

func (w *world) RepositoryByName(_ context.Context, ownerID int64, name string) (*store.Repository, error) {
	for _, r := range w.repos {
		if r.OwnerID == ownerID && r.Name == name {
			return r, nil
		}
	}
	return nil, store.ErrNotFound
}

func (w *world) RepositoryByID(_ context.Context, id int64) (*store.Repository, error) {
	for _, r := range w.repos {
		if r.ID == id {
			return r, nil
		}
	}
	return nil, store.ErrNotFound
}

func (w *world) CollaboratorMode(_ context.Context, repoID, userID int64) (store.AccessMode, error) {
	return w.collabs[[2]int64{repoID, userID}], nil
}

func (w *world) TeamGrants(_ context.Context, repoID, _, uid int64) ([]store.TeamGrant, error) {
	return w.grants[[2]int64{repoID, uid}], nil
}

func (w *world) OrgMembership(_ context.Context, orgID, uid int64) (store.OrgMembership, error) {
	return w.members[[2]int64{orgID, uid}], nil
}

func (w *world) TeamByID(_ context.Context, id int64) (*store.Team, error) {
	if t, ok := w.teams[id]; ok {
		return t, nil
	}
	return nil, store.ErrNotFound
}

func (w *world) IsTeamMember(_ context.Context, teamID, uid int64) (bool, error) {
	return w.inTeam[[2]int64{teamID, uid}], nil
}

func (w *world) UserVisible(_ context.Context, f store.UserFilter, id int64) (bool, error) {
	return w.related[[2]int64{f.ViewerID, id}], nil
}

func (w *world) VisibleUserIDs(_ context.Context, f store.UserFilter, ids []int64) (map[int64]bool, error) {
	out := map[int64]bool{}
	for _, id := range ids {
		out[id] = w.related[[2]int64{f.ViewerID, id}]
	}
	return out, nil
}

const (
	idRoot = iota + 1
	idAlice
	idReader
	idWriter
	idAdmin
	idStranger
	idRestricted
	idDev
	idBoss
	idAcme
)

func newWorld() *world {
	user := func(id int64, name string) *store.User {
		return &store.User{ID: id, Name: name, LowerName: name, Visibility: store.VisibilityPublic, IsActive: true}
	}
	w := &world{
		users: map[string]*store.User{
			"root": user(idRoot, "root"), "alice": user(idAlice, "alice"), "reader": user(idReader, "reader"),
			"writer": user(idWriter, "writer"), "repoadmin": user(idAdmin, "repoadmin"), "stranger": user(idStranger, "stranger"),
			"rst": user(idRestricted, "rst"), "dev": user(idDev, "dev"), "boss": user(idBoss, "boss"),
			"acme": {ID: idAcme, Name: "acme", LowerName: "acme", Type: store.UserTypeOrganization, Visibility: store.VisibilityPrivate},
		},
		repos: map[string]*store.Repository{
			"alice/pub":   {ID: 100, OwnerID: idAlice, Name: "pub", HasIssues: true, HasReleases: true},
			"alice/priv":  {ID: 101, OwnerID: idAlice, Name: "priv", IsPrivate: true, HasIssues: true, HasPullRequests: true},
			"alice/noiss": {ID: 102, OwnerID: idAlice, Name: "noiss", IsPrivate: true, HasIssues: false, HasPullRequests: true},
			"alice/arch":  {ID: 103, OwnerID: idAlice, Name: "arch", HasIssues: true, IsArchived: true},
			"acme/tool":   {ID: 200, OwnerID: idAcme, Name: "tool", IsPrivate: true, HasIssues: true},
		},
		collabs: map[[2]int64]store.AccessMode{
			{101, idReader}: store.AccessRead, {101, idWriter}: store.AccessWrite, {101, idAdmin}: store.AccessAdmin,
			{102, idReader}: store.AccessRead, {102, idAdmin}: store.AccessAdmin,
			{100, idRestricted}: store.AccessRead,
		},
		grants: map[[2]int64][]store.TeamGrant{
			// dev's team: write on code, read on issues.
			{200, idDev}: {{Authorize: store.AccessWrite, Units: map[int]store.AccessMode{
				store.UnitTypeCode: store.AccessWrite, store.UnitTypeIssues: store.AccessRead}}},
			// boss is in the Owners team.
			{200, idBoss}: {{Authorize: store.AccessOwner}},
		},
		members: map[[2]int64]store.OrgMembership{
			{idAcme, idDev}:  {Member: true},
			{idAcme, idBoss}: {Member: true, Owner: true},
		},
		teams:   map[int64]*store.Team{7: {ID: 7, OrgID: idAcme, Name: "devs"}, 8: {ID: 8, OrgID: idAcme, Name: "Owners"}},
		inTeam:  map[[2]int64]bool{{7, idDev}: true, {8, idBoss}: true},
		related: map[[2]int64]bool{{idDev, idAcme}: true, {idBoss, idAcme}: true, {idRestricted, idAlice}: true},
	}
	w.users["root"].IsAdmin = true
	w.users["rst"].Restricted = true
	return w
}

func (w *world) caller(name string) *auth.Principal {
	if name == "" {
		return nil
	}
	return &auth.Principal{User: w.users[name]}
}

// TestRepositoryRule drives the one repository rule (resolution and
// access.Authorize) with every kind of caller: visibility first (404),
// then the token's reach, the unit and the level with Gitea's messages.
func TestRepositoryRule(t *testing.T) {
	w := newWorld()
	c := access.NewChecker(w)
	publicOnly := &auth.Principal{User: w.users["reader"], Token: &store.AccessToken{ID: 1}, Scopes: mustScopes(t, "public-only", "read:repository")}
	res := func(u auth.Unit, need store.AccessMode) auth.Resource {
		return auth.Resource{Kind: auth.RepositoryResource, Unit: u, Need: need}
	}
	for _, tc := range []struct {
		caller *auth.Principal
		repo   string
		res    auth.Resource
		want   string // "" allowed; else the refusal's message
	}{
		{nil, "alice/pub", res(auth.UnitCode, store.AccessRead), ""},
		{nil, "alice/pub", res(auth.UnitCode, store.AccessWrite), access.NeedWriteMessage},
		{nil, "alice/priv", res(auth.UnitCode, store.AccessRead), "The target couldn't be found."},
		{w.caller("stranger"), "alice/priv", res(auth.UnitCode, store.AccessRead), "The target couldn't be found."},
		{w.caller("stranger"), "alice/pub", res(auth.UnitCode, store.AccessRead), ""},
		{w.caller("stranger"), "alice/missing", res(auth.UnitCode, store.AccessRead), "The target couldn't be found."},
		{w.caller("reader"), "alice/priv", res(auth.UnitCode, store.AccessRead), ""},
		{w.caller("reader"), "alice/priv", res(auth.UnitCode, store.AccessWrite), access.NeedWriteMessage},
		{w.caller("writer"), "alice/priv", res(auth.UnitCode, store.AccessWrite), ""},
		{w.caller("writer"), "alice/priv", res(auth.UnitCode, store.AccessAdmin), access.NeedAdminMessage},
		{w.caller("repoadmin"), "alice/priv", res(auth.UnitCode, store.AccessAdmin), ""},
		{w.caller("repoadmin"), "alice/priv", res(auth.UnitCode, store.AccessOwner), access.NeedOwnerMessage},
		{w.caller("alice"), "alice/priv", res(auth.UnitCode, store.AccessOwner), ""},
		{w.caller("root"), "alice/priv", res(auth.UnitCode, store.AccessOwner), ""},
		// A unit switched off admits repository administrators only.
		{w.caller("reader"), "alice/noiss", res(auth.UnitIssues, store.AccessRead), access.UnitOffMessage},
		{w.caller("repoadmin"), "alice/noiss", res(auth.UnitIssues, store.AccessRead), ""},
		{w.caller("reader"), "alice/noiss", res(auth.UnitCode, store.AccessRead), ""},
		// Restricted users read only what is shared with them.
		{w.caller("rst"), "alice/pub", res(auth.UnitCode, store.AccessRead), ""},
		{w.caller("rst"), "alice/noiss", res(auth.UnitCode, store.AccessRead), "The target couldn't be found."},
		// A public-only token stops at private repositories.
		{publicOnly, "alice/priv", res(auth.UnitCode, store.AccessRead), "token scope is limited to public repos"},
		{publicOnly, "alice/pub", res(auth.UnitCode, store.AccessRead), ""},
		// Teams give their mode per unit; the Owners team owns.
		{w.caller("dev"), "acme/tool", res(auth.UnitCode, store.AccessWrite), ""},
		{w.caller("dev"), "acme/tool", res(auth.UnitIssues, store.AccessRead), ""},
		{w.caller("dev"), "acme/tool", res(auth.UnitIssues, store.AccessWrite), access.NeedWriteMessage},
		{w.caller("dev"), "acme/tool", res(auth.UnitReleases, store.AccessRead), access.UnitOffMessage},
		{w.caller("dev"), "acme/tool", res(auth.UnitAny, store.AccessWrite), ""},
		// Issues or pull requests: the better of the two units that are on.
		{w.caller("dev"), "acme/tool", res(auth.UnitIssuesOrPulls, store.AccessRead), ""},
		{w.caller("dev"), "acme/tool", res(auth.UnitIssuesOrPulls, store.AccessWrite), access.NeedWriteMessage},
		{w.caller("reader"), "alice/noiss", res(auth.UnitIssuesOrPulls, store.AccessRead), ""},
		{w.caller("reader"), "alice/noiss", res(auth.UnitIssuesOrPulls, store.AccessWrite), access.NeedWriteMessage},
		{w.caller("boss"), "acme/tool", res(auth.UnitCode, store.AccessOwner), ""},
		// An owner the caller may not see answers as a missing account.
		{w.caller("stranger"), "acme/tool", res(auth.UnitCode, store.AccessRead), "user does not exist [name: acme]"},
	} {
		owner, name, _ := cut(tc.repo)
		req := &reposv1.GetRepoRequest{Owner: owner, Repo: name}
		ctx, err := c.AuthorizeResource(context.Background(), auth.Policy{Resource: tc.res}, req, tc.caller)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tc.want {
			t.Errorf("%d on %s %+v: got %q, want %q", tc.caller.ID(), tc.repo, tc.res, got, tc.want)
			continue
		}
		if err == nil {
			if r, err := access.RepoFrom(ctx); err != nil || r.Name != name {
				t.Errorf("%d on %s: the handler does not get the repository: %v", tc.caller.ID(), tc.repo, err)
			}
		}
	}
}

// TestCanWriteAndUnitMode: the modes a handler reads after resolution.
func TestCanWriteAndUnitMode(t *testing.T) {
	w := newWorld()
	c := access.NewChecker(w)
	r, err := c.Resolve(context.Background(), "acme", "tool", w.caller("dev"))
	if err != nil {
		t.Fatal(err)
	}
	if got := r.UnitMode(auth.UnitIssues); got != store.AccessRead {
		t.Errorf("dev's mode on issues %v, want read", got)
	}
	if got := r.UnitMode(auth.UnitCode); got != store.AccessWrite || !r.CanWrite() {
		t.Errorf("dev's mode on code %v (can write %v), want write", got, r.CanWrite())
	}
	for name, want := range map[string]bool{"writer": true, "reader": false} {
		ok, err := c.CanBeAssigned(context.Background(), &access.Repo{Repository: w.repos["alice/priv"]}, w.users[name])
		if err != nil || ok != want {
			t.Errorf("%s can be assigned: %v %v, want %v", name, ok, err, want)
		}
	}
}

// TestOrganizationRule drives the organization and team resources.
func TestOrganizationRule(t *testing.T) {
	w := newWorld()
	c := access.NewChecker(w)
	org := func(role auth.OrgRole) auth.Policy {
		return auth.Policy{Resource: auth.Resource{Kind: auth.OrganizationResource, Role: role}}
	}
	team := func(role auth.OrgRole) auth.Policy {
		return auth.Policy{Resource: auth.Resource{Kind: auth.TeamResource, Role: role}}
	}
	publicOnly := &auth.Principal{User: w.users["dev"], Token: &store.AccessToken{ID: 1}, Scopes: mustScopes(t, "public-only", "read:organization")}
	for _, tc := range []struct {
		caller *auth.Principal
		pol    auth.Policy
		req    any
		want   string
	}{
		{w.caller("stranger"), org(auth.OrgVisible), &orgsv1.GetOrgRequest{Org: "acme"}, "org does not exist [id: 0, name: acme]"},
		{nil, org(auth.OrgVisible), &orgsv1.GetOrgRequest{Org: "acme"}, "org does not exist [id: 0, name: acme]"},
		{w.caller("stranger"), org(auth.OrgVisible), &orgsv1.GetOrgRequest{Org: "nope"}, "org does not exist [id: 0, name: nope]"},
		{w.caller("dev"), org(auth.OrgVisible), &orgsv1.GetOrgRequest{Org: "acme"}, ""},
		{w.caller("dev"), org(auth.OrgMember), &orgsv1.GetOrgRequest{Org: "acme"}, ""},
		{w.caller("dev"), org(auth.OrgOwner), &orgsv1.GetOrgRequest{Org: "acme"}, access.NeedOrgOwnerMessage},
		{w.caller("boss"), org(auth.OrgOwner), &orgsv1.GetOrgRequest{Org: "acme"}, ""},
		{w.caller("root"), org(auth.OrgOwner), &orgsv1.GetOrgRequest{Org: "acme"}, ""},
		{publicOnly, org(auth.OrgVisible), &orgsv1.GetOrgRequest{Org: "acme"}, access.PublicOnlyOrgMessage},
		{w.caller("stranger"), team(auth.OrgVisible), &orgsv1.GetTeamRequest{Id: 7}, "The target couldn't be found."},
		{w.caller("dev"), team(auth.OrgVisible), &orgsv1.GetTeamRequest{Id: 99}, "The target couldn't be found."},
		{w.caller("dev"), team(auth.OrgVisible), &orgsv1.GetTeamRequest{Id: 8}, ""},
		{w.caller("dev"), team(auth.OrgMember), &orgsv1.GetTeamRequest{Id: 7}, ""},
		{w.caller("dev"), team(auth.OrgMember), &orgsv1.GetTeamRequest{Id: 8}, access.NeedTeamMemberMsg},
		{w.caller("dev"), team(auth.OrgOwner), &orgsv1.GetTeamRequest{Id: 7}, access.NeedOrgOwnerMessage},
		{w.caller("boss"), team(auth.OrgMember), &orgsv1.GetTeamRequest{Id: 7}, ""},
		{w.caller("boss"), team(auth.OrgOwner), &orgsv1.GetTeamRequest{Id: 7}, ""},
		{w.caller("root"), team(auth.OrgOwner), &orgsv1.GetTeamRequest{Id: 7}, ""},
		{publicOnly, team(auth.OrgVisible), &orgsv1.GetTeamRequest{Id: 7}, access.PublicOnlyOrgMessage},
	} {
		_, err := c.AuthorizeResource(context.Background(), tc.pol, tc.req, tc.caller)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tc.want {
			t.Errorf("caller %d, %+v, %v: got %q, want %q", tc.caller.ID(), tc.pol.Resource, tc.req, got, tc.want)
		}
	}
}

// TestMembershipFilters: who sees all members and memberships.
func TestMembershipFilters(t *testing.T) {
	w := newWorld()
	o := &access.Org{User: w.users["acme"], Membership: store.OrgMembership{Member: true}}
	if !access.SeesAllMembers(o, w.caller("dev")) || access.SeesAllMembers(&access.Org{User: w.users["acme"]}, w.caller("stranger")) {
		t.Error("members see all members, strangers only public ones")
	}
	if !access.SeesAllMembers(&access.Org{User: w.users["acme"]}, w.caller("root")) {
		t.Error("site administrators see all members")
	}
	if !access.SeesAllMembershipsOf(w.users["dev"], w.caller("dev")) || !access.SeesAllMembershipsOf(w.users["dev"], w.caller("root")) {
		t.Error("a user and site administrators see all of the user's memberships")
	}
	if access.SeesAllMembershipsOf(w.users["dev"], w.caller("stranger")) || access.SeesAllMembershipsOf(w.users["dev"], nil) {
		t.Error("others see only public memberships")
	}
}

// TestAccountVisibility: hidden accounts are as unknown as missing ones.
func TestAccountVisibility(t *testing.T) {
	w := newWorld()
	ctx := context.Background()
	for _, tc := range []struct {
		viewer *auth.Principal
		name   string
		want   string
	}{
		{w.caller("dev"), "acme", ""},
		{w.caller("root"), "acme", ""},
		{w.caller("stranger"), "acme", "user does not exist [name: acme]"},
		{nil, "acme", "user does not exist [name: acme]"},
		{nil, "alice", ""},
		{w.caller("rst"), "alice", ""},
		{w.caller("rst"), "dev", "user does not exist [name: dev]"},
		{w.caller("stranger"), "nobody", "user does not exist [name: nobody]"},
	} {
		_, err := access.VisibleUser(ctx, w, tc.name, tc.viewer)
		got := ""
		if err != nil {
			got = err.Error()
			if errs.KindOf(err) != errs.NotFound {
				t.Errorf("%s: kind %v, want NotFound", tc.name, errs.KindOf(err))
			}
		}
		if got != tc.want {
			t.Errorf("%d sees %s: got %q, want %q", tc.viewer.ID(), tc.name, got, tc.want)
		}
	}
}

func mustScopes(t *testing.T, names ...string) auth.Scopes {
	t.Helper()
	s, err := auth.ParseScopes(names)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func cut(full string) (owner, name string, ok bool) {
	for i := range full {
		if full[i] == '/' {
			return full[:i], full[i+1:], true
		}
	}
	return full, "", false
}

func (w *world) IssueByIndex(_ context.Context, repoID, index int64) (*store.Issue, error) {
	if index == 1 || index == 2 {
		// Every repository has issue 1 (by reader) and pull request 2.
		return &store.Issue{ID: repoID*10 + index, RepoID: repoID, Index: index, PosterID: idReader, IsPull: index == 2}, nil
	}
	return nil, store.ErrNotFound
}

// TestRuleThroughResource: a policy's rule runs after the resource and
// hands its object to the handler; writer fields are cleared for callers
// below write and kept for writers.
func TestRuleThroughResource(t *testing.T) {
	w := newWorld()
	c := access.NewChecker(w)
	repo := auth.Resource{Kind: auth.RepositoryResource, Unit: auth.UnitIssues, Need: store.AccessRead}
	edit := auth.Policy{Resource: repo, Rule: "issue-poster-or-writer"}
	ctx, err := c.AuthorizeResource(context.Background(), edit, &issuesv1.EditIssueRequest{Owner: "alice", Repo: "priv", Index: 1}, w.caller("reader"))
	if err != nil {
		t.Fatal(err)
	}
	if on, err := access.ObjectFrom(ctx); err != nil || on.Issue == nil || on.Issue.Index != 1 {
		t.Fatalf("the handler gets %+v, %v; want issue 1", on, err)
	}
	if _, err := access.ObjectFrom(context.Background()); err == nil || errs.KindOf(err) != errs.Internal {
		t.Fatalf("ObjectFrom without a rule: %v, want an internal error", err)
	}
	if _, err := c.AuthorizeResource(context.Background(), edit, &issuesv1.EditIssueRequest{Owner: "alice", Repo: "priv", Index: 1}, w.caller("stranger")); err == nil || err.Error() != "The target couldn't be found." {
		t.Fatalf("a stranger: %v, want the repository's 404 before the rule", err)
	}

	create := auth.Policy{Resource: repo, WriterFields: []string{"assignees", "labels"}}
	for name, keep := range map[string]bool{"reader": false, "writer": true, "root": true} {
		req := &issuesv1.CreateIssueRequest{Owner: "alice", Repo: "priv", Title: "t", Assignees: []string{"writer"}, Labels: []int64{3}}
		if _, err := c.AuthorizeResource(context.Background(), create, req, w.caller(name)); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if kept := len(req.Assignees) == 1 && len(req.Labels) == 1; kept != keep || req.Title != "t" {
			t.Errorf("%s: assignees %v labels %v title %q; writer fields kept %v, want %v", name, req.Assignees, req.Labels, req.Title, kept, keep)
		}
	}
}

// TestResolveByID: GET /repositories/{id} meets the same visibility.
func TestResolveByID(t *testing.T) {
	w := newWorld()
	c := access.NewChecker(w)
	pol := auth.Policy{Resource: auth.Resource{Kind: auth.RepositoryResource, Unit: auth.UnitAny, Need: store.AccessRead, ByID: true}}
	for _, tc := range []struct {
		caller string
		id     int64
		want   string
	}{
		{"reader", 101, ""},
		{"", 100, ""},
		{"stranger", 101, "The target couldn't be found."},
		{"stranger", 999, "The target couldn't be found."},
		{"stranger", 200, "The target couldn't be found."},
		{"dev", 200, ""},
	} {
		ctx, err := c.AuthorizeResource(context.Background(), pol, &reposv1.GetRepoByIDRequest{Id: tc.id}, w.caller(tc.caller))
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tc.want {
			t.Errorf("%q reads repository %d: got %q, want %q", tc.caller, tc.id, got, tc.want)
			continue
		}
		if err == nil {
			if r, _ := access.RepoFrom(ctx); r == nil || r.ID != tc.id || r.Owner == nil {
				t.Errorf("%q reads repository %d: the handler gets %+v", tc.caller, tc.id, r)
			}
		}
	}
	// A request without the id the policy declares is a bug, refused.
	if _, err := c.AuthorizeResource(context.Background(), pol, &reposv1.GetRepoRequest{Owner: "alice", Repo: "pub"}, nil); err == nil || errs.KindOf(err) != errs.Internal {
		t.Errorf("by_id on a request without id: %v, want an internal error", err)
	}
	byName := auth.Policy{Resource: auth.Resource{Kind: auth.RepositoryResource, Unit: auth.UnitAny, Need: store.AccessRead}}
	if _, err := c.AuthorizeResource(context.Background(), byName, &reposv1.GetRepoByIDRequest{Id: 100}, nil); err == nil || errs.KindOf(err) != errs.Internal {
		t.Errorf("a repository resource on a request without owner and repo: %v, want an internal error", err)
	}
	// Neither a resource nor a rule: nothing to resolve, a bug.
	if _, err := c.AuthorizeResource(context.Background(), auth.Policy{}, &reposv1.GetRepoByIDRequest{Id: 100}, nil); err == nil || errs.KindOf(err) != errs.Internal {
		t.Errorf("no resource and no rule: %v, want an internal error", err)
	}
	if _, err := access.RepoFrom(context.Background()); err == nil || errs.KindOf(err) != errs.Internal {
		t.Errorf("RepoFrom without a resolved repository: %v, want an internal error", err)
	}
	if mode, err := c.UnitMode(context.Background(), w.repos["acme/tool"], w.caller("dev"), auth.UnitIssues); err != nil || mode != store.AccessRead {
		t.Errorf("dev's mode on acme/tool's issues: %v %v, want read", mode, err)
	}
	if mode, err := c.Mode(context.Background(), w.repos["acme/tool"], w.caller("dev")); err != nil || mode != store.AccessWrite {
		t.Errorf("dev's best mode on acme/tool: %v %v, want write", mode, err)
	}
}

// TestAttachmentDownload: a file by its uuid needs read on its
// repository and unit, and a token the read scope of that unit.
func TestAttachmentDownload(t *testing.T) {
	w := newWorld()
	c := access.NewChecker(w)
	token := func(user string, scopes ...string) *auth.Principal {
		return &auth.Principal{User: w.users[user], Token: &store.AccessToken{ID: 9}, Scopes: mustScopes(t, scopes...)}
	}
	for _, tc := range []struct {
		caller *auth.Principal
		repo   int64
		unit   auth.Unit
		want   string
	}{
		{w.caller("reader"), 101, auth.UnitIssues, ""},
		{nil, 100, auth.UnitReleases, ""},
		{token("reader", "read:issue"), 101, auth.UnitIssues, ""},
		{token("reader", "read:repository"), 101, auth.UnitIssues, "token does not have at least one of required scope(s): [read:issue]"},
		{token("reader", "read:issue"), 100, auth.UnitReleases, "token does not have at least one of required scope(s): [read:repository]"},
		{token("reader", "read:repository"), 100, auth.UnitReleases, ""},
		{w.caller("stranger"), 101, auth.UnitIssues, "The target couldn't be found."},
		{w.caller("reader"), 102, auth.UnitIssues, access.UnitOffMessage},
		{w.caller("repoadmin"), 102, auth.UnitIssues, ""},
	} {
		r, err := c.AuthorizeAttachmentRead(context.Background(), tc.repo, tc.unit, tc.caller)
		got := ""
		if err != nil {
			got = err.Error()
		} else if r == nil || r.ID != tc.repo {
			t.Errorf("repository %d: got %+v", tc.repo, r)
		}
		if got != tc.want {
			t.Errorf("%d reads a file of %d (unit %v): got %q, want %q", tc.caller.ID(), tc.repo, tc.unit, got, tc.want)
		}
	}
}

// TestCreationLimits: how many repositories an owner may hold.
func TestCreationLimits(t *testing.T) {
	w := newWorld()
	c := access.NewChecker(w).WithMaxCreationLimit(5)
	user := func(max int, admin bool) *store.User {
		return &store.User{ID: 50, MaxRepoCreation: max, IsAdmin: admin}
	}
	for _, tc := range []struct {
		owner  *store.User
		caller *auth.Principal
		want   int
	}{
		{user(-1, false), w.caller("alice"), 5},
		{user(-2, false), w.caller("alice"), 5},
		{user(0, false), w.caller("alice"), 0},
		{user(3, false), w.caller("alice"), 3},
		{user(3, false), w.caller("root"), -1},
		{user(3, true), w.caller("alice"), -1},
	} {
		if got := c.RepoLimit(tc.owner, tc.caller); got != tc.want {
			t.Errorf("limit of %+v for %d: %d, want %d", tc.owner, tc.caller.ID(), got, tc.want)
		}
	}
	if got := access.NewChecker(w).RepoLimit(user(-1, false), w.caller("alice")); got != -1 {
		t.Errorf("no site limit: %d, want -1", got)
	}
	if got := access.RepoLimitError(4).Error(); got != "user has reached maximum limit of repositories [limit: 4]" {
		t.Errorf("limit message %q", got)
	}
}

// TestMigrationOwner: the account a migration creates in.
func TestMigrationOwner(t *testing.T) {
	w := newWorld()
	c := access.NewChecker(w)
	for _, tc := range []struct {
		caller string
		req    *mirrorsv1.MigrateRepoRequest
		want   string
		owner  string
	}{
		{"alice", &mirrorsv1.MigrateRepoRequest{}, "", "alice"},
		{"alice", &mirrorsv1.MigrateRepoRequest{RepoOwner: "alice"}, "", "alice"},
		{"alice", &mirrorsv1.MigrateRepoRequest{Uid: idAlice}, "", "alice"},
		{"alice", &mirrorsv1.MigrateRepoRequest{RepoOwner: "reader"}, "Given user is not an organization.", ""},
		{"root", &mirrorsv1.MigrateRepoRequest{RepoOwner: "reader"}, "", "reader"},
		{"boss", &mirrorsv1.MigrateRepoRequest{RepoOwner: "acme"}, "", "acme"},
		{"dev", &mirrorsv1.MigrateRepoRequest{RepoOwner: "acme"}, "Given user is not owner of organization.", ""},
		{"stranger", &mirrorsv1.MigrateRepoRequest{RepoOwner: "acme"}, "user does not exist [name: acme]", ""},
		{"alice", &mirrorsv1.MigrateRepoRequest{RepoOwner: "nobody"}, "user does not exist [name: nobody]", ""},
		{"alice", &mirrorsv1.MigrateRepoRequest{Uid: 999}, "user does not exist [name: ]", ""},
	} {
		on, err := access.DecideForTest(context.Background(), c, "migration-owner", tc.req, w.caller(tc.caller), nil, nil)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tc.want || (err == nil && on.User.Name != tc.owner) {
			t.Errorf("%s migrates into %v: got %q (%+v), want %q %s", tc.caller, tc.req, got, on, tc.want, tc.owner)
		}
	}
}

// TestOrgAndTeamFromContext: handlers read what the resolver stored.
func TestOrgAndTeamFromContext(t *testing.T) {
	w := newWorld()
	c := access.NewChecker(w)
	if _, err := access.OrgFrom(context.Background()); err == nil || errs.KindOf(err) != errs.Internal {
		t.Errorf("OrgFrom without an organization: %v", err)
	}
	if _, err := access.TeamFrom(context.Background()); err == nil || errs.KindOf(err) != errs.Internal {
		t.Errorf("TeamFrom without a team: %v", err)
	}
	team := auth.Policy{Resource: auth.Resource{Kind: auth.TeamResource, Role: auth.OrgMember}}
	ctx, err := c.AuthorizeResource(context.Background(), team, &orgsv1.GetTeamRequest{Id: 7}, w.caller("dev"))
	if err != nil {
		t.Fatal(err)
	}
	o, err := access.OrgFrom(ctx)
	if err != nil || o.Name != "acme" || !o.IsMember(w.caller("dev")) || o.IsOwner(w.caller("dev")) {
		t.Errorf("the team's organization: %+v %v", o, err)
	}
	if tm, err := access.TeamFrom(ctx); err != nil || tm.ID != 7 || !tm.Member {
		t.Errorf("the team: %+v %v", tm, err)
	}
	ctx, err = c.AuthorizeResource(context.Background(), auth.Policy{Resource: auth.Resource{Kind: auth.OrganizationResource, Role: auth.OrgVisible}}, &orgsv1.GetOrgRequest{Org: "acme"}, w.caller("boss"))
	if err != nil {
		t.Fatal(err)
	}
	if o, err := access.OrgFrom(ctx); err != nil || o.Name != "acme" || !o.IsOwner(w.caller("boss")) {
		t.Errorf("the organization: %+v %v", o, err)
	}
	if _, err := access.TeamFrom(ctx); err == nil || errs.KindOf(err) != errs.Internal {
		t.Errorf("TeamFrom on an organization call: %v", err)
	}
	// An individual's name is no organization.
	if _, err := c.ResolveOrg(context.Background(), "alice", w.caller("root")); err == nil || err.Error() != "org does not exist [id: 0, name: alice]" {
		t.Errorf("ResolveOrg(alice): %v", err)
	}
}

// TestRelateIssues: the other issue of a dependency, in its own
// repository and unit.
func TestRelateIssues(t *testing.T) {
	w := newWorld()
	cross := access.NewChecker(w).WithCrossRepositoryDependencies(true)
	same := access.NewChecker(w)
	meta := func(owner, repo string, index int64) *issuesv1.CreateIssueDependencyRequest {
		return &issuesv1.CreateIssueDependencyRequest{Index: 1, Meta: &issuesv1.IssueMeta{Owner: owner, Repo: repo, Index: index}}
	}
	from := func(name string, caller string) *access.Repo {
		r, err := cross.Resolve(context.Background(), "alice", name, w.caller(caller))
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	const notFound = "The target couldn't be found."
	for _, tc := range []struct {
		c      *access.Checker
		rule   string
		caller string
		from   string
		req    *issuesv1.CreateIssueDependencyRequest
		want   string
	}{
		{same, "relate-issue", "writer", "priv", meta("", "", 2), ""},
		{same, "relate-issue", "writer", "priv", meta("alice", "priv", 2), ""},
		{same, "relate-issue", "writer", "priv", meta("ALICE", "Priv", 1), ""},
		{same, "relate-issue", "writer", "priv", meta("alice", "pub", 1), "CrossRepositoryDependencies not enabled"},
		{same, "relate-issue", "writer", "priv", meta("", "priv", 1), "CrossRepositoryDependencies not enabled"},
		{same, "relate-issue", "writer", "priv", meta("alice", "", 1), "CrossRepositoryDependencies not enabled"},
		{cross, "relate-issue", "writer", "priv", meta("alice", "pub", 1), ""},
		{cross, "relate-issue", "writer", "priv", meta("alice", "priv", 9), "issue does not exist"},
		{cross, "relate-issue", "writer", "priv", meta("acme", "tool", 1), access.RelateDeniedMessage},
		{cross, "relate-issue", "writer", "priv", meta("alice", "gone", 1), access.RelateDeniedMessage},
		// The issue a request changes needs write on its unit: 404 (as
		// Gitea) for the URL's (relate-issue) and the other
		// (relate-issue-writable).
		{cross, "relate-issue", "reader", "priv", meta("", "", 2), notFound},
		{cross, "relate-issue-writable", "reader", "priv", meta("alice", "pub", 1), notFound},
		{cross, "relate-issue-writable", "reader", "priv", meta("alice", "noiss", 2), notFound},
		// reader reads noiss's pull requests, not its issues (off): an
		// issue there, and a number that does not exist (it could be
		// one), are refused alike.
		{cross, "relate-issue-writable", "reader", "priv", meta("alice", "noiss", 1), access.RelateDeniedMessage},
		{cross, "relate-issue-writable", "reader", "priv", meta("alice", "noiss", 9), access.RelateDeniedMessage},
		{cross, "relate-issue", "repoadmin", "priv", meta("alice", "noiss", 1), ""},
		{cross, "relate-issue", "repoadmin", "priv", meta("alice", "noiss", 2), ""},
		{cross, "relate-issue", "repoadmin", "priv", meta("alice", "noiss", 9), "issue does not exist"},
		{cross, "relate-issue-writable", "writer", "priv", meta("", "", 2), ""},
		{cross, "relate-issue-writable", "root", "priv", meta("alice", "arch", 1), "<Repository 103:alice/arch> is archived"},
		{cross, "relate-issue", "root", "priv", meta("alice", "arch", 1), ""},
	} {
		r := from(tc.from, tc.caller)
		on, err := access.DecideForTest(context.Background(), tc.c, tc.rule, tc.req, w.caller(tc.caller), r, nil)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tc.want {
			t.Errorf("%s by %s from %s to %v: got %q, want %q", tc.rule, tc.caller, tc.from, tc.req.Meta, got, tc.want)
			continue
		}
		if err == nil && (on.Issue == nil || on.Issue.RepoID != r.ID || on.Related == nil || on.Related.Index != tc.req.Meta.Index || on.Repo == nil) {
			t.Errorf("%s by %s: the handler gets %+v", tc.rule, tc.caller, on)
		}
	}
	r := from("priv", "writer")
	if _, err := access.DecideForTest(context.Background(), cross, "relate-issue", &issuesv1.CreateIssueDependencyRequest{Index: 7, Meta: &issuesv1.IssueMeta{Index: 1}}, w.caller("writer"), r, nil); err == nil || err.Error() != "IsErrIssueNotExist" {
		t.Errorf("an unknown issue in the URL: %v", err)
	}
}

// TestUndeclaredWriteFailsClosed: a write that forgot what it writes is
// treated as a code write on read-only repositories; reads and declared
// settings writes pass.
func TestUndeclaredWriteFailsClosed(t *testing.T) {
	w := newWorld()
	c := access.NewChecker(w)
	res := auth.Resource{Kind: auth.RepositoryResource, Unit: auth.UnitCode, Need: store.AccessRead}
	req := &reposv1.GetRepoRequest{Owner: "alice", Repo: "arch"}
	for _, tc := range []struct {
		pol  auth.Policy
		want string
	}{
		{auth.Policy{Resource: res, Level: auth.LevelWrite}, "<Repository 103:alice/arch> is archived"},
		{auth.Policy{Resource: res, Level: auth.LevelWrite, Writes: auth.WritesSettings}, ""},
		{auth.Policy{Resource: res, Level: auth.LevelRead}, ""},
		{auth.Policy{Resource: res, Writes: auth.WritesReleases}, "<Repository 103:alice/arch> is archived"},
	} {
		_, err := c.AuthorizeResource(context.Background(), tc.pol, req, w.caller("alice"))
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tc.want {
			t.Errorf("%+v: got %q, want %q", tc.pol, got, tc.want)
		}
	}
}

// TestTeamRepoRule: giving a team a repository needs admin access to it,
// as the caller sees it.
func TestTeamRepoRule(t *testing.T) {
	w := newWorld()
	c := access.NewChecker(w)
	req := &orgsv1.AddTeamRepoRequest{Id: 7, Org: "acme", Repo: "tool"}
	for _, tc := range []struct {
		caller string
		want   string
	}{
		{"boss", ""},
		{"root", ""},
		{"dev", access.TeamRepoAdminMessage},
		{"stranger", "user does not exist [name: acme]"},
	} {
		on, err := access.DecideForTest(context.Background(), c, "team-repo-admin", req, w.caller(tc.caller), nil, nil)
		got := ""
		if err != nil {
			got = err.Error()
		} else if on.Repo == nil || on.Repo.ID != 200 {
			t.Errorf("%s: the handler gets %+v", tc.caller, on)
		}
		if got != tc.want {
			t.Errorf("%s gives acme/tool to a team: got %q, want %q", tc.caller, got, tc.want)
		}
	}
}

// TestDropHidden: accounts found by other means (release publishers,
// commit authors) show only when the viewer may see them.
func TestDropHidden(t *testing.T) {
	w := newWorld()
	w.users["hidden"] = &store.User{ID: 77, Name: "hidden", Visibility: store.VisibilityPrivate}
	m := map[string]*store.User{"a": w.users["alice"], "b": w.users["alice"], "h": w.users["hidden"], "o": w.users["acme"]}
	if err := access.DropHidden(context.Background(), w, w.caller("dev"), m); err != nil {
		t.Fatal(err)
	}
	if len(m) != 3 || m["a"] == nil || m["b"] == nil || m["o"] == nil {
		t.Errorf("dev sees %v; want alice twice and acme, not the private account", m)
	}
	m = map[string]*store.User{"h": w.users["hidden"]}
	if err := access.DropHidden(context.Background(), w, w.caller("root"), m); err != nil || len(m) != 1 {
		t.Errorf("a site administrator sees every account: %v %v", m, err)
	}
}

// TestRestrictedFilter: restricted accounts list only what is shared
// with them, unless they are site administrators.
func TestRestrictedFilter(t *testing.T) {
	w := newWorld()
	if f := access.Filter(w.caller("rst")); !f.ExplicitOnly || f.ViewerID != idRestricted {
		t.Errorf("a restricted user's filter %+v", f)
	}
	admin := &auth.Principal{User: &store.User{ID: 90, IsAdmin: true, Restricted: true}}
	if f := access.Filter(admin); f.ExplicitOnly || !f.ViewerIsAdmin {
		t.Errorf("a restricted site administrator's filter %+v", f)
	}
	if f := access.Filter(w.caller("stranger")); f.ExplicitOnly || f.OnlyPublic {
		t.Errorf("a plain user's filter %+v", f)
	}
	if f := access.Filter(nil); f.ExplicitOnly || f.ViewerID != 0 {
		t.Errorf("an anonymous filter %+v", f)
	}
}

// TestPublicOnlyFilters: a public-only token's account filter keeps, of
// what its user sees, the public accounts, for a site administrator too;
// its repository filter has no administrator's see-all and keeps the
// token's user for public repositories.
func TestPublicOnlyFilters(t *testing.T) {
	w := newWorld()
	limited := &store.User{ID: 92, Visibility: store.VisibilityLimited}
	for _, u := range []*store.User{w.users["dev"], {ID: 91, IsAdmin: true}, w.users["rst"]} {
		p := &auth.Principal{User: u, Token: &store.AccessToken{ID: 1}, Scopes: mustScopes(t, "public-only", "read:repository")}
		f := access.UserFilter(p)
		if visible, settled := f.Settled(limited); !f.OnlyPublic || visible || !settled {
			t.Errorf("user %d: public-only account filter %+v shows a limited account", u.ID, f)
		}
		self := *u
		self.Visibility = store.VisibilityLimited
		if visible, settled := f.Settled(&self); visible || !settled {
			t.Errorf("user %d: public-only account filter %+v shows the token's own limited account", u.ID, f)
		}
		rf := access.Filter(p)
		if rf.ViewerIsAdmin || !rf.OnlyPublic || rf.ViewerID != u.ID || !rf.Owners.OnlyPublic {
			t.Errorf("user %d: public-only repository filter %+v", u.ID, rf)
		}
	}
}

// TestSeesMembership: a concealed membership is seen by the
// organization's members, the user and site administrators; a public one
// by everyone.
func TestSeesMembership(t *testing.T) {
	w := newWorld()
	concealed := store.OrgMembership{Member: true, Owner: true}
	public := store.OrgMembership{Member: true, Owner: true, Public: true}
	stranger := &access.Org{User: w.users["acme"]}
	member := &access.Org{User: w.users["acme"], Membership: store.OrgMembership{Member: true}}
	for _, tc := range []struct {
		name   string
		o      *access.Org
		m      store.OrgMembership
		viewer *auth.Principal
		want   bool
	}{
		{"stranger, concealed", stranger, concealed, w.caller("stranger"), false},
		{"anonymous, concealed", stranger, concealed, nil, false},
		{"stranger, public", stranger, public, w.caller("stranger"), true},
		{"member, concealed", member, concealed, w.caller("dev"), true},
		{"the user, concealed", stranger, concealed, w.caller("boss"), true},
		{"site admin, concealed", stranger, concealed, w.caller("root"), true},
	} {
		if got := access.SeesMembership(tc.o, w.users["boss"], tc.m, tc.viewer); got != tc.want {
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
		}
	}
}
