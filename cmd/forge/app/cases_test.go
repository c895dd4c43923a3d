package app_test

// API cases as data. Every file in testdata/cases/*.yaml declares a small
// world (the fixture) and a list of cases; each case is one REST request
// made as one caller, with the expected status, a JSON subset of the body
// and optional headers. A case that also names a gRPC method runs over gRPC
// with the same caller and must give the matching code, so both transports
// are held to the same rules.
//
// The fixture is built once per file per backend (SQLite and PostgreSQL);
// the cases of a file then run in order against it, so a case that changes
// something (a delete) comes after the cases that need it. A case that
// reads an earlier case's change names it in needs, so that it also passes
// alone (-cases-alone runs every case so).
//
// File shape (see testdata/cases/README.md for the full reference):
//
//	fixture:
//	  users: [{name: alice}, {name: hidden, visibility: private}]
//	  repos: [{repo: alice/sec, private: true, collaborators: {reader: read}}]
//	  tokens: [{name: no-scope, user: alice, scopes: [read:issue]}]
//	cases:
//	  - name: reader sees the private repository
//	    as: reader
//	    request: {method: GET, path: /api/v1/repos/alice/sec}
//	    status: 200
//	    json: {full_name: alice/sec}
//	    grpc: {method: forge.repos.v1.RepositoryService.GetRepo, request: {owner: alice, repo: sec}, code: OK}
//
// Paths, bodies and expectations are Go templates evaluated after the
// fixture exists: {{repoID "alice/demo"}}, {{releaseID "alice/demo" "v1"}},
// {{fileSHA "alice/demo" "README.md"}}, {{tokenID "alice" "laptop"}},
// {{pushMirror "alice/demo"}} (the remote name of its first push mirror),
// {{url}} (the server's base URL).

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"text/template"

	"go.yaml.in/yaml/v3"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	"forge/services/config"
	"forge/services/store"
	"forge/services/store/storetest"
)

// caseFile is one testdata/cases/*.yaml.
type caseFile struct {
	Fixture caseFixture `yaml:"fixture"`
	Cases   []apiCase   `yaml:"cases"`
}

// caseFixture is the world a file's cases run in. Every user has the
// password "<name>-password" and an all-scopes token; the site
// administrator "root" always exists.
type caseFixture struct {
	AllowLocalMigrations bool           `yaml:"allow_local_migrations"`
	Users                []fixtureUser  `yaml:"users"`
	Repos                []fixtureRepo  `yaml:"repos"`
	Tokens               []fixtureToken `yaml:"tokens"`
	// Organizations (see fixtureOrg), made after the users and before the
	// repositories, which may name an organization as their owner.
	Orgs []fixtureOrg `yaml:"orgs"`
}

type fixtureUser struct {
	Name       string `yaml:"name"`
	Admin      bool   `yaml:"admin"`
	Restricted bool   `yaml:"restricted"`
	Visibility string `yaml:"visibility"` // public (default), limited, private
}

// fixtureRepo is created by its owner, then given its collaborators,
// branches, releases and watchers, and archived last.
type fixtureRepo struct {
	Repo          string            `yaml:"repo"` // owner/name
	Private       bool              `yaml:"private"`
	AutoInit      bool              `yaml:"auto_init"`
	MirrorOf      string            `yaml:"mirror_of"` // owner/name: a pull mirror of that repository
	Collaborators map[string]string `yaml:"collaborators"`
	Branches      []string          `yaml:"branches"`
	Releases      []fixtureRelease  `yaml:"releases"`
	Watchers      []string          `yaml:"watchers"`
	PushMirrors   []string          `yaml:"push_mirrors"` // owner/name targets, pushed with the owner's password
	// Settings is a PATCH /repos/{owner}/{repo} body sent by the owner
	// after the issues, labels and assets, before archiving (e.g.
	// {has_issues: false}: a unit switched off once its issues exist).
	Settings map[string]any `yaml:"settings"`
	Archived bool           `yaml:"archived"`

	// --- issues area (H2) ---
	Issues []fixtureIssue `yaml:"issues"` // created in order (numbers 1, 2, ...) before archiving
	// Labels area: labels (created by the owner over REST before the
	// archive) and issues carrying them (written through the store, so
	// label cases do not depend on the issue endpoints).
	Labels      []fixtureLabel      `yaml:"labels"`
	LabelIssues []fixtureLabelIssue `yaml:"label_issues"`

	// --- attachments (H4) ---
	// Assets are attachments uploaded by the owner (multipart, as the SDK
	// does) after the releases and issues.
	Assets []fixtureAsset `yaml:"assets"`

	// --- pull requests ---
	// Files are commits by the owner through the contents API, after the
	// branches: each on its branch, made from main when the branch does
	// not exist yet. Pulls are opened after the assets, numbered after
	// the issues.
	Files []fixtureFile `yaml:"files"`
	Pulls []fixturePull `yaml:"pulls"`
}

// fixtureFile adds Path with Content on Branch.
type fixtureFile struct {
	Branch  string `yaml:"branch"`
	Path    string `yaml:"path"`
	Content string `yaml:"content"`
}

// fixturePull is a pull request of Head into Base (main when empty)
// opened by By (the owner when empty).
type fixturePull struct {
	By    string `yaml:"by"`
	Head  string `yaml:"head"`
	Base  string `yaml:"base"`
	Title string `yaml:"title"`
}

// fixtureLabel is a repository label; color defaults to "#00aabb".
type fixtureLabel struct {
	Name      string `yaml:"name"`
	Color     string `yaml:"color"`
	Exclusive bool   `yaml:"exclusive"`
	Archived  bool   `yaml:"archived"`
}

// fixtureLabelIssue is an issue (numbered 1, 2, ... in order) posted by
// the owner, with the named labels of the repository.
type fixtureLabelIssue struct {
	Title  string   `yaml:"title"`
	Closed bool     `yaml:"closed"`
	Labels []string `yaml:"labels"`
}

