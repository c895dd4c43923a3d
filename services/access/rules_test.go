package access_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"

	attachmentsv1 "forge/gen/forge/attachments/v1"
	branchesv1 "forge/gen/forge/branches/v1"
	issuesv1 "forge/gen/forge/issues/v1"
	notificationsv1 "forge/gen/forge/notifications/v1"
	orgsv1 "forge/gen/forge/orgs/v1"
	pullsv1 "forge/gen/forge/pulls/v1"
	reposv1 "forge/gen/forge/repos/v1"
	reviewsv1 "forge/gen/forge/reviews/v1"
	watchv1 "forge/gen/forge/watch/v1"
	"forge/services/access"
	"forge/services/auth"
	"forge/services/errs"
	"forge/services/rpcerr"
	"forge/services/store"
)

// ruleStore is the part of the store the rules read; the embedded
// interface panics on anything else, so a rule reading more fails here.
type ruleStore struct {
	access.Store
	issues    map[int64]*store.Issue
	comments  map[int64]*store.Comment
	threads   map[int64]*store.NotificationThread
	users     map[string]*store.User
	canCreate map[int64]bool
	pulls     map[int64]*store.PullRequest // by index, beside their issues
	reviews   map[int64]*store.Review
	autos     map[int64]*store.AutoMerge // scheduled merges by pull request id
	times     map[int64]*store.TrackedTime
	teams     map[int64]*store.Team
	transfers map[int64]*store.RepoTransfer // pending transfers by repository id
	protects  []store.BranchProtection      // the branch protection rules of every repository
}

func (s *ruleStore) BranchProtections(context.Context, int64) ([]store.BranchProtection, error) {
	return s.protects, nil
}

func (s *ruleStore) TeamByID(_ context.Context, id int64) (*store.Team, error) {
	if t, ok := s.teams[id]; ok {
		return t, nil
	}
	return nil, store.ErrNotFound
}

func (s *ruleStore) PendingTransfer(_ context.Context, repoID int64) (*store.RepoTransfer, error) {
	if t, ok := s.transfers[repoID]; ok {
		return t, nil
	}
	return nil, store.ErrNotFound
}

func (s *ruleStore) AutoMergeOfPull(_ context.Context, pullID int64) (*store.AutoMerge, error) {
	if a, ok := s.autos[pullID]; ok {
		return a, nil
	}
	return nil, store.ErrNotFound
}

func (s *ruleStore) ReviewByID(_ context.Context, id int64) (*store.Review, error) {
	if r, ok := s.reviews[id]; ok {
		return r, nil
	}
	return nil, store.ErrNotFound
}

func (s *ruleStore) PullRequestByIndex(_ context.Context, _ int64, index int64) (*store.PullRequest, *store.Issue, error) {
	pr, ok := s.pulls[index]
	if !ok {
		return nil, nil, store.ErrNotFound
	}
	return pr, s.issues[index], nil
}

func (s *ruleStore) IssueByIndex(_ context.Context, _ int64, index int64) (*store.Issue, error) {
	if is, ok := s.issues[index]; ok {
		return is, nil
	}
	return nil, store.ErrNotFound
}

func (s *ruleStore) IssueByID(_ context.Context, id int64) (*store.Issue, error) {
	for _, is := range s.issues {
		if is.ID == id {
			return is, nil
		}
	}
	return nil, store.ErrNotFound
}

func (s *ruleStore) IssueAssignees(context.Context, []int64) (map[int64][]int64, error) {
	return map[int64][]int64{}, nil
}

func (s *ruleStore) TrackedTimeByID(_ context.Context, issueID, id int64) (*store.TrackedTime, error) {
	if t, ok := s.times[id]; ok && t.IssueID == issueID {
		return t, nil
	}
	return nil, store.ErrNotFound
}

func (s *ruleStore) CommentByID(_ context.Context, _ int64, id int64) (*store.Comment, error) {
	if c, ok := s.comments[id]; ok {
		return c, nil
	}
	return nil, store.ErrNotFound
}

