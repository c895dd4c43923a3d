package app_test

import (
	"net/http"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"code.gitea.io/sdk/gitea"
)

func repoNames(rs []*gitea.Repository) string {
	var out []string
	for _, r := range rs {
		out = append(out, r.FullName)
	}
	sort.Strings(out)
	return strings.Join(out, " ")
}

func TestWatchSDK(t *testing.T) {
	eachBackend(t, nil, func(t *testing.T, s *testServer) {
		aliceTok := s.seedUser("alice", "alice-password", false)
		bobTok := s.seedUser("bob", "bob-password", false)
		alice := s.sdk(gitea.SetToken(aliceTok))
		bob := s.sdk(gitea.SetToken(bobTok))
		anon := s.sdk()
		s.createRepo(t, aliceTok, "proj", false, false)
		s.createRepo(t, aliceTok, "secret", false, true)

		// The creator watches; bob does not yet.
		if w, _, err := alice.CheckRepoWatch("alice", "proj"); err != nil || !w {
			t.Fatalf("creator watching: %v %v", w, err)
		}
		if w, _, err := bob.CheckRepoWatch("alice", "proj"); err != nil || w {
			t.Fatalf("bob watching before WatchRepo: %v %v", w, err)
		}
		for range 2 { // idempotent
			if _, err := bob.WatchRepo("alice", "proj"); err != nil {
				t.Fatalf("WatchRepo: %v", err)
			}
		}
		if w, _, err := bob.CheckRepoWatch("alice", "proj"); err != nil || !w {
			t.Fatalf("bob not watching after WatchRepo: %v %v", w, err)
		}
		repo, _, err := anon.GetRepo("alice", "proj")
		if err != nil || repo.Watchers != 2 {
			t.Fatalf("watchers_count %d, want 2 (%v)", repo.Watchers, err)
		}
		subs, resp, err := anon.ListRepoSubscribers("alice", "proj", gitea.ListOptions{})
		if err != nil || len(subs) != 2 || resp.Header.Get("X-Total-Count") != "2" {
			t.Fatalf("ListRepoSubscribers: %d %v", len(subs), err)
		}

		// Watching a private repository needs access (404 otherwise), and it
		// drops out of the list when access is gone.
		if _, err := bob.WatchRepo("alice", "secret"); err == nil {
			t.Fatal("bob watched an invisible repository")
		}
		if _, err := alice.AddCollaborator("alice", "secret", "bob", gitea.AddCollaboratorOption{Permission: ptr(gitea.AccessModeRead)}); err != nil {
			t.Fatal(err)
		}
		if _, err := bob.WatchRepo("alice", "secret"); err != nil {
			t.Fatal(err)
		}
		mine, _, err := bob.GetMyWatchedRepos()
		if err != nil || repoNames(mine) != "alice/proj alice/secret" {
			t.Fatalf("bob's subscriptions: %s %v", repoNames(mine), err)
		}
		if _, err := alice.DeleteCollaborator("alice", "secret", "bob"); err != nil {
			t.Fatal(err)
		}
		mine, _, _ = bob.GetMyWatchedRepos()
		if repoNames(mine) != "alice/proj" {
			t.Fatalf("bob's subscriptions after losing access: %s", repoNames(mine))
		}
		theirs, _, err := anon.GetWatchedRepos("alice")
		if err != nil || repoNames(theirs) != "alice/proj" {
			t.Fatalf("alice's subscriptions seen anonymously: %s %v", repoNames(theirs), err)
		}
		theirs, _, _ = alice.GetWatchedRepos("alice")
		if repoNames(theirs) != "alice/proj alice/secret" {
			t.Fatalf("alice's own subscriptions: %s", repoNames(theirs))
		}

		for range 2 {
			if _, err := bob.UnWatchRepo("alice", "proj"); err != nil {
				t.Fatalf("UnWatchRepo: %v", err)
			}
		}
		if w, _, _ := bob.CheckRepoWatch("alice", "proj"); w {
			t.Fatal("still watching after UnWatchRepo")
		}
		if repo, _, _ := anon.GetRepo("alice", "proj"); repo.Watchers != 1 {
			t.Fatalf("watchers_count %d, want 1", repo.Watchers)
		}
	})
}

