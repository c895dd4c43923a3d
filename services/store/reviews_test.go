package store_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"forge/services/store"
	"forge/services/store/storetest"
)

// TestPullApprovals holds PullApprovals to its contract: approvals count
// when official, not dismissed, the reviewer's latest verdict, on the
// head when stale ones are ignored, and from the whitelist when there is
// one; an official, undismissed request for changes is a rejection.
// Review requests are answered by the reviewer's review.
func TestPullApprovals(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		repo := newRepo(t, s, "reviewed")
		var people []int64
		for _, name := range []string{"ann", "ben", "cat", "dan"} {
			u := newUser(name, name+"@x.org", false)
			if err := s.CreateUser(ctx, u); err != nil {
				t.Fatal(err)
			}
			people = append(people, u.ID)
		}
		ann, ben, cat, dan := people[0], people[1], people[2], people[3]
		old, head := strings.Repeat("1", 40), strings.Repeat("2", 40)
		n := &store.NewPullRequest{
			NewIssue: store.NewIssue{Issue: store.Issue{RepoID: repo.ID, PosterID: repo.OwnerID, Title: "pr"}},
			Pull:     store.PullRequest{HeadRepoID: repo.ID, HeadBranch: "feature", BaseBranch: "main", HeadSHA: head},
		}
		if err := s.CreatePullRequest(ctx, n, func(int64) error { return nil }); err != nil {
			t.Fatal(err)
		}
		issue := n.Issue.ID
		count := func(what string, q store.ApprovalQuery, want int64, rejected bool) {
			t.Helper()
			q.IssueID, q.HeadSHA = issue, head
			got, err := s.PullApprovals(ctx, q)
			if err != nil || got.Count != want || got.Rejected != rejected {
				t.Fatalf("%s: %+v %v, want %d approvals, rejected %v", what, got, err, want, rejected)
			}
		}
		count("no reviews", store.ApprovalQuery{}, 0, false)
		if _, err := s.RequestReviews(ctx, repo.ID, issue, head, []int64{ann, ben}, nil, 0); err != nil {
			t.Fatal(err)
		}
		submit := func(who int64, typ store.ReviewType, official bool, commit string) *store.Review {
			t.Helper()
			r, err := s.SubmitReview(ctx, store.NewReview{RepoID: repo.ID, IssueID: issue, ReviewerID: who, Type: typ,
				Official: official, CommitID: commit, Content: "x"})
			if err != nil {
				t.Fatal(err)
			}
			return r
		}
		annOK := submit(ann, store.ReviewApprove, true, head)
		submit(ben, store.ReviewApprove, true, old) // stale
		submit(cat, store.ReviewApprove, false, head)
		submit(dan, store.ReviewComment, true, head)
		count("two official approvals", store.ApprovalQuery{}, 2, false)
		count("ignoring stale", store.ApprovalQuery{IgnoreStale: true}, 1, false)
		count("whitelist ben", store.ApprovalQuery{Whitelist: []int64{ben}}, 1, false)
		count("empty whitelist", store.ApprovalQuery{Whitelist: []int64{}}, 0, false)
		// Whitelisted teams count their members' approvals.
		org := &store.User{Name: "acme"}
		if err := s.CreateOrganization(ctx, org, dan); err != nil {
			t.Fatal(err)
		}
		devs := &store.Team{OrgID: org.ID, Name: "devs", Authorize: store.AccessWrite}
		if err := s.CreateTeam(ctx, devs); err != nil {
			t.Fatal(err)
		}
		if err := s.AddTeamMember(ctx, devs.ID, ann); err != nil {
			t.Fatal(err)
		}
		count("whitelist team devs", store.ApprovalQuery{Whitelist: []int64{}, WhitelistTeams: []int64{devs.ID}}, 1, false)
		count("whitelist ben and team devs", store.ApprovalQuery{Whitelist: []int64{ben}, WhitelistTeams: []int64{devs.ID}}, 2, false)
		if in, err := s.MembersOfTeams(ctx, []int64{devs.ID}, []int64{ann, ben, cat}); err != nil || len(in) != 1 || in[0] != ann {
			t.Fatalf("MembersOfTeams: %v %v, want ann", in, err)
		}
		if reqs, err := s.RequestedReviewersOf(ctx, []int64{issue}); err != nil || len(reqs[issue]) != 0 {
			t.Fatalf("requests after their reviews: %v %v", reqs, err)
		}
		if _, err := s.SetReviewDismissed(ctx, annOK.ID, true, 0, ""); err != nil {
			t.Fatal(err)
		}
		count("ann dismissed", store.ApprovalQuery{}, 1, false)
		if _, err := s.SetReviewDismissed(ctx, annOK.ID, false, 0, ""); err != nil {
			t.Fatal(err)
		}
		// ben's latest verdict requests changes: his approval no longer counts.
		submit(ben, store.ReviewReject, true, head)
		count("ben rejects", store.ApprovalQuery{}, 1, true)
		count("ben rejects, whitelist ann", store.ApprovalQuery{Whitelist: []int64{ann}}, 1, false)
		// A pending review counts for nothing until submitted.
		p, err := s.SubmitReview(ctx, store.NewReview{RepoID: repo.ID, IssueID: issue, ReviewerID: cat, Type: store.ReviewPending, Content: "draft"})
		if err != nil || p.Type != store.ReviewPending {
			t.Fatal(p, err)
		}
		if _, err := s.SubmitReview(ctx, store.NewReview{IssueID: issue, ReviewerID: cat, PendingID: p.ID, Type: store.ReviewApprove, Official: true, CommitID: head}); err != nil {
			t.Fatal(err)
		}
		count("cat's pending review submitted", store.ApprovalQuery{}, 2, true)
		if _, err := s.SubmitReview(ctx, store.NewReview{IssueID: issue, ReviewerID: cat, PendingID: p.ID, Type: store.ReviewApprove}); !errors.Is(err, store.ErrReviewNotPending) {
			t.Fatalf("submitting twice: %v", err)
		}
	})
}