func (s *ruleStore) NotificationByID(_ context.Context, id int64) (*store.NotificationThread, error) {
	if t, ok := s.threads[id]; ok {
		return t, nil
	}
	return nil, store.ErrNotFound
}

func (s *ruleStore) UserByName(_ context.Context, name string) (*store.User, error) {
	if u, ok := s.users[name]; ok {
		return u, nil
	}
	return nil, store.ErrNotFound
}

func (s *ruleStore) UserVisible(context.Context, store.UserFilter, int64) (bool, error) {
	return true, nil
}

func (s *ruleStore) CanCreateOrgRepo(_ context.Context, _, uid int64) (bool, error) {
	return s.canCreate[uid], nil
}

var (
	poster   = &store.User{ID: 2, Name: "poster", LowerName: "poster", Visibility: store.VisibilityPublic}
	other    = &store.User{ID: 3, Name: "other", LowerName: "other", Visibility: store.VisibilityPublic}
	siteRoot = &store.User{ID: 1, Name: "root", LowerName: "root", IsAdmin: true, Visibility: store.VisibilityPublic}
	acme     = &store.User{ID: 50, Name: "acme", LowerName: "acme", Type: store.UserTypeOrganization, Visibility: store.VisibilityPublic}
	creator  = &store.User{ID: 4, Name: "creator", LowerName: "creator", Visibility: store.VisibilityPublic, AllowCreateOrganization: true}
)

func principal(u *store.User) *auth.Principal { return &auth.Principal{User: u} }

func repoWith(mode store.AccessMode) *access.Repo {
	return &access.Repo{Repository: &store.Repository{ID: 9, Name: "demo", OwnerID: 99, HasIssues: true, DefaultBranch: "main"}, Owner: &store.User{ID: 99, Name: "owner"}, Mode: mode}
}

