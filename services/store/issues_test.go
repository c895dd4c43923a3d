package store_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"gorm.io/gorm"

	"forge/services/store"
	"forge/services/store/storetest"
)

func newIssue(t *testing.T, s *store.Store, repo *store.Repository, title string, closed bool) *store.Issue {
	t.Helper()
	n := &store.NewIssue{Issue: store.Issue{RepoID: repo.ID, PosterID: repo.OwnerID, Title: title, IsClosed: closed}}
	if err := s.CreateIssue(context.Background(), n); err != nil {
		t.Fatal(err)
	}
	return &n.Issue
}

func issueCounters(t *testing.T, s *store.Store, repoID int64) (int, int) {
	t.Helper()
	r, err := s.RepositoryByID(context.Background(), repoID)
	if err != nil {
		t.Fatal(err)
	}
	return r.NumIssues, r.NumClosedIssues
}

func TestCreateIssue(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		repo := newRepo(t, s, "tracker")
		a := newIssue(t, s, repo, "first", false)
		b := newIssue(t, s, repo, "second", true)
		if a.Index != 1 || b.Index != 2 || b.ClosedUnix == 0 {
			t.Fatalf("indexes %d %d closed %d", a.Index, b.Index, b.ClosedUnix)
		}
		if n, c := issueCounters(t, s, repo.ID); n != 2 || c != 1 {
			t.Fatalf("counters %d/%d, want 2/1", n, c)
		}
		got, err := s.IssueByIndex(ctx, repo.ID, 2)
		if err != nil || got.ID != b.ID || got.Title != "second" {
			t.Fatalf("IssueByIndex: %+v %v", got, err)
		}
		if _, err := s.IssueByIndex(ctx, repo.ID, 3); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("missing index: %v", err)
		}
		if got, err := s.IssueByID(ctx, a.ID); err != nil || got.Index != 1 {
			t.Fatalf("IssueByID: %+v %v", got, err)
		}
		if _, err := s.IssueByID(ctx, 1<<40); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("missing id: %v", err)
		}
		// A failed create (no such repository) leaves no index behind.
		n := &store.NewIssue{Issue: store.Issue{RepoID: 1 << 40, Title: "x"}}
		if err := s.CreateIssue(ctx, n); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("create in missing repo: %v", err)
		}
		// The activity queue got one row per created issue.
		var acts int64
		s.DB().Model(&store.Activity{}).Where("repo_id = ? AND kind = ?", repo.ID, store.ActivityIssueCreated).Count(&acts)
		if acts != 2 {
			t.Fatalf("activities %d, want 2", acts)
		}
	})
}

// createConcurrently creates n issues in repo spread over the stores and
// checks that the indexes are exactly 1..n.
func createConcurrently(t *testing.T, stores []*store.Store, repoID int64, n int) {
	t.Helper()
	var wg sync.WaitGroup
	errc := make(chan error, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			s := stores[i%len(stores)]
			ni := &store.NewIssue{Issue: store.Issue{RepoID: repoID, Title: fmt.Sprintf("issue %d", i)}}
			errc <- s.CreateIssue(context.Background(), ni)
		}(i)
	}
	wg.Wait()
	close(errc)
	for err := range errc {
		if err != nil {
			t.Fatal(err)
		}
	}
	var idx []int64
	if err := stores[0].DB().Model(&store.Issue{}).Where("repo_id = ?", repoID).Order(`"index"`).Pluck("index", &idx).Error; err != nil {
		t.Fatal(err)
	}
	want := make([]int64, n)
	for i := range want {
		want[i] = int64(i + 1)
	}
	if !slices.Equal(idx, want) {
		t.Fatalf("indexes %v, want 1..%d", idx, n)
	}
	if num, _ := issueCounters(t, stores[0], repoID); num != n {
		t.Fatalf("num_issues %d, want %d", num, n)
	}
}

func TestIssueIndexConcurrent(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		repo := newRepo(t, s, "busy")
		createConcurrently(t, []*store.Store{s}, repo.ID, 100)
	})
}

