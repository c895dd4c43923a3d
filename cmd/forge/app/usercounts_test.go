package app_test

import (
	"testing"

	"code.gitea.io/sdk/gitea"
)

// TestUserListCounts: the follow and star counts a single user's JSON
// shows are in every user list too (followers, following, search,
// stargazers, organization members, collaborators), not 0.
func TestUserListCounts(t *testing.T) {
	t.Parallel()
	eachBackend(t, nil, func(t *testing.T, s *testServer) {
		aliceTok := s.seedUser("alice", "alice-password", false)
		bobTok := s.seedUser("bob", "bob-password", false)
		carolTok := s.seedUser("carol", "carol-password", false)
		alice, bob, carol := s.sdk(gitea.SetToken(aliceTok)), s.sdk(gitea.SetToken(bobTok)), s.sdk(gitea.SetToken(carolTok))
		s.createRepo(t, aliceTok, "proj", false, false)
		// bob: 1 follower (carol), follows 1 (alice), 1 star.
		if _, err := bob.Follow("alice"); err != nil {
			t.Fatal(err)
		}
		if _, err := carol.Follow("bob"); err != nil {
			t.Fatal(err)
		}
		if _, err := bob.StarRepo("alice", "proj"); err != nil {
			t.Fatal(err)
		}
		if _, err := alice.AddCollaborator("alice", "proj", "bob", gitea.AddCollaboratorOption{}); err != nil {
			t.Fatal(err)
		}
		if _, _, err := alice.CreateOrg(gitea.CreateOrgOption{Name: "acme"}); err != nil {
			t.Fatal(err)
		}
		check := func(what string, us []*gitea.User, err error) {
			t.Helper()
			if err != nil {
				t.Fatalf("%s: %v", what, err)
			}
			for _, u := range us {
				if u.UserName == "bob" {
					if u.FollowerCount != 1 || u.FollowingCount != 1 || u.StarredRepoCount != 1 {
						t.Fatalf("%s: bob's counts %d followers, %d following, %d starred; want 1 1 1",
							what, u.FollowerCount, u.FollowingCount, u.StarredRepoCount)
					}
					return
				}
				if u.UserName == "alice" {
					if u.FollowerCount != 1 || u.FollowingCount != 0 || u.StarredRepoCount != 0 {
						t.Fatalf("%s: alice's counts %d %d %d; want 1 0 0", what, u.FollowerCount, u.FollowingCount, u.StarredRepoCount)
					}
					return
				}
			}
			t.Fatalf("%s: neither bob nor alice listed: %s", what, userNames(us))
		}
		us, _, err := alice.ListFollowers("alice", gitea.ListFollowersOptions{})
		check("followers", us, err)
		us, _, err = carol.ListFollowing("carol", gitea.ListFollowingOptions{})
		check("following", us, err)
		us, _, err = alice.SearchUsers(gitea.SearchUsersOption{KeyWord: "bob"})
		check("search", us, err)
		us, _, err = alice.ListRepoStargazers("alice", "proj", gitea.ListStargazersOptions{})
		check("stargazers", us, err)
		us, _, err = alice.ListCollaborators("alice", "proj", gitea.ListCollaboratorsOptions{})
		check("collaborators", us, err)
		us, _, err = alice.ListOrgMembership("acme", gitea.ListOrgMembershipOption{})
		check("members", us, err)
	})
}