// TestRules drives every rule of the registry with a caller it allows
// and one it refuses (with the refusal's message), so that a rule whose
// condition is inverted or dropped fails here.
func TestRules(t *testing.T) {
	st := &ruleStore{
		issues: map[int64]*store.Issue{
			1: {ID: 11, Index: 1, PosterID: poster.ID},
			2: {ID: 12, Index: 2, PosterID: poster.ID, IsLocked: true},
			3: {ID: 13, Index: 3, PosterID: poster.ID, IsPull: true},
			4: {ID: 14, Index: 4, PosterID: poster.ID, IsPull: true, IsClosed: true},
			5: {ID: 15, Index: 5, PosterID: poster.ID, IsPull: true, IsClosed: true},
		},
		pulls: map[int64]*store.PullRequest{
			3: {ID: 3, IssueID: 13, Index: 3},
			4: {ID: 4, IssueID: 14, Index: 4},
			5: {ID: 5, IssueID: 15, Index: 5, HasMerged: true},
		},
		comments:  map[int64]*store.Comment{5: {ID: 5, IssueID: 11, PosterID: poster.ID}, 6: {ID: 6, IssueID: 12, PosterID: poster.ID}},
		threads:   map[int64]*store.NotificationThread{7: {Notification: store.Notification{ID: 7, UserID: poster.ID}}},
		users:     map[string]*store.User{"poster": poster, "other": other, "root": siteRoot, "acme": acme},
		teams:     map[int64]*store.Team{70: {ID: 70, OrgID: acme.ID}, 71: {ID: 71, OrgID: 51}},
		transfers: map[int64]*store.RepoTransfer{9: {ID: 1, RepoID: 9, DoerID: siteRoot.ID, RecipientID: poster.ID}},
		canCreate: map[int64]bool{poster.ID: true},
		protects:  []store.BranchProtection{{ID: 1, RuleName: "release/*"}, {ID: 2, RuleName: "Locked"}, {ID: 3, RuleName: "release/1"}, {ID: 4, RuleName: "v{1}"}},
		autos:     map[int64]*store.AutoMerge{3: {ID: 1, PullID: 3, DoerID: poster.ID}},
		times:     map[int64]*store.TrackedTime{30: {ID: 30, IssueID: 11, UserID: poster.ID}},
		reviews: map[int64]*store.Review{
			20: {ID: 20, IssueID: 13, ReviewerID: poster.ID, Type: store.ReviewApprove},
			21: {ID: 21, IssueID: 13, ReviewerID: poster.ID, Type: store.ReviewPending},
			22: {ID: 22, IssueID: 14, ReviewerID: poster.ID, Type: store.ReviewApprove},
		},
	}
	c := access.NewChecker(st)
	org := &access.Org{User: &store.User{ID: 50, Name: "acme", Type: store.UserTypeOrganization}}
	type call struct {
		name   string
		req    proto.Message
		caller *store.User
		mode   store.AccessMode
		org    bool
		want   string // "" allowed, else the refusal's message
	}
	editIssue := func(index int64) proto.Message { return &issuesv1.EditIssueRequest{Index: index} }
	comment := func(id int64) proto.Message { return &issuesv1.EditCommentRequest{Id: id} }
	merge := func(index int64) proto.Message { return &pullsv1.MergePullRequestRequest{Index: index} }
	cancelMerge := func(index int64) proto.Message { return &pullsv1.CancelScheduledAutoMergeRequest{Index: index} }
	review := func(index, id int64) proto.Message { return &reviewsv1.GetPullReviewRequest{Index: index, Id: id} }
	subscribe := func(index int64, user string) proto.Message {
		return &watchv1.SubscribeIssueRequest{Index: index, User: user}
	}
	notFound := "The target couldn't be found."
	transfer := func(to string, teams ...int64) proto.Message {
		return &reposv1.TransferRepoRequest{NewOwner: to, TeamIds: teams}
	}
	accept := &reposv1.AcceptRepoTransferRequest{}
	rename := func(from, to string) proto.Message { return &branchesv1.RenameBranchRequest{Branch: from, Name: to} }
	cases := []call{
		{"branch-renamer", rename("side", "x"), other, store.AccessWrite, false, ""},
		{"branch-renamer", rename("release/2", "x"), other, store.AccessWrite, false, ""}, // a pattern's: the handler refuses it to all
		{"branch-renamer", rename("v{1}", "x"), other, store.AccessWrite, false, ""},      // a pattern's name, not a rule named after it
		{"branch-renamer", rename("main", "x"), other, store.AccessAdmin, false, ""},
		{"branch-renamer", rename("locked", "x"), other, store.AccessAdmin, false, ""},
		{"branch-renamer", rename("main", "main"), other, store.AccessWrite, false, ""}, // the handler's 422 first, as Gitea
		{"branch-renamer", rename("main", "x"), other, store.AccessWrite, false, access.RenameBranchAdminMessage},
		{"branch-renamer", rename("locked", "x"), other, store.AccessWrite, false, access.RenameBranchAdminMessage},
		{"branch-renamer", rename("release/1", "x"), other, store.AccessWrite, false, access.RenameBranchAdminMessage}, // named, though a pattern matches too
		{"transfer-new-owner", transfer("other"), poster, store.AccessOwner, false, ""},
		{"transfer-new-owner", transfer("acme", 70), poster, store.AccessOwner, false, ""},
		{"transfer-new-owner", transfer("nobody"), poster, store.AccessOwner, false, access.NewOwnerNotFoundMessage},
		{"transfer-new-owner", transfer("other", 70), poster, store.AccessOwner, false, access.TeamsNeedOrgMessage},
		{"transfer-new-owner", transfer("acme", 99), poster, store.AccessOwner, false, "team 99 not found"},
		{"transfer-new-owner", transfer("acme", 71), poster, store.AccessOwner, false, "team 71 belongs not to org 50"},
		{"transfer-recipient", accept, poster, store.AccessRead, false, ""},
		{"transfer-recipient", accept, other, store.AccessAdmin, false, access.TransferDeniedMessage},
		{"issue-poster-or-writer", editIssue(1), poster, store.AccessRead, false, ""},
		{"issue-poster-or-writer", editIssue(1), other, store.AccessWrite, false, ""},
		{"issue-poster-or-writer", editIssue(1), other, store.AccessRead, false, access.NotPosterMessage},
		{"issue-poster-or-writer", editIssue(404), poster, store.AccessWrite, false, "The target couldn't be found."},
		{"comment-poster-or-writer", comment(5), poster, store.AccessRead, false, ""},
		{"comment-poster-or-writer", comment(5), other, store.AccessWrite, false, ""},
		{"comment-poster-or-writer", comment(5), other, store.AccessRead, false, access.NotPosterMessage},
		{"comment-poster-or-writer", comment(7), poster, store.AccessWrite, false, "The target couldn't be found."},
		{"issue-unlocked-or-writer", editIssue(1), other, store.AccessRead, false, ""},
		{"issue-unlocked-or-writer", editIssue(2), other, store.AccessWrite, false, ""},
		{"issue-unlocked-or-writer", editIssue(2), poster, store.AccessRead, false, access.NeedWriteMessage},
		{"issue-reactions-reader", editIssue(2), other, store.AccessRead, false, ""},
		{"issue-reactions-reader", editIssue(404), other, store.AccessRead, false, notFound},
		{"issue-reactor", editIssue(1), other, store.AccessRead, false, ""},
		{"issue-reactor", editIssue(2), other, store.AccessWrite, false, ""},
		{"issue-reactor", editIssue(2), poster, store.AccessRead, false, access.ChangeReactionMessage},
		{"issue-reactor", editIssue(404), poster, store.AccessWrite, false, notFound},
		{"comment-reactions-reader", comment(5), other, store.AccessRead, false, ""},
		{"comment-reactions-reader", comment(7), other, store.AccessRead, false, notFound},
		{"comment-reactor", comment(5), other, store.AccessRead, false, ""},
		{"comment-reactor", comment(6), other, store.AccessWrite, false, ""},
		{"comment-reactor", comment(6), poster, store.AccessRead, false, access.ChangeReactionMessage},
		{"issue-locker", editIssue(1), other, store.AccessWrite, false, ""},
		{"issue-locker", editIssue(1), poster, store.AccessRead, false, access.LockIssueMessage},
		{"issue-locker", editIssue(404), other, store.AccessWrite, false, notFound},
		{"issue-unlocker", editIssue(2), other, store.AccessWrite, false, ""},
		{"issue-unlocker", editIssue(2), poster, store.AccessRead, false, access.UnlockIssueMessage},
		{"issue-times-reader", &issuesv1.ListIssueTrackedTimesRequest{Index: 1, User: "poster"}, other, store.AccessWrite, false, ""},
		{"issue-times-reader", &issuesv1.ListIssueTrackedTimesRequest{Index: 1}, other, store.AccessRead, false, ""},
		{"issue-times-reader", &issuesv1.ListIssueTrackedTimesRequest{Index: 1, User: "poster"}, other, store.AccessRead, false, access.TimesByUserMessage},
		{"issue-times-reader", &issuesv1.ListIssueTrackedTimesRequest{Index: 404}, other, store.AccessWrite, false, notFound},
		{"repo-times-reader", &issuesv1.ListRepoTrackedTimesRequest{User: "other"}, other, store.AccessRead, false, ""},
		{"repo-times-reader", &issuesv1.ListRepoTrackedTimesRequest{User: "poster"}, other, store.AccessRead, false, access.TimesByUserMessage},
		{"time-tracker", editIssue(1), poster, store.AccessRead, false, ""},
		{"time-tracker", editIssue(1), other, store.AccessWrite, false, ""},
		{"time-tracker", editIssue(1), other, store.AccessRead, false, access.CannotTrackTimeMessage},
		{"time-tracker-for-user", &issuesv1.AddTimeRequest{Index: 1, UserName: "other"}, poster, store.AccessRead, false, ""},
		{"time-tracker-for-user", &issuesv1.AddTimeRequest{Index: 1, UserName: "nobody"}, other, store.AccessAdmin, false, "user does not exist [name: nobody]"},
		{"time-tracker-for-user", &issuesv1.AddTimeRequest{Index: 1}, other, store.AccessRead, false, access.CannotTrackTimeMessage},
		{"time-deleter", &issuesv1.DeleteTimeRequest{Index: 1, Id: 30}, poster, store.AccessRead, false, ""},
		{"time-deleter", &issuesv1.DeleteTimeRequest{Index: 1, Id: 30}, siteRoot, store.AccessWrite, false, ""},
		{"time-deleter", &issuesv1.DeleteTimeRequest{Index: 1, Id: 30}, other, store.AccessWrite, false, access.DeleteOtherTimeMessage},
		{"time-deleter", &issuesv1.DeleteTimeRequest{Index: 1, Id: 31}, poster, store.AccessWrite, false, notFound},
		{"stopwatch-user", editIssue(1), other, store.AccessWrite, false, ""},
		{"stopwatch-user", editIssue(1), poster, store.AccessRead, false, access.StopwatchNotAllowMessage},
		{"issue-files-poster-or-writer", editIssue(1), poster, store.AccessRead, false, ""},
		{"issue-files-poster-or-writer", editIssue(1), other, store.AccessWrite, false, ""},
		{"issue-files-poster-or-writer", editIssue(1), other, store.AccessRead, false, access.WriteIssueMessage},
		{"comment-files-poster-or-admin", comment(5), poster, store.AccessWrite, false, ""},
		{"comment-files-poster-or-admin", comment(5), other, store.AccessAdmin, false, ""},
		{"comment-files-poster-or-admin", comment(5), other, store.AccessWrite, false, access.EditCommentMessage},
		{"comment-files-poster-or-admin", comment(5), poster, store.AccessRead, false, access.EditCommentMessage},
		{"thread-owner-or-admin", &notificationsv1.GetThreadRequest{Id: 7}, poster, 0, false, ""},
		{"thread-owner-or-admin", &notificationsv1.GetThreadRequest{Id: 7}, siteRoot, 0, false, ""},
		{"thread-owner-or-admin", &notificationsv1.GetThreadRequest{Id: 7}, other, 0, false, "only user itself and admin are allowed to read/change this thread 7"},
		{"thread-owner-or-admin", &notificationsv1.GetThreadRequest{Id: 8}, poster, 0, false, "notification does not exist [id: 8]"},
		{"issue-subscriber-self-or-admin", subscribe(1, "poster"), poster, store.AccessRead, false, ""},
		{"issue-subscriber-self-or-admin", subscribe(1, "poster"), other, store.AccessAdmin, false, ""},
		{"issue-subscriber-self-or-admin", subscribe(1, "poster"), siteRoot, store.AccessRead, false, ""},
		{"issue-subscriber-self-or-admin", subscribe(1, "poster"), other, store.AccessWrite, false, "other is not permitted to change subscriptions for poster"},
		{"issue-subscriber-self-or-admin", subscribe(9, "poster"), poster, store.AccessRead, false, notFound},
		{"issue-subscriber-self-or-admin", subscribe(1, "nobody"), poster, store.AccessRead, false, "user does not exist [name: nobody]"},
		{"collaborator-self-or-repo-admin", &reposv1.GetCollaboratorPermissionRequest{Collaborator: "poster"}, poster, store.AccessRead, false, ""},
		{"collaborator-self-or-repo-admin", &reposv1.GetCollaboratorPermissionRequest{Collaborator: "poster"}, other, store.AccessAdmin, false, ""},
		{"collaborator-self-or-repo-admin", &reposv1.GetCollaboratorPermissionRequest{Collaborator: "poster"}, other, store.AccessWrite, false, access.QueryPermMessage},
		{"member-self-publicize", &orgsv1.PublicizeMemberRequest{Username: "poster"}, poster, 0, true, ""},
		{"member-self-publicize", &orgsv1.PublicizeMemberRequest{Username: "poster"}, other, 0, true, access.PublicizeOtherMessage},
		{"member-self-conceal", &orgsv1.ConcealMemberRequest{Username: "poster"}, poster, 0, true, ""},
		{"member-self-conceal", &orgsv1.ConcealMemberRequest{Username: "poster"}, other, 0, true, access.ConcealOtherMessage},
		{"org-repo-creator", &orgsv1.CreateOrgRepoRequest{}, poster, 0, true, ""},
		{"org-repo-creator", &orgsv1.CreateOrgRepoRequest{}, siteRoot, 0, true, ""},
		{"org-repo-creator", &orgsv1.CreateOrgRepoRequest{}, other, 0, true, access.OrgRepoCreateMessage},
		{"org-creator", &orgsv1.CreateOrgRequest{}, creator, 0, false, ""},
		{"org-creator", &orgsv1.CreateOrgRequest{}, siteRoot, 0, false, ""},
		{"org-creator", &orgsv1.CreateOrgRequest{}, other, 0, false, access.OrgCreateForbiddenMessage},
		{"pull-merger", merge(3), other, store.AccessWrite, false, ""},
		{"pull-merger", merge(3), poster, store.AccessRead, false, "User not allowed to merge PR"},
		{"pull-merger", merge(4), other, store.AccessWrite, false, "The target couldn't be found."},
		{"pull-merger", merge(1), other, store.AccessWrite, false, "The target couldn't be found."},
		{"auto-merge-canceller", cancelMerge(3), poster, store.AccessRead, false, ""},
		{"auto-merge-canceller", cancelMerge(3), other, store.AccessAdmin, false, ""},
		{"auto-merge-canceller", cancelMerge(3), other, store.AccessWrite, false, access.CancelAutoMergeMessage},
		{"auto-merge-canceller", cancelMerge(4), poster, store.AccessAdmin, false, "The target couldn't be found."},
		{"auto-merge-canceller", cancelMerge(1), poster, store.AccessAdmin, false, "The target couldn't be found."},
		{"pull-review", review(3, 0), other, store.AccessRead, false, ""},
		{"pull-review", review(1, 0), other, store.AccessRead, false, notFound},
		{"pull-review", review(404, 0), other, store.AccessRead, false, notFound},
		{"pull-review-visible", review(3, 20), other, store.AccessRead, false, ""},
		{"pull-review-visible", review(3, 21), poster, store.AccessRead, false, ""},
		{"pull-review-visible", review(3, 21), siteRoot, store.AccessRead, false, ""},
		{"pull-review-visible", review(3, 21), other, store.AccessAdmin, false, notFound},
		{"pull-review-visible", review(3, 22), poster, store.AccessRead, false, notFound},
		{"pull-review-visible", review(3, 99), poster, store.AccessRead, false, notFound},
		{"pull-review-visible", review(1, 20), poster, store.AccessRead, false, notFound},
		{"pull-review-owner-or-admin", review(3, 20), poster, store.AccessRead, false, ""},
		{"pull-review-owner-or-admin", review(3, 20), siteRoot, store.AccessRead, false, ""},
		{"pull-review-owner-or-admin", review(3, 20), other, store.AccessAdmin, false, access.DeleteReviewMessage},
		{"pull-review-owner-or-admin", review(3, 21), other, store.AccessAdmin, false, notFound},
	}
	tested := map[string]bool{}
	for _, tc := range cases {
		tested[tc.name] = true
		var r *access.Repo
		if tc.mode != 0 {
			r = repoWith(tc.mode)
		}
		var o *access.Org
		if tc.org {
			o = org
		}
		_, err := access.DecideForTest(context.Background(), c, tc.name, tc.req, principal(tc.caller), r, o)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tc.want {
			t.Errorf("%s by %s (mode %v): got %q, want %q", tc.name, tc.caller.Name, tc.mode, got, tc.want)
		}
	}
	// A caller who does not read the issue's unit (a team giving code
	// only) is refused by the reaction rules: 403 to list, 404 to react
	// to a comment, as Gitea.
	for _, tc := range []struct {
		name string
		req  proto.Message
		want string
	}{
		{"issue-reactions-reader", editIssue(1), access.ReadReactionsMessage},
		{"issue-reactor", editIssue(1), access.ChangeReactionMessage},
		{"comment-reactions-reader", comment(5), access.ReadReactionsMessage},
		{"comment-reactor", comment(5), notFound},
	} {
		_, err := access.DecideForTest(context.Background(), c, tc.name, tc.req, principal(other), repoWith(store.AccessNone), nil)
		if err == nil || err.Error() != tc.want {
			t.Errorf("%s without read on the unit: got %v, want %q", tc.name, err, tc.want)
		}
	}
	// With time tracking off, tracking is refused (400) and lists are not
	// found (issue) or refused (repository).
	noTimes := access.NewChecker(st).WithTimeTracking(false, true)
	for name, want := range map[string]string{"time-tracker": access.TimeTrackingOffMessage,
		"issue-times-reader": access.TimetrackerOffMessage, "repo-times-reader": access.TimeTrackingOffMessage} {
		_, err := access.DecideForTest(context.Background(), noTimes, name, &issuesv1.ListIssueTrackedTimesRequest{Index: 1}, principal(poster), repoWith(store.AccessAdmin), nil)
		if err == nil || err.Error() != want {
			t.Errorf("%s with time tracking off: got %v, want %q", name, err, want)
		}
	}
	// Without contributors only, any reader tracks time.
	anyone := access.NewChecker(st).WithTimeTracking(true, false)
	if _, err := access.DecideForTest(context.Background(), anyone, "time-tracker", editIssue(1), principal(other), repoWith(store.AccessRead), nil); err != nil {
		t.Errorf("time-tracker for a reader without contributors only: %v", err)
	}
	// An empty repository has no branch to rename: the handler answers
	// 404 to everyone, as Gitea does before it asks for administration.
	empty := repoWith(store.AccessWrite)
	empty.IsEmpty = true
	if _, err := access.DecideForTest(context.Background(), c, "branch-renamer", rename("main", "x"), principal(other), empty, nil); err != nil {
		t.Errorf("branch-renamer on an empty repository: %v", err)
	}
	// The site may switch regular organization creation off.
	off := access.NewChecker(st).WithDisableRegularOrgCreation(true)
	if _, err := access.DecideForTest(context.Background(), off, "org-creator", &orgsv1.CreateOrgRequest{}, principal(creator), nil, nil); errs.KindOf(err) != errs.PermissionDenied {
		t.Errorf("org-creator with DISABLE_REGULAR_ORG_CREATION: got %v, want a refusal", err)
	}
	// A merged pull request is 405 with an empty message, for writers and
	// readers alike (Gitea checks it before the merger).
	for _, mode := range []store.AccessMode{store.AccessRead, store.AccessWrite} {
		_, err := access.DecideForTest(context.Background(), c, "pull-merger", merge(5), principal(other), repoWith(mode), nil)
		if e, ok := errs.As(err); !ok || !errors.Is(err, store.ErrPullRequestMerged) || rpcerr.HTTPStatusOf(err) != 405 || e.Message != "" {
			t.Errorf("pull-merger on a merged pull request (mode %v): got %v", mode, err)
		}
	}
	// Rules that resolve a second repository are driven through the API
	// (testdata/cases: dependencies, teams, migrations, forks, pull
	// requests: pulls.yaml, pulls_edit.yaml, pulls_update.yaml and
	// pulls_update_test.go for a head in a fork).
	for _, name := range []string{"team-repo-admin", "relate-issue", "relate-issue-writable", "migration-owner", "fork-owner", "generate-owner",
		"pull-head", "pull-poster-or-writer", "pull-updater"} {
		tested[name] = true
	}
	// pull-code decides nothing beyond its Reads, which the interceptor
	// applies (testdata/cases/pulls_diff.yaml: a member with the pulls
	// unit only is refused).
	tested["pull-code"] = true
	for _, name := range access.RuleNames() {
		if !tested[name] {
			t.Errorf("rule %s has no case here", name)
		}
	}
}

