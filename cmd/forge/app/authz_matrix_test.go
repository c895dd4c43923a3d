package app_test

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/dynamicpb"

	"forge/services/access"
	"forge/services/auth"
	"forge/services/store"
	"forge/services/store/storetest"
)

var updateAuthz = flag.Bool("update-authz", false, "rewrite testdata/authz_policies.golden from the policy table")

// The authorization matrix: generated from the registered methods and the
// merged policy table, so a new method is covered without writing a test.
// Every method is called over real gRPC by every kind of caller with only
// its resource named: the repository (owner and repo, or id) on a private
// and a public repository (alice's, with a collaborator at every level;
// and an organization's, for members of teams with only some units, who
// must be refused every unit their teams do not give); the organization or team on a public and a
// private organization (authz_matrix_orgs_test.go); for a method without
// a resource, the user it names, if any (authz_matrix_users_test.go).
//
//   - Every caller below what the policy declares must be refused with the
//     right code (and, for a level, Gitea's message), and no refused call
//     may change anything. The interceptor refuses before the handler
//     runs, so nothing else in the request matters.
//   - Every caller the policy allows must get through: not 401 or 403, and
//     not the 404 the same call gets for a resource that does not exist
//     (the answer for one the caller may not see). What the handler then
//     makes of the nearly empty request (422, a 404 of its own, 200) is
//     not the matrix's concern. A write an allowed call made is undone by
//     building the resource again.
//
// Calls are counted per kind of resource: a kind whose methods were not
// all called by every caller, or with no refused or no allowed call,
// fails, so a walk that stopped calling cannot pass unnoticed.
//
// The matrix proves the server does what the table says; the golden file
// pins what the table says, so loosening a policy fails here until the
// golden is rewritten (go test -run TestAuthorizationMatrix -update-authz),
// which shows the change in review.
func TestAuthorizationMatrix(t *testing.T) {
	t.Parallel()
	// The longest test of the package: its backends run side by side.
	for _, kind := range storetest.Backends {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			matrixOn(t, startServer(t, kind, nil), kind == storetest.Backends[0])
		})
	}
}

// matrixOn walks the matrix on server s; golden also checks the policy
// table against its golden file (once per run).
func matrixOn(t *testing.T, s *testServer, golden bool) {
	pols := s.App.Policies()
	if golden {
		checkPolicyGolden(t, pols)
	}
	m := newMatrix(t, s)
	counts := map[string]*matrixCount{}
	// Every registered method (surfaces served outside gRPC, such as
	// git's, are walked by their own tests).
	for _, method := range registeredMethods(s) {
		kind := pols[method].Resource.Kind.String()
		if counts[kind] == nil {
			counts[kind] = &matrixCount{}
		}
		counts[kind].want += m.callsPerMethod(pols[method].Resource.Kind)
	}
	for _, method := range registeredMethods(s) {
		pol, ok := pols[method]
		if !ok {
			t.Errorf("%s is registered without a policy", method)
			continue
		}
		md := methodDescriptor(t, method)
		count := counts[pol.Resource.Kind.String()]
		switch pol.Resource.Kind {
		case auth.RepositoryResource:
			m.checkRepoMethod(t, md, method, pol, count)
		case auth.OrganizationResource, auth.TeamResource:
			m.orgs.check(t, m, md, method, pol, count)
		default:
			if namesRepository(md.Input()) {
				t.Errorf("%s: its request names a repository but its policy declares none (resource: {kind: RESOURCE_KIND_REPOSITORY ...} in its proto)", method)
			}
			if namesOrganization(md.Input()) {
				t.Errorf("%s: its request names an organization but its policy declares none (RESOURCE_KIND_ORGANIZATION)", method)
			}
			m.users.check(t, m, md, method, pol, count)
		}
	}
	for _, kind := range []string{"repository", "organization", "team", "none"} {
		c := counts[kind]
		if c == nil || c.want == 0 {
			t.Errorf("no method declares a %s resource: the matrix's walk of that kind is untested", kind)
			continue
		}
		t.Logf("%s methods: %d refused and %d allowed calls", kind, c.refused, c.allowed)
		if made := c.refused + c.allowed; made < c.want || c.refused == 0 || c.allowed == 0 {
			t.Errorf("%s methods: %d calls made (%d refused, %d allowed), want %d with both kinds", kind, made, c.refused, c.allowed, c.want)
		}
	}
}

