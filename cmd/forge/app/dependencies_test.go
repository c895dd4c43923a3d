package app_test

import (
	"net/http"
	"testing"

	"code.gitea.io/sdk/gitea"

	"forge/services/config"
)

func depTitles(list []*gitea.Issue) []string {
	out := []string{}
	for _, is := range list {
		out = append(out, is.Title)
	}
	return out
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestIssueDependenciesSDK drives dependencies and blocks with the SDK's
// calls, which send only the other issue's index (the same repository):
// create, list, the 409/422 refusals, closing an issue with an open
// dependency (412), removal; and a private issue of a repository the
// caller cannot read is refused with 403 and left out of lists.
func TestIssueDependenciesSDK(t *testing.T) {
	t.Parallel()
	eachBackend(t, nil, func(t *testing.T, s *testServer) {
		aliceTok := s.seedUser("alice", "alice-password", false)
		bobTok := s.seedUser("bob", "bob-password", false)
		alice := s.sdk(gitea.SetToken(aliceTok))
		bob := s.sdk(gitea.SetToken(bobTok))
		s.createRepo(t, aliceTok, "tracker", false, false)
		s.createRepo(t, bobTok, "secret", false, true)
		var n [4]*gitea.Issue
		for i, title := range []string{"one", "two", "three", "four"} {
			is, _, err := alice.CreateIssue("alice", "tracker", gitea.CreateIssueOption{Title: title})
			if err != nil {
				t.Fatal(err)
			}
			n[i] = is
		}
		if _, _, err := bob.CreateIssue("bob", "secret", gitea.CreateIssueOption{Title: "private"}); err != nil {
			t.Fatal(err)
		}

		// #1 depends on #2 and #3; #4 blocks #1.
		is, resp, err := alice.CreateIssueDependency("alice", "tracker", 1, gitea.IssueMeta{Index: 2})
		if err != nil || resp.StatusCode != http.StatusCreated || is.Index != 1 || is.Title != "one" {
			t.Fatalf("CreateIssueDependency: %+v %v", is, err)
		}
		if _, _, err := alice.CreateIssueDependency("alice", "tracker", 1, gitea.IssueMeta{Index: 3}); err != nil {
			t.Fatal(err)
		}
		is, resp, err = alice.CreateIssueBlocking("alice", "tracker", 4, gitea.IssueMeta{Index: 1})
		if err != nil || resp.StatusCode != http.StatusCreated || is.Index != 4 {
			t.Fatalf("CreateIssueBlocking: %+v %v", is, err)
		}
		deps, _, err := alice.ListIssueDependencies("alice", "tracker", 1, gitea.ListIssueDependenciesOptions{})
		if err != nil || !equalStrings(depTitles(deps), []string{"two", "three", "four"}) {
			t.Fatalf("dependencies of #1: %v %v", depTitles(deps), err)
		}
		blocks, _, err := alice.ListIssueBlocks("alice", "tracker", 2, gitea.ListIssueBlocksOptions{})
		if err != nil || !equalStrings(depTitles(blocks), []string{"one"}) {
			t.Fatalf("#2 blocks: %v %v", depTitles(blocks), err)
		}
		page, _, err := alice.ListIssueDependencies("alice", "tracker", 1, gitea.ListIssueDependenciesOptions{ListOptions: gitea.ListOptions{Page: 2, PageSize: 2}})
		if err != nil || !equalStrings(depTitles(page), []string{"four"}) {
			t.Fatalf("page 2: %v %v", depTitles(page), err)
		}

		// Refusals.
		if _, resp, err = alice.CreateIssueDependency("alice", "tracker", 1, gitea.IssueMeta{Index: 2}); err == nil || resp.StatusCode != http.StatusConflict {
			t.Fatalf("duplicate: %v %v", resp, err)
		}
		if _, resp, err = alice.CreateIssueDependency("alice", "tracker", 1, gitea.IssueMeta{Index: 1}); err == nil || resp.StatusCode != http.StatusUnprocessableEntity {
			t.Fatalf("self: %v %v", resp, err)
		}
		// #1 depends on #3: #3 on #1 would close a cycle.
		if _, resp, err = alice.CreateIssueDependency("alice", "tracker", 3, gitea.IssueMeta{Index: 1}); err == nil || resp.StatusCode != http.StatusUnprocessableEntity {
			t.Fatalf("cycle: %v %v", resp, err)
		}
		if _, resp, err = alice.CreateIssueDependency("alice", "tracker", 1, gitea.IssueMeta{Index: 99}); err == nil || resp.StatusCode != http.StatusNotFound {
			t.Fatalf("unknown issue: %v %v", resp, err)
		}
		// A private issue alice cannot read, also a missing one there: 403.
		for _, index := range []int64{1, 42} {
			r := s.do("POST", "/api/v1/repos/alice/tracker/issues/1/dependencies", `{"owner":"bob","repo":"secret","index":`+fmtInt(index)+`}`,
				"Authorization", "token "+aliceTok, "Content-Type", jsonCT)
			expectStatus(t, r, http.StatusForbidden)
		}
		// bob links his private issue to alice's public #2 (he reads it);
		// alice does not see it in the lists.
		r := s.do("POST", "/api/v1/repos/bob/secret/issues/1/dependencies", `{"owner":"alice","repo":"tracker","index":2}`,
			"Authorization", "token "+bobTok, "Content-Type", jsonCT)
		expectStatus(t, r, http.StatusCreated)
		if blocks, _, err := alice.ListIssueBlocks("alice", "tracker", 2, gitea.ListIssueBlocksOptions{}); err != nil || !equalStrings(depTitles(blocks), []string{"one"}) {
			t.Fatalf("#2 blocks, as alice: %v %v", depTitles(blocks), err)
		}
		if blocks, _, err := bob.ListIssueBlocks("alice", "tracker", 2, gitea.ListIssueBlocksOptions{}); err != nil || !equalStrings(depTitles(blocks), []string{"one", "private"}) {
			t.Fatalf("#2 blocks, as bob: %v %v", depTitles(blocks), err)
		}

		// Closing #1 with open dependencies is refused; after they close
		// (or go) it works.
		closed := gitea.StateClosed
		if _, resp, err = alice.EditIssue("alice", "tracker", 1, gitea.EditIssueOption{State: &closed}); err == nil || resp.StatusCode != http.StatusPreconditionFailed {
			t.Fatalf("close with open dependencies: %v %v", resp, err)
		}
		if _, _, err = alice.EditIssue("alice", "tracker", 2, gitea.EditIssueOption{State: &closed}); err != nil {
			t.Fatal(err)
		}
		if _, resp, err = alice.RemoveIssueDependency("alice", "tracker", 1, gitea.IssueMeta{Index: 3}); err != nil || resp.StatusCode != http.StatusCreated {
			t.Fatalf("RemoveIssueDependency: %v %v", resp, err)
		}
		if _, resp, err = alice.RemoveIssueBlocking("alice", "tracker", 4, gitea.IssueMeta{Index: 1}); err != nil || resp.StatusCode != http.StatusCreated {
			t.Fatalf("RemoveIssueBlocking: %v %v", resp, err)
		}
		if _, resp, err = alice.RemoveIssueBlocking("alice", "tracker", 4, gitea.IssueMeta{Index: 1}); err == nil || resp.StatusCode != http.StatusNotFound {
			t.Fatalf("remove twice: %v %v", resp, err)
		}
		is, _, err = alice.EditIssue("alice", "tracker", 1, gitea.EditIssueOption{State: &closed})
		if err != nil || is.State != gitea.StateClosed {
			t.Fatalf("close after the dependencies closed: %+v %v", is, err)
		}
	})
}

// TestCrossRepositoryDependenciesDisabled: with [service]
// ALLOW_CROSS_REPOSITORY_DEPENDENCIES = false a dependency on another
// repository's issue is 400, one in the same repository still works.
func TestCrossRepositoryDependenciesDisabled(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(c *config.Config) { c.Service.AllowCrossRepositoryDependencies = false }, func(t *testing.T, s *testServer) {
		tok := s.seedUser("alice", "alice-password", false)
		alice := s.sdk(gitea.SetToken(tok))
		for _, repo := range []string{"a", "b"} {
			s.createRepo(t, tok, repo, false, false)
			for _, title := range []string{"x", "y"} {
				if _, _, err := alice.CreateIssue("alice", repo, gitea.CreateIssueOption{Title: title}); err != nil {
					t.Fatal(err)
				}
			}
		}
		r := s.do("POST", "/api/v1/repos/alice/a/issues/1/dependencies", `{"owner":"alice","repo":"b","index":1}`,
			"Authorization", "token "+tok, "Content-Type", jsonCT)
		expectStatus(t, r, http.StatusBadRequest)
		if msg := r.message(t); msg != "CrossRepositoryDependencies not enabled" {
			t.Fatalf("message %q", msg)
		}
		// Naming the same repository (any case) is not cross-repository.
		r = s.do("POST", "/api/v1/repos/alice/a/issues/1/dependencies", `{"owner":"Alice","repo":"A","index":2}`,
			"Authorization", "token "+tok, "Content-Type", jsonCT)
		expectStatus(t, r, http.StatusCreated)
		if _, _, err := alice.CreateIssueBlocking("alice", "a", 1, gitea.IssueMeta{Index: 2}); err == nil {
			t.Fatal("a cycle in the same repository was accepted")
		}
	})
}
