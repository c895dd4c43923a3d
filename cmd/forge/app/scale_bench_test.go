package app_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"forge/services/store"
	"forge/services/store/storetest"
)

// BenchmarkScale serves the pages people open most in a small repository
// (200 issues, 10 branches, 20 commits) and in a large one (100,000
// issues, 10,000 branches, 100,000 commits), both on one server, over
// loopback with keep-alive, serially. A page must cost about the same in
// both (the goal: within 20%), so read the ratio size=large / size=small
// of each endpoint:
//
//	go test -run '^$' -bench Scale -benchmem ./cmd/forge/app/
//
// (-bench 'Scale/sqlite3' for one backend; add -args -answer-cache-size 0
// to compute every page instead of replaying it on SQLite.) Seeding takes
// a while (rows in bulk through the store's models, history with git
// fast-import), so it runs by hand only.
func BenchmarkScale(b *testing.B) {
	sizes := []scaleSize{
		{name: "small", issues: 200, commits: 20, branches: 10},
		{name: "large", issues: 100000, commits: 100000, branches: 10000},
	}
	// The branch page asks for 10 so that it holds as many branches in
	// both repositories (the small one has 10).
	endpoints := []struct{ name, path string }{
		{"issues", "/issues?limit=50"},
		{"labels", "/labels?limit=50"},
		{"branches", "/branches?limit=10"},
		{"commits", "/commits?limit=10"},
	}
	for _, kind := range storetest.Backends {
		b.Run(kind, func(b *testing.B) {
			s := restServer(b, kind) // -answer-cache-size 0: every page computed, none replayed
			for _, size := range sizes {
				seedScaleRepo(b, s, size)
			}
			settleDatabase(b, s.App.Store)
			c := benchClient()
			url := func(size scaleSize, path string) string {
				return s.URL + "/api/v1/repos/root/" + size.name + path
			}
			for _, ep := range endpoints {
				b.Run(ep.name, func(b *testing.B) {
					for _, size := range sizes {
						b.Run("size="+size.name, func(b *testing.B) {
							benchSerialGet(b, c, url(size, ep.path), s.AdminToken)
						})
					}
				})
			}
			// The commits page again, each time right after a new commit
			// on main (as after a push): its total is not cached yet.
			// advanceMain moves main without forge's hooks, which the
			// answer cache does not see: read this one with
			// -answer-cache-size 0, or it is a (stale) replay.
			b.Run("commits-after-push", func(b *testing.B) {
				for _, size := range sizes {
					b.Run("size="+size.name, func(b *testing.B) {
						dir := s.repoDir("root", size.name)
						benchSerialGetAfter(b, c, url(size, "/commits?limit=10"), s.AdminToken, func() { advanceMain(b, dir) })
					})
				}
			})
		})
	}
}

// advanceMain puts a new commit (main's tree, main as parent) on main.
func advanceMain(b *testing.B, dir string) {
	b.Helper()
	git := func(args ...string) string {
		out, err := gitTry(dir, args...)
		if err != nil {
			b.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(out)
	}
	head := git("rev-parse", "refs/heads/main")
	next := git("commit-tree", head+"^{tree}", "-p", head, "-m", "pushed")
	git("update-ref", "refs/heads/main", next, head)
}

// scaleSize is what one repository of BenchmarkScale holds.
type scaleSize struct {
	name                      string
	issues, commits, branches int
}

// benchSerialGet gets url b.N times, one request after the other, after
// one untimed request: what is measured is the page as served again and
// again, with the caches keyed by immutable ids warm (the first request
// after a start or a push is another matter). Besides ns/op it reports
// cpu-ns/op, the process's CPU time per request (server and client; on
// PostgreSQL the database server's share is not in it).
func benchSerialGet(b *testing.B, c *http.Client, url, token string) {
	benchSerialGetAfter(b, c, url, token, nil)
}

// benchSerialGetAfter is benchSerialGet with before, when set, run
// untimed before every request.
func benchSerialGetAfter(b *testing.B, c *http.Client, url, token string, before func()) {
	get := func() {
		req, _ := http.NewRequest("GET", url, nil)
		req.Header.Set("Authorization", "token "+token)
		resp, err := c.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			b.Fatalf("status %d", resp.StatusCode)
		}
	}
	get()
	b.ReportAllocs()
	var cpu time.Duration // the process's CPU time in the requests (less noisy than wall time on a busy machine)
	n := 0
	for b.Loop() {
		if before != nil {
			b.StopTimer()
			before()
			b.StartTimer()
		}
		start := cpuNow()
		get()
		cpu += cpuNow() - start
		n++
	}
	b.ReportMetric(float64(cpu)/float64(n), "cpu-ns/op")
}