// matrixCount counts the calls made for the methods of one resource kind,
// against want: every caller on every resource of every such method.
type matrixCount struct{ refused, allowed, want int }

// callsPerMethod is how many calls the matrix makes for one method of
// kind k.
func (m *matrix) callsPerMethod(k auth.ResourceKind) int {
	switch k {
	case auth.RepositoryResource:
		return 2 * (len(m.callers) + len(m.unitCallers))
	case auth.OrganizationResource, auth.TeamResource:
		return len(m.orgs.orgs) * len(m.orgs.callers)
	}
	return len(m.users.callers)
}

// checkRepoMethod calls method as every caller on alice's private and
// public repositories, and as every member with only some units on the
// private and public repositories of the organization mxunits.
func (m *matrix) checkRepoMethod(t *testing.T, md protoreflect.MethodDescriptor, method string, pol auth.Policy, count *matrixCount) {
	m.checkRepoCalls(t, md, method, pol, count, false, m.callers)
	m.checkRepoCalls(t, md, method, pol, count, true, m.unitCallers)
}

func (m *matrix) checkRepoCalls(t *testing.T, md protoreflect.MethodDescriptor, method string, pol auth.Policy, count *matrixCount, inOrg bool, callers []caller) {
	for _, private := range []bool{true, false} {
		repo := m.repo(inOrg, private)
		before := m.fingerprint(repo)
		var allowed []caller
		for _, c := range callers {
			want := c.expect(pol, private)
			if want == codes.OK {
				allowed = append(allowed, c)
				continue
			}
			count.refused++
			err := m.call(md, method, pol, repo, c)
			got := status.Convert(err)
			if got.Code() != want {
				t.Errorf("%s on %s as %s: %v, want %v", method, repo.Name, c.name, err, want)
				continue
			}
			if msg := levelMessage(pol.Resource.Need); want == codes.PermissionDenied && c.levelRefused(pol, private) && got.Message() != msg {
				t.Errorf("%s on %s as %s: message %q, want %q", method, repo.Name, c.name, got.Message(), msg)
			}
		}
		if after := m.fingerprint(repo); after != before {
			t.Errorf("%s: refused calls changed %s:\nbefore %s\nafter  %s", method, repo.Name, before, after)
		}
		// The answer for a repository nobody can see, as the site
		// administrator gets it: an allowed caller must not get it.
		missing := &store.Repository{ID: 1 << 40, OwnerID: repo.OwnerID, Name: "mx-missing", IsPrivate: private}
		hidden := status.Convert(m.call(md, method, pol, missing, m.siteAdmin()))
		for _, c := range allowed {
			count.allowed++
			err := m.call(md, method, pol, repo, c)
			if why := refusal(err, hidden); why != "" {
				t.Errorf("%s on %s as %s: %s (%v); the policy lets this caller through", method, repo.Name, c.name, why, err)
			}
			if after := m.fingerprint(repo); after != before {
				repo = m.rebuildRepo(t, repo)
				before = m.fingerprint(repo)
			}
		}
	}
}

// refusal says how err refused the call, "" when the call got through
// authorization: a 401, a 403, a 500, or a 404 like hidden (the answer for a
// resource that does not exist, which is also the answer for one the
// caller may not see).
func refusal(err error, hidden *status.Status) string {
	st := status.Convert(err)
	switch st.Code() {
	case codes.Unauthenticated, codes.PermissionDenied:
		return "refused"
	case codes.Internal:
		// A policy whose object rule is missing fails closed here
		// (access.ObjectFrom); no allowed call may end in a 500.
		return "failed with an internal error"
	case codes.NotFound:
		if hidden.Code() == codes.NotFound && proto.Equal(st.Proto(), hidden.Proto()) {
			return "answered as for a resource it cannot see"
		}
	}
	return ""
}

