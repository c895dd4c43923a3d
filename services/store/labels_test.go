package store_test

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"sync"
	"testing"

	"forge/services/errs"
	"forge/services/store"
	"forge/services/store/storetest"
)

// labelIssue inserts an issue row directly (the issue use cases are not
// needed to test labels).
func labelIssue(t *testing.T, s *store.Store, repoID, index int64, closed bool) *store.Issue {
	t.Helper()
	is := &store.Issue{RepoID: repoID, Index: index, Title: "issue", IsClosed: closed}
	if err := s.DB().Create(is).Error; err != nil {
		t.Fatal(err)
	}
	return is
}

func newLabel(t *testing.T, s *store.Store, o store.LabelOwner, name string, exclusive bool) *store.Label {
	t.Helper()
	l := &store.Label{RepoID: o.RepoID, OrgID: o.OrgID, Name: name, Exclusive: exclusive, Color: "#aabbcc"}
	if err := s.CreateLabel(context.Background(), l); err != nil {
		t.Fatal(err)
	}
	return l
}

func labelNames(ls []store.Label) string {
	var out []string
	for _, l := range ls {
		out = append(out, l.Name)
	}
	return strings.Join(out, ",")
}

func labelCounts(t *testing.T, s *store.Store, id int64) (int, int) {
	t.Helper()
	var l store.Label
	if err := s.DB().Take(&l, id).Error; err != nil {
		t.Fatal(err)
	}
	return l.NumIssues, l.NumClosedIssues
}

func TestExclusiveScope(t *testing.T) {
	for name, want := range map[string]string{
		"priority/high": "priority", "a/b/c": "a/b", "/x": "", "x/": "", "plain": "",
	} {
		if got := store.ExclusiveScope(name, true); got != want {
			t.Errorf("%q: scope %q, want %q", name, got, want)
		}
	}
	if got := store.ExclusiveScope("priority/high", false); got != "" {
		t.Errorf("non-exclusive label has scope %q", got)
	}
}

func TestLabelsCRUD(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		repo := newRepo(t, s, "lab")
		other := newRepo(t, s, "lab2")
		own := store.LabelOwner{RepoID: repo.ID}
		b := newLabel(t, s, own, "bug", false)
		newLabel(t, s, own, "alpha", false)
		newLabel(t, s, own, "zeta", false)
		newLabel(t, s, store.LabelOwner{RepoID: other.ID}, "elsewhere", false)

		ls, total, err := s.ListLabels(ctx, store.LabelListOptions{Owner: own, Limit: 2})
		if err != nil || total != 3 || labelNames(ls) != "alpha,bug" {
			t.Fatalf("page 1: %q %d %v", labelNames(ls), total, err)
		}
		ls, _, _ = s.ListLabels(ctx, store.LabelListOptions{Owner: own, Offset: 2, Limit: 2})
		if labelNames(ls) != "zeta" {
			t.Fatalf("page 2: %q", labelNames(ls))
		}
		ls, _, _ = s.ListLabels(ctx, store.LabelListOptions{Owner: own, Sort: store.LabelSortNameDesc, Limit: 10})
		if labelNames(ls) != "zeta,bug,alpha" {
			t.Fatalf("reverse: %q", labelNames(ls))
		}
		if _, err := s.LabelByID(ctx, store.LabelOwner{RepoID: other.ID}, b.ID); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("another repository's label: %v", err)
		}
		if got, err := s.LabelByName(ctx, own, "bug"); err != nil || got.ID != b.ID {
			t.Fatalf("by name: %v %v", got, err)
		}
		up, err := s.UpdateLabel(ctx, own, b.ID, func(l *store.Label) error {
			l.Name, l.NumIssues, l.RepoID = "defect", 99, other.ID
			return nil
		})
		if err != nil || up.Name != "defect" || up.NumIssues != 0 || up.RepoID != repo.ID {
			t.Fatalf("update: %+v %v", up, err)
		}
		if err := s.DeleteLabel(ctx, own, b.ID); err != nil {
			t.Fatal(err)
		}
		if err := s.DeleteLabel(ctx, own, b.ID); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("second delete: %v", err)
		}
	})
}

