package app_test

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"forge/services/store"
)

// The access checker caches what resolving a repository reads, the
// owner's row and the repository's (services/access cache.go). These
// tests warm that cache, anonymously and with a token, by name and by id,
// change the repository or its owner, through the API or through a second
// store on the same database (another forge process, the command line),
// and expect the very next request to see the change, on SQLite and
// PostgreSQL.

type repoSeen struct {
	ID       int64
	Name     string
	FullName string `json:"full_name"`
	Private  bool
	Owner    struct {
		Login string
	}
	OpenIssues int `json:"open_issues_count"`
	Watchers   int `json:"watchers_count"`
}

func TestResolveCacheInvalidation(t *testing.T) {
	t.Parallel()
	eachBackend(t, nil, func(t *testing.T, s *testServer) {
		ctx := context.Background()
		other, err := store.Open(s.Cfg.Database)
		if err != nil {
			t.Fatal(err)
		}
		defer other.Close()
		owner := s.seedUser("rowner", "rowner-password-1", false)
		reader := s.seedUser("reader", "reader-password-1", false)

		get := func(path, token string) response {
			if token == "" {
				return s.do("GET", path, "")
			}
			return s.do("GET", path, "", "Authorization", "token "+token)
		}
		// warm reads each path twice, as reader and, but by id (which
		// needs a token), anonymously.
		warm := func(t *testing.T, want int, paths ...string) {
			t.Helper()
			for _, p := range paths {
				for i := 0; i < 2; i++ {
					if !strings.HasPrefix(p, "/api/v1/repositories/") {
						expectStatus(t, get(p, ""), want)
					}
					expectStatus(t, get(p, reader), want)
				}
			}
		}
		// seen is the repository at path, as the next request sees it.
		seen := func(t *testing.T, path, token string, want int) repoSeen {
			t.Helper()
			r := get(path, token)
			expectStatus(t, r, want)
			var out repoSeen
			if want == 200 {
				r.json(t, &out)
			}
			return out
		}
		newRepo := func(t *testing.T, ownerToken, login, name string) (path, byID string, id int64) {
			t.Helper()
			s.createRepo(t, ownerToken, name, false, false)
			path = "/api/v1/repos/" + login + "/" + name
			id = seen(t, path, ownerToken, 200).ID
			byID = "/api/v1/repositories/" + strconv.FormatInt(id, 10)
			warm(t, 200, path, byID)
			return path, byID, id
		}
		ownerDo := func(t *testing.T, method, path, body string, want int) {
			t.Helper()
			expectStatus(t, s.do(method, path, body, "Authorization", "token "+owner, "Content-Type", jsonCT), want)
		}

		t.Run("made private", func(t *testing.T) {
			path, byID, _ := newRepo(t, owner, "rowner", "vis")
			ownerDo(t, "PATCH", path, `{"private":true}`, 200)
			expectStatus(t, get(path, ""), 404)
			for _, p := range []string{path, byID} {
				expectStatus(t, get(p, reader), 404)
			}
			if r := seen(t, byID, owner, 200); !r.Private {
				t.Fatalf("owner sees %+v", r)
			}
		})
		t.Run("made private by another process", func(t *testing.T) {
			path, byID, id := newRepo(t, owner, "rowner", "vis2")
			if _, err := other.UpdateRepository(ctx, id, func(r *store.Repository) error { r.IsPrivate = true; return nil }); err != nil {
				t.Fatal(err)
			}
			expectStatus(t, get(path, ""), 404)
			for _, p := range []string{path, byID} {
				expectStatus(t, get(p, reader), 404)
			}
		})
		t.Run("renamed", func(t *testing.T) {
			path, byID, _ := newRepo(t, owner, "rowner", "old")
			ownerDo(t, "PATCH", path, `{"name":"new"}`, 200)
			expectStatus(t, get(path, ""), 404)
			expectStatus(t, get(path, reader), 404)
			if r := seen(t, "/api/v1/repos/rowner/new", "", 200); r.FullName != "rowner/new" {
				t.Fatalf("by the new name: %+v", r)
			}
			if r := seen(t, byID, reader, 200); r.FullName != "rowner/new" {
				t.Fatalf("by id: %+v", r)
			}
		})
		t.Run("renamed by another process", func(t *testing.T) {
			path, byID, id := newRepo(t, owner, "rowner", "old2")
			if _, err := other.UpdateRepository(ctx, id, func(r *store.Repository) error { r.Name = "new2"; return nil }); err != nil {
				t.Fatal(err)
			}
			expectStatus(t, get(path, ""), 404)
			if r := seen(t, byID, reader, 200); r.FullName != "rowner/new2" {
				t.Fatalf("by id: %+v", r)
			}
		})
		t.Run("transferred by another process", func(t *testing.T) {
			path, byID, id := newRepo(t, owner, "rowner", "moved")
			to, err := other.UserByName(ctx, "reader")
			if err != nil {
				t.Fatal(err)
			}
			if _, err := other.UpdateRepository(ctx, id, func(r *store.Repository) error {
				r.OwnerID, r.OwnerName = to.ID, to.Name
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			expectStatus(t, get(path, ""), 404)
			if r := seen(t, "/api/v1/repos/reader/moved", "", 200); r.Owner.Login != "reader" {
				t.Fatalf("at the new owner: %+v", r)
			}
			if r := seen(t, byID, owner, 200); r.FullName != "reader/moved" {
				t.Fatalf("by id: %+v", r)
			}
		})
		t.Run("deleted", func(t *testing.T) {
			path, byID, _ := newRepo(t, owner, "rowner", "doomed")
			ownerDo(t, "DELETE", path, "", 204)
			expectStatus(t, get(path, ""), 404)
			for _, p := range []string{path, byID} {
				expectStatus(t, get(p, reader), 404)
			}
		})
		t.Run("deleted by another process", func(t *testing.T) {
			path, byID, id := newRepo(t, owner, "rowner", "doomed2")
			// The row alone (the other store has no areas declared to
			// delete what the repository owns).
			if err := other.DB().WithContext(ctx).Exec("DELETE FROM repositories WHERE id = ?", id).Error; err != nil {
				t.Fatal(err)
			}
			expectStatus(t, get(path, ""), 404)
			expectStatus(t, get(byID, reader), 404)
		})
		t.Run("issues turned off", func(t *testing.T) {
			path, _, _ := newRepo(t, owner, "rowner", "units")
			warm(t, 200, path+"/issues")
			ownerDo(t, "PATCH", path, `{"has_issues":false}`, 200)
			if r := get(path+"/issues", reader); r.Status == 200 {
				t.Fatalf("issues of a repository without issues: %d %s", r.Status, r.Body)
			}
		})
		t.Run("owner made private", func(t *testing.T) {
			tok := s.seedUser("hider", "hider-password-1", false)
			path, byID, _ := newRepo(t, tok, "hider", "shown")
			s.adminDo(t, "PATCH", "/api/v1/admin/users/hider", `{"visibility":"private"}`, 200)
			expectStatus(t, get(path, ""), 404)
			for _, p := range []string{path, byID} {
				expectStatus(t, get(p, reader), 404)
			}
		})
		t.Run("owner deleted", func(t *testing.T) {
			tok := s.seedUser("leaver", "leaver-password-1", false)
			path, byID, _ := newRepo(t, tok, "leaver", "left")
			s.adminDo(t, "DELETE", "/api/v1/admin/users/leaver?purge=true", "", 204)
			expectStatus(t, get(path, ""), 404)
			for _, p := range []string{path, byID} {
				expectStatus(t, get(p, reader), 404)
			}
		})
		t.Run("collaborator changed by another process", func(t *testing.T) {
			ownerDo(t, "POST", "/api/v1/user/repos", `{"name":"shared","private":true}`, 201)
			path := "/api/v1/repos/rowner/shared"
			ownerDo(t, "PUT", path+"/collaborators/reader", `{"permission":"read"}`, 204)
			id := seen(t, path, owner, 200).ID
			r, err := other.UserByName(ctx, "reader")
			if err != nil {
				t.Fatal(err)
			}
			for i := 0; i < 2; i++ {
				expectStatus(t, get(path+"/labels", reader), 200)
			}
			expectStatus(t, s.do("POST", path+"/labels", `{"name":"x","color":"#00aabb"}`, "Authorization", "token "+reader, "Content-Type", jsonCT), 403)
			if err := other.SetCollaborator(ctx, id, r.ID, store.AccessWrite); err != nil {
				t.Fatal(err)
			}
			expectStatus(t, s.do("POST", path+"/labels", `{"name":"x","color":"#00aabb"}`, "Authorization", "token "+reader, "Content-Type", jsonCT), 201)
			if err := other.DeleteCollaborator(ctx, id, r.ID); err != nil {
				t.Fatal(err)
			}
			expectStatus(t, get(path+"/labels", reader), 404)
		})
		t.Run("team changed", func(t *testing.T) {
			ownerDo(t, "POST", "/api/v1/orgs", `{"username":"rorg"}`, 201)
			ownerDo(t, "POST", "/api/v1/orgs/rorg/repos", `{"name":"tr","private":true}`, 201)
			r := s.do("POST", "/api/v1/orgs/rorg/teams", `{"name":"readers","permission":"read","units_map":{"repo.code":"read","repo.issues":"read"}}`,
				"Authorization", "token "+owner, "Content-Type", jsonCT)
			expectStatus(t, r, 201)
			var team struct{ ID int64 }
			r.json(t, &team)
			teamPath := "/api/v1/teams/" + strconv.FormatInt(team.ID, 10)
			ownerDo(t, "PUT", teamPath+"/members/reader", "", 204)
			ownerDo(t, "PUT", teamPath+"/repos/rorg/tr", "", 204)
			issues := "/api/v1/repos/rorg/tr/issues"
			for i := 0; i < 2; i++ {
				expectStatus(t, get(issues, reader), 200)
			}
			ownerDo(t, "PATCH", teamPath, `{"name":"readers","units_map":{"repo.code":"read"}}`, 200)
			if r := get(issues, reader); r.Status == 200 {
				t.Fatalf("issues after the team lost them: %d %s", r.Status, r.Body)
			}
			for i := 0; i < 2; i++ {
				expectStatus(t, get("/api/v1/repos/rorg/tr", reader), 200)
			}
			ownerDo(t, "DELETE", teamPath+"/members/reader", "", 204)
			expectStatus(t, get("/api/v1/repos/rorg/tr", reader), 404)
		})
		t.Run("counters are fresh", func(t *testing.T) {
			// The issue and watch writes do not invalidate the cache: the
			// counters are read afresh on every request.
			path, byID, _ := newRepo(t, owner, "rowner", "counted")
			ownerDo(t, "POST", path+"/issues", `{"title":"one"}`, 201)
			expectStatus(t, s.do("PUT", path+"/subscription", "", "Authorization", "token "+reader), 200)
			for _, p := range []string{path, byID} {
				if r := seen(t, p, reader, 200); r.OpenIssues != 1 || r.Watchers != 2 {
					t.Fatalf("%s: %+v, want 1 open issue and 2 watchers", p, r)
				}
			}
		})
	})
}
