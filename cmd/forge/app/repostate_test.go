package app_test

import (
	"strings"
	"testing"
)

// TestRepositoryShowsMirrorAndReleaseState: GET repository carries the
// mirror's interval and last sync, PATCH changes the interval, and
// release_counter counts published releases.
func TestRepositoryShowsMirrorAndReleaseState(t *testing.T) {
	s := startServer(t, "sqlite3", allowLocal)
	tok := s.seedUser("alice", "alice-password", false)
	auth := []string{"Authorization", "token " + tok, "Content-Type", jsonCT}
	s.createRepo(t, tok, "source", true, false)
	r := s.do("POST", "/api/v1/repos/migrate", `{"clone_addr":"`+s.URL+`/alice/source.git","repo_name":"copy","mirror":true}`, auth...)
	expectStatus(t, r, 201)

	r = s.do("GET", "/api/v1/repos/alice/copy", "", auth...)
	expectStatus(t, r, 200)
	if !strings.Contains(string(r.Body), `"mirror_interval":"8h0m0s"`) || strings.Contains(string(r.Body), `"mirror_updated":"0001-01-01T00:00:00Z"`) {
		t.Fatalf("mirror state missing: %s", r.Body)
	}
	r = s.do("PATCH", "/api/v1/repos/alice/copy", `{"mirror_interval":"1h"}`, auth...)
	expectStatus(t, r, 200)
	if !strings.Contains(string(r.Body), `"mirror_interval":"1h0m0s"`) {
		t.Fatalf("PATCH mirror_interval: %s", r.Body)
	}
	expectStatus(t, s.do("PATCH", "/api/v1/repos/alice/copy", `{"mirror_interval":"1m"}`, auth...), 422)
	expectStatus(t, s.do("PATCH", "/api/v1/repos/alice/copy", `{"mirror_interval":"soon"}`, auth...), 422)

	r = s.do("GET", "/api/v1/repos/alice/source", "", auth...)
	if !strings.Contains(string(r.Body), `"release_counter":0`) || !strings.Contains(string(r.Body), `"mirror_interval":""`) {
		t.Fatalf("plain repository: %s", r.Body)
	}
	expectStatus(t, s.do("POST", "/api/v1/repos/alice/source/releases", `{"tag_name":"v1","name":"one"}`, auth...), 201)
	expectStatus(t, s.do("POST", "/api/v1/repos/alice/source/releases", `{"tag_name":"v2","draft":true}`, auth...), 201)
	r = s.do("GET", "/api/v1/repos/alice/source", "", auth...)
	if !strings.Contains(string(r.Body), `"release_counter":1`) {
		t.Fatalf("release_counter after one release and one draft: %s", r.Body)
	}
}

// TestRepositoryCountersAfterWrites: the repository GET (by name and by
// id), served from the resolved-repository cache once warm, shows the
// release, star and issue counts of writes made since, on each backend.
func TestRepositoryCountersAfterWrites(t *testing.T) {
	t.Parallel()
	eachBackend(t, nil, func(t *testing.T, s *testServer) {
		tok := s.seedUser("alice", "alice-password", false)
		auth := []string{"Authorization", "token " + tok, "Content-Type", jsonCT}
		s.createRepo(t, tok, "source", true, false)
		var id string
		for i := 0; i < 2; i++ { // the second is served from the cache
			r := s.do("GET", "/api/v1/repos/alice/source", "", auth...)
			expectStatus(t, r, 200)
			if !strings.Contains(string(r.Body), `"release_counter":0`) || !strings.Contains(string(r.Body), `"stars_count":0`) {
				t.Fatalf("new repository: %s", r.Body)
			}
			id = jsonField(t, r, "id")
		}
		r := s.do("POST", "/api/v1/repos/alice/source/releases", `{"tag_name":"v1","name":"one"}`, auth...)
		expectStatus(t, r, 201)
		rel := jsonField(t, r, "id")
		expectStatus(t, s.do("POST", "/api/v1/repos/alice/source/releases", `{"tag_name":"v2","draft":true}`, auth...), 201)
		expectStatus(t, s.do("PUT", "/api/v1/user/starred/alice/source", "", auth...), 204)
		expectStatus(t, s.do("POST", "/api/v1/repos/alice/source/issues", `{"title":"a bug"}`, auth...), 201)
		for _, path := range []string{"/api/v1/repos/alice/source", "/api/v1/repositories/" + id} {
			r = s.do("GET", path, "", auth...)
			expectStatus(t, r, 200)
			for _, want := range []string{`"release_counter":1`, `"stars_count":1`, `"open_issues_count":1`} {
				if !strings.Contains(string(r.Body), want) {
					t.Fatalf("%s after a release, a draft, a star and an issue: no %s in %s", path, want, r.Body)
				}
			}
		}
		expectStatus(t, s.do("DELETE", "/api/v1/repos/alice/source/releases/"+rel, "", auth...), 204)
		r = s.do("GET", "/api/v1/repos/alice/source", "", auth...)
		if !strings.Contains(string(r.Body), `"release_counter":0`) {
			t.Fatalf("release_counter after the release's deletion: %s", r.Body)
		}
	})
}