func TestIssueLabelsExclusiveRule(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		repo := newRepo(t, s, "excl")
		own := store.LabelOwner{RepoID: repo.ID}
		high := newLabel(t, s, own, "priority/high", true)
		low := newLabel(t, s, own, "priority/low", true)
		bug := newLabel(t, s, own, "bug", false)
		// Not exclusive: the same prefix is no scope.
		kindA := newLabel(t, s, own, "kind/a", false)
		kindB := newLabel(t, s, own, "kind/b", false)
		orgLabel := newLabel(t, s, store.LabelOwner{OrgID: repo.OwnerID}, "org-wide", false)
		foreign := newLabel(t, s, store.LabelOwner{OrgID: repo.OwnerID + 1000}, "foreign", false)
		issue := labelIssue(t, s, repo.ID, 1, true)

		edit := func(mode store.IssueLabelMode, ids ...int64) ([]store.Label, error) {
			return s.EditIssueLabels(ctx, store.IssueLabelEdit{RepoID: repo.ID, OrgID: repo.OwnerID, Index: 1,
				ActorID: repo.OwnerID, Mode: mode, IDs: ids})
		}
		ls, err := edit(store.IssueLabelsAdd, high.ID, bug.ID, kindA.ID, kindB.ID, orgLabel.ID, foreign.ID, 12345)
		if err != nil || labelNames(ls) != "bug,kind/a,kind/b,org-wide,priority/high" {
			t.Fatalf("add: %q %v", labelNames(ls), err)
		}
		// Adding the other label of the scope replaces the first.
		ls, err = edit(store.IssueLabelsAdd, low.ID)
		if err != nil || labelNames(ls) != "bug,kind/a,kind/b,org-wide,priority/low" {
			t.Fatalf("replace on add: %q %v", labelNames(ls), err)
		}
		if n, c := labelCounts(t, s, high.ID); n != 0 || c != 0 {
			t.Fatalf("high counts %d/%d", n, c)
		}
		if n, c := labelCounts(t, s, low.ID); n != 1 || c != 1 {
			t.Fatalf("low counts %d/%d (closed issue)", n, c)
		}
		// Two of one scope in one request: refused, nothing changes.
		for _, mode := range []store.IssueLabelMode{store.IssueLabelsAdd, store.IssueLabelsReplace} {
			_, err = edit(mode, high.ID, low.ID)
			if errs.KindOf(err) != errs.Invalid || !strings.Contains(err.Error(), `"priority"`) {
				t.Fatalf("mode %d: two of a scope: %v", mode, err)
			}
		}
		got, err := s.IssueLabels(ctx, repo.ID, 1)
		if err != nil || labelNames(got) != "bug,kind/a,kind/b,org-wide,priority/low" {
			t.Fatalf("after refused: %q %v", labelNames(got), err)
		}
		// By name, repository labels only.
		ls, err = s.EditIssueLabels(ctx, store.IssueLabelEdit{RepoID: repo.ID, OrgID: repo.OwnerID, Index: 1,
			Mode: store.IssueLabelsReplace, Names: []string{"priority/high", "org-wide", "nope"}})
		if err != nil || labelNames(ls) != "priority/high" {
			t.Fatalf("replace by name: %q %v", labelNames(ls), err)
		}
		ls, err = edit(store.IssueLabelsRemove, high.ID)
		if err != nil || len(ls) != 0 {
			t.Fatalf("remove: %q %v", labelNames(ls), err)
		}
		for _, l := range []*store.Label{high, low, bug, orgLabel} {
			if n, c := labelCounts(t, s, l.ID); n != 0 || c != 0 {
				t.Fatalf("%s counts %d/%d after clearing", l.Name, n, c)
			}
		}
		var acts int64
		s.DB().Model(&store.Activity{}).Where("issue_id = ? AND kind = ?", issue.ID, store.ActivityLabeled).Count(&acts)
		if acts != 4 {
			t.Fatalf("%d label activities, want 4 (one per change)", acts)
		}
		if _, err := s.EditIssueLabels(ctx, store.IssueLabelEdit{RepoID: repo.ID, Index: 99, IDs: []int64{bug.ID}}); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("unknown issue: %v", err)
		}
	})
}

