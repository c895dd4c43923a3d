package app_test

import (
	"net/http"
	"sort"
	"strings"
	"testing"

	"code.gitea.io/sdk/gitea"
)

func userNames(us []*gitea.User) string {
	var out []string
	for _, u := range us {
		out = append(out, u.UserName)
	}
	sort.Strings(out)
	return strings.Join(out, " ")
}

func TestFollowsSDK(t *testing.T) {
	t.Parallel()
	eachBackend(t, nil, func(t *testing.T, s *testServer) {
		aliceTok := s.seedUser("alice", "alice-password", false)
		bobTok := s.seedUser("bob", "bob-password", false)
		carolTok := s.seedUser("carol", "carol-password", false)
		alice := s.sdk(gitea.SetToken(aliceTok))
		bob := s.sdk(gitea.SetToken(bobTok))
		carol := s.sdk(gitea.SetToken(carolTok))
		anon := s.sdk()

		if on, _ := bob.IsFollowing("alice"); on {
			t.Fatal("bob follows alice before Follow")
		}
		for range 2 { // idempotent
			if _, err := bob.Follow("alice"); err != nil {
				t.Fatalf("Follow: %v", err)
			}
		}
		if _, err := carol.Follow("alice"); err != nil {
			t.Fatal(err)
		}
		if _, err := alice.Follow("bob"); err != nil {
			t.Fatal(err)
		}
		if on, _ := bob.IsFollowing("alice"); !on {
			t.Fatal("bob does not follow alice after Follow")
		}
		if on, _ := anon.IsUserFollowing("carol", "alice"); !on {
			t.Fatal("IsUserFollowing carol alice false")
		}
		if on, _ := anon.IsUserFollowing("alice", "carol"); on {
			t.Fatal("IsUserFollowing alice carol true")
		}
		fs, resp, err := alice.ListMyFollowers(gitea.ListFollowersOptions{})
		if err != nil || userNames(fs) != "bob carol" || resp.Header.Get("X-Total-Count") != "2" {
			t.Fatalf("ListMyFollowers: %s %v", userNames(fs), err)
		}
		fs, _, err = alice.ListMyFollowing(gitea.ListFollowingOptions{})
		if err != nil || userNames(fs) != "bob" {
			t.Fatalf("ListMyFollowing: %s %v", userNames(fs), err)
		}
		fs, _, err = anon.ListFollowers("alice", gitea.ListFollowersOptions{ListOptions: gitea.ListOptions{Page: 2, PageSize: 1}})
		if err != nil || userNames(fs) != "carol" {
			t.Fatalf("ListFollowers page 2: %s %v", userNames(fs), err)
		}
		fs, _, err = anon.ListFollowing("bob", gitea.ListFollowingOptions{})
		if err != nil || userNames(fs) != "alice" {
			t.Fatalf("ListFollowing: %s %v", userNames(fs), err)
		}

		// The single user's JSON counts them (lists leave them 0).
		if u, _, err := anon.GetUserInfo("alice"); err != nil || u.FollowerCount != 2 || u.FollowingCount != 1 {
			t.Fatalf("alice's counts: %+v %v", u, err)
		}
		if u, _, err := bob.GetMyUserInfo(); err != nil || u.FollowerCount != 1 || u.FollowingCount != 1 {
			t.Fatalf("bob's counts: %+v %v", u, err)
		}

		// Following oneself is a no-op, as Gitea.
		if _, err := bob.Follow("bob"); err != nil {
			t.Fatal(err)
		}
		if on, _ := bob.IsFollowing("bob"); on {
			t.Fatal("bob follows himself")
		}

		for range 2 {
			if _, err := bob.Unfollow("alice"); err != nil {
				t.Fatalf("Unfollow: %v", err)
			}
		}
		if on, _ := bob.IsFollowing("alice"); on {
			t.Fatal("bob follows alice after Unfollow")
		}

		// A user who goes leaves no follows behind.
		if _, err := s.sdk(gitea.SetToken(s.AdminToken)).AdminDeleteUser("carol"); err != nil {
			t.Fatal(err)
		}
		fs, _, _ = alice.ListMyFollowers(gitea.ListFollowersOptions{})
		if len(fs) != 0 {
			t.Fatalf("followers after carol went: %s", userNames(fs))
		}
	})
}

func TestFollowsREST(t *testing.T) {
	t.Parallel()
	eachBackend(t, nil, func(t *testing.T, s *testServer) {
		s.seedUser("alice", "alice-password", false)
		bobTok := s.seedUser("bob", "bob-password", false)
		auth := []string{"Authorization", "token " + bobTok}
		expectStatus(t, s.do("GET", "/api/v1/user/following/alice", "", auth...), http.StatusNotFound)
		r := s.do("PUT", "/api/v1/user/following/alice", "", auth...)
		expectStatus(t, r, http.StatusNoContent)
		if len(r.Body) != 0 {
			t.Fatalf("PUT body %q", r.Body)
		}
		expectStatus(t, s.do("GET", "/api/v1/user/following/alice", "", auth...), http.StatusNoContent)
		expectStatus(t, s.do("GET", "/api/v1/users/bob/following/alice", ""), http.StatusNoContent)
		expectStatus(t, s.do("GET", "/api/v1/users/alice/following/bob", ""), http.StatusNotFound)
		expectStatus(t, s.do("DELETE", "/api/v1/user/following/alice", "", auth...), http.StatusNoContent)
		expectStatus(t, s.do("DELETE", "/api/v1/user/following/alice", "", auth...), http.StatusNoContent)
		r = s.do("PUT", "/api/v1/user/following/nobody", "", auth...)
		expectStatus(t, r, http.StatusNotFound)
		if m := r.message(t); m != "user does not exist [name: nobody]" {
			t.Fatalf("message %q", m)
		}
		expectStatus(t, s.do("PUT", "/api/v1/user/following/alice", ""), http.StatusUnauthorized)
		expectStatus(t, s.do("GET", "/api/v1/users/nobody/followers", ""), http.StatusNotFound)
		expectStatus(t, s.do("GET", "/api/v1/user/followers", ""), http.StatusUnauthorized)
	})
}
