package app_test

import (
	"fmt"
	"net/http"
	"slices"
	"sync"
	"testing"

	"code.gitea.io/sdk/gitea"
)

// TestTopicsSDK: the Gitea SDK's topic calls parse forge's answers, the
// repository object and repository search show the topics, and writers
// adding the same new name to two repositories at once both succeed. (Who
// may call, the name rules and the 422 bodies are cases in
// testdata/cases/topics.yaml.)
func TestTopicsSDK(t *testing.T) {
	t.Parallel()
	eachBackend(t, nil, func(t *testing.T, s *testServer) {
		aliceTok := s.seedUser("alice", "alice-password", false)
		alice := s.sdk(gitea.SetToken(aliceTok))
		anon := s.sdk()
		s.createRepo(t, aliceTok, "proj", false, false)
		s.createRepo(t, aliceTok, "other", false, false)

		if _, err := alice.SetRepoTopics("alice", "proj", []string{"Go", " rust "}); err != nil {
			t.Fatalf("SetRepoTopics: %v", err)
		}
		if _, err := alice.AddRepoTopic("alice", "proj", "CLI"); err != nil {
			t.Fatalf("AddRepoTopic: %v", err)
		}
		topics, resp, err := anon.ListRepoTopics("alice", "proj", gitea.ListRepoTopicsOptions{})
		if err != nil || !slices.Equal(topics, []string{"cli", "go", "rust"}) || resp.Header.Get("X-Total-Count") != "3" {
			t.Fatalf("ListRepoTopics: %q %v", topics, err)
		}
		page, _, err := anon.ListRepoTopics("alice", "proj", gitea.ListRepoTopicsOptions{ListOptions: gitea.ListOptions{Page: 2, PageSize: 2}})
		if err != nil || !slices.Equal(page, []string{"rust"}) {
			t.Fatalf("second page of two: %q %v", page, err)
		}
		repo, _, err := anon.GetRepo("alice", "proj")
		if err != nil || !slices.Equal(repo.Topics, []string{"cli", "go", "rust"}) {
			t.Fatalf("GetRepo topics: %q %v", repo.Topics, err)
		}

		if _, err := alice.DeleteRepoTopic("alice", "proj", "rust"); err != nil {
			t.Fatalf("DeleteRepoTopic: %v", err)
		}
		if resp, err := alice.DeleteRepoTopic("alice", "proj", "rust"); err == nil || resp.StatusCode != http.StatusNotFound {
			t.Fatalf("deleting a topic twice: %v", err)
		}
		if resp, err := alice.SetRepoTopics("alice", "proj", []string{"ok", "not ok"}); err == nil || resp.StatusCode != http.StatusUnprocessableEntity {
			t.Fatalf("invalid topics: %v", err)
		}

		// Two writers take the same new names at once, on two repositories.
		for round := range 4 {
			names := []string{fmt.Sprintf("new-%d", round), fmt.Sprintf("also-%d", round)}
			var wg sync.WaitGroup
			errs := make([]error, 2)
			for i, name := range []string{"proj", "other"} {
				wg.Add(1)
				go func() {
					defer wg.Done()
					_, errs[i] = alice.SetRepoTopics("alice", name, names)
				}()
			}
			wg.Wait()
			if errs[0] != nil || errs[1] != nil {
				t.Fatalf("round %d: %v, %v", round, errs[0], errs[1])
			}
			found, resp, err := anon.SearchTopics(gitea.TopicSearchOptions{Query: names[0]})
			if err != nil || len(found.Topics) != 1 || found.Topics[0].Name != names[0] || found.Topics[0].RepoCount != 2 ||
				found.Topics[0].Created.IsZero() || resp.Header.Get("X-Total-Count") != "1" {
				t.Fatalf("round %d: SearchTopics %+v %v", round, found, err)
			}
		}

		if _, err := alice.SetRepoTopics("alice", "other", []string{"go"}); err != nil {
			t.Fatal(err)
		}
		hits, _, err := anon.SearchRepos(gitea.SearchRepoOptions{Keyword: "go", KeywordIsTopic: true})
		if err != nil || repoNames(hits) != "alice/other" {
			t.Fatalf("SearchRepos by topic: %s %v", repoNames(hits), err)
		}
	})
}