// Two clients adding the two labels of one exclusive scope to one issue
// at once leave exactly one of them, and the counters agree.
func TestIssueLabelsExclusiveConcurrent(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		repo := newRepo(t, s, "race")
		own := store.LabelOwner{RepoID: repo.ID}
		a := newLabel(t, s, own, "prio/a", true)
		b := newLabel(t, s, own, "prio/b", true)
		const rounds = 10
		for i := int64(1); i <= rounds; i++ {
			labelIssue(t, s, repo.ID, i, false)
		}
		var wg sync.WaitGroup
		errc := make(chan error, 2*rounds)
		for i := int64(1); i <= rounds; i++ {
			for _, id := range []int64{a.ID, b.ID} {
				wg.Add(1)
				go func(index, id int64) {
					defer wg.Done()
					_, err := s.EditIssueLabels(ctx, store.IssueLabelEdit{RepoID: repo.ID, Index: index, Mode: store.IssueLabelsAdd, IDs: []int64{id}})
					errc <- err
				}(i, id)
			}
		}
		wg.Wait()
		close(errc)
		for err := range errc {
			if err != nil {
				t.Fatal(err)
			}
		}
		onA := 0
		for i := int64(1); i <= rounds; i++ {
			ls, err := s.IssueLabels(ctx, repo.ID, i)
			if err != nil || len(ls) != 1 {
				t.Fatalf("issue %d: %q %v", i, labelNames(ls), err)
			}
			if ls[0].ID == a.ID {
				onA++
			}
		}
		na, _ := labelCounts(t, s, a.ID)
		nb, _ := labelCounts(t, s, b.ID)
		if na != onA || nb != rounds-onA {
			t.Fatalf("counters %d/%d, issues %d/%d", na, nb, onA, rounds-onA)
		}
	})
}

// Closing, reopening and deleting an issue keep its labels' counters.
func TestLabelCountersFollowIssueState(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		repo := newRepo(t, s, "count")
		l := newLabel(t, s, store.LabelOwner{RepoID: repo.ID}, "bug", false)
		n := &store.NewIssue{Issue: store.Issue{RepoID: repo.ID, PosterID: repo.OwnerID, Title: "t"}, LabelIDs: []int64{l.ID}}
		if err := s.CreateIssue(ctx, n); err != nil {
			t.Fatal(err)
		}
		check := func(what string, issues, closed int) {
			t.Helper()
			if gi, gc := labelCounts(t, s, l.ID); gi != issues || gc != closed {
				t.Fatalf("%s: counters %d/%d, want %d/%d", what, gi, gc, issues, closed)
			}
		}
		check("created with the label", 1, 0)
		setClosed := func(closed bool) {
			t.Helper()
			if _, err := s.UpdateIssue(ctx, repo.ID, n.Index, repo.OwnerID, func(e *store.IssueEdit) error {
				e.IsClosed = closed
				return nil
			}); err != nil {
				t.Fatal(err)
			}
		}
		setClosed(true)
		check("closed", 1, 1)
		setClosed(false)
		check("reopened", 1, 0)
		setClosed(true)
		if err := s.DeleteIssue(ctx, repo.ID, n.Index); err != nil {
			t.Fatal(err)
		}
		check("deleted", 0, 0)
	})
}

