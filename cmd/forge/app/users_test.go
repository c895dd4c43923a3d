package app_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"code.gitea.io/sdk/gitea"
)

func ptr[T any](v T) *T { return &v }

// TestAdminUserLifecycleSDK drives user management with the official SDK.
func TestAdminUserLifecycleSDK(t *testing.T) {
	t.Parallel()
	eachBackend(t, nil, func(t *testing.T, s *testServer) {
		admin := s.sdk(gitea.SetToken(s.AdminToken))
		me, _, err := admin.GetMyUserInfo()
		if err != nil || me.UserName != "root" || !me.IsAdmin {
			t.Fatalf("GetMyUserInfo: %+v %v", me, err)
		}

		u, resp, err := admin.AdminCreateUser(gitea.CreateUserOption{
			Username: "alice", Email: "alice@example.org", Password: "alice-password", FullName: "Alice A",
			MustChangePassword: ptr(false),
		})
		if err != nil || resp.StatusCode != http.StatusCreated {
			t.Fatalf("AdminCreateUser: %v (%v)", err, resp)
		}
		if u.UserName != "alice" || u.FullName != "Alice A" || u.Email != "alice@example.org" || !u.IsActive || u.IsAdmin {
			t.Fatalf("created user: %+v", u)
		}

		// Duplicate names and e-mails (any case) are 422.
		_, resp, err = admin.AdminCreateUser(gitea.CreateUserOption{Username: "ALICE", Email: "x@example.org", Password: "long-enough", MustChangePassword: ptr(false)})
		if err == nil || resp.StatusCode != http.StatusUnprocessableEntity {
			t.Fatalf("duplicate name: %v %v", err, resp)
		}

		list, resp, err := admin.AdminListUsers(gitea.AdminListUsersOptions{})
		if err != nil || len(list) != 2 || list[0].UserName != "alice" || list[1].UserName != "root" {
			t.Fatalf("AdminListUsers: %v %v", names(list), err)
		}
		if resp.Header.Get("X-Total-Count") != "2" {
			t.Fatalf("X-Total-Count %q", resp.Header.Get("X-Total-Count"))
		}

		// Alice signs in with her password (Basic), makes a token, uses it.
		alice := s.sdk(gitea.SetBasicAuth("alice", "alice-password"))
		tok, resp, err := alice.CreateAccessToken(gitea.CreateAccessTokenOption{Name: "laptop", Scopes: []gitea.AccessTokenScope{"read:user"}})
		if err != nil || resp.StatusCode != http.StatusCreated || len(tok.Token) != 40 || tok.TokenLastEight != tok.Token[32:] {
			t.Fatalf("CreateAccessToken: %+v %v", tok, err)
		}
		aliceTok := s.sdk(gitea.SetToken(tok.Token))
		if me, _, err := aliceTok.GetMyUserInfo(); err != nil || me.UserName != "alice" {
			t.Fatalf("token of alice: %+v %v", me, err)
		}
		tokens, _, err := alice.ListAccessTokens(gitea.ListAccessTokensOptions{})
		if err != nil || len(tokens) != 1 || tokens[0].Name != "laptop" || tokens[0].Token != "" ||
			len(tokens[0].Scopes) != 1 || tokens[0].Scopes[0] != "read:user" {
			t.Fatalf("ListAccessTokens: %+v %v", tokens, err)
		}

		// Edit: the SDK always sends login_name (empty means unchanged) and
		// a null visibility.
		_, err = admin.AdminEditUser("alice", gitea.EditUserOption{FullName: ptr("Alice B"), Location: ptr("Berlin")})
		if err != nil {
			t.Fatalf("AdminEditUser: %v", err)
		}
		got, _, err := admin.GetUserInfo("alice")
		if err != nil || got.FullName != "Alice B" || got.Location != "Berlin" {
			t.Fatalf("after edit: %+v %v", got, err)
		}

		// The SDK pages /user/emails; forge answers the one address.
		emails, _, err := aliceTok.ListEmails(gitea.ListEmailsOptions{})
		if err != nil || len(emails) != 1 || !emails[0].Primary || !emails[0].Verified || emails[0].Email != got.Email {
			t.Fatalf("ListEmails: %+v %v", emails, err)
		}

		found, _, err := aliceTok.SearchUsers(gitea.SearchUsersOption{KeyWord: "lic"})
		if err != nil || len(found) != 1 || found[0].UserName != "alice" {
			t.Fatalf("SearchUsers: %v %v", names(found), err)
		}

		if _, err := alice.DeleteAccessToken("laptop"); err != nil {
			t.Fatalf("DeleteAccessToken by name: %v", err)
		}
		// Revocation takes effect on the next request.
		if _, resp, err := aliceTok.GetMyUserInfo(); err == nil || resp.StatusCode != http.StatusUnauthorized {
			t.Fatalf("revoked token still works: %v %v", err, resp)
		}

		if resp, err := admin.AdminDeleteUser("alice"); err != nil || resp.StatusCode != http.StatusNoContent {
			t.Fatalf("AdminDeleteUser: %v %v", err, resp)
		}
		if _, resp, err := admin.GetUserInfo("alice"); err == nil || resp.StatusCode != http.StatusNotFound {
			t.Fatalf("deleted user: %v %v", err, resp)
		}
	})
}

