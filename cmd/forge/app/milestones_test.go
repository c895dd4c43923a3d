package app_test

import (
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"code.gitea.io/sdk/gitea"
)

// TestMilestones drives repository milestones through the SDK and raw
// HTTP on both databases: create (title required), the JSON shape (null
// closed_at and due_on), list by state and name with paging, get by id
// and by title, edit (close, reopen, keep what is absent), issues in a
// milestone with their counts across close, reopen, move and delete, the
// issues list's milestones filter, the timeline's milestone events, a
// reader's milestone dropped, and delete taking the milestone off its
// issues.
func TestMilestones(t *testing.T) {
	t.Parallel()
	eachBackend(t, nil, func(t *testing.T, s *testServer) {
		aliceTok := s.seedUser("alice", "alice-password", false)
		bobTok := s.seedUser("bob", "bob-password", false)
		alice := s.sdk(gitea.SetToken(aliceTok))
		bob := s.sdk(gitea.SetToken(bobTok))
		anon := s.sdk()
		s.createRepo(t, aliceTok, "proj", false, false)
		auth := []string{"Authorization", "token " + aliceTok, "Content-Type", "application/json"}

		// Title required: 422.
		r := s.do("POST", "/api/v1/repos/alice/proj/milestones", `{"description":"x"}`, auth...)
		expectStatus(t, r, http.StatusUnprocessableEntity)

		r = s.do("POST", "/api/v1/repos/alice/proj/milestones", `{"title":"v1","description":"first"}`, auth...)
		expectStatus(t, r, http.StatusCreated)
		var raw map[string]any
		r.json(t, &raw)
		for _, k := range []string{"id", "title", "description", "state", "open_issues", "closed_issues", "created_at", "updated_at", "closed_at", "due_on"} {
			if _, ok := raw[k]; !ok {
				t.Fatalf("milestone JSON lacks %q: %s", k, r.Body)
			}
		}
		if raw["closed_at"] != nil || raw["due_on"] != nil || raw["state"] != "open" || raw["open_issues"] != float64(0) {
			t.Fatalf("new milestone: %s", r.Body)
		}
		due := time.Date(2030, 5, 1, 12, 0, 0, 0, time.UTC)
		v2, resp, err := alice.CreateMilestone("alice", "proj", gitea.CreateMilestoneOption{Title: "v2", Deadline: &due})
		if err != nil || resp.StatusCode != http.StatusCreated || v2.Deadline == nil || !v2.Deadline.Equal(due) {
			t.Fatalf("CreateMilestone v2: %+v %v", v2, err)
		}
		old, _, err := alice.CreateMilestone("alice", "proj", gitea.CreateMilestoneOption{Title: "old", State: gitea.StateClosed})
		if err != nil || old.State != gitea.StateClosed || old.Closed == nil {
			t.Fatalf("closed on create: %+v %v", old, err)
		}
		if _, _, err := bob.CreateMilestone("alice", "proj", gitea.CreateMilestoneOption{Title: "x"}); err == nil {
			t.Fatal("a reader created a milestone")
		}
		v1, _, err := anon.GetMilestoneByName("alice", "proj", "V1")
		if err != nil || v1.Title != "v1" || v1.Description != "first" {
			t.Fatalf("GetMilestoneByName: %+v %v", v1, err)
		}
		if got, _, err := anon.GetMilestone("alice", "proj", v2.ID); err != nil || got.Title != "v2" {
			t.Fatalf("GetMilestone: %+v %v", got, err)
		}
		expectStatus(t, s.do("GET", "/api/v1/repos/alice/proj/milestones/999999", ""), http.StatusNotFound)
		expectStatus(t, s.do("GET", "/api/v1/repos/alice/proj/milestones/nope", ""), http.StatusNotFound)

		// Lists: open by default, soonest due first, undated last.
		titles := func(ms []*gitea.Milestone) string {
			var out []string
			for _, m := range ms {
				out = append(out, m.Title)
			}
			return strings.Join(out, ",")
		}
		list, resp, err := anon.ListRepoMilestones("alice", "proj", gitea.ListMilestoneOption{})
		if err != nil || titles(list) != "v2,v1" || resp.Header.Get("X-Total-Count") != "2" {
			t.Fatalf("open list: %s %v", titles(list), err)
		}
		if list, _, err = anon.ListRepoMilestones("alice", "proj", gitea.ListMilestoneOption{State: gitea.StateAll}); err != nil || titles(list) != "v2,v1,old" {
			t.Fatalf("all: %s %v", titles(list), err)
		}
		if list, _, err = anon.ListRepoMilestones("alice", "proj", gitea.ListMilestoneOption{State: gitea.StateClosed}); err != nil || titles(list) != "old" {
			t.Fatalf("closed: %s %v", titles(list), err)
		}
		if list, _, err = anon.ListRepoMilestones("alice", "proj", gitea.ListMilestoneOption{State: gitea.StateAll, Name: "V"}); err != nil || titles(list) != "v2,v1" {
			t.Fatalf("name filter: %s %v", titles(list), err)
		}
		list, resp, err = anon.ListRepoMilestones("alice", "proj", gitea.ListMilestoneOption{State: gitea.StateAll, ListOptions: gitea.ListOptions{Page: 2, PageSize: 2}})
		if err != nil || titles(list) != "old" || resp.Header.Get("X-Total-Count") != "3" || resp.Header.Get("Link") == "" {
			t.Fatalf("page 2: %s %v %v", titles(list), resp.Header, err)
		}

		// Issues in milestones, counts moving with them.
		counts := func(id int64, open, closed int) {
			t.Helper()
			m, _, err := anon.GetMilestone("alice", "proj", id)
			if err != nil || m.OpenIssues != open || m.ClosedIssues != closed {
				t.Fatalf("milestone %d counts: %+v %v, want %d/%d", id, m, err, open, closed)
			}
		}
		issDue := time.Date(2031, 1, 2, 3, 4, 5, 0, time.UTC)
		a, _, err := alice.CreateIssue("alice", "proj", gitea.CreateIssueOption{Title: "a", Milestone: v1.ID, Ref: "main", Deadline: &issDue})
		if err != nil || a.Milestone == nil || a.Milestone.ID != v1.ID || a.Milestone.OpenIssues != 1 || a.Ref != "main" ||
			a.Deadline == nil || !a.Deadline.Equal(issDue) {
			t.Fatalf("create in milestone: %+v %v", a, err)
		}
		b, _, err := alice.CreateIssue("alice", "proj", gitea.CreateIssueOption{Title: "b", Milestone: v1.ID})
		if err != nil {
			t.Fatal(err)
		}
		plain, _, err := alice.CreateIssue("alice", "proj", gitea.CreateIssueOption{Title: "plain"})
		if err != nil || plain.Milestone != nil || plain.Deadline != nil {
			t.Fatalf("plain: %+v %v", plain, err)
		}
		// A reader's milestone is dropped, as Gitea.
		if got, _, err := bob.CreateIssue("alice", "proj", gitea.CreateIssueOption{Title: "bob's", Milestone: v1.ID}); err != nil || got.Milestone != nil {
			t.Fatalf("reader's milestone: %+v %v", got, err)
		}
		counts(v1.ID, 2, 0)
		closed := gitea.StateClosed
		if _, _, err := alice.EditIssue("alice", "proj", a.Index, gitea.EditIssueOption{State: &closed}); err != nil {
			t.Fatal(err)
		}
		counts(v1.ID, 1, 1)
		open := gitea.StateOpen
		if _, _, err := alice.EditIssue("alice", "proj", a.Index, gitea.EditIssueOption{State: &open}); err != nil {
			t.Fatal(err)
		}
		counts(v1.ID, 2, 0)
		// Move b to v2, then off any milestone.
		got, _, err := alice.EditIssue("alice", "proj", b.Index, gitea.EditIssueOption{Milestone: &v2.ID})
		if err != nil || got.Milestone == nil || got.Milestone.ID != v2.ID {
			t.Fatalf("move: %+v %v", got, err)
		}
		counts(v1.ID, 1, 0)
		counts(v2.ID, 1, 0)
		// Unknown milestone: 404.
		r = s.do("PATCH", "/api/v1/repos/alice/proj/issues/"+fmtInt(b.Index), `{"milestone":999999}`, auth...)
		expectStatus(t, r, http.StatusNotFound)
		r = s.do("POST", "/api/v1/repos/alice/proj/issues", `{"title":"x","milestone":999999}`, auth...)
		expectStatus(t, r, http.StatusNotFound)

		// The milestones filter: by name, by id, unknown names dropped.
		issueTitles := func(is []*gitea.Issue) string {
			var out []string
			for _, i := range is {
				out = append(out, i.Title)
			}
			return strings.Join(out, ",")
		}
		in, _, err := anon.ListRepoIssues("alice", "proj", gitea.ListIssueOption{Milestones: []string{"v1"}})
		if err != nil || issueTitles(in) != "a" {
			t.Fatalf("filter v1: %s %v", issueTitles(in), err)
		}
		in, resp, err = anon.ListRepoIssues("alice", "proj", gitea.ListIssueOption{Milestones: []string{fmtInt(v2.ID), "v1"}})
		if err != nil || issueTitles(in) != "b,a" || resp.Header.Get("X-Total-Count") != "2" {
			t.Fatalf("filter v2 id and v1: %s %v", issueTitles(in), err)
		}
		if in, _, err = anon.ListRepoIssues("alice", "proj", gitea.ListIssueOption{Milestones: []string{"nothing"}}); err != nil || len(in) != 4 {
			t.Fatalf("unknown name: %s %v", issueTitles(in), err)
		}

		zero := int64(0)
		if got, _, err = alice.EditIssue("alice", "proj", b.Index, gitea.EditIssueOption{Milestone: &zero}); err != nil || got.Milestone != nil {
			t.Fatalf("clear: %+v %v", got, err)
		}
		counts(v2.ID, 0, 0)
		items, _ := s.timeline(t, aliceTok, "/api/v1/repos/alice/proj/issues/"+fmtInt(b.Index)+"/timeline")
		if timelineTypes(items) != "milestone,milestone,milestone" {
			t.Fatalf("timeline: %s", timelineTypes(items))
		}
		var tl []struct {
			OldMilestone *struct{ Title string } `json:"old_milestone"`
			Milestone    *struct{ Title string } `json:"milestone"`
		}
		s.do("GET", "/api/v1/repos/alice/proj/issues/"+fmtInt(b.Index)+"/timeline", "", auth...).json(t, &tl)
		if tl[0].OldMilestone != nil || tl[0].Milestone.Title != "v1" || tl[1].OldMilestone.Title != "v1" || tl[1].Milestone.Title != "v2" ||
			tl[2].OldMilestone.Title != "v2" || tl[2].Milestone != nil {
			t.Fatalf("timeline milestones: %+v", tl)
		}

		// Due date: end of the day on edit, unset.
		editDue := time.Date(2032, 3, 4, 5, 6, 7, 0, time.UTC)
		ref := "dev"
		got, _, err = alice.EditIssue("alice", "proj", b.Index, gitea.EditIssueOption{Deadline: &editDue, Ref: &ref})
		if err != nil || got.Deadline == nil || !got.Deadline.Equal(time.Date(2032, 3, 4, 23, 59, 59, 0, time.UTC)) || got.Ref != "dev" {
			t.Fatalf("due date: %+v %v", got, err)
		}
		yes := true
		if got, _, err = alice.EditIssue("alice", "proj", b.Index, gitea.EditIssueOption{RemoveDeadline: &yes}); err != nil || got.Deadline != nil || got.Ref != "dev" {
			t.Fatalf("unset due date: %+v %v", got, err)
		}

		// Edit the milestone: close keeps the rest, reopen clears closed_at.
		m, _, err := alice.EditMilestone("alice", "proj", v1.ID, gitea.EditMilestoneOption{State: &closed})
		if err != nil || m.State != gitea.StateClosed || m.Closed == nil || m.Title != "v1" || m.Description != "first" || m.OpenIssues != 1 {
			t.Fatalf("close milestone: %+v %v", m, err)
		}
		desc := "changed"
		m, _, err = alice.EditMilestoneByName("alice", "proj", "v1", gitea.EditMilestoneOption{Title: "v1.0", State: &open, Description: &desc})
		if err != nil || m.State != gitea.StateOpen || m.Closed != nil || m.Title != "v1.0" || m.Description != "changed" {
			t.Fatalf("reopen milestone: %+v %v", m, err)
		}
		if _, _, err := bob.EditMilestone("alice", "proj", v1.ID, gitea.EditMilestoneOption{Title: "x"}); err == nil {
			t.Fatal("a reader edited a milestone")
		}

		// Deleting an issue uncounts it; deleting the milestone takes it
		// off its issues.
		if _, err := alice.DeleteIssue("alice", "proj", a.Index); err != nil {
			t.Fatal(err)
		}
		counts(v1.ID, 0, 0)
		if got, _, err = alice.EditIssue("alice", "proj", b.Index, gitea.EditIssueOption{Milestone: &v2.ID}); err != nil {
			t.Fatal(err)
		}
		if _, err := bob.DeleteMilestone("alice", "proj", v2.ID); err == nil {
			t.Fatal("a reader deleted a milestone")
		}
		r = s.do("DELETE", "/api/v1/repos/alice/proj/milestones/v2", "", auth...)
		expectStatus(t, r, http.StatusNoContent)
		if got, _, err = anon.GetIssue("alice", "proj", b.Index); err != nil || got.Milestone != nil {
			t.Fatalf("issue after milestone delete: %+v %v", got, err)
		}
		expectStatus(t, s.do("DELETE", "/api/v1/repos/alice/proj/milestones/"+fmtInt(v2.ID), "", auth...), http.StatusNotFound)
	})
}

