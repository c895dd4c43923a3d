package app_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"code.gitea.io/sdk/gitea"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	reposv1 "forge/gen/forge/repos/v1"
	"forge/services/config"
)

// viewers are the callers every visibility check runs as.
type viewers struct {
	s                                 *testServer
	alice, hidden, stranger, rst, lim string // tokens
}

// as sends a GET as token ("" = anonymous).
func (v viewers) get(token, path string) response {
	v.s.t.Helper()
	if token == "" {
		return v.s.do("GET", path, "")
	}
	return v.s.do("GET", path, "", "Authorization", "token "+token)
}

func (s *testServer) adminDo(t *testing.T, method, path, body string, want int) response {
	t.Helper()
	r := s.do(method, path, body, "Authorization", "token "+s.AdminToken, "Content-Type", jsonCT)
	expectStatus(t, r, want)
	return r
}

// visibilityWorld seeds:
//   - alice (public) with public alice/pub (auto-init) and private alice/sec;
//   - hidden (visibility private) with public hidden/hpub, a write
//     collaborator of alice/pub (added by the admin), who watches alice/pub
//     and published a release there;
//   - lim (visibility limited) with public lim/lpub;
//   - stranger (public), no relations;
//   - rst (restricted), a read collaborator of alice/sec, with rst/own.
func visibilityWorld(t *testing.T, s *testServer) viewers {
	v := viewers{s: s}
	v.alice = s.seedUser("alice", "alice-password", false)
	v.hidden = s.seedUser("hidden", "hidden-password", false)
	v.stranger = s.seedUser("stranger", "stranger-password", false)
	v.rst = s.seedUser("rst", "rst-password", false)
	v.lim = s.seedUser("lim", "lim-password", false)
	s.adminDo(t, "PATCH", "/api/v1/admin/users/hidden", `{"visibility":"private"}`, 200)
	s.adminDo(t, "PATCH", "/api/v1/admin/users/lim", `{"visibility":"limited"}`, 200)
	s.adminDo(t, "PATCH", "/api/v1/admin/users/rst", `{"restricted":true}`, 200)

	s.createRepo(t, v.alice, "pub", true, false)
	s.createRepo(t, v.alice, "sec", false, true)
	s.createRepo(t, v.hidden, "hpub", false, false)
	s.createRepo(t, v.lim, "lpub", false, false)
	s.createRepo(t, v.rst, "own", false, false)
	s.adminDo(t, "PUT", "/api/v1/repos/alice/pub/collaborators/hidden", `{"permission":"write"}`, 204)
	s.adminDo(t, "PUT", "/api/v1/repos/alice/sec/collaborators/rst", `{"permission":"read"}`, 204)
	expectStatus(t, s.do("PUT", "/api/v1/repos/alice/pub/subscription", "", "Authorization", "token "+v.hidden), 200)
	expectStatus(t, s.do("POST", "/api/v1/repos/alice/pub/releases", `{"tag_name":"v1","target_commitish":"main","name":"one"}`,
		"Authorization", "token "+v.hidden, "Content-Type", jsonCT), 201)
	return v
}

// TestHiddenUsersDoNotLeak: a private account is as invisible in commit
// authors as it is at GET /users/{u}. (Search, collaborators, subscribers
// and release authors are cases in testdata/cases/visibility.yaml.)
func TestHiddenUsersDoNotLeak(t *testing.T) {
	t.Parallel()
	eachBackend(t, nil, func(t *testing.T, s *testServer) {
		v := visibilityWorld(t, s)
		admin := s.AdminToken

		// A commit hidden authored keeps its git signature but shows no
		// account to those who may not see hidden.
		dir := s.clone(t, "alice", "alice-password", "alice", "pub")
		commitAs(t, dir, "hidden@example.org", 1700000000, "h.txt", "h\n", "by hidden")
		gitCmd(t, dir, "push", "-q", "origin", "main")
		for _, c := range []struct{ who, token, want string }{
			{"anonymous", "", ""},
			{"stranger", v.stranger, ""},
			{"hidden", v.hidden, "hidden"},
			{"admin", admin, "hidden"},
		} {
			r := v.get(c.token, "/api/v1/repos/alice/pub/commits?limit=1&stat=false")
			expectStatus(t, r, 200)
			var commits []gitea.Commit
			r.json(t, &commits)
			got := ""
			if len(commits) == 1 && commits[0].Author != nil {
				got = commits[0].Author.UserName
			}
			if len(commits) != 1 || got != c.want || commits[0].RepoCommit.Author.Email != "hidden@example.org" {
				t.Errorf("%s: commit author account %q, want %q (%s)", c.who, got, c.want, r.Body)
			}
		}
	})
}

// TestRestrictedUsers: a restricted account reads only what is shared with
// it over git too, and lifting the restriction restores the public view.
// (REST and gRPC reads are cases in testdata/cases/visibility.yaml.)
func TestRestrictedUsers(t *testing.T) {
	t.Parallel()
	eachBackend(t, nil, func(t *testing.T, s *testServer) {
		v := visibilityWorld(t, s)
		expectStatus(t, v.get(v.rst, "/api/v1/repos/alice/pub"), 404)

		// git smart HTTP, signed in as rst: the public repository is not
		// found, the shared one clones. (git itself sends credentials only
		// when asked, and anonymous reads of public repositories stay
		// allowed, as in Gitea.)
		refs := "/info/refs?service=git-upload-pack"
		if r := s.do("GET", "/alice/pub.git"+refs, "", "Authorization", basic("rst", "rst-password")); r.Status != 404 {
			t.Errorf("restricted git read of alice/pub: %d %s", r.Status, r.Body)
		}
		expectStatus(t, s.do("GET", "/alice/pub.git"+refs, "", "Authorization", basic("stranger", "stranger-password")), 200)
		gitCmd(t, t.TempDir(), "clone", "-q", s.gitURL("rst", "rst-password", "alice", "sec"), ".")

		// Lifting the restriction restores the public view.
		s.adminDo(t, "PATCH", "/api/v1/admin/users/rst", `{"restricted":false}`, 200)
		expectStatus(t, v.get(v.rst, "/api/v1/repos/alice/pub"), 200)
	})
}