// Creations that queue while the writer is busy run in one transaction
// on SQLite (issue_batch.go), each in its own savepoint: those that fail
// (an unknown milestone, found after the number and the counters were
// moved; a missing repository) are undone alone and report their own
// error, the others keep dense numbers, exact counters and one activity
// and one webhook event each. On PostgreSQL it is the same contract
// without a shared transaction.
func TestIssueCreateQueuedFailuresAlone(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		repo := newRepo(t, s, "queued")
		other := newRepo(t, s, "queued-other")
		m := &store.Milestone{RepoID: repo.ID, Name: "v1"}
		if err := s.CreateMilestone(ctx, m); err != nil {
			t.Fatal(err)
		}
		newHook(t, s, store.Webhook{RepoID: repo.ID, Active: true})
		// Hold the writer (on SQLite) so that the creations pile up.
		hold := make(chan struct{})
		held := make(chan struct{})
		go func() {
			_ = s.DB().WithContext(ctx).Transaction(func(tx *gorm.DB) error {
				close(held)
				<-hold
				return tx.Exec("UPDATE repositories SET num_stars = num_stars WHERE id = ?", repo.ID).Error
			})
		}()
		<-held
		const n = 100
		errs := make([]error, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				is := store.Issue{RepoID: repo.ID, PosterID: repo.OwnerID, Title: fmt.Sprintf("issue %d", i)}
				switch i % 10 {
				case 3:
					is.MilestoneID = m.ID + 1000 // unknown: fails after the number is taken
				case 7:
					is.RepoID = other.ID + 1000 // no such repository
				case 5:
					is.MilestoneID = m.ID
				}
				errs[i] = s.CreateIssue(ctx, &store.NewIssue{Issue: is})
			}()
		}
		time.Sleep(100 * time.Millisecond)
		close(hold)
		wg.Wait()
		ok := 0
		for i, err := range errs {
			switch i % 10 {
			case 3:
				if !errors.Is(err, store.ErrMilestoneNotFound) {
					t.Errorf("creation %d with an unknown milestone: %v", i, err)
				}
			case 7:
				if !errors.Is(err, store.ErrNotFound) {
					t.Errorf("creation %d in a missing repository: %v", i, err)
				}
			default:
				if err != nil {
					t.Errorf("creation %d: %v", i, err)
				}
				ok++
			}
		}
		expectIssueNumbers(t, s, repo.ID, ok)
		var acts, events, onMilestone int64
		s.DB().Model(&store.Activity{}).Where("kind = ?", store.ActivityIssueCreated).Count(&acts)
		s.DB().Model(&store.HookEvent{}).Where("kind = ?", store.ActivityIssueCreated).Count(&events)
		s.DB().Model(&store.Issue{}).Where("milestone_id = ?", m.ID).Count(&onMilestone)
		if acts != int64(ok) || events != int64(ok) || onMilestone != n/10 {
			t.Fatalf("activities %d, hook events %d, issues on the milestone %d; want %d, %d, %d", acts, events, onMilestone, ok, ok, n/10)
		}
	})
}