// fixtureAsset is an attachment of a release (its tag), an issue (its
// number) or a comment ([issue number, n-th comment from 0]), with its
// file name and content.
type fixtureAsset struct {
	Release string `yaml:"release"`
	Issue   int    `yaml:"issue"`
	Comment []int  `yaml:"comment"`
	Name    string `yaml:"name"`
	Content string `yaml:"content"`
}

// buildAssets uploads the fixture's attachments as the owner.
func (w *world) buildAssets(t *testing.T, full, owner string, assets []fixtureAsset) {
	t.Helper()
	for _, a := range assets {
		list, err := w.assetsPath(full, a.Release, a.Issue, a.Comment)
		if err != nil {
			t.Fatal(err)
		}
		expectStatus(t, w.s.upload(w.token(t, owner), list, a.Name, strings.NewReader(a.Content)), 201)
	}
}

// assetsPath is the REST path of a parent's attachments.
func (w *world) assetsPath(full, release string, issue int, comment []int) (string, error) {
	base := "/api/v1/repos/" + full
	switch {
	case release != "":
		var rel struct{ ID int64 }
		r := w.s.do("GET", base+"/releases/tags/"+release, "", "Authorization", "token "+w.s.AdminToken)
		if err := json.Unmarshal(r.Body, &rel); err != nil || r.Status != 200 {
			return "", fmt.Errorf("release %s of %s: %d %s", release, full, r.Status, r.Body)
		}
		return base + "/releases/" + fmtInt(rel.ID) + "/assets", nil
	case len(comment) == 2:
		id, err := w.commentID(full, comment[0], comment[1])
		return base + "/issues/comments/" + id + "/assets", err
	case issue != 0:
		return base + "/issues/" + strconv.Itoa(issue) + "/assets", nil
	}
	return "", fmt.Errorf("fixture: an asset of %s names no release, issue or comment", full)
}

// --- issues area (H2) ---

// fixtureIssue is an issue opened by By (the owner when empty), closed
// when Closed, with its comments in order.
type fixtureIssue struct {
	By       string           `yaml:"by"`
	Title    string           `yaml:"title"`
	Body     string           `yaml:"body"`
	Closed   bool             `yaml:"closed"`
	Comments []fixtureComment `yaml:"comments"`
}

type fixtureComment struct {
	By   string `yaml:"by"` // the issue's poster when empty
	Body string `yaml:"body"`
}

// buildIssues opens r's fixture issues over REST.
func (w *world) buildIssues(t *testing.T, full, owner string, issues []fixtureIssue) {
	t.Helper()
	for _, is := range issues {
		by := is.By
		if by == "" {
			by = owner
		}
		body, err := json.Marshal(map[string]any{"title": is.Title, "body": is.Body, "closed": is.Closed})
		if err != nil {
			t.Fatal(err)
		}
		r := w.s.do("POST", "/api/v1/repos/"+full+"/issues", string(body), "Authorization", "token "+w.token(t, by), "Content-Type", jsonCT)
		expectStatus(t, r, 201)
		var made struct{ Number int64 }
		if err := json.Unmarshal(r.Body, &made); err != nil {
			t.Fatal(err)
		}
		for _, c := range is.Comments {
			cby := c.By
			if cby == "" {
				cby = by
			}
			body, _ := json.Marshal(map[string]string{"body": c.Body})
			expectStatus(t, w.s.do("POST", "/api/v1/repos/"+full+"/issues/"+fmtInt(made.Number)+"/comments", string(body),
				"Authorization", "token "+w.token(t, cby), "Content-Type", jsonCT), 201)
		}
	}
}

// commentID is the id of the n-th (0-based) comment of issue index of
// full, for the {{commentID}} template.
func (w *world) commentID(full string, index, n int) (string, error) {
	r := w.s.do("GET", "/api/v1/repos/"+full+"/issues/"+strconv.Itoa(index)+"/comments", "", "Authorization", "token "+w.s.AdminToken)
	var list []struct{ ID int64 }
	if err := json.Unmarshal(r.Body, &list); err != nil || r.Status != 200 || n >= len(list) {
		return "", fmt.Errorf("comment %d of %s#%d: %d %s", n, full, index, r.Status, r.Body)
	}
	return fmtInt(list[n].ID), nil
}

// --- end issues area ---

type fixtureRelease struct {
	Tag  string `yaml:"tag"`
	By   string `yaml:"by"`   // publisher; the owner when empty
	Name string `yaml:"name"` // the tag when empty
	Body string `yaml:"body"`
}

// fixtureToken is a caller: a token of user with the given scopes.
type fixtureToken struct {
	Name   string   `yaml:"name"`
	User   string   `yaml:"user"`
	Scopes []string `yaml:"scopes"`
}

// ---- organizations (fixture key orgs) ----

// fixtureOrg is created over REST by its first owner; the other owners
// join its Owners team. Repositories of the fixture's repos list whose
// owner is an organization are created by its first owner (POST
// /orgs/{org}/repos); the teams' repositories are given after them.
type fixtureOrg struct {
	Name       string        `yaml:"name"`
	Visibility string        `yaml:"visibility"` // public (default), limited, private
	Email      string        `yaml:"email"`
	Owners     []string      `yaml:"owners"`
	Teams      []fixtureTeam `yaml:"teams"`
	// Labels are organization labels, created by the first owner over
	// REST after the teams.
	Labels []fixtureLabel `yaml:"labels"`
}

// fixtureTeam is a team of an organization. Without units or units_map a
// team below admin gets every repository unit (code, issues, pulls,
// releases, wiki) at its permission.
type fixtureTeam struct {
	Name        string            `yaml:"name"`
	Permission  string            `yaml:"permission"` // read, write, admin
	Units       []string          `yaml:"units"`
	UnitsMap    map[string]string `yaml:"units_map"`
	IncludesAll bool              `yaml:"includes_all"`
	CanCreate   bool              `yaml:"can_create_org_repo"`
	Members     []string          `yaml:"members"`
	Repos       []string          `yaml:"repos"` // names of the organization's repositories
}

// ---- end organizations ----

