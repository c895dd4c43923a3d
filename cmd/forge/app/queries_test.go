package app_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"forge/services/config"
	"forge/services/store"
)

// Lists load their related rows (poster, assignees, labels, attachments,
// repository of each item) in a constant number of queries: a page of 50
// costs as many statements as a page of 5. Each case reads a repository
// whose lists hold 5 items and one whose lists hold 50, as a signed-in
// viewer who is no administrator, so that every poster (a private
// account) needs the visibility rule's relation check.

// queryWorld is one owner's public repository "list" whose issues,
// labels, milestones and comments all number n, each issue posted by
// another private account, in its own milestone, with two assignees, two
// labels and an attachment; issue 1 also has n (public) subscribers; issue 1 also
// carries all n labels, n assignees, n attachments and n comments, each
// comment by another account with an attachment, and depends on n issues,
// each in another repository of owner, who watches them all; and a
// repository "pulls" with n pull requests.
func seedQueryWorld(t testing.TB, s *testServer, owner string, n int) {
	t.Helper()
	ctx := context.Background()
	st := s.App.Store
	tok := s.seedUser(owner, owner+"-password-1", false)
	s.createRepo(t, tok, "list", false, false)
	repo := s.repoRecord(t, owner, "list")
	people := make([]int64, n)
	for i := range people {
		u := &store.User{Name: fmt.Sprintf("%s-p%d", owner, i), Email: fmt.Sprintf("%s-p%d@example.org", owner, i),
			PasswdHash: hashPassword("x-password-1"), IsActive: true, Visibility: store.VisibilityPrivate}
		if err := st.CreateUser(ctx, u); err != nil {
			t.Fatal(err)
		}
		people[i] = u.ID
	}
	// n SSH keys of the owner (GET /users/{owner}/keys).
	for i := range n {
		k := &store.PublicKey{OwnerID: repo.OwnerID, Name: fmt.Sprintf("key-%d", i),
			Fingerprint: fmt.Sprintf("SHA256:%s-%d", owner, i), Content: "ssh-ed25519 AAAA"}
		if err := st.AddPublicKey(ctx, k); err != nil {
			t.Fatal(err)
		}
	}
	labels := make([]int64, n)
	for i := range labels {
		l := &store.Label{RepoID: repo.ID, Name: fmt.Sprintf("label-%02d", i), Color: "#00aabb"}
		if err := st.CreateLabel(ctx, l); err != nil {
			t.Fatal(err)
		}
		labels[i] = l.ID
	}
	// n milestones, issue i in milestone i.
	miles := make([]int64, n)
	for i := range miles {
		m := &store.Milestone{RepoID: repo.ID, Name: fmt.Sprintf("milestone-%02d", i)}
		if err := st.CreateMilestone(ctx, m); err != nil {
			t.Fatal(err)
		}
		miles[i] = m.ID
	}
	attach := func(a store.Attachment, name string) {
		a.RepoID, a.UploaderID, a.Name, a.UUID = repo.ID, repo.OwnerID, name, fmt.Sprintf("%s-%s", owner, name)
		if err := st.CreateAttachment(ctx, &a); err != nil {
			t.Fatal(err)
		}
	}
	var first *store.Issue
	for i := 0; i < n; i++ {
		ni := &store.NewIssue{Issue: store.Issue{RepoID: repo.ID, PosterID: people[i], Title: fmt.Sprintf("issue %d", i), MilestoneID: miles[i]},
			AssigneeIDs: []int64{people[i], people[(i+1)%n]}, LabelIDs: []int64{labels[i], labels[(i+1)%n]}, LabelOrgID: repo.OwnerID}
		if i == 0 {
			ni.AssigneeIDs, ni.LabelIDs = people, labels
		}
		if err := st.CreateIssue(ctx, ni); err != nil {
			t.Fatal(err)
		}
		attach(store.Attachment{IssueID: ni.ID}, fmt.Sprintf("issue-%d.txt", i))
		if i == 0 {
			first = &ni.Issue
		}
	}
	for i := 1; i < n; i++ {
		attach(store.Attachment{IssueID: first.ID}, fmt.Sprintf("issue-0-%d.txt", i))
	}
	// n public accounts subscribed to issue 1.
	for i := 0; i < n; i++ {
		u := &store.User{Name: fmt.Sprintf("%s-s%d", owner, i), Email: fmt.Sprintf("%s-s%d@example.org", owner, i),
			PasswdHash: hashPassword("x-password-1"), IsActive: true, Visibility: store.VisibilityPublic}
		if err := st.CreateUser(ctx, u); err != nil {
			t.Fatal(err)
		}
		if err := st.SetIssueWatch(ctx, first, u.ID, true); err != nil {
			t.Fatal(err)
		}
		// ... who also follow the owner (GET /users/{owner}/followers,
		// with each follower's own counts).
		if err := st.FollowUser(ctx, u.ID, repo.OwnerID); err != nil {
			t.Fatal(err)
		}
	}
	// Issue 1 depends on n issues, each in another repository of owner.
	for i := 0; i < n; i++ {
		other := &store.Repository{OwnerID: repo.OwnerID, OwnerName: owner, Name: fmt.Sprintf("dep-%d", i),
			IsEmpty: true, DefaultBranch: "main", HasIssues: true, HasPullRequests: true}
		if err := st.CreateRepository(ctx, other, repo.OwnerID); err != nil { // watched by owner
			t.Fatal(err)
		}
		dep := &store.NewIssue{Issue: store.Issue{RepoID: other.ID, PosterID: people[i], Title: "dependency"}}
		if err := st.CreateIssue(ctx, dep); err != nil {
			t.Fatal(err)
		}
		if err := st.AddIssueDependency(ctx, first.ID, dep.ID); err != nil {
			t.Fatal(err)
		}
	}
	// The repository "pulls" holds n pull requests into main, each posted
	// by another account with two assignees and two labels.
	s.createRepo(t, tok, "pulls", true, false)
	pulls := s.repoRecord(t, owner, "pulls")
	var main struct{ Commit struct{ ID string } }
	r := s.do("GET", "/api/v1/repos/"+owner+"/pulls/branches/main", "", "Authorization", "token "+tok)
	expectStatus(t, r, 200)
	if err := json.Unmarshal(r.Body, &main); err != nil {
		t.Fatal(err)
	}
	var firstPull int64
	for i := 0; i < n; i++ {
		np := &store.NewPullRequest{
			NewIssue: store.NewIssue{Issue: store.Issue{RepoID: pulls.ID, PosterID: people[i], Title: fmt.Sprintf("pull %d", i)},
				AssigneeIDs: []int64{people[i], people[(i+1)%n]}},
			Pull: store.PullRequest{HeadRepoID: pulls.ID, HeadBranch: fmt.Sprintf("topic-%d", i), BaseBranch: "main",
				HeadSHA: main.Commit.ID, MergeBase: main.Commit.ID},
		}
		if err := st.CreatePullRequest(ctx, np, func(int64) error { return nil }); err != nil {
			t.Fatal(err)
		}
		// Each pull request asks another account for a review
		// (requested_reviewers), and the first has n reviews.
		if _, err := st.RequestReviews(ctx, pulls.ID, np.Issue.ID, main.Commit.ID, []int64{people[(i+2)%n]}, nil, 0); err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			firstPull = np.Issue.ID
		}
		if _, err := st.SubmitReview(ctx, store.NewReview{RepoID: pulls.ID, IssueID: firstPull, ReviewerID: people[i],
			Type: store.ReviewComment, Content: fmt.Sprintf("review %d", i), CommitID: main.Commit.ID}); err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i < n; i++ {
		c := &store.Comment{RepoID: repo.ID, IssueID: first.ID, PosterID: people[i], Content: fmt.Sprintf("comment %d", i)}
		if err := st.CreateComment(ctx, c); err != nil {
			t.Fatal(err)
		}
		attach(store.Attachment{IssueID: first.ID, CommentID: c.ID}, fmt.Sprintf("comment-%d.txt", i))
	}
	// n reactions on the first issue, each by another account.
	for i := 0; i < n; i++ {
		if _, _, err := st.AddReaction(ctx, store.Reaction{Type: "heart", RepoID: repo.ID, IssueID: first.ID, UserID: people[i]}); err != nil {
			t.Fatal(err)
		}
	}
	// n statuses of one commit, each by another (private) account and in
	// its own context. The repository is empty: the sha is read as given.
	for i := 0; i < n; i++ {
		cs := &store.CommitStatus{RepoID: repo.ID, SHA: querySHA, State: store.StatusSuccess,
			Context: fmt.Sprintf("ctx-%d", i), CreatorID: people[i]}
		if err := st.CreateCommitStatus(ctx, cs); err != nil {
			t.Fatal(err)
		}
	}
}