// A batch runs first without savepoints and, when one of its creations
// fails, again with them (issue_batch.go). Nothing of the rolled-back
// first run may survive it: each issue that was created has one activity
// and one webhook event, its caller's struct holds the id and number of
// its stored row, a failed creation's holds none, and the notifier is not
// woken for the rolled-back inserts.
func TestIssueCreateBatchRetryLeavesNoTrace(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		repo := newRepo(t, s, "retried")
		m := &store.Milestone{RepoID: repo.ID, Name: "v1"}
		if err := s.CreateMilestone(ctx, m); err != nil {
			t.Fatal(err)
		}
		newHook(t, s, store.Webhook{RepoID: repo.ID, Active: true})
		first := newIssue(t, s, repo, "first", false) // makes the issue_index row
		var kicks atomic.Int32
		s.OnActivity(func() { kicks.Add(1) })
		// Hold the repository's issue_index row (and SQLite's writer) so
		// that the creations queue and run as one batch.
		hold := make(chan struct{})
		held := make(chan struct{})
		go func() {
			_ = s.DB().WithContext(ctx).Transaction(func(tx *gorm.DB) error {
				if err := tx.Exec("UPDATE issue_index SET max_index = max_index WHERE repo_id = ?", repo.ID).Error; err != nil {
					close(held)
					return err
				}
				close(held)
				<-hold
				return nil
			})
		}()
		<-held
		const n = 40
		creations := make([]*store.NewIssue, n)
		errs := make([]error, n)
		var wg sync.WaitGroup
		for i := range n {
			is := store.Issue{RepoID: repo.ID, PosterID: repo.OwnerID, Title: fmt.Sprintf("issue %d", i)}
			if i%10 == 3 {
				is.MilestoneID = m.ID + 1000 // unknown: fails after the issue is inserted
			}
			creations[i] = &store.NewIssue{Issue: is}
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs[i] = s.CreateIssue(ctx, creations[i])
			}()
		}
		time.Sleep(100 * time.Millisecond)
		close(hold)
		wg.Wait()
		ok := 1 // first
		seen := map[int64]bool{first.ID: true}
		for i, err := range errs {
			c := creations[i]
			if i%10 == 3 {
				if !errors.Is(err, store.ErrMilestoneNotFound) {
					t.Errorf("creation %d with an unknown milestone: %v", i, err)
				}
				if c.ID != 0 || c.Index != 0 {
					t.Errorf("failed creation %d keeps id %d, number %d", i, c.ID, c.Index)
				}
				continue
			}
			if err != nil {
				t.Errorf("creation %d: %v", i, err)
				continue
			}
			ok++
			got, err := s.IssueByID(ctx, c.ID)
			if err != nil {
				t.Errorf("creation %d: its id %d: %v", i, c.ID, err)
				continue
			}
			if got.Title != c.Title || got.Index != c.Index || seen[c.ID] {
				t.Errorf("creation %d (%q, #%d, id %d): the row of its id is %q #%d", i, c.Title, c.Index, c.ID, got.Title, got.Index)
			}
			seen[c.ID] = true
		}
		expectIssueNumbers(t, s, repo.ID, ok)
		type perIssue struct {
			IssueID int64
			N       int
		}
		for _, model := range []any{&store.Activity{}, &store.HookEvent{}} {
			var rows []perIssue
			if err := s.DB().Model(model).Select("issue_id, COUNT(*) AS n").Where("kind = ?", store.ActivityIssueCreated).
				Group("issue_id").Scan(&rows).Error; err != nil {
				t.Fatal(err)
			}
			if len(rows) != ok {
				t.Errorf("%T: %d issues have one, want %d", model, len(rows), ok)
			}
			for _, r := range rows {
				if r.N != 1 || !seen[r.IssueID] {
					t.Errorf("%T: issue %d has %d (created: %v)", model, r.IssueID, r.N, seen[r.IssueID])
				}
			}
		}
		// One wake-up per committed activity at most (fewer when a
		// batch's are told at once): none for a rolled-back insert.
		if k := kicks.Load(); k < 1 || int(k) > ok-1 {
			t.Errorf("notifier woken %d times for %d created issues", k, ok-1)
		}
	})
}

// Two stores on one PostgreSQL database stand for two forge processes.
func TestIssueIndexTwoStoresPostgres(t *testing.T) {
	stores := storesOnOneDatabase(t, "postgres", 2)
	for _, s := range stores {
		if err := s.Own(context.Background(), owned); err != nil {
			t.Fatal(err)
		}
	}
	repo := newRepo(t, stores[0], "shared")
	createConcurrently(t, stores, repo.ID, 100)
}

