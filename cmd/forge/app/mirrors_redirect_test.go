package app_test

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestMigrateDoesNotFollowRedirects: a remote that redirects elsewhere is
// not followed, so a public host cannot send the clone to an address the
// host check would refuse.
func TestMigrateDoesNotFollowRedirects(t *testing.T) {
	s := startServer(t, "sqlite3", allowLocal)
	tok := s.seedUser("alice", "alice-password", false)
	s.createRepo(t, tok, "target", true, false)
	redirector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, s.URL+"/alice/target.git"+r.URL.Path[len("/x.git"):]+"?"+r.URL.RawQuery, http.StatusFound)
	}))
	defer redirector.Close()
	body := `{"clone_addr":"` + redirector.URL + `/x.git","repo_name":"copy","mirror":true}`
	r := s.do("POST", "/api/v1/repos/migrate", body, "Authorization", "token "+tok, "Content-Type", jsonCT)
	if r.Status == 201 {
		t.Fatal("the clone followed a redirect")
	}
	expectStatus(t, r, 422)
	expectStatus(t, s.do("GET", "/api/v1/repos/alice/copy", "", "Authorization", "token "+tok), 404)
}