// TestCheckRules: a declaration naming an unknown rule, a rule on the
// wrong resource, or a rule reading a field the request lacks stops
// start-up.
func TestCheckRules(t *testing.T) {
	sd := []*grpc.ServiceDesc{&issuesv1.IssueService_ServiceDesc}
	repo := auth.Resource{Kind: auth.RepositoryResource}
	for _, tc := range []struct {
		pol  auth.Policy
		want string
	}{
		{auth.Policy{Rule: "issue-poster-or-writer", Resource: repo}, ""},
		{auth.Policy{Rule: "no-such-rule", Resource: repo}, "unknown rule"},
		{auth.Policy{Rule: "issue-poster-or-writer"}, "needs the method to declare its repository resource"},
		{auth.Policy{Rule: "collaborator-self-or-repo-admin", Resource: repo}, `reads the request field "collaborator"`},
	} {
		// GetIssue declares no rule: nothing to check there.
		err := access.CheckRules(sd, auth.Policies{"/forge.issues.v1.IssueService/EditIssue": tc.pol, "/forge.issues.v1.IssueService/GetIssue": {Resource: repo}})
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("rule %q: got %v, want %q", tc.pol.Rule, err, tc.want)
		}
	}
}

// TestCheckRulesOnStreams: the rules of streaming methods (uploads) are
// checked as well.
func TestCheckRulesOnStreams(t *testing.T) {
	sd := []*grpc.ServiceDesc{&attachmentsv1.AttachmentService_ServiceDesc}
	repo := auth.Resource{Kind: auth.RepositoryResource}
	err := access.CheckRules(sd, auth.Policies{"/forge.attachments.v1.AttachmentService/CreateIssueAttachment": {Rule: "comment-poster-or-writer", Resource: repo}})
	if err == nil || !strings.Contains(err.Error(), `reads the request field "id"`) {
		t.Errorf("a rule reading a field the upload lacks: %v", err)
	}
	err = access.CheckRules(sd, auth.Policies{"/forge.attachments.v1.AttachmentService/CreateIssueAttachment": {Rule: "issue-files-poster-or-writer", Resource: repo}})
	if err != nil {
		t.Errorf("the upload's own rule: %v", err)
	}
}

// TestNoHandWrittenRules keeps permission decisions in one place: outside
// services/access (and the interceptor, which calls it), no code calls a
// rule by hand. Object rules are declared on the rpc (policy.rule); what
// rows a caller may see stays a filter function of this package.
func TestNoHandWrittenRules(t *testing.T) {
	forbidden := regexp.MustCompile(`\baccess\.May[A-Z]\w*|\busers\.(Visible|CanSee)\b|\.MayRelateIssue\b`)
	root := filepath.Join("..", "..")
	for _, dir := range []string{"services", "gateway", "cmd"} {
		err := filepath.WalkDir(filepath.Join(root, dir), func(path string, d os.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && filepath.Base(path) == "access" && filepath.Base(filepath.Dir(path)) == "services" {
				return filepath.SkipDir
			}
			if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return nil
			}
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			for i, line := range strings.Split(string(b), "\n") {
				code, _, _ := strings.Cut(line, "//")
				if m := forbidden.FindString(code); m != "" {
					t.Errorf("%s:%d: %s called by hand; declare an object rule on the rpc (docs/authorization.md)", path, i+1, m)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}
