package app_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"code.gitea.io/sdk/gitea"
)

func issueNumbers(is []*gitea.Issue) []int64 {
	out := make([]int64, len(is))
	for i, x := range is {
		out[i] = x.Index
	}
	return out
}

// TestIssuesSDK drives the issue tracker through Gitea's SDK: create with
// assignees, list with filters and paging headers, get, edit (close sets
// closed_at and moves open_issues_count), comments (an edit keeps the
// creation time), and the search across repositories.
func TestIssuesSDK(t *testing.T) {
	t.Parallel()
	eachBackend(t, nil, func(t *testing.T, s *testServer) {
		aliceTok := s.seedUser("alice", "alice-password", false)
		bobTok := s.seedUser("bob", "bob-password", false)
		alice := s.sdk(gitea.SetToken(aliceTok))
		bob := s.sdk(gitea.SetToken(bobTok))
		anon := s.sdk()
		s.createRepo(t, aliceTok, "proj", false, false)
		s.createRepo(t, aliceTok, "secret", false, true)

		first, resp, err := bob.CreateIssue("alice", "proj", gitea.CreateIssueOption{Title: "first", Body: "hello @alice"})
		if err != nil || resp.StatusCode != 201 {
			t.Fatalf("CreateIssue: %v", err)
		}
		if first.Index != 1 || first.Poster.UserName != "bob" || first.State != gitea.StateOpen || first.Closed != nil {
			t.Fatalf("created issue: %+v", first)
		}
		if first.Repository == nil || first.Repository.FullName != "alice/proj" {
			t.Fatalf("repository meta: %+v", first.Repository)
		}
		second, _, err := alice.CreateIssue("alice", "proj", gitea.CreateIssueOption{Title: "second", Assignees: []string{"alice"}})
		if err != nil || second.Index != 2 || len(second.Assignees) != 1 || second.Assignees[0].UserName != "alice" {
			t.Fatalf("CreateIssue with assignee: %+v %v", second, err)
		}
		if _, _, err := alice.CreateIssue("alice", "proj", gitea.CreateIssueOption{Title: "third"}); err != nil {
			t.Fatal(err)
		}
		if repo, _, err := anon.GetRepo("alice", "proj"); err != nil || repo.OpenIssues != 3 {
			t.Fatalf("open_issues_count %d, want 3 (%v)", repo.OpenIssues, err)
		}

		// Lists: newest first, paged with X-Total-Count, filtered.
		list, resp, err := anon.ListRepoIssues("alice", "proj", gitea.ListIssueOption{ListOptions: gitea.ListOptions{Page: 1, PageSize: 2}})
		if err != nil || len(list) != 2 || list[0].Index != 3 || resp.Header.Get("X-Total-Count") != "3" || resp.NextPage != 2 {
			t.Fatalf("ListRepoIssues page 1: %v total %s next %d %v", issueNumbers(list), resp.Header.Get("X-Total-Count"), resp.NextPage, err)
		}
		list, _, err = anon.ListRepoIssues("alice", "proj", gitea.ListIssueOption{CreatedBy: "bob"})
		if err != nil || len(list) != 1 || list[0].Index != 1 {
			t.Fatalf("created_by: %v %v", issueNumbers(list), err)
		}
		list, _, err = anon.ListRepoIssues("alice", "proj", gitea.ListIssueOption{AssignedBy: "alice"})
		if err != nil || len(list) != 1 || list[0].Index != 2 {
			t.Fatalf("assigned_by: %v %v", issueNumbers(list), err)
		}
		list, _, err = anon.ListRepoIssues("alice", "proj", gitea.ListIssueOption{MentionedBy: "alice"})
		if err != nil || len(list) != 1 || list[0].Index != 1 {
			t.Fatalf("mentioned_by: %v %v", issueNumbers(list), err)
		}
		list, _, err = anon.ListRepoIssues("alice", "proj", gitea.ListIssueOption{KeyWord: "SECOND"})
		if err != nil || len(list) != 1 || list[0].Index != 2 {
			t.Fatalf("keyword: %v %v", issueNumbers(list), err)
		}
		list, _, err = anon.ListRepoIssues("alice", "proj", gitea.ListIssueOption{Type: gitea.IssueTypePull})
		if err != nil || len(list) != 0 {
			t.Fatalf("pulls: %v %v", issueNumbers(list), err)
		}

		// Close: closed_at set, counter down; the poster may close their own.
		closed := gitea.StateClosed
		got, resp, err := bob.EditIssue("alice", "proj", 1, gitea.EditIssueOption{State: &closed})
		if err != nil || resp.StatusCode != 201 || got.State != gitea.StateClosed || got.Closed == nil {
			t.Fatalf("close: %+v %v", got, err)
		}
		if repo, _, _ := anon.GetRepo("alice", "proj"); repo.OpenIssues != 2 {
			t.Fatalf("open_issues_count after close %d, want 2", repo.OpenIssues)
		}
		list, _, _ = anon.ListRepoIssues("alice", "proj", gitea.ListIssueOption{State: gitea.StateClosed})
		if len(list) != 1 || list[0].Index != 1 {
			t.Fatalf("closed list: %v", issueNumbers(list))
		}
		// A stranger to the issue may not edit it.
		if _, _, err := bob.EditIssue("alice", "proj", 2, gitea.EditIssueOption{Title: "mine"}); err == nil {
			t.Fatal("bob edited alice's issue")
		}
		open := gitea.StateOpen
		if got, _, err = alice.EditIssue("alice", "proj", 1, gitea.EditIssueOption{State: &open, Title: "first, reopened"}); err != nil || got.Closed != nil || got.Title != "first, reopened" {
			t.Fatalf("reopen: %+v %v", got, err)
		}
		if got, _, err = anon.GetIssue("alice", "proj", 1); err != nil || got.Title != "first, reopened" {
			t.Fatalf("GetIssue: %+v %v", got, err)
		}

		// Comments.
		c, resp, err := bob.CreateIssueComment("alice", "proj", 1, gitea.CreateIssueCommentOption{Body: "a comment"})
		if err != nil || resp.StatusCode != 201 || c.Body != "a comment" || c.Poster.UserName != "bob" {
			t.Fatalf("CreateIssueComment: %+v %v", c, err)
		}
		if _, _, err := alice.CreateIssueComment("alice", "proj", 2, gitea.CreateIssueCommentOption{Body: "another"}); err != nil {
			t.Fatal(err)
		}
		time.Sleep(1100 * time.Millisecond) // times have second precision
		edited, _, err := bob.EditIssueComment("alice", "proj", c.ID, gitea.EditIssueCommentOption{Body: "edited"})
		if err != nil || edited.Body != "edited" || !edited.Created.Equal(c.Created) || !edited.Updated.After(c.Updated) {
			t.Fatalf("EditIssueComment: created %v→%v updated %v→%v %v", c.Created, edited.Created, c.Updated, edited.Updated, err)
		}
		if _, _, err := alice.EditIssueComment("alice", "proj", c.ID, gitea.EditIssueCommentOption{Body: "by the owner"}); err != nil {
			t.Fatalf("owner edits a comment: %v", err)
		}
		one, _, err := anon.GetIssueComment("alice", "proj", c.ID)
		if err != nil || one.Body != "by the owner" {
			t.Fatalf("GetIssueComment: %+v %v", one, err)
		}
		cs, _, err := anon.ListIssueComments("alice", "proj", 1, gitea.ListIssueCommentOptions{})
		if err != nil || len(cs) != 1 {
			t.Fatalf("ListIssueComments: %d %v", len(cs), err)
		}
		cs, resp, err = anon.ListRepoIssueComments("alice", "proj", gitea.ListIssueCommentOptions{})
		if err != nil || len(cs) != 2 || resp.Header.Get("X-Total-Count") != "2" {
			t.Fatalf("ListRepoIssueComments: %d %v", len(cs), err)
		}
		if got, _, _ := anon.GetIssue("alice", "proj", 1); got.Comments != 1 {
			t.Fatalf("comments count %d", got.Comments)
		}
		if resp, err := bob.DeleteIssueComment("alice", "proj", c.ID); err != nil || resp.StatusCode != 204 {
			t.Fatalf("DeleteIssueComment: %v", err)
		}
		if _, _, err := anon.GetIssueComment("alice", "proj", c.ID); err == nil {
			t.Fatal("deleted comment still there")
		}
		if got, _, _ := anon.GetIssue("alice", "proj", 1); got.Comments != 0 {
			t.Fatalf("comments count after delete %d", got.Comments)
		}

		// Search: the private repository's issues only for those who read it.
		if _, _, err := alice.CreateIssue("alice", "secret", gitea.CreateIssueOption{Title: "hidden"}); err != nil {
			t.Fatal(err)
		}
		found, _, err := bob.ListIssues(gitea.ListIssueOption{State: gitea.StateAll})
		if err != nil || len(found) != 3 {
			t.Fatalf("bob's search: %v %v", issueNumbers(found), err)
		}
		found, _, err = alice.ListIssues(gitea.ListIssueOption{State: gitea.StateAll, KeyWord: "hidden"})
		if err != nil || len(found) != 1 || found[0].Repository.Name != "secret" {
			t.Fatalf("alice's search: %v %v", issueNumbers(found), err)
		}

		// Delete (repository admins).
		if _, err := bob.DeleteIssue("alice", "proj", 3); err == nil {
			t.Fatal("bob deleted an issue")
		}
		if _, err := alice.DeleteIssue("alice", "proj", 3); err != nil {
			t.Fatal(err)
		}
		if repo, _, _ := anon.GetRepo("alice", "proj"); repo.OpenIssues != 2 {
			t.Fatalf("open_issues_count after delete %d, want 2", repo.OpenIssues)
		}
		// The index is never reused.
		if is, _, err := alice.CreateIssue("alice", "proj", gitea.CreateIssueOption{Title: "fourth"}); err != nil || is.Index != 4 {
			t.Fatalf("after delete: %+v %v", is, err)
		}
	})
}