// apiCase is one request and what must come back.
type apiCase struct {
	Name string `yaml:"name"`
	// Needs names earlier cases of the file whose changes this case reads
	// (a delete, then "it is gone"). In file order they have already run;
	// when the case runs alone (go test -run '.../<case>', -cases-alone)
	// the runner runs them first, needs before needs.
	Needs   []string          `yaml:"needs"`
	As      string            `yaml:"as"` // see world.authorization
	Request caseRequest       `yaml:"request"`
	Status  int               `yaml:"status"`
	JSON    any               `yaml:"json"`    // subset of the body, see matchJSON
	Length  *int              `yaml:"length"`  // length of a top-level JSON array
	Headers map[string]string `yaml:"headers"` // expected headers; "" means absent
	// Raw is the exact body (surrounding white space ignored); Contains
	// lists byte strings the raw body must hold (escaping, key order).
	Raw      *string   `yaml:"raw"`
	Contains []string  `yaml:"contains"`
	GRPC     *grpcCase `yaml:"grpc"`
}

type caseRequest struct {
	Method  string `yaml:"method"`
	Path    string `yaml:"path"`
	Body    any    `yaml:"body"`     // sent as JSON
	RawBody string `yaml:"raw_body"` // sent as is (malformed JSON, forms)
	// Headers are sent as given; Content-Type defaults to JSON when there is
	// a body, and an empty value leaves a header out.
	Headers map[string]string `yaml:"headers"`
}

// grpcCase is the same call over gRPC.
type grpcCase struct {
	Method  string `yaml:"method"`  // full name: forge.repos.v1.RepositoryService.GetRepo
	Request any    `yaml:"request"` // protojson
	Code    string `yaml:"code"`    // OK, NOT_FOUND, PERMISSION_DENIED, ...
	Message string `yaml:"message"` // the status message, when given
	// Reason and HTTPStatus, when given, must be in the status's ErrorInfo
	// (the reason and the Gitea HTTP status the gateway answers with).
	Reason     string `yaml:"reason"`
	HTTPStatus string `yaml:"http_status"`
	JSON       any    `yaml:"json"` // subset of the protojson answer (proto field names)
}

var casesAlone = flag.Bool("cases-alone", false, "TestAPICases: run every case alone, on a fresh server and fixture (with its needs first)")

// TestAPICases runs every file's cases in order on one fixture per
// backend, or with -cases-alone each case on a fresh fixture of its own,
// which proves that a case passes without the cases before it (other than
// those it names in needs):
//
//	go test -run 'TestAPICases/.*/sqlite3' ./cmd/forge/app/ -args -cases-alone
func TestAPICases(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("testdata/cases/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no case files: %v", err)
	}
	for _, file := range files {
		raw, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		// The fixture is read with placeholder values: templates refer to
		// things the fixture creates.
		var shape caseFile
		if err := yaml.Unmarshal(renderCases(t, file, raw, placeholderFuncs), &shape); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		var tweak func(*config.Config)
		if shape.Fixture.AllowLocalMigrations {
			tweak = allowLocal
		}
		// load builds a fresh world on s and reads the cases against it.
		load := func(t *testing.T, s *testServer) (*world, []apiCase) {
			w := buildWorld(t, s, shape.Fixture)
			var cf caseFile
			dec := yaml.NewDecoder(bytes.NewReader(renderCases(t, file, raw, w.funcs())))
			dec.KnownFields(true)
			if err := dec.Decode(&cf); err != nil {
				t.Fatalf("%s: %v", file, err)
			}
			return w, cf.Cases
		}
		t.Run(strings.TrimSuffix(filepath.Base(file), ".yaml"), func(t *testing.T) {
			t.Parallel() // each file on its own servers; -test.parallel sets how many at once
			checkCaseFile(t, file, shape.Cases)
			if *casesAlone {
				for _, kind := range storetest.Backends {
					t.Run(kind, func(t *testing.T) {
						for i := range shape.Cases {
							t.Run(caseName(shape.Cases[i], i), func(t *testing.T) {
								t.Parallel() // each on its own server and database; -test.parallel sets how many at once
								w, cases := load(t, startServer(t, kind, tweak))
								w.runCase(t, cases, i, map[string]bool{})
							})
						}
					})
				}
				return
			}
			eachBackend(t, tweak, func(t *testing.T, s *testServer) {
				w, cases := load(t, s)
				ran := map[string]bool{}
				for i := range cases {
					t.Run(caseName(cases[i], i), func(t *testing.T) { w.runCase(t, cases, i, ran) })
				}
			})
		})
	}
}

func caseName(c apiCase, i int) string {
	if c.Name == "" {
		return "case " + strconv.Itoa(i)
	}
	return c.Name
}

// checkCaseFile holds a file's cases to the runner's rules before any
// runs: unique names, needs naming earlier cases, a message for every 403
// (a refusal must say why, so one for the wrong reason fails).
func checkCaseFile(t *testing.T, file string, cases []apiCase) {
	t.Helper()
	defer func() {
		if t.Failed() {
			t.FailNow()
		}
	}()
	seen := map[string]bool{}
	for i, c := range cases {
		name := caseName(c, i)
		if seen[name] {
			t.Errorf("%s: two cases are named %q", file, name)
		}
		for _, n := range c.Needs {
			if !seen[n] {
				t.Errorf("%s: case %q needs %q, which is not an earlier case of the file", file, name, n)
			}
		}
		seen[name] = true
		if c.Status == http.StatusForbidden {
			if m, _ := c.JSON.(map[string]any); m == nil || m["message"] == nil || m["message"] == "" {
				t.Errorf("%s: case %q expects 403 without naming its message (json: {message: ...})", file, name)
			}
		}
	}
}