// TestRefreshDismissesStaleApprovals: RefreshPullRequest with
// DismissStale dismisses, with the head move, the approvals given on
// another commit (not requests for changes, not those on the new head),
// one type 32 comment each; run again (a refresher after a crash) it
// dismisses nothing twice.
func TestRefreshDismissesStaleApprovals(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		repo := newRepo(t, s, "reviewed")
		var people []int64
		for _, name := range []string{"ann", "ben", "cat"} {
			u := newUser(name, name+"@x.org", false)
			if err := s.CreateUser(ctx, u); err != nil {
				t.Fatal(err)
			}
			people = append(people, u.ID)
		}
		old, head, base := strings.Repeat("1", 40), strings.Repeat("2", 40), strings.Repeat("3", 40)
		n := &store.NewPullRequest{
			NewIssue: store.NewIssue{Issue: store.Issue{RepoID: repo.ID, PosterID: repo.OwnerID, Title: "pr"}},
			Pull:     store.PullRequest{HeadRepoID: repo.ID, HeadBranch: "feature", BaseBranch: "main", HeadSHA: old, BaseSHA: base},
		}
		if err := s.CreatePullRequest(ctx, n, func(int64) error { return nil }); err != nil {
			t.Fatal(err)
		}
		submit := func(who int64, typ store.ReviewType, commit string) *store.Review {
			t.Helper()
			r, err := s.SubmitReview(ctx, store.NewReview{RepoID: repo.ID, IssueID: n.Issue.ID, ReviewerID: who, Type: typ,
				Official: true, CommitID: commit, Content: "x"})
			if err != nil {
				t.Fatal(err)
			}
			return r
		}
		stale := submit(people[0], store.ReviewApprove, old)
		reject := submit(people[1], store.ReviewReject, old)
		fresh := submit(people[2], store.ReviewApprove, head)
		from, _, err := s.PullRequestByIndex(ctx, repo.ID, n.Pull.Index)
		if err != nil {
			t.Fatal(err)
		}
		st := store.PullState{HeadSHA: head, BaseSHA: base, MergeBase: base, DismissStale: true}
		check := func(what string) {
			t.Helper()
			for _, c := range []struct {
				r    *store.Review
				want bool
			}{{stale, true}, {reject, false}, {fresh, false}} {
				got, err := s.ReviewByID(ctx, c.r.ID)
				if err != nil || got.Dismissed != c.want || got.Type != c.r.Type {
					t.Fatalf("%s: review %d dismissed %v type %d, want %v", what, c.r.ID, got.Dismissed, got.Type, c.want)
				}
			}
			var comments []store.Comment
			if err := s.DB().Where("issue_id = ? AND type = ?", n.Issue.ID, store.CommentTypeDismissReview).Find(&comments).Error; err != nil {
				t.Fatal(err)
			}
			if len(comments) != 1 || comments[0].Content != store.DismissStaleContent {
				t.Fatalf("%s: dismissal comments %+v", what, comments)
			}
		}
		if ok, err := s.RefreshPullRequest(ctx, from, st); err != nil || !ok {
			t.Fatalf("refresh: %v %v", ok, err)
		}
		check("after the head move")
		// The same refresh from the old row writes nothing.
		if ok, err := s.RefreshPullRequest(ctx, from, st); err != nil || ok {
			t.Fatalf("second refresh from the old head: %v %v", ok, err)
		}
		// Again from the new row: nothing left to dismiss.
		now, _, err := s.PullRequestByIndex(ctx, repo.ID, n.Pull.Index)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.RefreshPullRequest(ctx, now, st); err != nil {
			t.Fatal(err)
		}
		check("refreshed again")
	})
}
