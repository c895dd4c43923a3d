package app_test

import (
	"net/http"
	"sort"
	"strings"
	"sync"
	"testing"

	"code.gitea.io/sdk/gitea"

	"forge/services/config"
)

func reactionNames(list []*gitea.Reaction) string {
	out := []string{}
	for _, r := range list {
		out = append(out, r.User.UserName+":"+r.Reaction)
	}
	return strings.Join(out, " ")
}

// TestReactionsSDK drives the SDK's reaction calls on an issue, a pull
// request and a comment: 201 then 200 for the same reaction, the list
// with its count, a content outside [ui] REACTIONS refused (403, Gitea's
// message), removal (200, also of a reaction never given), and a comment
// or issue delete taking its reactions along.
func TestReactionsSDK(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(c *config.Config) { c.UI.Reactions = append(c.UI.Reactions, "gitea") }, func(t *testing.T, s *testServer) {
		aliceTok := s.seedUser("alice", "alice-password", false)
		bobTok := s.seedUser("bob", "bob-password", false)
		alice := s.sdk(gitea.SetToken(aliceTok))
		bob := s.sdk(gitea.SetToken(bobTok))
		anon := s.sdk()
		s.createRepo(t, aliceTok, "proj", true, false)
		is, _, err := alice.CreateIssue("alice", "proj", gitea.CreateIssueOption{Title: "one"})
		if err != nil {
			t.Fatal(err)
		}

		r, resp, err := bob.PostIssueReaction("alice", "proj", is.Index, "heart")
		if err != nil || resp.StatusCode != http.StatusCreated || r.Reaction != "heart" || r.User.UserName != "bob" || r.Created.IsZero() {
			t.Fatalf("PostIssueReaction: %+v %v", r, err)
		}
		again, resp, err := bob.PostIssueReaction("alice", "proj", is.Index, "heart")
		if err != nil || resp.StatusCode != http.StatusOK || !again.Created.Equal(r.Created) {
			t.Fatalf("PostIssueReaction again: %d %+v %v", resp.StatusCode, again, err)
		}
		if _, _, err := alice.PostIssueReaction("alice", "proj", is.Index, "+1"); err != nil {
			t.Fatal(err)
		}
		if _, _, err := alice.PostIssueReaction("alice", "proj", is.Index, "gitea"); err != nil {
			t.Fatalf("a reaction added to [ui] REACTIONS: %v", err)
		}
		_, resp, err = bob.PostIssueReaction("alice", "proj", is.Index, "thumbsup")
		if resp == nil || resp.StatusCode != http.StatusForbidden || !strings.Contains(err.Error(), "'thumbsup' is not an allowed reaction") {
			t.Fatalf("a reaction outside [ui] REACTIONS: %v", err)
		}
		list, resp, err := anon.GetIssueReactions("alice", "proj", is.Index)
		if err != nil || reactionNames(list) != "bob:heart alice:+1 alice:gitea" || resp.Header.Get("X-Total-Count") != "3" {
			t.Fatalf("GetIssueReactions: %s %v", reactionNames(list), err)
		}
		page, _, err := anon.ListIssueReactions("alice", "proj", is.Index, gitea.ListIssueReactionsOptions{ListOptions: gitea.ListOptions{Page: 2, PageSize: 2}})
		if err != nil || reactionNames(page) != "alice:gitea" {
			t.Fatalf("page 2: %s %v", reactionNames(page), err)
		}
		if resp, err := bob.DeleteIssueReaction("alice", "proj", is.Index, "heart"); err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("DeleteIssueReaction: %v", err)
		}
		if _, err := bob.DeleteIssueReaction("alice", "proj", is.Index, "rocket"); err != nil {
			t.Fatalf("removing a reaction never given: %v", err)
		}
		if list, _, _ := anon.GetIssueReactions("alice", "proj", is.Index); reactionNames(list) != "alice:+1 alice:gitea" {
			t.Fatalf("after the delete: %s", reactionNames(list))
		}

		// A comment's reactions are its own.
		c, _, err := alice.CreateIssueComment("alice", "proj", is.Index, gitea.CreateIssueCommentOption{Body: "hi"})
		if err != nil {
			t.Fatal(err)
		}
		if _, resp, err := bob.PostIssueCommentReaction("alice", "proj", c.ID, "eyes"); err != nil || resp.StatusCode != http.StatusCreated {
			t.Fatalf("PostIssueCommentReaction: %v", err)
		}
		if _, resp, err := bob.PostIssueCommentReaction("alice", "proj", c.ID, "eyes"); err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("PostIssueCommentReaction again: %v", err)
		}
		if list, _, err := anon.GetIssueCommentReactions("alice", "proj", c.ID); err != nil || reactionNames(list) != "bob:eyes" {
			t.Fatalf("GetIssueCommentReactions: %s %v", reactionNames(list), err)
		}
		if list, _, _ := anon.GetIssueReactions("alice", "proj", is.Index); reactionNames(list) != "alice:+1 alice:gitea" {
			t.Fatalf("a comment's reaction listed on its issue: %s", reactionNames(list))
		}
		if _, err := bob.DeleteIssueCommentReaction("alice", "proj", c.ID, "eyes"); err != nil {
			t.Fatal(err)
		}
		if list, _, _ := anon.GetIssueCommentReactions("alice", "proj", c.ID); len(list) != 0 {
			t.Fatalf("after DeleteIssueCommentReaction: %s", reactionNames(list))
		}
		if _, _, err := bob.PostIssueCommentReaction("alice", "proj", c.ID, "laugh"); err != nil {
			t.Fatal(err)
		}
		if _, err := alice.DeleteIssueComment("alice", "proj", c.ID); err != nil {
			t.Fatal(err)
		}
		if _, resp, _ := anon.GetIssueCommentReactions("alice", "proj", c.ID); resp == nil || resp.StatusCode != http.StatusNotFound {
			t.Fatalf("reactions of a deleted comment: %v", resp)
		}

		// Pull requests take reactions too.
		if _, _, err := alice.CreateBranch("alice", "proj", gitea.CreateBranchOption{BranchName: "dev"}); err != nil {
			t.Fatal(err)
		}
		if _, _, err := alice.CreateFile("alice", "proj", "x.txt", gitea.CreateFileOptions{FileOptions: gitea.FileOptions{BranchName: "dev"}, Content: "eA=="}); err != nil {
			t.Fatal(err)
		}
		pr, _, err := alice.CreatePullRequest("alice", "proj", gitea.CreatePullRequestOption{Head: "dev", Base: "main", Title: "pr"})
		if err != nil {
			t.Fatal(err)
		}
		if _, resp, err := bob.PostIssueReaction("alice", "proj", pr.Index, "rocket"); err != nil || resp.StatusCode != http.StatusCreated {
			t.Fatalf("a reaction on a pull request: %v", err)
		}
		if list, _, err := anon.GetIssueReactions("alice", "proj", pr.Index); err != nil || reactionNames(list) != "bob:rocket" {
			t.Fatalf("a pull request's reactions: %s %v", reactionNames(list), err)
		}

		// Deleting the issue deletes its reactions.
		if _, err := alice.DeleteIssue("alice", "proj", is.Index); err != nil {
			t.Fatal(err)
		}
		if _, resp, _ := anon.GetIssueReactions("alice", "proj", is.Index); resp == nil || resp.StatusCode != http.StatusNotFound {
			t.Fatalf("reactions of a deleted issue: %v", resp)
		}
	})
}

