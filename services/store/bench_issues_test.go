package store_test

import (
	"context"
	"fmt"
	"testing"

	"forge/services/store"
	"forge/services/store/storetest"
)

// BenchmarkIssuesPage reads what the issues page of 50 (open, and all
// states) and the labels page of 50 cost the store, the related rows of
// the page included, in a small repository (90 issues) and in one with
// 100,000 issues, both in one database. The page must cost about the
// same in both: no statement may grow with the repository. Seeding
// 100,000 issues takes a while, so it runs by hand only:
//
//	go test -run '^$' -bench IssuesPage -benchmem ./services/store/
//
// queries/op counts the statements of one page (Store.QueryCount). The
// plans of the page's two issue statements are logged (-v).
func BenchmarkIssuesPage(b *testing.B) {
	for _, kind := range storetest.Backends {
		b.Run(kind, func(b *testing.B) {
			s := storetest.Open(b, kind)
			ctx := context.Background()
			small := seedIssues(b, s, "small", 90)
			big := seedIssues(b, s, "big", 100000)
			for _, r := range []struct {
				name string
				repo *store.Repository
			}{{"repo=small", small}, {"repo=100k", big}} {
				for _, state := range []string{"open", "all"} {
					b.Run(r.name+"/issues-"+state, func(b *testing.B) {
						benchOps(b, s, func() { issuesPage(b, s, r.repo.ID, state) })
					})
				}
				b.Run(r.name+"/labels", func(b *testing.B) {
					benchOps(b, s, func() {
						ls, _, err := s.ListLabels(ctx, store.LabelListOptions{Owner: store.LabelOwner{RepoID: r.repo.ID}, Limit: 50})
						if err != nil || len(ls) != 50 {
							b.Fatal(len(ls), err)
						}
					})
				})
			}
			logPlans(b, s, kind, big.ID)
		})
	}
}

// benchOps runs op b.N times and reports its statements per op.
func benchOps(b *testing.B, s *store.Store, op func()) {
	b.ReportAllocs()
	before := s.QueryCount()
	n := 0
	for b.Loop() {
		op()
		n++
	}
	b.ReportMetric(float64(s.QueryCount()-before)/float64(n), "queries/op")
}

// issuesPage is what GET .../issues?limit=50 asks of the store (services
// /issues view.issues).
func issuesPage(b *testing.B, s *store.Store, repoID int64, state string) {
	ctx := context.Background()
	list, total, err := s.ListIssues(ctx, store.IssueListOptions{RepoID: repoID, State: state, Limit: 50})
	if err != nil || len(list) != 50 || total < 50 {
		b.Fatal(len(list), total, err)
	}
	ids := make([]int64, len(list))
	people := make([]int64, 0, 2*len(list))
	for i := range list {
		ids[i] = list[i].ID
		people = append(people, list[i].PosterID)
	}
	as, err := s.IssueAssignees(ctx, ids)
	if err != nil {
		b.Fatal(err)
	}
	for _, a := range as {
		people = append(people, a...)
	}
	if _, err := s.LabelsOfIssues(ctx, ids); err != nil {
		b.Fatal(err)
	}
	if _, err := s.AttachmentsOf(ctx, 0, "issue_id", ids); err != nil {
		b.Fatal(err)
	}
	if _, err := s.UsersByID(ctx, people); err != nil {
		b.Fatal(err)
	}
	if _, err := s.VisibleUserIDs(ctx, store.UserFilter{ViewerID: 1, Visibilities: []store.Visibility{store.VisibilityPublic}}, people); err != nil {
		b.Fatal(err)
	}
}

