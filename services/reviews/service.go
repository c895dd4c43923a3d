package reviews

import (
	"context"
	"io"

	"forge/services/access"
	"forge/services/auth"
	"forge/services/git"
	"forge/services/store"
)

// Store is what the review use cases read and write. *store.Store
// implements it (checked in services/area/all).
type Store interface {
	access.VisibilityStore
	access.VisibleAmong
	UsersByID(ctx context.Context, ids []int64) (map[int64]*store.User, error)
	UsersByEmails(ctx context.Context, emails []string) (map[string]*store.User, error)
	// PullRequestByIndex returns store.ErrNotFound when index is no pull
	// request of the repository.
	PullRequestByIndex(ctx context.Context, repoID, index int64) (*store.PullRequest, *store.Issue, error)
	// SubmitReview returns store.ErrReviewNotPending when the pending
	// review it names was submitted meanwhile, store.ErrNotFound when it
	// is gone.
	SubmitReview(ctx context.Context, n store.NewReview) (*store.Review, error)
	ListReviews(ctx context.Context, o store.ReviewListOptions) ([]store.Review, int64, error)
	ReviewLines(ctx context.Context, reviewID int64, limit int) ([]store.ReviewLine, error)
	// DeleteReview and SetReviewDismissed return store.ErrNotFound for a
	// review deleted meanwhile.
	DeleteReview(ctx context.Context, id int64) error
	SetReviewDismissed(ctx context.Context, id int64, dismissed bool, doerID int64, message string) (*store.Review, error)
	RequestReviews(ctx context.Context, repoID, issueID int64, commitID string, userIDs, teamIDs []int64, doerID int64) ([]store.Review, error)
	WithdrawReviewRequests(ctx context.Context, issueID int64, userIDs, teamIDs []int64, doerID int64) error
	ReviewerCandidates(ctx context.Context, repo *store.Repository, visible store.UserFilter, limit int) ([]store.User, error)
	// TeamByName returns store.ErrNotFound for an unknown team.
	TeamByName(ctx context.Context, orgID int64, name string) (*store.Team, error)
	// ReviewTeams loads the teams of a page's team review requests at once.
	ReviewTeams(ctx context.Context, ids []int64) (map[int64]*store.Team, error)
}

// Git reads the pull request's diff for the hunks of line comments.
type Git interface {
	RepoPath(owner, name string) (string, error)
	WriteDiff(ctx context.Context, path string, t git.DiffText, w io.Writer) error
}

// Officials decides whether reviewer's verdict (approval or request for
// changes) on pr counts for approvals; reviewer is the caller, r the
// repository with their access. It is the one place a branch protection
// rule's approvals whitelist plugs in.
type Officials func(ctx context.Context, r *access.Repo, pr *store.PullRequest, reviewer *auth.Principal) (bool, error)

// CodeWriters is Officials without branch protection: a reviewer who
// writes the repository's code is official (Gitea's rule when no rule
// matches the base branch, or the rule has no whitelist).
func CodeWriters(_ context.Context, r *access.Repo, _ *store.PullRequest, _ *auth.Principal) (bool, error) {
	return r.UnitMode(auth.UnitCode) >= store.AccessWrite, nil
}
