package store_test

import (
	"context"
	"errors"
	"testing"

	"forge/services/store"
	"forge/services/store/storetest"
)

// TestTimelineEventsCommitWithTheirChange: an event row is written in the
// transaction of its change, so a refused change (closing an issue with
// an open dependency, retitling it in the same edit) leaves neither
// event, and the allowed one leaves both, in Gitea's order (state, then
// title); events are no comments (num_comments and the comment list do
// not see them, nor does CommentByID).
func TestTimelineEventsCommitWithTheirChange(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		repo := depRepo(t, s, "events", false)
		a := newIssue(t, s, repo, "a", false)
		b := newIssue(t, s, repo, "b", false)
		if err := s.AddIssueDependency(ctx, a.ID, b.ID); err != nil {
			t.Fatal(err)
		}
		closeAndRetitle := func(is *store.Issue) error {
			_, err := s.UpdateIssue(ctx, repo.ID, is.Index, repo.OwnerID, func(e *store.IssueEdit) error {
				e.IsClosed, e.Title = true, "renamed"
				return nil
			})
			return err
		}
		types := func(is *store.Issue) []int {
			t.Helper()
			list, total, err := s.ListTimeline(ctx, store.TimelineOptions{IssueID: is.ID, Limit: 50})
			if err != nil || int(total) != len(list) {
				t.Fatalf("timeline: %d of %d, %v", len(list), total, err)
			}
			var out []int
			for _, c := range list {
				out = append(out, c.Type)
			}
			return out
		}
		if err := closeAndRetitle(a); !errors.Is(err, store.ErrDependenciesOpen) {
			t.Fatalf("closing with an open dependency: %v", err)
		}
		if got := types(a); len(got) != 0 {
			t.Fatalf("a refused change left events %v", got)
		}
		if err := closeAndRetitle(b); err != nil {
			t.Fatal(err)
		}
		got := types(b)
		if len(got) != 2 || got[0] != store.CommentTypeClose || got[1] != store.CommentTypeChangeTitle {
			t.Fatalf("events %v, want close then change_title", got)
		}
		list, _, err := s.ListTimeline(ctx, store.TimelineOptions{IssueID: b.ID, Limit: 50})
		if err != nil {
			t.Fatal(err)
		}
		if list[1].OldTitle != "b" || list[1].NewTitle != "renamed" {
			t.Fatalf("title event %+v", list[1])
		}
		if _, err := s.CommentByID(ctx, repo.ID, list[0].ID); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("an event read as a comment: %v", err)
		}
		if err := s.DeleteComment(ctx, repo.ID, list[0].ID); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("an event deleted as a comment: %v", err)
		}
		comments, total, err := s.ListComments(ctx, store.CommentListOptions{RepoID: repo.ID})
		if err != nil || total != 0 || len(comments) != 0 {
			t.Fatalf("comments %d %d %v", len(comments), total, err)
		}
		is, err := s.IssueByID(ctx, b.ID)
		if err != nil || is.NumComments != 0 {
			t.Fatalf("num_comments %+v %v", is, err)
		}
	})
}
