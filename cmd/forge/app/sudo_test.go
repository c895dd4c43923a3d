package app_test

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"code.gitea.io/sdk/gitea"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	issuesv1 "forge/gen/forge/issues/v1"
	reposv1 "forge/gen/forge/repos/v1"
	usersv1 "forge/gen/forge/users/v1"
)

// logBuffer collects what the server logs (slog's default logger) during
// a test; the server writes from its own goroutines.
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func captureLogs(t *testing.T) *logBuffer {
	logs := &logBuffer{}
	prev := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(logs, nil)))
	t.Cleanup(func() { slog.SetDefault(prev) })
	return logs
}

const sudoRefused = "Only administrators allowed to sudo."

// TestSudo: a site administrator's request with ?sudo=USER or a Sudo
// header (gRPC: sudo metadata) acts as that user: the policy and every
// rule apply to that user, writes are theirs, the administrator's token
// scopes still bound the call, and the log names both. Anyone else's sudo
// is refused with 403 as Gitea; an unknown user is 404.
func TestSudo(t *testing.T) {
	logs := captureLogs(t)
	eachBackend(t, nil, func(t *testing.T, s *testServer) {
		alice := s.seedUser("alice", "alice-password", false)
		s.seedUser("bob", "bob-password", false)
		s.seedUser("admin2", "admin2-password", true)
		s.createRepo(t, alice, "secret", false, true)
		s.createRepo(t, s.AdminToken, "rootonly", false, true)
		expectStatus(t, s.do("POST", "/api/v1/orgs", `{"username":"acme"}`, "Authorization", "token "+s.AdminToken, "Content-Type", jsonCT), 201)
		asRoot := []string{"Authorization", "token " + s.AdminToken}

		t.Run("admin acts as the user through the SDK", func(t *testing.T) {
			c := s.sdk(gitea.SetToken(s.AdminToken), gitea.SetSudo("alice"))
			me, _, err := c.GetMyUserInfo()
			if err != nil || me.UserName != "alice" {
				t.Fatalf("GET /user under sudo: %v %v", me, err)
			}
			repos, _, err := c.ListMyRepos(gitea.ListReposOptions{})
			if err != nil || len(repos) != 1 || repos[0].FullName != "alice/secret" || !repos[0].Private {
				t.Fatalf("GET /user/repos under sudo: %v %v", repos, err)
			}
			// A write is the impersonated user's.
			issue, _, err := c.CreateIssue("alice", "secret", gitea.CreateIssueOption{Title: "by sudo"})
			if err != nil || issue.Poster.UserName != "alice" {
				t.Fatalf("issue created under sudo: %v %v", issue, err)
			}
			if !strings.Contains(logs.String(), "msg=sudo admin=root admin_id=1 as=alice") {
				t.Fatalf("no audit line naming both users:\n%s", logs)
			}
		})

		t.Run("query parameter", func(t *testing.T) {
			r := s.do("GET", "/api/v1/user?sudo=alice", "", asRoot...)
			expectStatus(t, r, 200)
			var me struct{ Login string }
			r.json(t, &me)
			if me.Login != "alice" {
				t.Fatalf("?sudo=alice: %s", r.Body)
			}
			// It wins over the header, as in Gitea.
			r = s.do("GET", "/api/v1/user?sudo=alice", "", append(asRoot, "Sudo", "bob")...)
			r.json(t, &me)
			if me.Login != "alice" {
				t.Fatalf("?sudo=alice with Sudo: bob: %s", r.Body)
			}
		})

		t.Run("the rules are the user's", func(t *testing.T) {
			// root could read both; bob can read neither.
			expectStatus(t, s.do("GET", "/api/v1/repos/alice/secret", "", append(asRoot, "Sudo", "bob")...), 404)
			expectStatus(t, s.do("GET", "/api/v1/repos/root/rootonly", "", append(asRoot, "Sudo", "bob")...), 404)
			expectStatus(t, s.do("GET", "/api/v1/repos/root/rootonly", "", asRoot...), 200)
			r := s.do("GET", "/api/v1/admin/users", "", append(asRoot, "Sudo", "bob")...)
			expectStatus(t, r, 403)
			if got := r.message(t); got != "user should be the site admin" {
				t.Fatalf("admin listing as bob: %q", got)
			}
			// Sudo to another administrator keeps the site-admin powers.
			expectStatus(t, s.do("GET", "/api/v1/admin/users", "", append(asRoot, "Sudo", "admin2")...), 200)
		})

		t.Run("the token's scopes still bound the call", func(t *testing.T) {
			narrow := s.createToken(t, "root", rootPassword, "narrow", "read:user")
			r := s.do("GET", "/api/v1/user", "", "Authorization", "token "+narrow, "Sudo", "alice")
			expectStatus(t, r, 200)
			for _, tc := range []struct{ method, path, body, as string }{
				{"GET", "/api/v1/user/repos", "", "alice"},
				{"POST", "/api/v1/repos/alice/secret/issues", `{"title":"x"}`, "alice"},
				{"GET", "/api/v1/admin/users", "", "admin2"},
			} {
				r := s.do(tc.method, tc.path, tc.body, "Authorization", "token "+narrow, "Sudo", tc.as, "Content-Type", jsonCT)
				expectStatus(t, r, 403)
				if got := r.message(t); !strings.HasPrefix(got, "token does not have at least one of required scope(s)") {
					t.Fatalf("%s %s as %s with a read:user token: %q", tc.method, tc.path, tc.as, got)
				}
			}
		})

		t.Run("only site administrators may sudo", func(t *testing.T) {
			for _, tc := range []struct {
				name   string
				method string
				path   string
				header []string
			}{
				{"a user's header", "GET", "/api/v1/user", []string{"Authorization", "token " + alice, "Sudo", "bob"}},
				{"a user's query", "GET", "/api/v1/user?sudo=bob", []string{"Authorization", "token " + alice}},
				{"a user on a public endpoint", "GET", "/api/v1/version", []string{"Authorization", "token " + alice, "Sudo", "bob"}},
				{"a user as an admin", "GET", "/api/v1/admin/users", []string{"Authorization", "token " + alice, "Sudo", "root"}},
				{"anonymous", "GET", "/api/v1/repos/alice/secret", []string{"Sudo", "alice"}},
				{"anonymous with a body", "POST", "/api/v1/user/repos", []string{"Sudo", "alice", "Content-Type", jsonCT}},
			} {
				t.Run(tc.name, func(t *testing.T) {
					body := ""
					if tc.method == "POST" {
						body = `{"name":"x"}`
					}
					r := s.do(tc.method, tc.path, body, tc.header...)
					expectStatus(t, r, 403)
					var e struct{ Message string }
					r.json(t, &e)
					if e.Message != sudoRefused {
						t.Fatalf("message %q, want %q", e.Message, sudoRefused)
					}
				})
			}
		})

		t.Run("unknown user", func(t *testing.T) {
			for _, who := range []string{"ghost", "acme"} { // an organization is no user to act as
				r := s.do("GET", "/api/v1/user", "", append(asRoot, "Sudo", who)...)
				expectStatus(t, r, 404)
				if got := r.message(t); got != "The target couldn't be found." {
					t.Fatalf("sudo %s: %q", who, got)
				}
			}
		})

		t.Run("git smart HTTP has no sudo", func(t *testing.T) {
			// As in Gitea: the administrator reads a repository a stranger
			// could not see; the Sudo header changes nothing.
			r := s.do("GET", "/root/rootonly.git/info/refs?service=git-upload-pack", "",
				"Authorization", basic("root", rootPassword), "Sudo", "bob")
			expectStatus(t, r, 200)
		})

		t.Run("gRPC", func(t *testing.T) {
			ctx := t.Context()
			sudo := func(token, user string) context.Context {
				return metadata.AppendToOutgoingContext(withToken(ctx, token), "sudo", user)
			}
			users := usersv1.NewUserServiceClient(s.grpcConn())
			me, err := users.GetAuthenticatedUser(sudo(s.AdminToken, "alice"), &usersv1.GetAuthenticatedUserRequest{})
			if err != nil || me.GetUser().GetLogin() != "alice" {
				t.Fatalf("GetAuthenticatedUser under sudo: %v %v", me, err)
			}
			repos, err := reposv1.NewRepositoryServiceClient(s.grpcConn()).ListMyRepos(sudo(s.AdminToken, "alice"), &reposv1.ListMyReposRequest{})
			if err != nil || len(repos.GetRepositories()) != 1 || repos.GetRepositories()[0].GetFullName() != "alice/secret" {
				t.Fatalf("ListMyRepos under sudo: %v %v", repos, err)
			}
			issue, err := issuesv1.NewIssueServiceClient(s.grpcConn()).CreateIssue(sudo(s.AdminToken, "alice"),
				&issuesv1.CreateIssueRequest{Owner: "alice", Repo: "secret", Title: "by grpc sudo"})
			if err != nil || issue.GetIssue().GetUser().GetLogin() != "alice" {
				t.Fatalf("CreateIssue under sudo: %v %v", issue, err)
			}
			_, err = users.GetAuthenticatedUser(sudo(alice, "bob"), &usersv1.GetAuthenticatedUserRequest{})
			if st := status.Convert(err); st.Code() != codes.PermissionDenied || st.Message() != sudoRefused {
				t.Fatalf("non-admin sudo over gRPC: %v", err)
			}
			_, err = users.GetAuthenticatedUser(sudo(s.AdminToken, "ghost"), &usersv1.GetAuthenticatedUserRequest{})
			if status.Code(err) != codes.NotFound {
				t.Fatalf("sudo to an unknown user over gRPC: %v", err)
			}
		})
	})
}