// caller is one kind of caller and the mode it has on each repository.
type caller struct {
	name            string
	token           string // "" for anonymous
	private, public store.AccessMode
	// units, when set, are the only units a team gives the caller, at
	// these modes, on top of private or public (a member of a team with
	// only some units); nil: every unit at private or public.
	units map[auth.Unit]store.AccessMode
	// scopes are the token's, nil for an all-scopes token.
	scopes    []string
	publicOny bool
}

// lacksScope reports a token without a scope pol requires.
func (c caller) lacksScope(pol auth.Policy) bool { return !tokenHas(c.scopes, pol) }

// tokenHas reports whether a token with scopes (nil: all) has every
// category pol requires at its level (write also grants read).
func tokenHas(scopes []string, pol auth.Policy) bool {
	if scopes == nil {
		return true
	}
	for _, cat := range pol.Scopes {
		if !slices.Contains(scopes, "write:"+cat.String()) && (pol.Level == auth.LevelWrite || !slices.Contains(scopes, "read:"+cat.String())) {
			return false
		}
	}
	return true
}

// expect is what a call by c to a method under pol on a private or public
// repository must give: the order is the interceptor's (sign-in, token
// scope, visibility, public-only tokens, level).
func (c caller) expect(pol auth.Policy, private bool) codes.Code {
	switch {
	case c.token == "" && pol.Access != auth.Public:
		return codes.Unauthenticated
	case c.lacksScope(pol):
		return codes.PermissionDenied
	case c.mode(auth.UnitAny, private) == store.AccessNone:
		return codes.NotFound
	case private && c.publicOny:
		return codes.PermissionDenied
	case c.mode(pol.Resource.Unit, private) < pol.Resource.Need:
		return codes.PermissionDenied
	case c.lacksRuleUnit(pol, private):
		return codes.PermissionDenied
	}
	return codes.OK
}

// lacksRuleUnit reports that c may not read a unit pol's object rule
// needs besides the declared one (access.Rule.Reads).
func (c caller) lacksRuleUnit(pol auth.Policy, private bool) bool {
	for _, u := range access.Rules[pol.Rule].Reads {
		if c.mode(u, private) < store.AccessRead {
			return true
		}
	}
	return false
}

// levelRefused reports that c's refusal is the level's (not scope or
// public-only), so Gitea's message for the level applies.
func (c caller) levelRefused(pol auth.Policy, private bool) bool {
	return !c.lacksScope(pol) && !(private && c.publicOny) && c.mode(pol.Resource.Unit, private) < pol.Resource.Need
}

// mode is c's access to unit u (any unit: the best of them) of the
// private or the public repository.
func (c caller) mode(u auth.Unit, private bool) store.AccessMode {
	out := c.public
	if private {
		out = c.private
	}
	for unit, mode := range c.units {
		if unit == u || u == auth.UnitAny || (u == auth.UnitIssuesOrPulls && (unit == auth.UnitIssues || unit == auth.UnitPulls)) {
			out = max(out, mode)
		}
	}
	return out
}

func levelMessage(need store.AccessMode) string {
	switch need {
	case store.AccessRead:
		// Visible through another unit, not the declared one.
		return access.UnitOffMessage
	case store.AccessWrite:
		return access.NeedWriteMessage
	case store.AccessAdmin:
		return access.NeedAdminMessage
	}
	return access.NeedOwnerMessage
}