// runCase runs cases[i], first running the cases it needs that have not
// run on this world yet (when it is run alone); ran records what ran.
func (w *world) runCase(t *testing.T, cases []apiCase, i int, ran map[string]bool) {
	var need func(name string)
	need = func(name string) {
		if ran[name] {
			return
		}
		for j, c := range cases {
			if caseName(c, j) != name {
				continue
			}
			for _, n := range c.Needs {
				need(n)
			}
			t.Logf("needs %q: running it first", name)
			w.run(t, c)
			ran[name] = true
			return
		}
	}
	for _, n := range cases[i].Needs {
		need(n)
	}
	w.run(t, cases[i])
	ran[caseName(cases[i], i)] = true
}

var placeholderFuncs = template.FuncMap{
	"repoID":     func(string) string { return "0" },
	"repeat":     strings.Repeat,
	"releaseID":  func(string, string) string { return "0" },
	"fileSHA":    func(string, string) string { return "0" },
	"commitSHA":  func(string, string) string { return strings.Repeat("0", 40) },
	"pushMirror": func(string) string { return "0" },
	"token":      func(string) string { return "0" },
	"tokenID":    func(string, string) string { return "0" },
	"url":        func() string { return "http://placeholder" },
	"commentID":  func(string, int, int) string { return "0" }, // issues area
	"labelID":    func(string, string) string { return "0" },
	"orgLabelID": func(string, string) string { return "0" },
	"teamID":     func(string, string) string { return "0" },

	// --- attachments (H4) ---
	"assetID":        func(string, string, string) string { return "0" },
	"assetUUID":      func(string, string, string) string { return "0" },
	"issueAssetID":   func(string, int, string) string { return "0" },
	"issueAssetUUID": func(string, int, string) string { return "0" },
	"commentAssetID": func(string, int, int, string) string { return "0" },
	"threadID":       func(string, string, string) string { return "0" },
}

func renderCases(t *testing.T, file string, raw []byte, funcs template.FuncMap) []byte {
	t.Helper()
	tpl, err := template.New(file).Funcs(funcs).Option("missingkey=error").Parse(string(raw))
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	var out bytes.Buffer
	if err := tpl.Execute(&out, nil); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	return out.Bytes()
}

// world is a built fixture: the server and every caller's credentials.
type world struct {
	s      *testServer
	tokens map[string]string // user or token name -> token
	owners map[string]string // token name -> its user
	// orgOwners maps each fixture organization to its first owner;
	// teams maps "org/team" to the team's id.
	orgOwners map[string]string
	teams     map[string]int64
}

// buildOrg creates o, its owners and its teams with their members.
func (w *world) buildOrg(t *testing.T, o fixtureOrg) {
	t.Helper()
	if len(o.Owners) == 0 {
		t.Fatalf("fixture: organization %q has no owners", o.Name)
	}
	s := w.s
	as := func(user string) []string {
		return []string{"Authorization", "token " + w.token(t, user), "Content-Type", jsonCT}
	}
	body, _ := json.Marshal(map[string]string{"username": o.Name, "visibility": o.Visibility, "email": o.Email})
	expectStatus(t, s.do("POST", "/api/v1/orgs", string(body), as(o.Owners[0])...), 201)
	w.orgOwners[o.Name] = o.Owners[0]
	r := s.do("GET", "/api/v1/orgs/"+o.Name+"/teams", "", as(o.Owners[0])...)
	var teams []struct {
		ID   int64
		Name string
	}
	if err := json.Unmarshal(r.Body, &teams); err != nil || len(teams) != 1 {
		t.Fatalf("fixture: teams of %s: %d %s", o.Name, r.Status, r.Body)
	}
	w.teams[o.Name+"/"+teams[0].Name] = teams[0].ID
	for _, u := range o.Owners[1:] {
		expectStatus(t, s.do("PUT", "/api/v1/teams/"+fmtInt(teams[0].ID)+"/members/"+u, "", as(o.Owners[0])...), 204)
	}
	for _, tm := range o.Teams {
		opt := map[string]any{"name": tm.Name, "permission": tm.Permission, "includes_all_repositories": tm.IncludesAll,
			"can_create_org_repo": tm.CanCreate}
		switch {
		case len(tm.UnitsMap) > 0:
			opt["units_map"] = tm.UnitsMap
		case len(tm.Units) > 0:
			opt["units"] = tm.Units
		default:
			opt["units"] = []string{"repo.code", "repo.issues", "repo.pulls", "repo.releases", "repo.wiki"}
		}
		body, _ := json.Marshal(opt)
		r := s.do("POST", "/api/v1/orgs/"+o.Name+"/teams", string(body), as(o.Owners[0])...)
		expectStatus(t, r, 201)
		var team struct{ ID int64 }
		r.json(t, &team)
		w.teams[o.Name+"/"+tm.Name] = team.ID
		for _, u := range tm.Members {
			expectStatus(t, s.do("PUT", "/api/v1/teams/"+fmtInt(team.ID)+"/members/"+u, "", as(o.Owners[0])...), 204)
		}
	}
	for _, l := range o.Labels {
		if l.Color == "" {
			l.Color = "#00aabb"
		}
		body, _ := json.Marshal(map[string]any{"name": l.Name, "color": l.Color, "exclusive": l.Exclusive, "is_archived": l.Archived})
		expectStatus(t, s.do("POST", "/api/v1/orgs/"+o.Name+"/labels", string(body), as(o.Owners[0])...), 201)
	}
}

// buildTeamRepos gives o's teams their repositories, once they exist.
func (w *world) buildTeamRepos(t *testing.T, o fixtureOrg) {
	t.Helper()
	for _, tm := range o.Teams {
		for _, repo := range tm.Repos {
			path := "/api/v1/teams/" + fmtInt(w.teams[o.Name+"/"+tm.Name]) + "/repos/" + o.Name + "/" + repo
			expectStatus(t, w.s.do("PUT", path, "", "Authorization", "token "+w.token(t, o.Owners[0])), 204)
		}
	}
}