// seedIssues makes a repository with n issues in bulk (rows written
// directly, 1,000 a statement, with the counters the store keeps): every
// third issue closed, each with two of the repository's 60 labels and an
// assignee, posted by one of 50 private accounts.
func seedIssues(b *testing.B, s *store.Store, name string, n int) *store.Repository {
	b.Helper()
	ctx := context.Background()
	owner := newUser(name, name+"@example.org", false)
	if err := s.CreateUser(ctx, owner); err != nil {
		b.Fatal(err)
	}
	r := &store.Repository{OwnerID: owner.ID, OwnerName: owner.Name, Name: name, IsEmpty: true}
	if err := s.CreateRepository(ctx, r, 0); err != nil {
		b.Fatal(err)
	}
	people := make([]int64, 50)
	for i := range people {
		u := newUser(fmt.Sprintf("%s-p%d", name, i), fmt.Sprintf("%s-p%d@example.org", name, i), false)
		u.Visibility = store.VisibilityPrivate
		if err := s.CreateUser(ctx, u); err != nil {
			b.Fatal(err)
		}
		people[i] = u.ID
	}
	labels := make([]store.Label, 60)
	for i := range labels {
		labels[i] = store.Label{RepoID: r.ID, Name: fmt.Sprintf("label-%02d", i), Color: "#00aabb"}
		if err := s.CreateLabel(ctx, &labels[i]); err != nil {
			b.Fatal(err)
		}
	}
	db := s.DB().WithContext(ctx)
	const batch = 1000
	closed := 0
	for start := 0; start < n; start += batch {
		end := min(start+batch, n)
		issues := make([]store.Issue, 0, end-start)
		for i := start; i < end; i++ {
			is := store.Issue{RepoID: r.ID, Index: int64(i + 1), PosterID: people[i%len(people)],
				Title: fmt.Sprintf("issue %d", i), Content: "body", CreatedUnix: int64(1_600_000_000 + i), UpdatedUnix: int64(1_600_000_000 + i)}
			if i%3 == 2 {
				is.IsClosed, is.ClosedUnix = true, is.CreatedUnix
				closed++
			}
			issues = append(issues, is)
		}
		if err := db.CreateInBatches(&issues, batch).Error; err != nil {
			b.Fatal(err)
		}
		var il []store.IssueLabel
		var ia []store.IssueAssignee
		for i, is := range issues {
			k := start + i
			il = append(il, store.IssueLabel{RepoID: r.ID, IssueID: is.ID, LabelID: labels[k%len(labels)].ID},
				store.IssueLabel{RepoID: r.ID, IssueID: is.ID, LabelID: labels[(k+1)%len(labels)].ID})
			ia = append(ia, store.IssueAssignee{RepoID: r.ID, IssueID: is.ID, AssigneeID: people[(k+1)%len(people)]})
		}
		if err := db.CreateInBatches(&il, batch).Error; err != nil {
			b.Fatal(err)
		}
		if err := db.CreateInBatches(&ia, batch).Error; err != nil {
			b.Fatal(err)
		}
	}
	if err := db.Model(&store.Repository{}).Where("id = ?", r.ID).
		Updates(map[string]any{"num_issues": n, "num_closed_issues": closed}).Error; err != nil {
		b.Fatal(err)
	}
	if err := db.Create(&store.IssueIndex{RepoID: r.ID, MaxIndex: int64(n)}).Error; err != nil {
		b.Fatal(err)
	}
	for _, stmt := range []string{"ANALYZE"} {
		if err := db.Exec(stmt).Error; err != nil {
			b.Fatal(err)
		}
	}
	return r
}

// logPlans logs the plans of the issues page's count and page
// statements in the big repository.
func logPlans(b *testing.B, s *store.Store, kind string, repoID int64) {
	explain := "EXPLAIN QUERY PLAN "
	if kind == "postgres" {
		explain = "EXPLAIN ANALYZE "
	}
	for _, q := range []string{
		`SELECT count(*) FROM issues WHERE issues.repo_id = ? AND issues.is_closed = false`,
		`SELECT * FROM issues WHERE issues.repo_id = ? AND issues.is_closed = false ORDER BY issues.created_unix DESC, issues.id DESC LIMIT 50`,
		`SELECT count(*) FROM issues WHERE issues.repo_id = ?`,
		`SELECT * FROM issues WHERE issues.repo_id = ? ORDER BY issues.created_unix DESC, issues.id DESC LIMIT 50`,
	} {
		rows, err := s.DB().Raw(explain+q, repoID).Rows()
		if err != nil {
			b.Fatal(err)
		}
		cols, _ := rows.Columns()
		plan := ""
		for rows.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				b.Fatal(err)
			}
			plan += fmt.Sprintln(vals[len(vals)-1])
		}
		rows.Close()
		b.Logf("%s: %s\n%s", kind, q, plan)
	}
}

// BenchmarkSmallPages reads an issues page (all states), a labels page
// and one repository row from a small repository on SQLite, one caller at
// a time: what the driver costs per statement shows here, without the
// minutes of seeding BenchmarkIssuesPage takes. Run it on two commits to
// compare drivers:
//
//	go test -run '^$' -bench SmallPages -benchmem ./services/store/
func BenchmarkSmallPages(b *testing.B) {
	s := storetest.Open(b, "sqlite3")
	ctx := context.Background()
	small := seedIssues(b, s, "small", 90)
	b.Run("issues", func(b *testing.B) {
		benchOps(b, s, func() { issuesPage(b, s, small.ID, "all") })
	})
	b.Run("labels", func(b *testing.B) {
		benchOps(b, s, func() {
			ls, _, err := s.ListLabels(ctx, store.LabelListOptions{Owner: store.LabelOwner{RepoID: small.ID}, Limit: 50})
			if err != nil || len(ls) != 50 {
				b.Fatal(len(ls), err)
			}
		})
	})
	b.Run("repository", func(b *testing.B) {
		benchOps(b, s, func() {
			if _, err := s.RepositoryByID(ctx, small.ID); err != nil {
				b.Fatal(err)
			}
		})
	})
}
