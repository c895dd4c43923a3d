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
	"sort"
	"strings"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/dynamicpb"

	"forge/services/access"
	"forge/services/auth"
	"forge/services/store"
)

var updateAuthz = flag.Bool("update-authz", false, "rewrite testdata/authz_policies.golden from the policy table")

// The authorization matrix: generated from the registered methods and the
// merged policy table, so a new method is covered without writing a test.
// Methods declaring an organization or a team are walked the same way
// (authz_matrix_orgs_test.go). For every method that declares a
// repository, a request with only the repository named (owner
// and repo, or id) is sent over real gRPC by every kind of caller, on a
// private and on a public repository; every caller below what the policy
// declares must be refused with the right code (and, for a level, Gitea's
// message), and no refused call may change anything. The interceptor
// refuses before the handler runs, so nothing else in the request matters.
//
// The matrix proves the server does what the table says; the golden file
// pins what the table says, so loosening a policy fails here until the
// golden is rewritten (go test -run TestAuthorizationMatrix -update-authz),
// which shows the change in review.
func TestAuthorizationMatrix(t *testing.T) {
	eachBackend(t, nil, func(t *testing.T, s *testServer) {
		pols := s.App.Policies()
		checkPolicyGolden(t, pols)
		m := newMatrix(t, s)
		calls := 0
		for _, method := range registeredMethods(s) {
			pol, ok := pols[method]
			if !ok {
				t.Errorf("%s is registered without a policy", method)
				continue
			}
			md := methodDescriptor(t, method)
			if k := pol.Resource.Kind; k == auth.OrganizationResource || k == auth.TeamResource {
				calls += m.orgs.check(t, m, md, method, pol)
				continue
			}
			if pol.Resource.Kind != auth.RepositoryResource {
				if namesRepository(md.Input()) {
					t.Errorf("%s: its request names a repository but its policy declares none (resource: {kind: RESOURCE_KIND_REPOSITORY ...} in its proto)", method)
				}
				if namesOrganization(md.Input()) {
					t.Errorf("%s: its request names an organization but its policy declares none (RESOURCE_KIND_ORGANIZATION)", method)
				}
				continue
			}
			for _, repo := range []*store.Repository{m.private, m.public} {
				before := m.fingerprint(repo)
				for _, c := range m.callers {
					want := c.expect(pol, repo.IsPrivate)
					if want == codes.OK {
						continue // allowed: the handler would run on an empty request
					}
					calls++
					err := m.call(md, method, pol, repo, c)
					got := status.Convert(err)
					if got.Code() != want {
						t.Errorf("%s on %s as %s: %v, want %v", method, repo.Name, c.name, err, want)
						continue
					}
					if msg := levelMessage(pol.Resource.Need); want == codes.PermissionDenied && c.levelRefused(pol, repo.IsPrivate) && got.Message() != msg {
						t.Errorf("%s on %s as %s: message %q, want %q", method, repo.Name, c.name, got.Message(), msg)
					}
				}
				if after := m.fingerprint(repo); after != before {
					t.Errorf("%s: refused calls changed %s:\nbefore %s\nafter  %s", method, repo.Name, before, after)
				}
			}
		}
		if calls < 100 {
			t.Fatalf("only %d refused calls made; the matrix is not exercising the table", calls)
		}
	})
}

// caller is one kind of caller and the mode it has on each repository.
type caller struct {
	name                  string
	token                 string // "" for anonymous
	private, public       store.AccessMode
	lacksScope, publicOny bool
}

// expect is what a call by c to a method under pol on a private or public
// repository must give: the order is the interceptor's (sign-in, token
// scope, visibility, public-only tokens, level).
func (c caller) expect(pol auth.Policy, private bool) codes.Code {
	mode := c.mode(private)
	switch {
	case c.token == "" && pol.Access != auth.Public:
		return codes.Unauthenticated
	case c.lacksScope && len(pol.Scopes) > 0:
		return codes.PermissionDenied
	case mode == store.AccessNone:
		return codes.NotFound
	case private && c.publicOny:
		return codes.PermissionDenied
	case mode < pol.Resource.Need:
		return codes.PermissionDenied
	}
	return codes.OK
}