func TestWatchREST(t *testing.T) {
	s := startServer(t, "sqlite3", nil)
	aliceTok := s.seedUser("alice", "alice-password", false)
	bobTok := s.seedUser("bob", "bob-password", false)
	s.createRepo(t, aliceTok, "proj", false, false)
	const path = "/api/v1/repos/alice/proj/subscription"
	bob := []string{"Authorization", "token " + bobTok}

	// Anonymous: 401 on every subscription endpoint.
	for _, m := range []string{"GET", "PUT", "DELETE"} {
		if r := s.do(m, path, ""); r.Status != 401 || r.message(t) != "token is required" {
			t.Fatalf("anonymous %s: %d %s", m, r.Status, r.Body)
		}
	}
	// Not watching: 404 with a Gitea error body.
	if r := s.do("GET", path, "", bob...); r.Status != 404 || r.message(t) != "The target couldn't be found." {
		t.Fatalf("not watching: %d %s", r.Status, r.Body)
	}
	// PUT without a body or Content-Type: 200 WatchInfo.
	put := s.do("PUT", path, "", bob...)
	expectStatus(t, put, 200)
	var info map[string]any
	put.json(t, &info)
	var repo struct {
		CreatedAt time.Time `json:"created_at"`
	}
	s.do("GET", "/api/v1/repos/alice/proj", "").json(t, &repo)
	created, _ := time.Parse(time.RFC3339, info["created_at"].(string))
	if info["subscribed"] != true || info["ignored"] != false || info["reason"] != nil || !created.Equal(repo.CreatedAt) ||
		info["url"] != s.URL+path || info["repository_url"] != s.URL+"/api/v1/repos/alice/proj" {
		t.Fatalf("WatchInfo: %s (repository created %v)", put.Body, repo.CreatedAt)
	}
	if _, ok := info["reason"]; !ok {
		t.Fatalf("reason missing (want null): %s", put.Body)
	}
	get := s.do("GET", path, "", bob...)
	expectStatus(t, get, 200)
	if string(get.Body) != string(put.Body) {
		t.Fatalf("GET %s, PUT %s", get.Body, put.Body)
	}
	// PUT with a JSON body is fine too (ignored).
	expectStatus(t, s.do("PUT", path, `{}`, "Authorization", "token "+bobTok, "Content-Type", jsonCT), 200)
	// Unknown repository: 404.
	expectStatus(t, s.do("PUT", "/api/v1/repos/alice/nope/subscription", "", bob...), 404)
	del := s.do("DELETE", path, "", bob...)
	if del.Status != 204 || len(del.Body) != 0 {
		t.Fatalf("DELETE: %d %q", del.Status, del.Body)
	}
	expectStatus(t, s.do("DELETE", path, "", bob...), 204)
	expectStatus(t, s.do("GET", path, "", bob...), 404)

	// /user/subscriptions needs a token; lists are arrays with X-Total-Count.
	expectStatus(t, s.do("GET", "/api/v1/user/subscriptions", ""), 401)
	mine := s.do("GET", "/api/v1/user/subscriptions", "", "Authorization", "token "+aliceTok)
	expectStatus(t, mine, 200)
	var list []map[string]any
	mine.json(t, &list)
	if len(list) != 1 || list[0]["full_name"] != "alice/proj" || mine.Header.Get("X-Total-Count") != "1" {
		t.Fatalf("alice's subscriptions: %s", mine.Body)
	}
	none := s.do("GET", "/api/v1/user/subscriptions", "", bob...)
	if strings.TrimSpace(string(none.Body)) != "[]" {
		t.Fatalf("empty subscriptions: %s", none.Body)
	}
	// A token without the repository scope may not list (user + repository).
	userOnly := s.createToken(t, "bob", "bob-password", "useronly", "read:user")
	if r := s.do("GET", "/api/v1/user/subscriptions", "", "Authorization", "token "+userOnly); r.Status != 403 {
		t.Fatalf("read:user token: %d %s", r.Status, r.Body)
	}
}

// Concurrent watch and unwatch calls over HTTP leave watchers_count equal
// to the number of subscribers.
func TestWatchCountUnderConcurrency(t *testing.T) {
	eachBackend(t, nil, func(t *testing.T, s *testServer) {
		aliceTok := s.seedUser("alice", "alice-password", false)
		s.createRepo(t, aliceTok, "proj", false, false)
		var toks []string
		for _, n := range []string{"u1", "u2", "u3", "u4", "u5"} {
			toks = append(toks, s.seedUser(n, n+"-password", false))
		}
		const path = "/api/v1/repos/alice/proj/subscription"
		var wg sync.WaitGroup
		for i := range 40 {
			tok := toks[i%len(toks)]
			method := "PUT"
			if i%3 == 0 {
				method = "DELETE"
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				req, _ := http.NewRequest(method, s.URL+path, nil)
				req.Header.Set("Authorization", "token "+tok)
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Error(err)
					return
				}
				resp.Body.Close()
				if resp.StatusCode != 200 && resp.StatusCode != 204 {
					t.Errorf("%s: %d", method, resp.StatusCode)
				}
			}()
		}
		wg.Wait()
		subs := s.do("GET", "/api/v1/repos/alice/proj/subscribers?limit=50", "")
		var users []any
		subs.json(t, &users)
		var repo struct {
			Watchers int `json:"watchers_count"`
		}
		s.do("GET", "/api/v1/repos/alice/proj", "").json(t, &repo)
		if repo.Watchers != len(users) || subs.Header.Get("X-Total-Count") != itoa(int64(len(users))) {
			t.Fatalf("watchers_count %d, subscribers %d (X-Total-Count %s)", repo.Watchers, len(users), subs.Header.Get("X-Total-Count"))
		}
	})
}