func buildWorld(t *testing.T, s *testServer, f caseFixture) *world {
	t.Helper()
	w := &world{s: s, tokens: map[string]string{"root": s.AdminToken}, owners: map[string]string{},
		orgOwners: map[string]string{}, teams: map[string]int64{}}
	for _, u := range f.Users {
		w.tokens[u.Name] = s.seedUser(u.Name, u.Name+"-password", u.Admin)
		if u.Visibility != "" {
			s.adminDo(t, "PATCH", "/api/v1/admin/users/"+u.Name, `{"visibility":"`+u.Visibility+`"}`, 200)
		}
		if u.Restricted {
			s.adminDo(t, "PATCH", "/api/v1/admin/users/"+u.Name, `{"restricted":true}`, 200)
		}
	}
	for _, o := range f.Orgs {
		w.buildOrg(t, o)
	}
	for _, r := range f.Repos {
		w.buildRepo(t, r)
	}
	for _, o := range f.Orgs {
		w.buildTeamRepos(t, o)
	}
	for _, tk := range f.Tokens {
		if _, dup := w.tokens[tk.Name]; dup {
			t.Fatalf("fixture: token name %q is already a caller", tk.Name)
		}
		w.tokens[tk.Name] = s.createToken(t, tk.User, tk.User+"-password", tk.Name, tk.Scopes...)
		w.owners[tk.Name] = tk.User
	}
	// --- notifications (i10-notify) ---
	// The threads of the fixture's issues exist before the first case.
	if slices.ContainsFunc(f.Repos, func(r fixtureRepo) bool { return len(r.Issues) > 0 }) {
		waitFor(t, notifyWait, "the notifier to drain the activity queue", func() bool {
			var n int64
			s.App.Store.DB().Model(&store.Activity{}).Count(&n)
			return n == 0
		})
	}
	return w
}

func (w *world) buildRepo(t *testing.T, r fixtureRepo) {
	t.Helper()
	owner, name, ok := strings.Cut(r.Repo, "/")
	if !ok {
		t.Fatalf("fixture: repo %q is not owner/name", r.Repo)
	}
	s := w.s
	as := func(user string) []string {
		// An organization acts through its first owner (it has no token).
		if first, isOrg := w.orgOwners[user]; isOrg {
			user = first
		}
		return []string{"Authorization", "token " + w.token(t, user), "Content-Type", jsonCT}
	}
	if first, isOrg := w.orgOwners[owner]; isOrg {
		body := `{"name":"` + name + `","auto_init":` + boolText(r.AutoInit) + `,"private":` + boolText(r.Private) + `}`
		expectStatus(t, s.do("POST", "/api/v1/orgs/"+owner+"/repos", body, as(first)...), 201)
	} else if r.MirrorOf != "" {
		body := `{"clone_addr":"` + s.URL + "/" + r.MirrorOf + `.git","repo_name":"` + name + `","mirror":true,"private":` + boolText(r.Private) + `}`
		expectStatus(t, s.do("POST", "/api/v1/repos/migrate", body, as(owner)...), 201)
	} else {
		s.createRepo(t, w.token(t, owner), name, r.AutoInit, r.Private)
	}
	base := "/api/v1/repos/" + r.Repo
	for user, perm := range r.Collaborators {
		s.adminDo(t, "PUT", base+"/collaborators/"+user, `{"permission":"`+perm+`"}`, 204)
	}
	for _, b := range r.Branches {
		expectStatus(t, s.do("POST", base+"/branches", `{"new_branch_name":"`+b+`"}`, as(owner)...), 201)
	}
	made := map[string]bool{"main": true}
	for _, b := range r.Branches {
		made[b] = true
	}
	for _, f := range r.Files {
		change := map[string]any{"content": base64.StdEncoding.EncodeToString([]byte(f.Content)), "message": "add " + f.Path, "branch": f.Branch}
		if !made[f.Branch] {
			change["branch"], change["new_branch"] = "main", f.Branch
			made[f.Branch] = true
		}
		body, err := json.Marshal(change)
		if err != nil {
			t.Fatal(err)
		}
		expectStatus(t, s.do("POST", base+"/contents/"+f.Path, string(body), as(owner)...), 201)
	}
	for _, rel := range r.Releases {
		by := rel.By
		if by == "" {
			by = owner
		}
		if rel.Name == "" {
			rel.Name = rel.Tag
		}
		body, err := json.Marshal(map[string]string{"tag_name": rel.Tag, "target_commitish": "main", "name": rel.Name, "body": rel.Body})
		if err != nil {
			t.Fatal(err)
		}
		expectStatus(t, s.do("POST", base+"/releases", string(body), as(by)...), 201)
	}
	for _, u := range r.Watchers {
		expectStatus(t, s.do("PUT", base+"/subscription", "", as(u)...), 200)
	}
	for _, target := range r.PushMirrors {
		body := `{"remote_address":"` + s.URL + "/" + target + `.git","remote_username":"` + owner +
			`","remote_password":"` + owner + `-password","interval":"8h0m0s"}`
		expectStatus(t, s.do("POST", base+"/push_mirrors", body, as(owner)...), 200)
	}
	w.buildIssues(t, r.Repo, owner, r.Issues)
	w.buildLabels(t, r, as(owner))
	w.buildAssets(t, r.Repo, owner, r.Assets) // --- attachments (H4) ---
	for _, p := range r.Pulls {
		by, baseBranch := p.By, p.Base
		if by == "" {
			by = owner
		}
		if baseBranch == "" {
			baseBranch = "main"
		}
		body, err := json.Marshal(map[string]string{"head": p.Head, "base": baseBranch, "title": p.Title})
		if err != nil {
			t.Fatal(err)
		}
		expectStatus(t, s.do("POST", base+"/pulls", string(body), as(by)...), 201)
	}
	if len(r.Settings) > 0 {
		body, err := json.Marshal(r.Settings)
		if err != nil {
			t.Fatal(err)
		}
		expectStatus(t, s.do("PATCH", base, string(body), as(owner)...), 200)
	}
	if r.Archived {
		expectStatus(t, s.do("PATCH", base, `{"archived":true}`, as(owner)...), 200)
	}
}