type matrix struct {
	t       *testing.T
	s       *testServer
	callers []caller
	// unitCallers are members of teams of unitOrg with only some units;
	// they are called on unitOrg's repositories.
	unitCallers     []caller
	unitOrg         *store.User
	private, public *store.Repository
	// orgPrivate and orgPublic are unitOrg's repositories.
	orgPrivate, orgPublic *store.Repository
	aliceTok              string
	orgs                  *orgMatrix
	users                 *userMatrix
}

func (m *matrix) repo(inOrg, private bool) *store.Repository {
	switch {
	case inOrg && private:
		return m.orgPrivate
	case inOrg:
		return m.orgPublic
	case private:
		return m.private
	}
	return m.public
}

// owner is the name of repo's owner: alice, or unitOrg.
func (m *matrix) owner(repo *store.Repository) string {
	if repo.OwnerID == m.unitOrg.ID {
		return m.unitOrg.Name
	}
	return "alice"
}

func (m *matrix) siteAdmin() caller {
	for _, c := range m.callers {
		if c.token == m.s.AdminToken {
			return c
		}
	}
	m.t.Fatal("the matrix has no site administrator")
	return caller{}
}

// seedRepo makes alice's repository name with a collaborator at every
// level; in unitOrg when inOrg, where its teams reach it.
func (m *matrix) seedRepo(t *testing.T, name string, inOrg, private bool) *store.Repository {
	s, ctx := m.s, context.Background()
	if inOrg {
		body := `{"name":"` + name + `","auto_init":true,"private":` + boolText(private) + `}`
		expectStatus(t, s.do("POST", "/api/v1/orgs/"+m.unitOrg.Name+"/repos", body, "Authorization", "token "+m.aliceTok, "Content-Type", jsonCT), 201)
		return s.repoRecord(t, m.unitOrg.Name, name)
	}
	s.createRepo(t, m.aliceTok, name, true, private)
	r := s.repoRecord(t, "alice", name)
	for name, mode := range map[string]store.AccessMode{"reader": store.AccessRead, "writer": store.AccessWrite, "repoadmin": store.AccessAdmin} {
		u, err := s.App.Store.UserByName(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.App.Store.SetCollaborator(ctx, r.ID, u.ID, mode); err != nil {
			t.Fatal(err)
		}
	}
	return r
}

// rebuildRepo undoes what an allowed call did to repo (deleted it,
// watched it, pushed to it): whatever is left goes, and the repository is
// made again under its name.
func (m *matrix) rebuildRepo(t *testing.T, repo *store.Repository) *store.Repository {
	ctx := context.Background()
	if rec, err := m.s.App.Store.RepositoryByID(ctx, repo.ID); err == nil {
		owner, err := m.s.App.Store.UserByID(ctx, rec.OwnerID)
		if err != nil {
			t.Fatal(err)
		}
		m.s.adminDo(t, "DELETE", "/api/v1/repos/"+owner.Name+"/"+rec.Name, "", 204)
	}
	inOrg := repo.OwnerID == m.unitOrg.ID
	r := m.seedRepo(t, repo.Name, inOrg, repo.IsPrivate)
	switch {
	case inOrg && repo.IsPrivate:
		m.orgPrivate = r
	case inOrg:
		m.orgPublic = r
	case repo.IsPrivate:
		m.private = r
	default:
		m.public = r
	}
	return r
}

// newMatrix seeds alice's private and public repositories, collaborators
// at every level and the callers.
func newMatrix(t *testing.T, s *testServer) *matrix {
	aliceTok := s.seedUser("alice", "alice-password", false)
	strangerTok := s.seedUser("stranger", "stranger-password", false)
	readerTok := s.seedUser("reader", "reader-password", false)
	writerTok := s.seedUser("writer", "writer-password", false)
	adminTok := s.seedUser("repoadmin", "repoadmin-password", false)
	m := &matrix{t: t, s: s, aliceTok: aliceTok}
	m.private = m.seedRepo(t, "secret", false, true)
	m.public = m.seedRepo(t, "open", false, false)
	noScopes := []string{"read:misc"} // misc: a category no method needs
	noScope := s.createToken(t, "writer", "writer-password", "no-repo-scope", noScopes...)
	publicOnlyScopes := []string{"public-only", "write:repository", "write:user", "write:issue"}
	publicOnly := s.createToken(t, "writer", "writer-password", "public-only", publicOnlyScopes...)
	none, read, write, admin, owner := store.AccessNone, store.AccessRead, store.AccessWrite, store.AccessAdmin, store.AccessOwner
	m.callers = []caller{
		{name: "anonymous", private: none, public: read},
		{name: "stranger", token: strangerTok, private: none, public: read},
		{name: "reader", token: readerTok, private: read, public: read},
		{name: "writer", token: writerTok, private: write, public: write},
		{name: "repo admin", token: adminTok, private: admin, public: admin},
		{name: "owner", token: aliceTok, private: owner, public: owner},
		{name: "site admin", token: s.AdminToken, private: owner, public: owner},
		{name: "token lacking the scope", token: noScope, private: write, public: write, scopes: noScopes},
		{name: "public-only token", token: publicOnly, private: write, public: write, scopes: publicOnlyScopes, publicOny: true},
	}
	m.seedUnitOrg(t)
	m.orgs = newOrgMatrix(t, s, strangerTok)
	m.users = newUserMatrix(t, s, aliceTok)
	return m
}

// call sends method with only repo's name (or id) filled, as c.
func (m *matrix) call(md protoreflect.MethodDescriptor, method string, pol auth.Policy, repo *store.Repository, c caller) error {
	req := dynamicpb.NewMessage(md.Input())
	fields := md.Input().Fields()
	if pol.Resource.ByID {
		req.Set(fields.ByName("id"), protoreflect.ValueOfInt64(repo.ID))
	} else {
		req.Set(fields.ByName("owner"), protoreflect.ValueOfString(m.owner(repo)))
		req.Set(fields.ByName("repo"), protoreflect.ValueOfString(repo.Name))
	}
	return m.invoke(md, method, req, c.token)
}

// invoke sends req to method over real gRPC with token ("" anonymous).
func (m *matrix) invoke(md protoreflect.MethodDescriptor, method string, req *dynamicpb.Message, token string) error {
	ctx := context.Background()
	if token != "" {
		ctx = withToken(ctx, token)
	}
	return m.invokeCtx(ctx, md, method, req)
}

// invokeCtx sends req to method over real gRPC with ctx's metadata.
func (m *matrix) invokeCtx(ctx context.Context, md protoreflect.MethodDescriptor, method string, req *dynamicpb.Message) error {
	conn := m.s.grpcConn()
	if !md.IsStreamingServer() && !md.IsStreamingClient() {
		return conn.Invoke(ctx, method, req, dynamicpb.NewMessage(md.Output()))
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	st, err := conn.NewStream(ctx, &grpc.StreamDesc{ServerStreams: md.IsStreamingServer(), ClientStreams: md.IsStreamingClient()}, method)
	if err != nil {
		return err
	}
	// A server that refused the call before reading (a client-streaming
	// method refused by the interceptor) makes SendMsg report io.EOF; the
	// status comes with RecvMsg, as grpc-go documents.
	if err := st.SendMsg(req); err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	if err := st.CloseSend(); err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	return st.RecvMsg(dynamicpb.NewMessage(md.Output()))
}

// fingerprint is everything a refused call could have changed in repo:
// its record, git refs, branch and release records, collaborators,
// watchers and push mirrors.
func (m *matrix) fingerprint(repo *store.Repository) string {
	t, ctx, st := m.t, context.Background(), m.s.App.Store
	t.Helper()
	rec, err := st.RepositoryByID(ctx, repo.ID)
	if err != nil {
		return "deleted: " + err.Error()
	}
	row, _ := json.Marshal(rec)
	branches, nb, err1 := st.ListBranches(ctx, repo.ID, 0, 100)
	_, nr, err2 := st.ListReleases(ctx, store.ReleaseListOptions{RepoID: repo.ID, IncludeDrafts: true, Limit: 100})
	collabs, nc, err3 := st.ListCollaborators(ctx, repo.ID, store.UserFilter{}, 0, 100)
	_, nw, err4 := st.ListWatchers(ctx, repo.ID, store.UserFilter{}, 0, 100)
	_, nm, err5 := st.ListPushMirrors(ctx, repo.ID, 0, 100)
	for _, err := range []error{err1, err2, err3, err4, err5} {
		if err != nil {
			t.Fatal(err)
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s branches=%d releases=%d collaborators=%d watchers=%d push_mirrors=%d", row, nb, nr, nc, nw, nm)
	for _, br := range branches {
		fmt.Fprintf(&b, " %s@%s", br.Name, br.CommitID)
	}
	for _, c := range collabs {
		fmt.Fprintf(&b, " %s:%d", c.User.Name, c.Mode)
	}
	fmt.Fprintf(&b, " refs[%s]", gitCmd(t, m.s.repoDir(m.owner(repo), repo.Name), "for-each-ref"))
	return b.String()
}

func sortedMethods(pols auth.Policies) []string {
	out := make([]string, 0, len(pols))
	for m := range pols {
		out = append(out, m)
	}
	sort.Strings(out)
	return out
}

// methodDescriptor finds "/pkg.Service/Method" among the registered files.
func methodDescriptor(t *testing.T, method string) protoreflect.MethodDescriptor {
	t.Helper()
	svc, name, _ := strings.Cut(strings.TrimPrefix(method, "/"), "/")
	d, err := protoregistry.GlobalFiles.FindDescriptorByName(protoreflect.FullName(svc))
	if err != nil {
		t.Fatalf("%s: %v", method, err)
	}
	md := d.(protoreflect.ServiceDescriptor).Methods().ByName(protoreflect.Name(name))
	if md == nil {
		t.Fatalf("%s: no such method", method)
	}
	return md
}

// namesRepository reports a request with string owner and repo fields.
func namesRepository(in protoreflect.MessageDescriptor) bool {
	owner, repo := in.Fields().ByName("owner"), in.Fields().ByName("repo")
	return owner != nil && repo != nil && owner.Kind() == protoreflect.StringKind && repo.Kind() == protoreflect.StringKind
}

// checkPolicyGolden compares the table with testdata/authz_policies.golden.
func checkPolicyGolden(t *testing.T, pols auth.Policies) {
	t.Helper()
	var b strings.Builder
	for _, m := range sortedMethods(pols) {
		fmt.Fprintf(&b, "%s %s\n", m, describePolicy(pols[m]))
	}
	path := filepath.Join("testdata", "authz_policies.golden")
	if *updateAuthz {
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := b.String(); got != string(want) {
		t.Errorf("the policy table differs from %s (a new method, or a changed rule: review, then rewrite it with -update-authz):\n%s", path, lineDiff(string(want), got))
	}
}

func describePolicy(p auth.Policy) string {
	access := [...]string{"public", "signed-in", "site-admin", "self-or-admin"}[p.Access]
	scopes := make([]string, len(p.Scopes))
	for i, c := range p.Scopes {
		scopes[i] = c.String()
	}
	level := "read"
	if p.Level == auth.LevelWrite {
		level = "write"
	}
	writes := [...]string{"undeclared", "nothing", "settings", "code", "releases", "mirroring", "issues", "push"}[p.Writes]
	out := fmt.Sprintf("access=%s scopes=%s:%s writes=%s", access, level, strings.Join(scopes, ","), writes)
	if p.BasicOnly {
		out += " basic-only"
	}
	if p.Resource.Kind == auth.RepositoryResource {
		unit := [...]string{"code", "issues", "pulls", "releases", "wiki", "any", "issues-or-pulls"}[p.Resource.Unit]
		out += fmt.Sprintf(" repo(%s)>=%s", unit, p.Resource.Need)
		if p.Resource.ByID {
			out += " by-id"
		}
	}
	if k := p.Resource.Kind; k == auth.OrganizationResource || k == auth.TeamResource {
		kind := map[auth.ResourceKind]string{auth.OrganizationResource: "org", auth.TeamResource: "team"}[k]
		role := map[auth.OrgRole]string{auth.OrgVisible: "visible", auth.OrgMember: "member", auth.OrgOwner: "owner"}[p.Resource.Role]
		out += fmt.Sprintf(" %s>=%s", kind, role)
	}
	if p.Rule != "" {
		out += " rule=" + p.Rule
	}
	if len(p.WriterFields) > 0 {
		out += " writer-fields=" + strings.Join(p.WriterFields, ",")
	}
	return out
}

// lineDiff lists the lines only in want (-) or only in got (+).
func lineDiff(want, got string) string {
	in := func(s string) map[string]bool {
		m := map[string]bool{}
		for _, l := range strings.Split(s, "\n") {
			m[l] = true
		}
		return m
	}
	w, g := in(want), in(got)
	var b strings.Builder
	for _, l := range strings.Split(want, "\n") {
		if !g[l] {
			b.WriteString("- " + l + "\n")
		}
	}
	for _, l := range strings.Split(got, "\n") {
		if !w[l] {
			b.WriteString("+ " + l + "\n")
		}
	}
	return b.String()
}

// seedUnitOrg makes the organization mxunits, owned by alice, with two
// teams that reach all its repositories with only some units: "coders"
// (code, read: coder) and "trackers" (issues and pull requests, write:
// tracker), and its private and public repositories "secret" and "open".
// Over every repository method, coder and tracker must be refused what
// their units do not give, even where the repository is visible to them.
func (m *matrix) seedUnitOrg(t *testing.T) {
	s, ctx, st := m.s, context.Background(), m.s.App.Store
	alice, err := st.UserByName(ctx, "alice")
	if err != nil {
		t.Fatal(err)
	}
	m.unitOrg = &store.User{Name: "mxunits", Visibility: store.VisibilityPublic}
	if err := st.CreateOrganization(ctx, m.unitOrg, alice.ID); err != nil {
		t.Fatal(err)
	}
	none, read, write := store.AccessNone, store.AccessRead, store.AccessWrite
	for _, tm := range []struct {
		member string
		mode   store.AccessMode
		units  map[auth.Unit]store.AccessMode
	}{
		{"coder", read, map[auth.Unit]store.AccessMode{auth.UnitCode: read}},
		{"tracker", write, map[auth.Unit]store.AccessMode{auth.UnitIssues: write, auth.UnitPulls: write}},
	} {
		tok := s.seedUser(tm.member, tm.member+"-password", false)
		team := &store.Team{OrgID: m.unitOrg.ID, Name: tm.member + "s", Authorize: tm.mode, IncludesAllRepositories: true}
		for u, mode := range tm.units {
			unitType := map[auth.Unit]int{auth.UnitCode: store.UnitTypeCode, auth.UnitIssues: store.UnitTypeIssues, auth.UnitPulls: store.UnitTypePullRequests}[u]
			team.Units = append(team.Units, store.TeamUnit{Type: unitType, AccessMode: mode})
		}
		if err := st.CreateTeam(ctx, team); err != nil {
			t.Fatal(err)
		}
		u, err := st.UserByName(ctx, tm.member)
		if err != nil {
			t.Fatal(err)
		}
		if err := st.AddTeamMember(ctx, team.ID, u.ID); err != nil {
			t.Fatal(err)
		}
		m.unitCallers = append(m.unitCallers, caller{name: tm.member + " (only some units)", token: tok, private: none, public: read, units: tm.units})
	}
	m.orgPrivate = m.seedRepo(t, "secret", true, true)
	m.orgPublic = m.seedRepo(t, "open", true, false)
}