func TestUpdateIssueAndComments(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		repo := newRepo(t, s, "edits")
		a := newIssue(t, s, repo, "first", false)
		bob := newUser("bob", "bob@x.org", false)
		if err := s.CreateUser(ctx, bob); err != nil {
			t.Fatal(err)
		}
		close := func(closed bool) *store.Issue {
			is, err := s.UpdateIssue(ctx, repo.ID, a.Index, repo.OwnerID, func(e *store.IssueEdit) error {
				e.IsClosed = closed
				e.AssigneeIDs, e.ReplaceAssignees = []int64{bob.ID, bob.ID}, true
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			return is
		}
		if is := close(true); is.ClosedUnix == 0 {
			t.Fatal("closed_unix not set")
		}
		close(true) // no change: counters stay
		if n, c := issueCounters(t, s, repo.ID); n != 1 || c != 1 {
			t.Fatalf("counters after close %d/%d", n, c)
		}
		if is := close(false); is.ClosedUnix != 0 {
			t.Fatal("closed_unix kept after reopen")
		}
		if n, c := issueCounters(t, s, repo.ID); n != 1 || c != 0 {
			t.Fatalf("counters after reopen %d/%d", n, c)
		}
		as, _ := s.IssueAssignees(ctx, []int64{a.ID})
		if !slices.Equal(as[a.ID], []int64{bob.ID}) {
			t.Fatalf("assignees %v", as)
		}
		c := &store.Comment{RepoID: repo.ID, IssueID: a.ID, PosterID: bob.ID, Content: "hi"}
		if err := s.CreateComment(ctx, c); err != nil {
			t.Fatal(err)
		}
		if err := s.CreateComment(ctx, &store.Comment{RepoID: repo.ID + 1, IssueID: a.ID}); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("comment in another repository: %v", err)
		}
		got, _ := s.IssueByID(ctx, a.ID)
		if got.NumComments != 1 {
			t.Fatalf("num_comments %d", got.NumComments)
		}
		s.DB().Model(&store.Comment{}).Where("id = ?", c.ID).Updates(map[string]any{"created_unix": 1000, "updated_unix": 1000})
		ed, err := s.UpdateComment(ctx, repo.ID, c.ID, func(c *store.Comment) error { c.Content = "edited"; return nil })
		if err != nil || ed.CreatedUnix != 1000 || ed.UpdatedUnix <= 1000 || ed.Content != "edited" {
			t.Fatalf("edit: %+v %v", ed, err)
		}
		list, total, err := s.ListComments(ctx, store.CommentListOptions{RepoID: repo.ID, Limit: 10})
		if err != nil || total != 1 || list[0].Content != "edited" {
			t.Fatalf("list: %+v %d %v", list, total, err)
		}
		if err := s.DeleteComment(ctx, repo.ID, c.ID); err != nil {
			t.Fatal(err)
		}
		if err := s.DeleteComment(ctx, repo.ID, c.ID); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("second delete: %v", err)
		}
		got, _ = s.IssueByID(ctx, a.ID)
		if got.NumComments != 0 {
			t.Fatalf("num_comments after delete %d", got.NumComments)
		}
		var kinds []string
		s.DB().Model(&store.Activity{}).Where("issue_id = ?", a.ID).Order("id").Pluck("kind", &kinds)
		want := []string{store.ActivityIssueCreated, store.ActivityIssueClosed, store.ActivityAssigned, store.ActivityIssueReopened}
		if !slices.Equal(kinds, want) {
			t.Fatalf("activities %v, want %v", kinds, want)
		}
		if err := s.DeleteIssue(ctx, repo.ID, a.Index); err != nil {
			t.Fatal(err)
		}
		if n, c := issueCounters(t, s, repo.ID); n != 0 || c != 0 {
			t.Fatalf("counters after delete %d/%d", n, c)
		}
	})
}