// buildLabels makes a fixture repository's labels and labelled issues.
func (w *world) buildLabels(t *testing.T, r fixtureRepo, as []string) {
	t.Helper()
	s := w.s
	ids := map[string]int64{}
	for _, l := range r.Labels {
		if l.Color == "" {
			l.Color = "#00aabb"
		}
		body, err := json.Marshal(map[string]any{"name": l.Name, "color": l.Color, "exclusive": l.Exclusive, "is_archived": l.Archived})
		if err != nil {
			t.Fatal(err)
		}
		resp := s.do("POST", "/api/v1/repos/"+r.Repo+"/labels", string(body), as...)
		expectStatus(t, resp, 201)
		var got struct{ ID int64 }
		if err := json.Unmarshal(resp.Body, &got); err != nil {
			t.Fatal(err)
		}
		ids[l.Name] = got.ID
	}
	if len(r.LabelIssues) == 0 {
		return
	}
	owner, name, _ := strings.Cut(r.Repo, "/")
	repo := s.repoRecord(t, owner, name)
	ctx := context.Background()
	for _, is := range r.LabelIssues {
		n := &store.NewIssue{Issue: store.Issue{RepoID: repo.ID, PosterID: repo.OwnerID, Title: is.Title, IsClosed: is.Closed}}
		if err := s.App.Store.CreateIssue(ctx, n); err != nil {
			t.Fatal(err)
		}
		var lids []int64
		for _, l := range is.Labels {
			id, ok := ids[l]
			if !ok {
				t.Fatalf("fixture: issue %q names unknown label %q", is.Title, l)
			}
			lids = append(lids, id)
		}
		if _, err := s.App.Store.EditIssueLabels(ctx, store.IssueLabelEdit{RepoID: repo.ID, OrgID: repo.OwnerID,
			Index: n.Index, ActorID: repo.OwnerID, Mode: store.IssueLabelsReplace, IDs: lids}); err != nil {
			t.Fatal(err)
		}
	}
}

func (w *world) token(t *testing.T, caller string) string {
	t.Helper()
	tok, ok := w.tokens[caller]
	if !ok {
		t.Fatalf("unknown caller %q", caller)
	}
	return tok
}

// authorization is the Authorization header of a caller:
//   - "" or "anonymous": none;
//   - a user name ("root" is the site administrator): that user's
//     all-scopes token;
//   - a fixture token's name: that token;
//   - "<user>:basic": Basic with the user's password ("<user>-password",
//     also for users a case created);
//   - "<token>:basic": Basic with the token as the password.
func (w *world) authorization(t *testing.T, caller string) string {
	t.Helper()
	if caller == "" || caller == "anonymous" {
		return ""
	}
	if who, ok := strings.CutSuffix(caller, ":basic"); ok {
		if user, isToken := w.owners[who]; isToken {
			return basic(user, w.token(t, who))
		}
		// Any user, also one a case created: the password convention holds.
		if who == "root" {
			return basic(who, rootPassword)
		}
		return basic(who, who+"-password")
	}
	return "token " + w.token(t, caller)
}