// TestReactionsConcurrent: fifty identical POSTs at once leave one
// reaction; exactly one of them answers 201, the others 200.
func TestReactionsConcurrent(t *testing.T) {
	t.Parallel()
	eachBackend(t, nil, func(t *testing.T, s *testServer) {
		aliceTok := s.seedUser("alice", "alice-password", false)
		alice := s.sdk(gitea.SetToken(aliceTok))
		s.createRepo(t, aliceTok, "proj", false, false)
		is, _, err := alice.CreateIssue("alice", "proj", gitea.CreateIssueOption{Title: "one"})
		if err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		var mu sync.Mutex
		statuses := []int{}
		for range 50 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, resp, err := alice.PostIssueReaction("alice", "proj", is.Index, "hooray")
				mu.Lock()
				defer mu.Unlock()
				if err != nil {
					t.Errorf("PostIssueReaction: %v", err)
					return
				}
				statuses = append(statuses, resp.StatusCode)
			}()
		}
		wg.Wait()
		sort.Ints(statuses)
		if len(statuses) != 50 || statuses[0] != http.StatusOK || statuses[48] != http.StatusOK || statuses[49] != http.StatusCreated {
			t.Fatalf("statuses: %v", statuses)
		}
		list, _, err := alice.GetIssueReactions("alice", "proj", is.Index)
		if err != nil || reactionNames(list) != "alice:hooray" {
			t.Fatalf("after 50 identical POSTs: %s %v", reactionNames(list), err)
		}
	})
}