func TestListIssuesFilters(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		repo := newRepo(t, s, "lists")
		bug := newIssue(t, s, repo, "open bug", false)
		newIssue(t, s, repo, "closed 100%_ thing", true)
		// Labels are the labels area's; rows are enough here.
		for _, name := range []string{"bug", "ui"} {
			l := &store.Label{RepoID: repo.ID, Name: name, Color: "#ff0000"}
			if err := s.DB().Create(l).Error; err != nil {
				t.Fatal(err)
			}
			if err := s.DB().Create(&store.IssueLabel{RepoID: repo.ID, IssueID: bug.ID, LabelID: l.ID}).Error; err != nil {
				t.Fatal(err)
			}
		}
		other := newRepo(t, s, "elsewhere")
		if err := s.DB().Create(&store.Label{RepoID: other.ID, Name: "docs"}).Error; err != nil {
			t.Fatal(err)
		}
		if ls, err := s.LabelsOfIssues(ctx, []int64{bug.ID}); err != nil || len(ls[bug.ID]) != 2 || ls[bug.ID][0].Name != "bug" {
			t.Fatalf("LabelsOfIssues: %+v %v", ls, err)
		}
		bob := newUser("bob", "bob@x.org", false)
		bobby := newUser("bobby", "bobby@x.org", false)
		for _, u := range []*store.User{bob, bobby} {
			if err := s.CreateUser(ctx, u); err != nil {
				t.Fatal(err)
			}
		}
		n := &store.NewIssue{Issue: store.Issue{RepoID: repo.ID, PosterID: repo.OwnerID, Title: "ping", Content: "hey @Bob. look, mail@bobby.org"}}
		if err := s.CreateIssue(ctx, n); err != nil {
			t.Fatal(err)
		}
		// A comment mentions bobby on the first issue.
		if err := s.CreateComment(ctx, &store.Comment{RepoID: repo.ID, IssueID: bug.ID, Content: "(@bobby) see"}); err != nil {
			t.Fatal(err)
		}
		count := func(o store.IssueListOptions) int64 {
			o.RepoID, o.Limit = repo.ID, 10
			_, total, err := s.ListIssues(ctx, o)
			if err != nil {
				t.Fatal(err)
			}
			return total
		}
		for name, c := range map[string]struct {
			o    store.IssueListOptions
			want int64
		}{
			"default open": {store.IssueListOptions{}, 2},
			"closed":       {store.IssueListOptions{State: "closed"}, 1},
			"all":          {store.IssueListOptions{State: "all"}, 3},
			"keyword":      {store.IssueListOptions{State: "all", Keyword: "BUG"}, 1},
			"like escaped": {store.IssueListOptions{State: "all", Keyword: "0%_"}, 1},
			"mention":      {store.IssueListOptions{MentionedID: bob.ID}, 1},
			"in a comment": {store.IssueListOptions{MentionedID: bobby.ID}, 1},
			"poster":       {store.IssueListOptions{State: "all", PosterID: repo.OwnerID}, 3},
			"one label":    {store.IssueListOptions{LabelNames: []string{"bug"}}, 1},
			"every label":  {store.IssueListOptions{LabelNames: []string{"bug", "ui"}}, 1},
			"unknown name": {store.IssueListOptions{LabelNames: []string{"bug", "nope"}}, 1},
			"other repo's": {store.IssueListOptions{LabelNames: []string{"docs"}}, 2},
		} {
			if got := count(c.o); got != c.want {
				t.Errorf("%s: %d, want %d", name, got, c.want)
			}
		}
	})
}

// BenchmarkCreateIssue is one issue creation (index allocation, insert,
// counters, activity) in one repository, from parallel writers.
//
//	go test -run '^$' -bench CreateIssue -benchmem ./services/store/
func BenchmarkCreateIssue(b *testing.B) {
	for _, kind := range storetest.Backends {
		b.Run(kind, func(b *testing.B) {
			s := storetest.Open(b, kind)
			ctx := context.Background()
			u := newUser("bench", "bench@example.org", false)
			if err := s.CreateUser(ctx, u); err != nil {
				b.Fatal(err)
			}
			r := &store.Repository{OwnerID: u.ID, OwnerName: u.Name, Name: "bench", IsEmpty: true, DefaultBranch: "main"}
			if err := s.CreateRepository(ctx, r, u.ID); err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					n := &store.NewIssue{Issue: store.Issue{RepoID: r.ID, PosterID: u.ID, Title: "bench"}}
					if err := s.CreateIssue(ctx, n); err != nil {
						b.Fatal(err)
					}
				}
			})
		})
	}
}