// levelRefused reports that c's refusal is the level's (not scope or
// public-only), so Gitea's message for the level applies.
func (c caller) levelRefused(pol auth.Policy, private bool) bool {
	return !(c.lacksScope && len(pol.Scopes) > 0) && !(private && c.publicOny) && c.mode(private) < pol.Resource.Need
}

func (c caller) mode(private bool) store.AccessMode {
	if private {
		return c.private
	}
	return c.public
}

func levelMessage(need store.AccessMode) string {
	switch need {
	case store.AccessWrite:
		return access.NeedWriteMessage
	case store.AccessAdmin:
		return access.NeedAdminMessage
	}
	return access.NeedOwnerMessage
}

type matrix struct {
	t               *testing.T
	s               *testServer
	callers         []caller
	private, public *store.Repository
	orgs            *orgMatrix
}

// newMatrix seeds alice's private and public repositories, collaborators
// at every level and the callers.
func newMatrix(t *testing.T, s *testServer) *matrix {
	aliceTok := s.seedUser("alice", "alice-password", false)
	strangerTok := s.seedUser("stranger", "stranger-password", false)
	readerTok := s.seedUser("reader", "reader-password", false)
	writerTok := s.seedUser("writer", "writer-password", false)
	adminTok := s.seedUser("repoadmin", "repoadmin-password", false)
	s.createRepo(t, aliceTok, "secret", true, true)
	s.createRepo(t, aliceTok, "open", true, false)
	m := &matrix{t: t, s: s, private: s.repoRecord(t, "alice", "secret"), public: s.repoRecord(t, "alice", "open")}
	ctx := context.Background()
	for _, r := range []*store.Repository{m.private, m.public} {
		for name, mode := range map[string]store.AccessMode{"reader": store.AccessRead, "writer": store.AccessWrite, "repoadmin": store.AccessAdmin} {
			u, err := s.App.Store.UserByName(ctx, name)
			if err != nil {
				t.Fatal(err)
			}
			if err := s.App.Store.SetCollaborator(ctx, r.ID, u.ID, mode); err != nil {
				t.Fatal(err)
			}
		}
	}
	noScope := s.createToken(t, "writer", "writer-password", "no-repo-scope", "read:misc") // misc: a category no method needs
	publicOnly := s.createToken(t, "writer", "writer-password", "public-only", "public-only", "write:repository", "write:user", "write:issue")
	none, read, write, admin, owner := store.AccessNone, store.AccessRead, store.AccessWrite, store.AccessAdmin, store.AccessOwner
	m.callers = []caller{
		{name: "anonymous", private: none, public: read},
		{name: "stranger", token: strangerTok, private: none, public: read},
		{name: "reader", token: readerTok, private: read, public: read},
		{name: "writer", token: writerTok, private: write, public: write},
		{name: "repo admin", token: adminTok, private: admin, public: admin},
		{name: "owner", token: aliceTok, private: owner, public: owner},
		{name: "site admin", token: s.AdminToken, private: owner, public: owner},
		{name: "token lacking the scope", token: noScope, private: write, public: write, lacksScope: true},
		{name: "public-only token", token: publicOnly, private: write, public: write, publicOny: true},
	}
	m.orgs = newOrgMatrix(t, s, strangerTok)
	return m
}

// call sends method with only repo's name (or id) filled, as c.
func (m *matrix) call(md protoreflect.MethodDescriptor, method string, pol auth.Policy, repo *store.Repository, c caller) error {
	req := dynamicpb.NewMessage(md.Input())
	fields := md.Input().Fields()
	if pol.Resource.ByID {
		req.Set(fields.ByName("id"), protoreflect.ValueOfInt64(repo.ID))
	} else {
		req.Set(fields.ByName("owner"), protoreflect.ValueOfString("alice"))
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
	fmt.Fprintf(&b, " refs[%s]", gitCmd(t, m.s.repoDir("alice", repo.Name), "for-each-ref"))
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
		unit := [...]string{"code", "issues", "pulls", "releases", "wiki", "any"}[p.Resource.Unit]
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