func names(us []*gitea.User) []string {
	var out []string
	for _, u := range us {
		out = append(out, u.UserName)
	}
	return out
}

// TestUserJSONShape checks the exact wire form clients parse.
func TestUserJSONShape(t *testing.T) {
	s := startServer(t, "sqlite3", nil)
	r := s.do("GET", "/api/v1/user", "", "Authorization", "token "+s.AdminToken)
	expectStatus(t, r, 200)
	if ct := r.Header.Get("Content-Type"); ct != "application/json;charset=utf-8" {
		t.Fatalf("content type %q", ct)
	}
	body := string(r.Body)
	for _, want := range []string{`{"id":1,"login":"root","login_name":"","source_id":0,`, `"is_admin":true,`,
		`"last_login":"1970-01-01T00:00:00Z"`, `"followers_count":0,`, `"username":"root"}`} {
		if !strings.Contains(body, want) {
			t.Errorf("body lacks %s: %s", want, body)
		}
	}
	if !strings.HasSuffix(body, "}\n") {
		t.Errorf("no trailing newline: %q", body)
	}
	var u struct {
		Created string `json:"created"`
	}
	r.json(t, &u)
	if _, err := time.Parse(time.RFC3339, u.Created); err != nil || strings.Contains(u.Created, ".") {
		t.Errorf("created %q is not RFC 3339 with second precision", u.Created)
	}

	// Anonymous callers see zeroed private fields and a no-reply e-mail.
	r = s.do("GET", "/api/v1/users/root", "")
	expectStatus(t, r, 200)
	var anon struct {
		Email     string `json:"email"`
		IsAdmin   bool   `json:"is_admin"`
		LastLogin string `json:"last_login"`
	}
	r.json(t, &anon)
	if anon.Email != "root@noreply.127.0.0.1" || anon.IsAdmin || anon.LastLogin != "0001-01-01T00:00:00Z" {
		t.Errorf("anonymous view: %+v", anon)
	}

	// Search wraps results; lists are bare arrays.
	r = s.do("GET", "/api/v1/users/search?q=ro", "")
	if !strings.HasPrefix(string(r.Body), `{"ok":true,"data":[{"id":1,`) || strings.Contains(string(r.Body), "total_count") {
		t.Errorf("search body: %s", r.Body)
	}
	r = s.do("GET", "/api/v1/admin/users", "", "Authorization", "token "+s.AdminToken)
	if !strings.HasPrefix(string(r.Body), `[{"id":1,`) {
		t.Errorf("list body: %s", r.Body)
	}
}

// The admin create rules and the last-administrator rule are cases in
// testdata/cases/users.yaml.

// TestFormEncodedBody: Gitea accepts form-encoded option bodies too.
func TestFormEncodedBody(t *testing.T) {
	s := startServer(t, "sqlite3", nil)
	s.seedUser("alice", "alice-password", false)
	r := s.do("POST", "/api/v1/users/alice/tokens", "name=from-form&scopes=read:user",
		"Authorization", basic("alice", "alice-password"), "Content-Type", "application/x-www-form-urlencoded")
	expectStatus(t, r, 201)
	r = s.do("GET", "/api/v1/users/alice/tokens", "", "Authorization", basic("alice", "alice-password"))
	if !strings.Contains(string(r.Body), `"name":"from-form","sha1":"","token_last_eight"`) || !strings.Contains(string(r.Body), `"scopes":["read:user"]`) {
		t.Fatalf("token from a form body: %s", r.Body)
	}
	r = s.do("POST", "/api/v1/users/alice/tokens", `{"name":"x"}`, "Authorization", basic("alice", "alice-password"), "Content-Type", "text/plain")
	expectStatus(t, r, 422)
	if r.message(t) != "[]: Unsupported Content-Type" {
		t.Fatalf("message %s", r.Body)
	}
}