func TestMentionedNames(t *testing.T) {
	for text, want := range map[string][]string{
		"@alice":                        {"alice"},
		"hi @Alice, and @bob.":          {"alice", "bob"},
		"mail@example.org":              nil,
		"(@a.b-c) [@d_e] @alice @alice": {"a.b-c", "d_e", "alice"},
		"@-x @":                         nil,
	} {
		if got := store.MentionedNamesForTest(text); !slices.Equal(got, want) {
			t.Errorf("%q: %v, want %v", text, got, want)
		}
	}
}

// TestListIssuesTotalFromCounters: a repository's unfiltered issue list
// takes its total from the repository's counters (not a count of the
// rows); the total is still the number of issues the list holds, by
// state and kind, after creations, closes, reopens and deletes.
func TestListIssuesTotalFromCounters(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		repo := newRepo(t, s, "counted")
		newRepo(t, s, "beside") // another repository's issues count not
		for i := range 7 {
			n := &store.NewIssue{Issue: store.Issue{RepoID: repo.ID, PosterID: repo.OwnerID, Title: fmt.Sprint("i", i),
				IsPull: i%3 == 0, IsClosed: i%2 == 0}}
			if err := s.CreateIssue(ctx, n); err != nil {
				t.Fatal(err)
			}
		}
		setClosed := func(index int64, closed bool) {
			if _, err := s.UpdateIssue(ctx, repo.ID, index, repo.OwnerID, func(e *store.IssueEdit) error {
				e.IsClosed = closed
				return nil
			}); err != nil {
				t.Fatal(err)
			}
		}
		setClosed(2, true)
		setClosed(3, false)
		if err := s.DeleteIssue(ctx, repo.ID, 5); err != nil {
			t.Fatal(err)
		}
		yes, no := true, false
		for _, state := range []string{"", "open", "closed", "all"} {
			for _, pull := range []*bool{nil, &yes, &no} {
				list, total, err := s.ListIssues(ctx, store.IssueListOptions{RepoID: repo.ID, State: state, IsPull: pull, Limit: 100})
				if err != nil {
					t.Fatal(err)
				}
				if total != int64(len(list)) {
					t.Errorf("state %q pull %v: total %d, the list holds %d", state, pull, total, len(list))
				}
				if state == "all" && pull == nil && total != 6 {
					t.Errorf("all issues and pulls: %d, want 6", total)
				}
			}
		}
	})
}

// TestCreateIssueStoresEveryField: the issue row is inserted without
// gorm's Create (rawtx.go), from gorm's schema of the model; every field
// set on creation must come back, and the notifier must be woken.
func TestCreateIssueStoresEveryField(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		repo := newRepo(t, s, "tracker")
		var woken atomic.Int32
		s.OnActivity(func() { woken.Add(1) })
		n := &store.NewIssue{}
		v := reflect.ValueOf(&n.Issue).Elem()
		for i := 0; i < v.NumField(); i++ {
			f := v.Field(i)
			switch name := v.Type().Field(i).Name; {
			case name == "ID" || name == "Index" || name == "MilestoneID":
				// allocated, or a reference checked on creation
			case f.Kind() == reflect.String:
				f.SetString("value of " + name)
			case f.Kind() == reflect.Bool:
				f.SetBool(true)
			case f.CanInt():
				f.SetInt(int64(1000 + i))
			default:
				t.Fatalf("field %s of kind %s: extend the test", name, f.Kind())
			}
		}
		n.RepoID, n.PosterID = repo.ID, repo.OwnerID
		if err := s.CreateIssue(ctx, n); err != nil {
			t.Fatal(err)
		}
		got, err := s.IssueByID(ctx, n.ID)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(*got, n.Issue) || got.Index != 1 {
			t.Fatalf("stored %+v\nwant   %+v", *got, n.Issue)
		}
		if woken.Load() == 0 {
			t.Fatal("the notifier was not woken by the activity")
		}
	})
}

