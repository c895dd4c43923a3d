package app_test

import (
	"fmt"
	"net/http"
	"sync"
	"testing"

	"code.gitea.io/sdk/gitea"
)

func TestStarsSDK(t *testing.T) {
	t.Parallel()
	eachBackend(t, nil, func(t *testing.T, s *testServer) {
		aliceTok := s.seedUser("alice", "alice-password", false)
		bobTok := s.seedUser("bob", "bob-password", false)
		alice := s.sdk(gitea.SetToken(aliceTok))
		bob := s.sdk(gitea.SetToken(bobTok))
		anon := s.sdk()
		s.createRepo(t, aliceTok, "proj", false, false)
		s.createRepo(t, aliceTok, "secret", false, true)

		if on, _, err := bob.IsRepoStarring("alice", "proj"); err != nil || on {
			t.Fatalf("bob starring before StarRepo: %v %v", on, err)
		}
		for range 2 { // idempotent
			if _, err := bob.StarRepo("alice", "proj"); err != nil {
				t.Fatalf("StarRepo: %v", err)
			}
		}
		if _, err := alice.StarRepo("alice", "proj"); err != nil {
			t.Fatal(err)
		}
		if on, _, err := bob.IsRepoStarring("alice", "proj"); err != nil || !on {
			t.Fatalf("bob not starring after StarRepo: %v %v", on, err)
		}
		repo, _, err := anon.GetRepo("alice", "proj")
		if err != nil || repo.Stars != 2 {
			t.Fatalf("stars_count %d, want 2 (%v)", repo.Stars, err)
		}
		gazers, resp, err := anon.ListRepoStargazers("alice", "proj", gitea.ListStargazersOptions{ListOptions: gitea.ListOptions{Page: 1, PageSize: 1}})
		if err != nil || len(gazers) != 1 || gazers[0].UserName != "bob" || resp.Header.Get("X-Total-Count") != "2" {
			t.Fatalf("ListRepoStargazers: %v %v", gazers, err)
		}

		// Starring a private repository needs access (404 otherwise), and
		// it drops out of the lists when access is gone.
		if _, err := bob.StarRepo("alice", "secret"); err == nil {
			t.Fatal("bob starred an invisible repository")
		}
		if _, err := alice.AddCollaborator("alice", "secret", "bob", gitea.AddCollaboratorOption{Permission: ptr(gitea.AccessModeRead)}); err != nil {
			t.Fatal(err)
		}
		if _, err := bob.StarRepo("alice", "secret"); err != nil {
			t.Fatal(err)
		}
		mine, _, err := bob.GetMyStarredRepos()
		if err != nil || repoNames(mine) != "alice/proj alice/secret" {
			t.Fatalf("bob's stars: %s %v", repoNames(mine), err)
		}
		theirs, _, err := anon.GetStarredRepos("bob")
		if err != nil || repoNames(theirs) != "alice/proj" {
			t.Fatalf("bob's stars as anonymous: %s %v", repoNames(theirs), err)
		}
		if _, err := alice.DeleteCollaborator("alice", "secret", "bob"); err != nil {
			t.Fatal(err)
		}
		mine, _, _ = bob.GetMyStarredRepos()
		if repoNames(mine) != "alice/proj" {
			t.Fatalf("bob's stars after losing access: %s", repoNames(mine))
		}

		// starred_repos_count counts every star, as Gitea's counter: also
		// the one on alice/secret that bob can no longer see.
		if u, _, err := anon.GetUserInfo("bob"); err != nil || u.StarredRepoCount != 2 {
			t.Fatalf("bob's starred_repos_count: %+v %v", u, err)
		}
		for range 2 {
			if _, err := bob.UnStarRepo("alice", "proj"); err != nil {
				t.Fatalf("UnStarRepo: %v", err)
			}
		}
		if on, _, err := bob.IsRepoStarring("alice", "proj"); err != nil || on {
			t.Fatalf("bob starring after UnStarRepo: %v %v", on, err)
		}
		repo, _, _ = anon.GetRepo("alice", "proj")
		if repo.Stars != 1 {
			t.Fatalf("stars_count %d after unstar, want 1", repo.Stars)
		}

		// A user who goes takes their stars with them.
		if _, err := bob.StarRepo("alice", "proj"); err != nil {
			t.Fatal(err)
		}
		if _, err := s.sdk(gitea.SetToken(s.AdminToken)).AdminDeleteUser("bob"); err != nil {
			t.Fatal(err)
		}
		repo, _, _ = anon.GetRepo("alice", "proj")
		if repo.Stars != 1 {
			t.Fatalf("stars_count %d after the stargazer went, want 1", repo.Stars)
		}
	})
}