// TestMaxRepoCreation: max_repo_creation (and the site default) limit
// repository creation through every path; site administrators are not
// limited.
func TestMaxRepoCreation(t *testing.T) {
	t.Parallel()
	eachBackend(t, allowLocal, func(t *testing.T, s *testServer) {
		aliceTok := s.seedUser("alice", "alice-password", false)
		bobTok := s.seedUser("bob", "bob-password", false)

		admin := s.sdk(gitea.SetToken(s.AdminToken))
		if _, err := admin.AdminEditUser("alice", gitea.EditUserOption{MaxRepoCreation: ptr(1)}); err != nil {
			t.Fatal(err)
		}
		// The PATCH answer, and the user's own view, carry the limit; others
		// see null.
		r := s.adminDo(t, "PATCH", "/api/v1/admin/users/bob", `{"max_repo_creation":0}`, 200)
		if got := jsonField(t, r, "max_repo_creation"); got != "0" {
			t.Errorf("PATCH answer max_repo_creation %s", got)
		}
		if got := jsonField(t, s.do("GET", "/api/v1/user", "", "Authorization", "token "+aliceTok), "max_repo_creation"); got != "1" {
			t.Errorf("GET /user max_repo_creation %s", got)
		}
		if got := jsonField(t, s.do("GET", "/api/v1/users/alice", "", "Authorization", "token "+bobTok), "max_repo_creation"); got != "null" {
			t.Errorf("someone else's view of max_repo_creation %s", got)
		}

		s.createRepo(t, aliceTok, "first", true, false)
		r = s.do("POST", "/api/v1/user/repos", `{"name":"second"}`, "Authorization", "token "+aliceTok, "Content-Type", jsonCT)
		if r.Status != 403 || r.message(t) != "user has reached maximum limit of repositories [limit: 1]" {
			t.Fatalf("second repository: %d %s", r.Status, r.Body)
		}
		r = s.do("POST", "/api/v1/user/repos", `{"name":"none"}`, "Authorization", "token "+bobTok, "Content-Type", jsonCT)
		if r.Status != 403 || r.message(t) != "user has reached maximum limit of repositories [limit: 0]" {
			t.Fatalf("limit 0: %d %s", r.Status, r.Body)
		}
		// Migrations count too.
		migrate := `{"clone_addr":"` + s.gitURL("", "", "alice", "first") + `","repo_name":"copy"}`
		r = s.do("POST", "/api/v1/repos/migrate", migrate, "Authorization", "token "+aliceTok, "Content-Type", jsonCT)
		if r.Status != 403 || r.message(t) != "user has reached maximum limit of repositories [limit: 1]" {
			t.Fatalf("migration beyond the limit: %d %s", r.Status, r.Body)
		}
		// gRPC.
		repos := reposv1.NewRepositoryServiceClient(s.grpcConn())
		_, err := repos.CreateCurrentUserRepo(withToken(t.Context(), aliceTok), &reposv1.CreateCurrentUserRepoRequest{Name: "third"})
		if status.Code(err) != codes.PermissionDenied {
			t.Fatalf("gRPC beyond the limit: %v", err)
		}
		// A site administrator is not limited, creating for alice or for
		// themself.
		s.adminDo(t, "POST", "/api/v1/admin/users/alice/repos", `{"name":"by-admin"}`, 201)
		if owned, _ := s.App.Store.RepositoriesOwnedBy(t.Context(), mustUserID(t, s, "alice")); len(owned) != 2 {
			t.Fatalf("alice owns %d repositories", len(owned))
		}
		// Raising the limit allows more.
		s.adminDo(t, "PATCH", "/api/v1/admin/users/alice", `{"max_repo_creation":3}`, 200)
		s.createRepo(t, aliceTok, "third", false, false)
	})
}

// TestMaxCreationLimitDefault: [repository] MAX_CREATION_LIMIT applies to
// accounts whose own max_repo_creation is -1.
func TestMaxCreationLimitDefault(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(c *config.Config) { c.Repository.MaxCreationLimit = 1 }, func(t *testing.T, s *testServer) {
		carol := s.seedUser("carol", "carol-password", false)
		s.adminDo(t, "PATCH", "/api/v1/admin/users/carol", `{"max_repo_creation":-1}`, 200)
		s.createRepo(t, carol, "one", false, false)
		r := s.do("POST", "/api/v1/user/repos", `{"name":"two"}`, "Authorization", "token "+carol, "Content-Type", jsonCT)
		if r.Status != 403 || r.message(t) != "user has reached maximum limit of repositories [limit: 1]" {
			t.Fatalf("beyond the site default: %d %s", r.Status, r.Body)
		}
		s.createRepo(t, s.AdminToken, "a", false, false)
		s.createRepo(t, s.AdminToken, "b", false, false)
	})
}

func jsonField(t *testing.T, r response, key string) string {
	t.Helper()
	var m map[string]json.RawMessage
	r.json(t, &m)
	return string(m[key])
}

func mustUserID(t *testing.T, s *testServer, name string) int64 {
	t.Helper()
	u, err := s.App.Store.UserByName(t.Context(), name)
	if err != nil {
		t.Fatal(err)
	}
	return u.ID
}

var _ = http.StatusOK