// seedScaleRepo makes root/<size.name> with its issues, labels, comments,
// commits and branches.
func seedScaleRepo(b *testing.B, s *testServer, size scaleSize) {
	b.Helper()
	if r := s.do("POST", "/api/v1/user/repos", `{"name":"`+size.name+`"}`,
		"Authorization", "token "+s.AdminToken, "Content-Type", jsonCT); r.Status != 201 {
		b.Fatalf("create repository: %d %s", r.Status, r.Body)
	}
	repo := s.repoRecord(b, "root", size.name)
	seedScaleIssues(b, s.App.Store, repo, size.issues)
	seedScaleHistory(b, s, repo, size.commits, size.branches)
}

// seedScaleIssues writes n issues in bulk (1,000 rows a statement), with
// the counters the store keeps (the repository's issue counts, each
// label's, each issue's comment count, the index allocator): every third
// issue closed, each with two of the repository's 60 labels, an assignee
// and a comment, posted by one of 20 accounts.
func seedScaleIssues(b *testing.B, st *store.Store, repo *store.Repository, n int) {
	b.Helper()
	ctx := context.Background()
	people := make([]int64, 20)
	for i := range people {
		name := fmt.Sprintf("%s-p%d", repo.Name, i)
		u := &store.User{Name: name, Email: name + "@example.org", IsActive: true}
		if err := st.CreateUser(ctx, u); err != nil {
			b.Fatal(err)
		}
		people[i] = u.ID
	}
	labels := make([]store.Label, 60)
	for i := range labels {
		labels[i] = store.Label{RepoID: repo.ID, Name: fmt.Sprintf("label-%02d", i), Color: "#00aabb"}
		if err := st.CreateLabel(ctx, &labels[i]); err != nil {
			b.Fatal(err)
		}
	}
	labelOpen := make([]int, len(labels))
	labelClosed := make([]int, len(labels))
	db := st.DB().WithContext(ctx)
	const batch = 1000
	closed := 0
	for start := 0; start < n; start += batch {
		end := min(start+batch, n)
		issues := make([]store.Issue, 0, end-start)
		for i := start; i < end; i++ {
			at := int64(1_600_000_000 + i)
			is := store.Issue{RepoID: repo.ID, Index: int64(i + 1), PosterID: people[i%len(people)],
				Title: fmt.Sprintf("issue %d", i), Content: "body", NumComments: 1, CreatedUnix: at, UpdatedUnix: at}
			if i%3 == 2 {
				is.IsClosed, is.ClosedUnix = true, at
				closed++
			}
			issues = append(issues, is)
		}
		if err := db.CreateInBatches(&issues, batch).Error; err != nil {
			b.Fatal(err)
		}
		var il []store.IssueLabel
		var ia []store.IssueAssignee
		var cs []store.Comment
		for i, is := range issues {
			k := start + i
			for _, l := range []int{k % len(labels), (k + 1) % len(labels)} {
				il = append(il, store.IssueLabel{RepoID: repo.ID, IssueID: is.ID, LabelID: labels[l].ID})
				if is.IsClosed {
					labelClosed[l]++
				} else {
					labelOpen[l]++
				}
			}
			ia = append(ia, store.IssueAssignee{RepoID: repo.ID, IssueID: is.ID, AssigneeID: people[(k+1)%len(people)]})
			cs = append(cs, store.Comment{RepoID: repo.ID, IssueID: is.ID, PosterID: people[(k+2)%len(people)],
				Content: "a comment", CreatedUnix: is.CreatedUnix, UpdatedUnix: is.CreatedUnix})
		}
		for _, rows := range []any{&il, &ia, &cs} {
			if err := db.CreateInBatches(rows, batch).Error; err != nil {
				b.Fatal(err)
			}
		}
	}
	for i, l := range labels {
		if err := db.Model(&store.Label{}).Where("id = ?", l.ID).Updates(map[string]any{
			"num_issues": labelOpen[i] + labelClosed[i], "num_closed_issues": labelClosed[i]}).Error; err != nil {
			b.Fatal(err)
		}
	}
	if err := db.Model(&store.Repository{}).Where("id = ?", repo.ID).
		Updates(map[string]any{"num_issues": n, "num_closed_issues": closed}).Error; err != nil {
		b.Fatal(err)
	}
	if err := db.Save(&store.IssueIndex{RepoID: repo.ID, MaxIndex: int64(n)}).Error; err != nil {
		b.Fatal(err)
	}
}