// querySHA is the commit seedQueryWorld's statuses are on.
var querySHA = strings.Repeat("a", 40)

// queriesOf is how many statements the store runs for one GET of path
// with token, and the length of the returned JSON list (-1 for an
// object). The request runs a few times and the least count is taken:
// background work (the notification worker, token use recording) only
// adds to a count, and caches are warm after the first run.
func queriesOf(t *testing.T, s *testServer, token, path string) (int64, int) {
	t.Helper()
	best := int64(-1)
	items := -1
	for range 4 {
		before := s.App.Store.QueryCount()
		r := s.do("GET", path, "", "Authorization", "token "+token)
		n := s.App.Store.QueryCount() - before
		expectStatus(t, r, 200)
		var list []json.RawMessage
		if json.Unmarshal(r.Body, &list) == nil {
			items = len(list)
		}
		if best < 0 || n < best {
			best = n
		}
	}
	if best == 0 && items > 0 { // a list read from the database, or a replayed answer
		t.Fatalf("GET %s ran no statement: start the server with API.AnswerCacheSize 0", path)
	}
	return best, items
}

// noReplays turns replayed answers off: a replay runs no statement, and
// the tests that count statements measure what the services do.
func noReplays(c *config.Config) { c.API.AnswerCacheSize = 0 }