func (w *world) funcs() template.FuncMap {
	s := w.s
	t := s.t
	repoID := func(full string) string {
		owner, name, _ := strings.Cut(full, "/")
		return fmtInt(s.repoRecord(t.(*testing.T), owner, name).ID)
	}
	return template.FuncMap{
		"repoID": repoID,
		"repeat": strings.Repeat, // long values for size rules
		"releaseID": func(full, tag string) (string, error) {
			r := s.do("GET", "/api/v1/repos/"+full+"/releases/tags/"+tag, "", "Authorization", "token "+s.AdminToken)
			var rel struct{ ID int64 }
			if err := json.Unmarshal(r.Body, &rel); err != nil || r.Status != 200 {
				return "", fmt.Errorf("release %s of %s: %d %s", tag, full, r.Status, r.Body)
			}
			return fmtInt(rel.ID), nil
		},
		"fileSHA": func(full, path string) (string, error) {
			r := s.do("GET", "/api/v1/repos/"+full+"/contents/"+path, "", "Authorization", "token "+s.AdminToken)
			var c struct{ SHA string }
			if err := json.Unmarshal(r.Body, &c); err != nil || r.Status != 200 {
				return "", fmt.Errorf("file %s of %s: %d %s", path, full, r.Status, r.Body)
			}
			return c.SHA, nil
		},
		"commitSHA": func(full, ref string) (string, error) {
			r := s.do("GET", "/api/v1/repos/"+full+"/git/commits/"+ref+"?stat=false&files=false&verification=false", "", "Authorization", "token "+s.AdminToken)
			var c struct{ SHA string }
			if err := json.Unmarshal(r.Body, &c); err != nil || r.Status != 200 {
				return "", fmt.Errorf("commit %s of %s: %d %s", ref, full, r.Status, r.Body)
			}
			return c.SHA, nil
		},
		"tokenID": func(user, name string) (string, error) {
			r := s.do("GET", "/api/v1/users/"+user+"/tokens?limit=50", "", "Authorization", basic("root", s.AdminToken))
			var list []struct {
				ID   int64
				Name string
			}
			if err := json.Unmarshal(r.Body, &list); err != nil || r.Status != 200 {
				return "", fmt.Errorf("tokens of %s: %d %s", user, r.Status, r.Body)
			}
			for _, tk := range list {
				if tk.Name == name {
					return fmtInt(tk.ID), nil
				}
			}
			return "", fmt.Errorf("%s has no token %q", user, name)
		},
		"pushMirror": func(full string) (string, error) {
			r := s.do("GET", "/api/v1/repos/"+full+"/push_mirrors", "", "Authorization", "token "+s.AdminToken)
			var list []struct {
				RemoteName string `json:"remote_name"`
			}
			if err := json.Unmarshal(r.Body, &list); err != nil || r.Status != 200 || len(list) == 0 {
				return "", fmt.Errorf("push mirrors of %s: %d %s", full, r.Status, r.Body)
			}
			return list[0].RemoteName, nil
		},
		"token": func(caller string) (string, error) {
			tok, ok := w.tokens[caller]
			if !ok {
				return "", fmt.Errorf("unknown caller %q", caller)
			}
			return tok, nil
		},
		"url":       func() string { return s.URL },
		"commentID": w.commentID, // {{commentID "alice/demo" 1 0}}: first comment of issue 1
		// labels area
		"labelID": func(full, name string) (string, error) {
			owner, repo, _ := strings.Cut(full, "/")
			l, err := s.App.Store.LabelByName(context.Background(), store.LabelOwner{RepoID: s.repoRecord(t.(*testing.T), owner, repo).ID}, name)
			if err != nil {
				return "", fmt.Errorf("label %s of %s: %w", name, full, err)
			}
			return fmtInt(l.ID), nil
		},
		"orgLabelID": func(org, name string) (string, error) {
			o, err := s.App.Store.UserByName(context.Background(), org)
			if err != nil {
				return "", fmt.Errorf("organization %s: %w", org, err)
			}
			l, err := s.App.Store.LabelByName(context.Background(), store.LabelOwner{OrgID: o.ID}, name)
			if err != nil {
				return "", fmt.Errorf("label %s of %s: %w", name, org, err)
			}
			return fmtInt(l.ID), nil
		},
		// teamID "org" "team": a fixture team's id (the Owners team too).
		"teamID": func(org, team string) (string, error) {
			id, ok := w.teams[org+"/"+team]
			if !ok {
				return "", fmt.Errorf("no fixture team %s/%s", org, team)
			}
			return fmtInt(id), nil
		},

		// --- attachments (H4) ---
		"assetID": func(full, tag, name string) (string, error) {
			a, err := w.asset(full, tag, 0, nil, name)
			return fmtInt(a.ID), err
		},
		"assetUUID": func(full, tag, name string) (string, error) {
			a, err := w.asset(full, tag, 0, nil, name)
			return a.UUID, err
		},
		"issueAssetID": func(full string, issue int, name string) (string, error) {
			a, err := w.asset(full, "", issue, nil, name)
			return fmtInt(a.ID), err
		},
		"issueAssetUUID": func(full string, issue int, name string) (string, error) {
			a, err := w.asset(full, "", issue, nil, name)
			return a.UUID, err
		},
		"commentAssetID": func(full string, issue, n int, name string) (string, error) {
			a, err := w.asset(full, "", 0, []int{issue, n}, name)
			return fmtInt(a.ID), err
		},
		// --- notifications (i10-notify) ---
		"threadID": func(user, full, title string) (string, error) {
			var id int64
			err := s.App.Store.DB().Raw(`SELECT n.id FROM notifications n JOIN users u ON u.id = n.user_id
JOIN issues i ON i.id = n.issue_id JOIN repositories r ON r.id = n.repo_id
WHERE u.lower_name = ? AND r.lower_name = ? AND i.title = ?`, strings.ToLower(user), strings.ToLower(full[strings.Index(full, "/")+1:]), title).Scan(&id).Error
			if err != nil || id == 0 {
				return "", fmt.Errorf("no thread of %s on %q in %s: %v", user, title, full, err)
			}
			return fmtInt(id), nil
		},
	}
}

// caseAsset is what the asset templates read of a release asset.
type caseAsset struct {
	ID   int64
	UUID string
	Name string
}

// asset finds an attachment of a release, issue or comment by name.
func (w *world) asset(full, release string, issue int, comment []int, name string) (caseAsset, error) {
	path, err := w.assetsPath(full, release, issue, comment)
	if err != nil {
		return caseAsset{}, err
	}
	var list []caseAsset
	r := w.s.do("GET", path+"?limit=50", "", "Authorization", "token "+w.s.AdminToken)
	if err := json.Unmarshal(r.Body, &list); err != nil || r.Status != 200 {
		return caseAsset{}, fmt.Errorf("attachments at %s: %d %s", path, r.Status, r.Body)
	}
	for _, a := range list {
		if a.Name == name {
			return a, nil
		}
	}
	return caseAsset{}, fmt.Errorf("no attachment %q at %s", name, path)
}

// run makes one case's requests and reports every difference at once.
func (w *world) run(t *testing.T, c apiCase) {
	auth := w.authorization(t, c.As)
	body := c.Request.RawBody
	if c.Request.Body != nil {
		b, err := json.Marshal(c.Request.Body)
		if err != nil {
			t.Fatal(err)
		}
		body = string(b)
	}
	headers := map[string]string{}
	if body != "" {
		headers["Content-Type"] = jsonCT
	}
	if auth != "" {
		headers["Authorization"] = auth
	}
	for k, v := range c.Request.Headers {
		headers[http.CanonicalHeaderKey(k)] = v
	}
	var header []string
	for k, v := range headers {
		if v != "" {
			header = append(header, k, v)
		}
	}
	r := w.s.do(c.Request.Method, c.Request.Path, body, header...)
	request := fmt.Sprintf("%s %s as %q", c.Request.Method, c.Request.Path, c.As)
	if body != "" {
		request += " with " + body
	}
	if r.Status != c.Status {
		t.Errorf("%s: status %d, want %d\nbody: %s", request, r.Status, c.Status, r.Body)
	}
	if c.JSON != nil || c.Length != nil {
		var got any
		if err := json.Unmarshal(r.Body, &got); err != nil {
			t.Errorf("%s: body is not JSON: %v\nbody: %s", request, err, r.Body)
		} else {
			if c.JSON != nil {
				if diff := matchJSON("$", normalJSON(t, c.JSON), got); diff != "" {
					t.Errorf("%s: %s\nwant (subset): %s\n got: %s", request, diff, mustJSON(c.JSON), r.Body)
				}
			}
			if c.Length != nil {
				if list, ok := got.([]any); !ok || len(list) != *c.Length {
					t.Errorf("%s: want an array of %d\n got: %s", request, *c.Length, r.Body)
				}
			}
		}
	}
	if c.Raw != nil && strings.TrimSpace(string(r.Body)) != *c.Raw {
		t.Errorf("%s: body %q, want %q", request, r.Body, *c.Raw)
	}
	for _, want := range c.Contains {
		if !bytes.Contains(r.Body, []byte(want)) {
			t.Errorf("%s: body lacks %s\nbody: %s", request, want, r.Body)
		}
	}
	for k, want := range c.Headers {
		if got := r.Header.Get(k); got != want {
			t.Errorf("%s: header %s = %q, want %q", request, k, got, want)
		}
	}
	if c.GRPC != nil {
		// The same credentials, also when the case wrote its own header,
		// and the same Sudo header (gRPC's sudo metadata).
		w.runGRPC(t, headers["Authorization"], headers["Sudo"], c.GRPC)
	}
}