// settleDatabase leaves the database as a long-running site's would be
// after the bulk writes: statistics gathered, and on SQLite the
// write-ahead log checkpointed (each page read looks through the log's
// index, and nothing checkpoints a log that only readers use), on
// PostgreSQL the tables vacuumed (so autovacuum does not run beside the
// measurements).
func settleDatabase(b *testing.B, st *store.Store) {
	b.Helper()
	stmts := []string{"ANALYZE", "PRAGMA wal_checkpoint(TRUNCATE)"}
	if st.DB().Dialector.Name() == "postgres" {
		stmts = []string{"VACUUM ANALYZE"}
	}
	for _, stmt := range stmts {
		if err := st.DB().Exec(stmt).Error; err != nil {
			b.Fatal(err)
		}
	}
}

// seedScaleHistory writes commits on main (each changing one of 10
// files) and branches-1 more branches with git fast-import into the
// repository's directory, packs the refs, and records the branches as a
// push would.
func seedScaleHistory(b *testing.B, s *testServer, repo *store.Repository, commits, branches int) {
	b.Helper()
	var in strings.Builder
	for i := 1; i <= commits; i++ {
		fmt.Fprintf(&in, "commit refs/heads/main\nmark :%d\nauthor A <root@example.org> %d +0000\ncommitter C <c@example.com> %d +0000\ndata <<EOM\ncommit %d\nEOM\n",
			i, 1600000000+i, 1600000000+i, i)
		if i > 1 {
			fmt.Fprintf(&in, "from :%d\n", i-1)
		}
		fmt.Fprintf(&in, "M 100644 inline file%d.txt\ndata <<EOD\nline %d\nEOD\n\n", i%10, i)
	}
	for i := 1; i < branches; i++ { // main is one
		fmt.Fprintf(&in, "reset refs/heads/branch-%05d\nfrom :%d\n\n", i, 1+i%commits)
	}
	dir := s.repoDir(repo.OwnerName, repo.Name)
	for _, step := range []struct {
		args  []string
		stdin string
	}{{[]string{"fast-import", "--quiet"}, in.String()}, {[]string{"pack-refs", "--all", "--prune"}, ""}} {
		cmd := exec.Command("git", step.args...)
		cmd.Dir, cmd.Stdin = dir, strings.NewReader(step.stdin)
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "LC_ALL=C")
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("git %v: %v\n%s", step.args, err, out)
		}
	}
	ctx := context.Background()
	all := func(ctx context.Context) ([]store.BranchUpdate, error) {
		heads, err := s.App.Git.ListBranches(ctx, dir)
		if err != nil {
			return nil, err
		}
		out := make([]store.BranchUpdate, len(heads))
		for i, h := range heads {
			out[i] = store.BranchUpdate{Name: h.Name, CommitID: h.Commit.SHA, CommitMessage: h.Commit.Message,
				CommitUnix: h.Commit.Committer.When.Unix()}
		}
		return out, nil
	}
	if err := s.App.Store.SyncBranches(ctx, repo.ID, repo.OwnerID, nil, all); err != nil {
		b.Fatal(err)
	}
}