// TestMilestoneCountsConcurrent creates 50 issues in one milestone at
// once, then closes half of them at once: the counts, counted from the
// issues, are exact.
func TestMilestoneCountsConcurrent(t *testing.T) {
	t.Parallel()
	eachBackend(t, nil, func(t *testing.T, s *testServer) {
		tok := s.seedUser("alice", "alice-password", false)
		c := s.sdk(gitea.SetToken(tok))
		s.createRepo(t, tok, "proj", false, false)
		m, _, err := c.CreateMilestone("alice", "proj", gitea.CreateMilestoneOption{Title: "busy"})
		if err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		errc := make(chan error, 50)
		idx := make(chan int64, 50)
		for i := 0; i < 50; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				is, _, err := c.CreateIssue("alice", "proj", gitea.CreateIssueOption{Title: "x", Milestone: m.ID})
				if err != nil {
					errc <- err
					return
				}
				idx <- is.Index
			}()
		}
		wg.Wait()
		close(errc)
		close(idx)
		for err := range errc {
			t.Fatal(err)
		}
		got, _, err := c.GetMilestone("alice", "proj", m.ID)
		if err != nil || got.OpenIssues != 50 || got.ClosedIssues != 0 {
			t.Fatalf("after 50 creations: %+v %v", got, err)
		}
		closed := gitea.StateClosed
		n := 0
		for i := range idx {
			if n++; n > 25 {
				break
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				if _, _, err := c.EditIssue("alice", "proj", i, gitea.EditIssueOption{State: &closed}); err != nil {
					t.Error(err)
				}
			}()
		}
		wg.Wait()
		got, _, err = c.GetMilestone("alice", "proj", m.ID)
		if err != nil || got.OpenIssues != 25 || got.ClosedIssues != 25 {
			t.Fatalf("after 25 closes: %+v %v", got, err)
		}
	})
}

