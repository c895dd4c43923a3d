package store_test

import (
	"context"
	"errors"
	"testing"

	"forge/services/store"
	"forge/services/store/storetest"
)

// TestReactionsPinsTimes: a reaction is stored once per user and type;
// pins keep positions 1..n through pin, move and unpin, up to the limit;
// a stopwatch started on a second issue stops the first and adds its
// time; deleting the issue, then the repository, takes reactions, times
// and stopwatches along.
func TestReactionsPinsTimes(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		repo := depRepo(t, s, "collab", false)
		a := newIssue(t, s, repo, "a", false)
		b := newIssue(t, s, repo, "b", false)
		c := newIssue(t, s, repo, "c", false)
		uid := repo.OwnerID

		r := store.Reaction{Type: "heart", RepoID: repo.ID, IssueID: a.ID, UserID: uid}
		if _, created, err := s.AddReaction(ctx, r); err != nil || !created {
			t.Fatalf("first reaction: %v %v", created, err)
		}
		if _, created, err := s.AddReaction(ctx, r); err != nil || created {
			t.Fatalf("the same reaction again: %v %v", created, err)
		}
		if list, total, err := s.ListReactions(ctx, a.ID, 0, 0, 0); err != nil || total != 1 || len(list) != 1 {
			t.Fatalf("reactions: %v %d %v", list, total, err)
		}
		if _, _, err := s.AddReaction(ctx, store.Reaction{Type: "heart", RepoID: repo.ID, IssueID: a.ID, CommentID: 999999, UserID: uid}); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("a reaction on an unknown comment: %v", err)
		}

		for _, is := range []*store.Issue{a, b, c} {
			if err := s.PinIssue(ctx, is.ID, uid, 3); err != nil {
				t.Fatal(err)
			}
		}
		d := newIssue(t, s, repo, "d", false)
		if err := s.PinIssue(ctx, d.ID, uid, 3); !errors.Is(err, store.ErrPinLimit) {
			t.Fatalf("a fourth pin: %v", err)
		}
		order := func() string {
			list, err := s.PinnedIssues(ctx, repo.ID, false)
			if err != nil {
				t.Fatal(err)
			}
			out := ""
			for _, is := range list {
				out += is.Title + string(rune('0'+is.PinOrder))
			}
			return out
		}
		if err := s.MoveIssuePin(ctx, a.ID, 3); err != nil || order() != "b1c2a3" {
			t.Fatalf("after moving a last: %s %v", order(), err)
		}
		if err := s.MoveIssuePin(ctx, a.ID, 1); err != nil || order() != "a1b2c3" {
			t.Fatalf("after moving a first: %s %v", order(), err)
		}
		if err := s.UnpinIssue(ctx, b.ID, uid); err != nil || order() != "a1c2" {
			t.Fatalf("after unpinning b: %s %v", order(), err)
		}

		if err := s.StartStopwatch(ctx, repo.ID, a.ID, uid); err != nil {
			t.Fatal(err)
		}
		if err := s.StartStopwatch(ctx, repo.ID, a.ID, uid); !errors.Is(err, store.ErrStopwatchRunning) {
			t.Fatalf("a second start: %v", err)
		}
		if err := s.StartStopwatch(ctx, repo.ID, b.ID, uid); err != nil {
			t.Fatal(err)
		}
		if sws, total, err := s.ListStopwatches(ctx, uid, 0, 10); err != nil || total != 1 || sws[0].IssueID != b.ID {
			t.Fatalf("stopwatches: %v %d %v", sws, total, err)
		}
		if times, total, err := s.ListTrackedTimes(ctx, store.TrackedTimeOptions{UserID: uid}); err != nil || total != 1 || times[0].IssueID != a.ID {
			t.Fatalf("the first stopwatch's time: %v %v", times, err)
		}
		if err := s.StopStopwatch(ctx, a.ID, uid, true); !errors.Is(err, store.ErrStopwatchMissing) {
			t.Fatalf("stopping a stopped stopwatch: %v", err)
		}
		if _, err := s.AddTrackedTime(ctx, store.TrackedTime{RepoID: repo.ID, IssueID: b.ID, UserID: uid, Time: 5}); err != nil {
			t.Fatal(err)
		}

		if err := s.DeleteIssue(ctx, repo.ID, a.Index); err != nil {
			t.Fatal(err)
		}
		for _, table := range []string{"reactions", "tracked_times"} {
			if n, err := s.CountOwned(ctx, table, "issue_id", a.ID); err != nil || n != 0 {
				t.Errorf("%d %s survived their issue (%v)", n, table, err)
			}
		}
		if err := s.DeleteRepository(ctx, repo.ID); err != nil {
			t.Fatal(err)
		}
		for _, table := range []string{"reactions", "tracked_times", "stopwatches"} {
			if n, err := s.CountOwned(ctx, table, "repo_id", repo.ID); err != nil || n != 0 {
				t.Errorf("%d %s survived their repository (%v)", n, table, err)
			}
		}
	})
}