// TestIssueNumbersTwoProcesses: 100 clients open issues in one repository
// at once through two forge processes on one PostgreSQL database (and
// through one process on SQLite); the numbers are exactly 1..100 and the
// repository counts 100 open issues.
func TestIssueNumbersTwoProcesses(t *testing.T) {
	t.Parallel()
	eachBackend(t, nil, func(t *testing.T, s *testServer) {
		tok := s.seedUser("alice", "alice-password", false)
		s.createRepo(t, tok, "busy", false, false)
		servers := []*testServer{s}
		if s.Cfg.Database.Type == "postgres" {
			servers = append(servers, startPeer(t, s))
		}
		const n = 100
		numbers := make(chan int64, n)
		errc := make(chan error, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				srv := servers[i%len(servers)]
				r := srv.do("POST", "/api/v1/repos/alice/busy/issues", fmt.Sprintf(`{"title":"issue %d"}`, i),
					"Authorization", "token "+tok, "Content-Type", "application/json")
				if r.Status != 201 {
					errc <- fmt.Errorf("create %d: %d %s", i, r.Status, r.Body)
					return
				}
				var is struct{ Number int64 }
				if err := json.Unmarshal(r.Body, &is); err != nil {
					errc <- err
					return
				}
				numbers <- is.Number
			}()
		}
		wg.Wait()
		close(numbers)
		close(errc)
		for err := range errc {
			t.Fatal(err)
		}
		var got []int64
		for num := range numbers {
			got = append(got, num)
		}
		slices.Sort(got)
		for i, num := range got {
			if num != int64(i+1) {
				t.Fatalf("numbers %v, want 1..%d", got, n)
			}
		}
		if len(got) != n {
			t.Fatalf("%d issues, want %d", len(got), n)
		}
		repo, _, err := s.sdk().GetRepo("alice", "busy")
		if err != nil || repo.OpenIssues != n {
			t.Fatalf("open_issues_count %d, want %d (%v)", repo.OpenIssues, n, err)
		}
	})
}