// TestPullMilestones: a pull request created in a milestone shows it and
// counts in it, the pull request list's milestone filter finds it, an
// edit moves it (0 keeps it, as Gitea) and sets its due date.
func TestPullMilestones(t *testing.T) {
	t.Parallel()
	eachBackend(t, nil, func(t *testing.T, s *testServer) {
		tok := s.seedUser("alice", "alice-password", false)
		alice := s.sdk(gitea.SetToken(tok))
		s.createRepo(t, tok, "proj", true, false)
		work := s.clone(t, "alice", "alice-password", "alice", "proj")
		gitCmd(t, work, "checkout", "-q", "-b", "feature")
		commitFile(t, work, "a.txt", "one\n", "first")
		gitCmd(t, work, "push", "-q", "origin", "feature")
		m1, _, err := alice.CreateMilestone("alice", "proj", gitea.CreateMilestoneOption{Title: "m1"})
		if err != nil {
			t.Fatal(err)
		}
		m2, _, err := alice.CreateMilestone("alice", "proj", gitea.CreateMilestoneOption{Title: "m2"})
		if err != nil {
			t.Fatal(err)
		}
		r := s.do("POST", "/api/v1/repos/alice/proj/pulls", `{"head":"feature","base":"main","title":"x","milestone":999999}`,
			"Authorization", "token "+tok, "Content-Type", "application/json")
		expectStatus(t, r, http.StatusNotFound)
		pr, _, err := alice.CreatePullRequest("alice", "proj", gitea.CreatePullRequestOption{Head: "feature", Base: "main", Title: "Feature", Milestone: m1.ID})
		if err != nil || pr.Milestone == nil || pr.Milestone.ID != m1.ID || pr.Milestone.OpenIssues != 1 {
			t.Fatalf("create in milestone: %+v %v", pr, err)
		}
		list, _, err := alice.ListRepoPullRequests("alice", "proj", gitea.ListPullRequestsOptions{Milestone: m1.ID})
		if err != nil || len(list) != 1 {
			t.Fatalf("filter m1: %d %v", len(list), err)
		}
		if list, _, err = alice.ListRepoPullRequests("alice", "proj", gitea.ListPullRequestsOptions{Milestone: m2.ID}); err != nil || len(list) != 0 {
			t.Fatalf("filter m2: %d %v", len(list), err)
		}
		due := time.Date(2033, 6, 7, 8, 9, 10, 0, time.UTC)
		got, _, err := alice.EditPullRequest("alice", "proj", pr.Index, gitea.EditPullRequestOption{Milestone: m2.ID, Deadline: &due})
		if err != nil || got.Milestone == nil || got.Milestone.ID != m2.ID || got.Deadline == nil ||
			!got.Deadline.Equal(time.Date(2033, 6, 7, 23, 59, 59, 0, time.UTC)) {
			t.Fatalf("edit: %+v %v", got, err)
		}
		if got, _, err = alice.EditPullRequest("alice", "proj", pr.Index, gitea.EditPullRequestOption{Title: "Feature!"}); err != nil ||
			got.Milestone == nil || got.Milestone.ID != m2.ID {
			t.Fatalf("edit without milestone: %+v %v", got, err)
		}
		if list, _, err = alice.ListRepoPullRequests("alice", "proj", gitea.ListPullRequestsOptions{Milestone: m2.ID}); err != nil || len(list) != 1 ||
			list[0].Milestone == nil || list[0].Milestone.Title != "m2" {
			t.Fatalf("filter m2 after the move: %d %v", len(list), err)
		}
		if is, _, err := alice.GetIssue("alice", "proj", pr.Index); err != nil || is.Milestone == nil || is.Milestone.ID != m2.ID {
			t.Fatalf("the pull request's issue: %+v %v", is, err)
		}
	})
}
