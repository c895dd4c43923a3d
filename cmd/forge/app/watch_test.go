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
	t.Parallel()
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

// TestWatchREST: the WatchInfo is dated with the repository's creation, and
// GET answers what PUT did. (The subscription rules are cases in
// testdata/cases/watch.yaml.)
func TestWatchREST(t *testing.T) {
	s := startServer(t, "sqlite3", nil)
	aliceTok := s.seedUser("alice", "alice-password", false)
	bobTok := s.seedUser("bob", "bob-password", false)
	s.createRepo(t, aliceTok, "proj", false, false)
	const path = "/api/v1/repos/alice/proj/subscription"
	bob := []string{"Authorization", "token " + bobTok}

	put := s.do("PUT", path, "", bob...)
	expectStatus(t, put, 200)
	var info map[string]any
	put.json(t, &info)
	var repo struct {
		CreatedAt time.Time `json:"created_at"`
	}
	s.do("GET", "/api/v1/repos/alice/proj", "").json(t, &repo)
	created, _ := time.Parse(time.RFC3339, info["created_at"].(string))
	if !created.Equal(repo.CreatedAt) {
		t.Fatalf("WatchInfo: %s (repository created %v)", put.Body, repo.CreatedAt)
	}
	get := s.do("GET", path, "", bob...)
	expectStatus(t, get, 200)
	if string(get.Body) != string(put.Body) {
		t.Fatalf("GET %s, PUT %s", get.Body, put.Body)
	}
}

// Concurrent watch and unwatch calls over HTTP leave watchers_count equal
// to the number of subscribers.
func TestWatchCountUnderConcurrency(t *testing.T) {
	t.Parallel()
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
