package app_test

import (
	"slices"
	"testing"

	"code.gitea.io/sdk/gitea"
)

// TestSDKLevelCallsAndUnits: at the API level /version reports (1.24) the
// SDK sends the tag protection calls it gates at 1.23, and forge serves
// them; the repository JSON never advertises the wiki, projects or
// packages forge does not serve, even after an edit asks for them.
func TestSDKLevelCallsAndUnits(t *testing.T) {
	t.Parallel()
	eachBackend(t, nil, func(t *testing.T, s *testServer) {
		alice, _, _, _, _, _ := protectedRepoTokens(t, s)
		created, _, err := alice.CreateTagProtection("alice", "proj", gitea.CreateTagProtectionOption{
			NamePattern: "v*", WhitelistUsernames: []string{"alice"},
		})
		if err != nil || created.NamePattern != "v*" || !slices.Equal(created.WhitelistUsernames, []string{"alice"}) {
			t.Fatalf("create: %+v %v", created, err)
		}
		list, _, err := alice.ListTagProtection("alice", "proj", gitea.ListRepoTagProtectionsOptions{})
		if err != nil || len(list) != 1 || list[0].ID != created.ID {
			t.Fatalf("list: %+v %v", list, err)
		}
		pattern := "release-*"
		edited, _, err := alice.EditTagProtection("alice", "proj", created.ID, gitea.EditTagProtectionOption{NamePattern: &pattern})
		if err != nil || edited.NamePattern != pattern {
			t.Fatalf("edit: %+v %v", edited, err)
		}
		if _, err := alice.DeleteTagProtection("alice", "proj", created.ID); err != nil {
			t.Fatalf("delete: %v", err)
		}
		if _, resp, err := alice.GetTagProtection("alice", "proj", created.ID); err == nil || resp == nil || resp.StatusCode != 404 {
			t.Fatalf("get after delete: %v %v", resp, err)
		}

		on := true
		repo, _, err := alice.EditRepo("alice", "proj", gitea.EditRepoOption{HasWiki: &on, HasProjects: &on})
		if err != nil {
			t.Fatalf("edit repo: %v", err)
		}
		if repo.HasWiki || repo.HasProjects || repo.HasPackages || !repo.HasIssues || !repo.HasPullRequests {
			t.Fatalf("units advertised: wiki %v projects %v packages %v issues %v pulls %v",
				repo.HasWiki, repo.HasProjects, repo.HasPackages, repo.HasIssues, repo.HasPullRequests)
		}
	})
}