func TestStarsREST(t *testing.T) {
	t.Parallel()
	eachBackend(t, nil, func(t *testing.T, s *testServer) {
		aliceTok := s.seedUser("alice", "alice-password", false)
		bobTok := s.seedUser("bob", "bob-password", false)
		s.createRepo(t, aliceTok, "proj", false, false)
		s.createRepo(t, aliceTok, "secret", false, true)
		auth := []string{"Authorization", "token " + bobTok}
		expectStatus(t, s.do("GET", "/api/v1/user/starred/alice/proj", "", auth...), http.StatusNotFound)
		r := s.do("PUT", "/api/v1/user/starred/alice/proj", "", auth...)
		expectStatus(t, r, http.StatusNoContent)
		if len(r.Body) != 0 {
			t.Fatalf("PUT body %q", r.Body)
		}
		expectStatus(t, s.do("GET", "/api/v1/user/starred/alice/proj", "", auth...), http.StatusNoContent)
		expectStatus(t, s.do("DELETE", "/api/v1/user/starred/alice/proj", "", auth...), http.StatusNoContent)
		expectStatus(t, s.do("DELETE", "/api/v1/user/starred/alice/proj", "", auth...), http.StatusNoContent)
		expectStatus(t, s.do("PUT", "/api/v1/user/starred/alice/secret", "", auth...), http.StatusNotFound)
		expectStatus(t, s.do("PUT", "/api/v1/user/starred/alice/nope", "", auth...), http.StatusNotFound)
		expectStatus(t, s.do("PUT", "/api/v1/user/starred/alice/proj", ""), http.StatusUnauthorized)
		expectStatus(t, s.do("GET", "/api/v1/repos/alice/secret/stargazers", ""), http.StatusNotFound)
		expectStatus(t, s.do("GET", "/api/v1/users/nobody/starred", ""), http.StatusNotFound)
	})
}

// TestStarsCountConcurrent: concurrent stars and unstars of many users
// leave stars_count equal to the number of stargazers.
func TestStarsCountConcurrent(t *testing.T) {
	t.Parallel()
	eachBackend(t, nil, func(t *testing.T, s *testServer) {
		aliceTok := s.seedUser("alice", "alice-password", false)
		s.createRepo(t, aliceTok, "proj", false, false)
		const n = 10
		clients := make([]*gitea.Client, n)
		for i := range clients {
			tok := s.seedUser(fmt.Sprintf("u%d", i), "password-123", false)
			clients[i] = s.sdk(gitea.SetToken(tok))
		}
		// 50 calls: each user stars several times, and the odd ones also
		// unstar, all at once.
		var wg sync.WaitGroup
		errc := make(chan error, 50)
		for k := range 50 {
			c := clients[k%n]
			star := k < 30 || k%n%2 == 0
			wg.Add(1)
			go func() {
				defer wg.Done()
				var err error
				if star {
					_, err = c.StarRepo("alice", "proj")
				} else {
					_, err = c.UnStarRepo("alice", "proj")
				}
				errc <- err
			}()
		}
		wg.Wait()
		close(errc)
		for err := range errc {
			if err != nil {
				t.Fatal(err)
			}
		}
		gazers, resp, err := s.sdk().ListRepoStargazers("alice", "proj", gitea.ListStargazersOptions{ListOptions: gitea.ListOptions{Page: 1, PageSize: 50}})
		if err != nil {
			t.Fatal(err)
		}
		repo, _, err := s.sdk().GetRepo("alice", "proj")
		if err != nil {
			t.Fatal(err)
		}
		if repo.Stars != len(gazers) || resp.Header.Get("X-Total-Count") != fmt.Sprint(len(gazers)) {
			t.Fatalf("stars_count %d, %d stargazers", repo.Stars, len(gazers))
		}
		// The order of a user's star and unstar calls is not fixed; settle
		// it and check the count once more.
		for i, c := range clients {
			var err error
			if i%2 == 0 {
				_, err = c.StarRepo("alice", "proj")
			} else {
				_, err = c.UnStarRepo("alice", "proj")
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		repo, _, _ = s.sdk().GetRepo("alice", "proj")
		if repo.Stars != n/2 {
			t.Fatalf("stars_count %d, want %d", repo.Stars, n/2)
		}
	})
}
