package store_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"forge/services/store"
	"forge/services/store/storetest"
)

func milestoneCounts(t *testing.T, s *store.Store, repoID, id int64) (int64, int64) {
	t.Helper()
	m, err := s.MilestoneByID(context.Background(), repoID, id)
	if err != nil {
		t.Fatal(err)
	}
	return m.NumIssues, m.NumClosedIssues
}

// TestMilestones: create, read by id and name, list by state and name in
// due order, counts across issue create/close/move/delete, the timeline
// events, an unknown milestone refused, delete clearing the issues.
func TestMilestones(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		repo := newRepo(t, s, "proj")
		other := newRepo(t, s, "other")
		v1 := &store.Milestone{RepoID: repo.ID, Name: "v1", DeadlineUnix: 2000}
		v2 := &store.Milestone{RepoID: repo.ID, Name: "v2", DeadlineUnix: 1000}
		undated := &store.Milestone{RepoID: repo.ID, Name: "Later"}
		done := &store.Milestone{RepoID: repo.ID, Name: "done", IsClosed: true}
		foreign := &store.Milestone{RepoID: other.ID, Name: "v1"}
		for _, m := range []*store.Milestone{v1, v2, undated, done, foreign} {
			if err := s.CreateMilestone(ctx, m); err != nil {
				t.Fatal(err)
			}
		}
		if done.ClosedUnix == 0 || v1.ClosedUnix != 0 {
			t.Fatalf("closed times: %+v %+v", done, v1)
		}
		if m, err := s.MilestoneByName(ctx, repo.ID, "LATER"); err != nil || m.ID != undated.ID {
			t.Fatalf("by name: %+v %v", m, err)
		}
		if _, err := s.MilestoneByID(ctx, repo.ID, foreign.ID); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("another repository's milestone: %v", err)
		}
		names := func(o store.MilestoneListOptions) string {
			t.Helper()
			o.RepoID, o.Limit = repo.ID, 10
			list, total, err := s.ListMilestones(ctx, o)
			if err != nil || int(total) != len(list) {
				t.Fatalf("list: %v %d", err, total)
			}
			out := ""
			for _, m := range list {
				out += m.Name + ","
			}
			return out
		}
		if got := names(store.MilestoneListOptions{}); got != "v2,v1,Later," {
			t.Fatalf("open list %q", got)
		}
		if got := names(store.MilestoneListOptions{State: "all", Name: "v"}); got != "v2,v1," {
			t.Fatalf("name filter %q", got)
		}
		if got := names(store.MilestoneListOptions{State: "closed"}); got != "done," {
			t.Fatalf("closed list %q", got)
		}

		// Issues and their counts.
		n := &store.NewIssue{Issue: store.Issue{RepoID: repo.ID, PosterID: repo.OwnerID, Title: "a", MilestoneID: v1.ID}}
		if err := s.CreateIssue(ctx, n); err != nil {
			t.Fatal(err)
		}
		a := n.Issue
		bad := &store.NewIssue{Issue: store.Issue{RepoID: repo.ID, PosterID: repo.OwnerID, Title: "x", MilestoneID: foreign.ID}}
		if err := s.CreateIssue(ctx, bad); !errors.Is(err, store.ErrMilestoneNotFound) {
			t.Fatalf("create in another repository's milestone: %v", err)
		}
		b := newIssue(t, s, repo, "b", false)
		if _, err := s.UpdateIssue(ctx, repo.ID, b.Index, repo.OwnerID, func(e *store.IssueEdit) error {
			e.MilestoneID, e.IsClosed = v1.ID, true
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if all, closed := milestoneCounts(t, s, repo.ID, v1.ID); all != 2 || closed != 1 {
			t.Fatalf("v1 counts %d/%d", all, closed)
		}
		if _, err := s.UpdateIssue(ctx, repo.ID, b.Index, repo.OwnerID, func(e *store.IssueEdit) error {
			e.MilestoneID = foreign.ID
			return nil
		}); !errors.Is(err, store.ErrMilestoneNotFound) {
			t.Fatalf("move to another repository's milestone: %v", err)
		}
		if _, err := s.UpdateIssue(ctx, repo.ID, b.Index, repo.OwnerID, func(e *store.IssueEdit) error {
			e.MilestoneID = v2.ID
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		ms, err := s.MilestonesByID(ctx, []int64{v1.ID, v2.ID, 999999})
		if err != nil || len(ms) != 2 || ms[v1.ID].NumIssues != 1 || ms[v2.ID].NumClosedIssues != 1 {
			t.Fatalf("MilestonesByID: %+v %v", ms, err)
		}
		tl, _, err := s.ListTimeline(ctx, store.TimelineOptions{IssueID: b.ID, Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		var moves [][2]int64
		for _, c := range tl {
			if c.Type == store.CommentTypeMilestone {
				moves = append(moves, [2]int64{c.OldMilestoneID, c.MilestoneID})
			}
		}
		if len(moves) != 2 || moves[0] != [2]int64{0, v1.ID} || moves[1] != [2]int64{v1.ID, v2.ID} {
			t.Fatalf("milestone events %v", moves)
		}
		ids, err := s.MilestonesByNames(ctx, repo.ID, []string{"V1", "nope"})
		if err != nil || len(ids) != 1 || ids["v1"] != v1.ID {
			t.Fatalf("MilestonesByNames: %v %v", ids, err)
		}
		list, total, err := s.ListIssues(ctx, store.IssueListOptions{RepoID: repo.ID, State: "all", ByMilestone: true, MilestoneIDs: []int64{v2.ID}, Limit: 10})
		if err != nil || total != 1 || len(list) != 1 || list[0].ID != b.ID {
			t.Fatalf("filter by milestone: %v %d %v", list, total, err)
		}
		if list, total, _ = s.ListIssues(ctx, store.IssueListOptions{RepoID: repo.ID, ByMilestone: true, Limit: 10}); total != 0 || len(list) != 0 {
			t.Fatalf("filter by no milestone matched %d", total)
		}

		// Deleting the issue uncounts it; deleting the milestone clears it.
		if err := s.DeleteIssue(ctx, repo.ID, a.Index); err != nil {
			t.Fatal(err)
		}
		if all, _ := milestoneCounts(t, s, repo.ID, v1.ID); all != 0 {
			t.Fatalf("v1 after delete: %d", all)
		}
		if err := s.DeleteMilestone(ctx, repo.ID, v2.ID); err != nil {
			t.Fatal(err)
		}
		if is, err := s.IssueByIndex(ctx, repo.ID, b.Index); err != nil || is.MilestoneID != 0 {
			t.Fatalf("issue after milestone delete: %+v %v", is, err)
		}
		if err := s.DeleteMilestone(ctx, repo.ID, v2.ID); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("delete twice: %v", err)
		}
		if err := s.DeleteMilestone(ctx, repo.ID, foreign.ID); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("delete another repository's: %v", err)
		}

		// Edits: close and reopen move closed_unix.
		m, err := s.UpdateMilestone(ctx, repo.ID, v1.ID, func(m *store.Milestone) error { m.IsClosed = true; return nil })
		if err != nil || !m.IsClosed || m.ClosedUnix == 0 {
			t.Fatalf("close: %+v %v", m, err)
		}
		m, err = s.UpdateMilestone(ctx, repo.ID, v1.ID, func(m *store.Milestone) error { m.IsClosed = false; m.Name = "v1.0"; return nil })
		if err != nil || m.IsClosed || m.ClosedUnix != 0 || m.Name != "v1.0" {
			t.Fatalf("reopen: %+v %v", m, err)
		}
	})
}

// TestMilestoneCountsConcurrentStore: concurrent creations, closes and
// moves leave the counted numbers exact.
func TestMilestoneCountsConcurrentStore(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		repo := newRepo(t, s, "busy")
		m1 := &store.Milestone{RepoID: repo.ID, Name: "one"}
		m2 := &store.Milestone{RepoID: repo.ID, Name: "two"}
		for _, m := range []*store.Milestone{m1, m2} {
			if err := s.CreateMilestone(ctx, m); err != nil {
				t.Fatal(err)
			}
		}
		var wg sync.WaitGroup
		for i := 0; i < 20; i++ {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				n := &store.NewIssue{Issue: store.Issue{RepoID: repo.ID, PosterID: repo.OwnerID, Title: "x", MilestoneID: m1.ID}}
				if err := s.CreateIssue(ctx, n); err != nil {
					t.Error(err)
					return
				}
				if i%2 == 0 {
					return
				}
				if _, err := s.UpdateIssue(ctx, repo.ID, n.Index, repo.OwnerID, func(e *store.IssueEdit) error {
					e.MilestoneID, e.IsClosed = m2.ID, i%4 == 1
					return nil
				}); err != nil {
					t.Error(err)
				}
			}(i)
		}
		wg.Wait()
		if all, closed := milestoneCounts(t, s, repo.ID, m1.ID); all != 10 || closed != 0 {
			t.Fatalf("one: %d/%d", all, closed)
		}
		if all, closed := milestoneCounts(t, s, repo.ID, m2.ID); all != 10 || closed != 5 {
			t.Fatalf("two: %d/%d", all, closed)
		}
	})
}