func TestListQueriesConstant(t *testing.T) {
	t.Parallel()
	eachBackend(t, noReplays, func(t *testing.T, s *testServer) {
		viewer := s.seedUser("viewer", "viewer-password-1", false)
		sizes := []int{5, 50}
		for _, n := range sizes {
			seedQueryWorld(t, s, fmt.Sprintf("own%d", n), n)
		}
		// The notifier's fan-out of the seeded activity would run beside
		// the requests: let it finish first.
		waitFor(t, time.Minute, "the activity queue to drain", func() bool {
			var queued int64
			return s.App.Store.DB().Model(&store.Activity{}).Count(&queued).Error == nil && queued == 0
		})
		for _, c := range []struct {
			name, path string
			items      bool // the answer is a list of n items (n+2 repositories)
		}{
			{"issues", "/api/v1/repos/%s/list/issues?state=all&limit=50", true},
			{"search", "/api/v1/repos/issues/search?state=all&limit=50&q=issue&owner=%s", true},
			{"labels", "/api/v1/repos/%s/list/labels?limit=50", true},
			{"milestones", "/api/v1/repos/%s/list/milestones?limit=50", true},
			{"issue-subscribers", "/api/v1/repos/%s/list/issues/1/subscriptions?limit=50", true},
			{"issue", "/api/v1/repos/%s/list/issues/1", false},
			{"issue-comments", "/api/v1/repos/%s/list/issues/1/comments", true},
			{"repo-comments", "/api/v1/repos/%s/list/issues/comments?limit=50", true},
			{"repo", "/api/v1/repos/%s/list", false},
			{"dependencies", "/api/v1/repos/%s/list/issues/1/dependencies?limit=50", true},
			{"reactions", "/api/v1/repos/%s/list/issues/1/reactions?limit=50", true},
			{"user-repos", "/api/v1/users/%s/repos?limit=50", true},
			{"subscriptions", "/api/v1/users/%s/subscriptions?limit=50", true},
			{"pulls", "/api/v1/repos/%s/pulls/pulls?state=all&limit=50", true},
			{"reviews", "/api/v1/repos/%s/pulls/pulls/1/reviews?limit=50", true},
			{"statuses", "/api/v1/repos/%s/list/statuses/" + querySHA + "?limit=50", true},
			// Issue 1's events (its milestone, n assignees, n labels at
			// creation) and n comments; the first pull request's 2 assignees and n reviews.
			{"timeline", "/api/v1/repos/%s/list/issues/1/timeline?limit=50", true},
			{"pull-timeline", "/api/v1/repos/%s/pulls/issues/1/timeline?limit=50", true},
			{"combined-status", "/api/v1/repos/%s/list/commits/" + querySHA + "/status?limit=50", false},
			{"user-keys", "/api/v1/users/%s/keys?limit=50", true},
			{"followers", "/api/v1/users/%s/followers?limit=50", true},
		} {
			t.Run(c.name, func(t *testing.T) {
				var counts []int64
				for _, n := range sizes {
					q, items := queriesOf(t, s, viewer, fmt.Sprintf(c.path, fmt.Sprintf("own%d", n)))
					want := n
					switch c.name {
					case "user-repos", "subscriptions":
						want = min(n+2, 50) // list, pulls and the n dependencies' repositories
					case "timeline":
						want = min(3*n+1, 50)
					case "pull-timeline":
						want = min(n+2, 50)
					}
					if c.items && items != want {
						t.Fatalf("%d items: the list has %d", n, items)
					}
					counts = append(counts, q)
				}
				t.Logf("queries for %v items: %v", sizes, counts)
				// More items may not cost more queries. Fewer is no N+1: a
				// page of the long timeline can hold fewer kinds of event
				// (each kind one lookup) than the whole short one.
				if counts[1] > counts[0] {
					t.Errorf("queries grow with the list: %v for %v items", counts, sizes)
				}
			})
		}
	})
}