func (w *world) runGRPC(t *testing.T, auth, sudo string, g *grpcCase) {
	var want codes.Code
	if err := want.UnmarshalJSON([]byte(strconv.Quote(g.Code))); err != nil {
		t.Fatalf("grpc code %q: %v", g.Code, err)
	}
	ctx := t.Context()
	if auth != "" {
		ctx = metadata.AppendToOutgoingContext(ctx, "authorization", auth)
	}
	if sudo != "" {
		ctx = metadata.AppendToOutgoingContext(ctx, "sudo", sudo)
	}
	reqJSON := []byte("{}")
	if g.Request != nil {
		reqJSON = []byte(mustJSON(g.Request))
	}
	resp, err := w.invoke(ctx, t, g.Method, reqJSON)
	call := fmt.Sprintf("gRPC %s %s", g.Method, reqJSON)
	st := status.Convert(err)
	if st.Code() != want {
		t.Errorf("%s: code %v, want %v (%v)", call, st.Code(), want, err)
		return
	}
	if g.Message != "" && st.Message() != g.Message {
		t.Errorf("%s: message %q, want %q", call, st.Message(), g.Message)
	}
	if g.Reason != "" || g.HTTPStatus != "" {
		var info *errdetails.ErrorInfo
		for _, d := range st.Details() {
			if i, ok := d.(*errdetails.ErrorInfo); ok {
				info = i
			}
		}
		if info == nil || info.GetReason() != g.Reason || info.GetMetadata()["http_status"] != g.HTTPStatus {
			t.Errorf("%s: ErrorInfo %v, want reason %q and http_status %q", call, info, g.Reason, g.HTTPStatus)
		}
	}
	if g.JSON != nil && err == nil {
		out, err := protojson.MarshalOptions{UseProtoNames: true, EmitUnpopulated: true}.Marshal(resp)
		if err != nil {
			t.Fatal(err)
		}
		var got any
		if err := json.Unmarshal(out, &got); err != nil {
			t.Fatal(err)
		}
		if diff := matchJSON("$", normalJSON(t, g.JSON), got); diff != "" {
			t.Errorf("%s: %s\nwant (subset): %s\n got: %s", call, diff, mustJSON(g.JSON), out)
		}
	}
}

// invoke calls a method by its full name with a protojson request, using
// the generated message types registered by the gen packages.
func (w *world) invoke(ctx context.Context, t *testing.T, method string, reqJSON []byte) (proto.Message, error) {
	t.Helper()
	i := strings.LastIndex(method, ".")
	if i < 0 {
		t.Fatalf("gRPC method %q is not a full name", method)
	}
	service, name := method[:i], method[i+1:]
	d, err := protoregistry.GlobalFiles.FindDescriptorByName(protoreflect.FullName(service))
	if err != nil {
		t.Fatalf("gRPC service %s: %v", service, err)
	}
	sd, ok := d.(protoreflect.ServiceDescriptor)
	if !ok || sd.Methods().ByName(protoreflect.Name(name)) == nil {
		t.Fatalf("gRPC method %s not found", method)
	}
	md := sd.Methods().ByName(protoreflect.Name(name))
	newMessage := func(n protoreflect.FullName) proto.Message {
		mt, err := protoregistry.GlobalTypes.FindMessageByName(n)
		if err != nil {
			t.Fatalf("message %s: %v", n, err)
		}
		return mt.New().Interface()
	}
	req, resp := newMessage(md.Input().FullName()), newMessage(md.Output().FullName())
	if err := protojson.Unmarshal(reqJSON, req); err != nil {
		t.Fatalf("gRPC request for %s: %v", method, err)
	}
	err = w.s.grpcConn().Invoke(ctx, "/"+service+"/"+name, req, resp)
	return resp, err
}

// matchJSON reports how got differs from want, "" when it matches. Objects
// match by the keys want lists, which must be present (a null matches only
// an explicit null, as Gitea writes one); arrays match element by element
// and must have the same length; anything else must be equal.
func matchJSON(at string, want, got any) string {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return fmt.Sprintf("%s: want an object, got %s", at, mustJSON(got))
		}
		for k, wv := range w {
			gv, present := g[k]
			if !present {
				return fmt.Sprintf("%s.%s: missing, want %s", at, k, mustJSON(wv))
			}
			if diff := matchJSON(at+"."+k, wv, gv); diff != "" {
				return diff
			}
		}
		return ""
	case []any:
		g, ok := got.([]any)
		if !ok {
			return fmt.Sprintf("%s: want an array, got %s", at, mustJSON(got))
		}
		if len(g) != len(w) {
			return fmt.Sprintf("%s: want %d elements, got %d", at, len(w), len(g))
		}
		for i := range w {
			if diff := matchJSON(at+"["+strconv.Itoa(i)+"]", w[i], g[i]); diff != "" {
				return diff
			}
		}
		return ""
	default:
		if !reflect.DeepEqual(want, got) {
			return fmt.Sprintf("%s: want %s, got %s", at, mustJSON(want), mustJSON(got))
		}
		return ""
	}
}

// normalJSON turns a YAML value into what encoding/json decodes (float64
// numbers, map[string]any objects).
func normalJSON(t *testing.T, v any) any {
	t.Helper()
	var out any
	if err := json.Unmarshal([]byte(mustJSON(v)), &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("<%v>", err)
	}
	return string(b)
}