// TestIssueWatches: the explicit choice wins over watching and taking
// part; the subscribers are the explicit ones; the rows go with the
// issue.
func TestIssueWatches(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		repo := newRepo(t, s, "proj") // the owner watches it
		bob := newUser("bob", "bob@x.org", false)
		carol := newUser("carol", "carol@x.org", false)
		for _, u := range []*store.User{bob, carol} {
			if err := s.CreateUser(ctx, u); err != nil {
				t.Fatal(err)
			}
		}
		is := newIssue(t, s, repo, "a", false)
		followed := func(uid int64, want bool) {
			t.Helper()
			if got, err := s.IssueFollowed(ctx, is, uid); err != nil || got != want {
				t.Fatalf("user %d follows: %v %v, want %v", uid, got, err, want)
			}
		}
		followed(repo.OwnerID, true)
		followed(bob.ID, false)
		followed(carol.ID, false)
		if err := s.CreateComment(ctx, &store.Comment{RepoID: repo.ID, IssueID: is.ID, PosterID: carol.ID, Content: "hi"}); err != nil {
			t.Fatal(err)
		}
		followed(carol.ID, true)
		for _, c := range []struct {
			uid int64
			on  bool
		}{{bob.ID, true}, {carol.ID, false}, {repo.OwnerID, false}, {carol.ID, true}} {
			if err := s.SetIssueWatch(ctx, is, c.uid, c.on); err != nil {
				t.Fatal(err)
			}
			followed(c.uid, c.on)
		}
		users, total, err := s.ListIssueSubscribers(ctx, is.ID, store.UserFilter{All: true}, 0, 10)
		if err != nil || total != 2 || len(users) != 2 || users[0].ID != bob.ID || users[1].ID != carol.ID {
			t.Fatalf("subscribers: %v %d %v", users, total, err)
		}
		if err := s.DeleteIssue(ctx, repo.ID, is.Index); err != nil {
			t.Fatal(err)
		}
		if _, total, _ := s.ListIssueSubscribers(ctx, is.ID, store.UserFilter{All: true}, 0, 10); total != 0 {
			t.Fatalf("subscribers after the issue went: %d", total)
		}
		if err := s.SetIssueWatch(ctx, is, bob.ID, true); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("watch a deleted issue: %v", err)
		}
	})
}