// BenchmarkRoundTripRESTLists reads pages of 50 over REST as a signed-in
// viewer on SQLite, from parallel clients: the issues page (posters,
// assignees, labels, attachments), the labels page, the owner's
// repositories and one issue; each beside its ceiling, a bare net/http
// handler answering the same bytes:
//
//	go test -run '^$' -bench RoundTripRESTLists -benchmem ./cmd/forge/app/
func BenchmarkRoundTripRESTLists(b *testing.B) {
	s := startServer(b, "sqlite3", nil)
	viewer := s.seedUser("viewer", "viewer-password-1", false)
	seedQueryWorld(b, s, "own", 50)
	waitFor(b, time.Minute, "the activity queue to drain", func() bool {
		var queued int64
		return s.App.Store.DB().Model(&store.Activity{}).Count(&queued).Error == nil && queued == 0
	})
	for _, c := range []struct{ name, path string }{
		{"issues", "/api/v1/repos/own/list/issues?state=all&limit=50"},
		{"labels", "/api/v1/repos/own/list/labels?limit=50"},
		{"user-repos", "/api/v1/users/own/repos?limit=50"},
		{"issue", "/api/v1/repos/own/list/issues/2"},
	} {
		b.Run(c.name, func(b *testing.B) {
			before := s.App.Store.QueryCount()
			benchGet(b, benchClient(), s.URL+c.path, viewer)
			b.ReportMetric(float64(s.App.Store.QueryCount()-before)/float64(b.N), "queries/op")
		})
		b.Run(c.name+"-bare", func(b *testing.B) {
			body := s.do("GET", c.path, "", "Authorization", "token "+viewer).Body
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				b.Fatal(err)
			}
			srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json;charset=utf-8")
				w.Write(body)
			})}
			go srv.Serve(ln)
			defer srv.Close()
			benchGet(b, benchClient(), "http://"+ln.Addr().String()+c.path, "")
		})
	}
}