// expectIssueNumbers fails unless repoID's issues are numbered 1..n with
// no gap and its issue counter says n.
func expectIssueNumbers(t *testing.T, s *store.Store, repoID int64, n int) {
	t.Helper()
	var idx []int64
	if err := s.DB().Model(&store.Issue{}).Where("repo_id = ?", repoID).Order(`"index"`).Pluck("index", &idx).Error; err != nil {
		t.Fatal(err)
	}
	if len(idx) != n || (n > 0 && (idx[0] != 1 || idx[n-1] != int64(n))) {
		t.Fatalf("indexes %v, want 1..%d", idx, n)
	}
	if num, _ := issueCounters(t, s, repoID); num != n {
		t.Fatalf("num_issues %d, want %d", num, n)
	}
}

// TestIssueCreateBatchStoresEachCreation: creations that pile up behind a
// held issue_index row run as one batch of many-row statements
// (issue_rows.go). Each one's row, number, settings, mentions, activity
// and webhook event are its own, in two repositories (one with a hook,
// one without an issue yet), and the plain creations cost fewer
// statements than creations.
func TestIssueCreateBatchStoresEachCreation(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		hooked, quiet := newRepo(t, s, "hooked"), newRepo(t, s, "quiet")
		newHook(t, s, store.Webhook{RepoID: hooked.ID, Active: true})
		m := &store.Milestone{RepoID: hooked.ID, Name: "v1"}
		if err := s.CreateMilestone(ctx, m); err != nil {
			t.Fatal(err)
		}
		bug := newLabel(t, s, store.LabelOwner{RepoID: hooked.ID}, "bug", false)
		mentioned := map[string]int64{}
		for _, name := range []string{"mira", "milo"} {
			u := newUser(name, name+"@x.org", false)
			if err := s.CreateUser(ctx, u); err != nil {
				t.Fatal(err)
			}
			mentioned[name] = u.ID
		}
		newIssue(t, s, hooked, "first", false) // makes hooked's issue_index row
		pileUp := func(creations []*store.NewIssue) []error {
			hold, held := make(chan struct{}), make(chan struct{})
			go func() {
				_ = s.DB().WithContext(ctx).Transaction(func(tx *gorm.DB) error {
					err := tx.Exec("UPDATE issue_index SET max_index = max_index WHERE repo_id = ?", hooked.ID).Error
					close(held)
					<-hold
					return err
				})
			}()
			<-held
			errs := make([]error, len(creations))
			var wg sync.WaitGroup
			for i, n := range creations {
				wg.Go(func() { errs[i] = s.CreateIssue(ctx, n) })
			}
			time.Sleep(100 * time.Millisecond)
			close(hold)
			wg.Wait()
			return errs
		}

		// Plain creations, some mentioning people: many-row statements.
		var plain []*store.NewIssue
		for i := range 30 {
			repo := hooked
			if i%3 == 0 {
				repo = quiet
			}
			is := store.Issue{RepoID: repo.ID, PosterID: repo.OwnerID, Title: fmt.Sprintf("plain %d", i), Content: fmt.Sprintf("body %d", i),
				Ref: fmt.Sprintf("refs/heads/b%d", i), DeadlineUnix: int64(1000 + i)}
			if i%5 == 1 {
				is.Content += " cc @mira and @Milo"
			}
			plain = append(plain, &store.NewIssue{Issue: is})
		}
		before := s.QueryCount()
		for i, err := range pileUp(plain) {
			if err != nil {
				t.Fatalf("plain creation %d: %v", i, err)
			}
		}
		if n := s.QueryCount() - before; n >= int64(len(plain)) {
			t.Errorf("%d plain creations ran %d statements, want fewer than one each", len(plain), n)
		}

		// Creations that set a milestone, a label, an assignee or the
		// closed state, among plain ones.
		var mixed []*store.NewIssue
		for i := range 20 {
			is := store.Issue{RepoID: hooked.ID, PosterID: hooked.OwnerID, Title: fmt.Sprintf("mixed %d", i)}
			n := &store.NewIssue{Issue: is}
			switch i % 5 {
			case 1:
				n.MilestoneID = m.ID
			case 2:
				n.LabelIDs = []int64{bug.ID}
			case 3:
				n.AssigneeIDs = []int64{mentioned["mira"]}
			case 4:
				n.IsClosed = true
			}
			mixed = append(mixed, n)
		}
		for i, err := range pileUp(mixed) {
			if err != nil {
				t.Fatalf("mixed creation %d: %v", i, err)
			}
		}

		all := append(plain, mixed...)
		ids := make([]int64, len(all))
		for i, c := range all {
			ids[i] = c.ID
		}
		labels, err := s.LabelsOfIssues(ctx, ids)
		if err != nil {
			t.Fatal(err)
		}
		assignees, err := s.IssueAssignees(ctx, ids)
		if err != nil {
			t.Fatal(err)
		}
		seen := map[int64]bool{}
		for i, c := range all {
			got, err := s.IssueByID(ctx, c.ID)
			if err != nil {
				t.Fatalf("creation %d: its id %d: %v", i, c.ID, err)
			}
			if seen[c.ID] || got.Title != c.Title || got.Content != c.Content || got.Index != c.Index || got.RepoID != c.RepoID ||
				got.PosterID != c.PosterID || got.IsClosed != c.IsClosed || got.MilestoneID != c.MilestoneID || got.CreatedUnix == 0 ||
				got.Ref != c.Ref || got.DeadlineUnix != c.DeadlineUnix || (got.ClosedUnix != 0) != c.IsClosed {
				t.Errorf("creation %d (%q #%d): the row of id %d is %+v", i, c.Title, c.Index, c.ID, *got)
			}
			seen[c.ID] = true
			if wantLabels := len(c.LabelIDs); len(labels[c.ID]) != wantLabels {
				t.Errorf("creation %d: labels %v, want %v", i, labels[c.ID], c.LabelIDs)
			}
			if !slices.Equal(assignees[c.ID], c.AssigneeIDs) {
				t.Errorf("creation %d: assignees %v, want %v", i, assignees[c.ID], c.AssigneeIDs)
			}
			var users []int64
			if err := s.DB().Model(&store.IssueMention{}).Where("issue_id = ?", c.ID).Order("user_id").Pluck("user_id", &users).Error; err != nil {
				t.Fatal(err)
			}
			var want []int64
			if strings.Contains(c.Content, "@mira") {
				want = []int64{mentioned["mira"], mentioned["milo"]}
				slices.Sort(want)
			}
			if !slices.Equal(users, want) {
				t.Errorf("creation %d: mentions %v, want %v", i, users, want)
			}
			var activities, events int64
			s.DB().Model(&store.Activity{}).Where("issue_id = ? AND kind = ? AND actor_id = ? AND repo_id = ?", c.ID, store.ActivityIssueCreated, c.PosterID, c.RepoID).Count(&activities)
			s.DB().Model(&store.HookEvent{}).Where("issue_id = ? AND kind = ? AND actor_id = ? AND repo_id = ?", c.ID, store.ActivityIssueCreated, c.PosterID, c.RepoID).Count(&events)
			wantEvents := int64(0)
			if c.RepoID == hooked.ID {
				wantEvents = 1
			}
			if activities != 1 || events != wantEvents {
				t.Errorf("creation %d: %d activities and %d webhook events, want 1 and %d", i, activities, events, wantEvents)
			}
		}
		expectIssueNumbers(t, s, hooked.ID, 1+20+20)
		expectIssueNumbers(t, s, quiet.ID, 10)
		if _, closed := issueCounters(t, s, hooked.ID); closed != 4 {
			t.Errorf("num_closed_issues %d, want 4", closed)
		}
	})
}