// A label deleted while clients put it on issues ends up on none of them
// (no issue_labels row outlives its label).
func TestDeleteLabelWhileLabelling(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		repo := newRepo(t, s, "del")
		own := store.LabelOwner{RepoID: repo.ID}
		const n = 8
		for i := int64(1); i <= n; i++ {
			labelIssue(t, s, repo.ID, i, false)
		}
		for round := 0; round < 3; round++ {
			l := newLabel(t, s, own, "doomed", false)
			var wg sync.WaitGroup
			for i := int64(1); i <= n; i++ {
				wg.Add(1)
				go func(index int64) {
					defer wg.Done()
					if _, err := s.EditIssueLabels(ctx, store.IssueLabelEdit{RepoID: repo.ID, Index: index, Mode: store.IssueLabelsAdd, IDs: []int64{l.ID}}); err != nil {
						t.Error(err)
					}
				}(i)
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				if err := s.DeleteLabel(ctx, own, l.ID); err != nil {
					t.Error(err)
				}
			}()
			wg.Wait()
			var orphans int64
			s.DB().Model(&store.IssueLabel{}).Where("label_id = ?", l.ID).Count(&orphans)
			if orphans != 0 {
				t.Fatalf("round %d: %d issue_labels rows of a deleted label", round, orphans)
			}
		}
	})
}

// TestLabelPageFields: the labels page and the labels of issues, read
// without gorm's reflection, carry every field of each label as stored,
// in order; the scan names every field of Label.
func TestLabelPageFields(t *testing.T) {
	var l store.Label
	if n, cols := reflect.TypeOf(l).NumField(), strings.Count(store.LabelColumnsForTest, ",")+1; len(store.LabelFieldsForTest(&l)) != n || cols != n {
		t.Fatalf("Label has %d fields, the scan %d and its columns %d", n, len(store.LabelFieldsForTest(&l)), cols)
	}
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		repo := newRepo(t, s, "fields")
		own := store.LabelOwner{RepoID: repo.ID}
		a := &store.Label{RepoID: repo.ID, Name: "scope/a", Exclusive: true, Description: "the a", Color: "#010203"}
		if err := s.CreateLabel(ctx, a); err != nil {
			t.Fatal(err)
		}
		b := newLabel(t, s, own, "b", false)
		if _, err := s.UpdateLabel(ctx, own, b.ID, func(l *store.Label) error { l.ArchivedUnix = 1234; return nil }); err != nil {
			t.Fatal(err)
		}
		issue := labelIssue(t, s, repo.ID, 1, false)
		if _, err := s.EditIssueLabels(ctx, store.IssueLabelEdit{RepoID: repo.ID, OrgID: repo.OwnerID, Index: 1,
			ActorID: repo.OwnerID, Mode: store.IssueLabelsAdd, IDs: []int64{a.ID, b.ID}}); err != nil {
			t.Fatal(err)
		}
		stored := func(id int64) store.Label {
			l, err := s.LabelByID(ctx, own, id)
			if err != nil {
				t.Fatal(err)
			}
			return *l
		}
		want := []store.Label{stored(a.ID), stored(b.ID)}
		if want[0].NumIssues != 1 || want[1].ArchivedUnix != 1234 {
			t.Fatalf("stored labels %+v", want)
		}
		page, total, err := s.ListLabels(ctx, store.LabelListOptions{Owner: own, Sort: store.LabelSortNameDesc, Limit: 10})
		if err != nil || total != 2 || !reflect.DeepEqual(page, want) {
			t.Fatalf("page %+v (%d, %v), want %+v", page, total, err, want)
		}
		of, err := s.LabelsOfIssues(ctx, []int64{issue.ID})
		if err != nil || !reflect.DeepEqual(of[issue.ID], []store.Label{want[1], want[0]}) {
			t.Fatalf("labels of the issue %+v (%v), want %+v", of, err, want)
		}
	})
}
