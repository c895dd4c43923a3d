package pulls

import (
	"context"

	"forge/services/access"
	"forge/services/auth"
	"forge/services/git"
	"forge/services/paging"
	"forge/services/store"
)

// Store is what the pull request use cases read and write. *store.Store
// implements it (checked in services/area/all).
type Store interface {
	// UserByName returns store.ErrNotFound for an unknown name.
	access.VisibilityStore
	access.VisibleAmong
	UsersByID(ctx context.Context, ids []int64) (map[int64]*store.User, error)
	RepositoriesByID(ctx context.Context, ids []int64) (map[int64]*store.Repository, error)

	// CreatePullRequest stores the issue and the pull request in one
	// transaction and calls keep with the number before committing;
	// store.ErrPullRequestExists for a duplicate of an open one.
	CreatePullRequest(ctx context.Context, n *store.NewPullRequest, keep func(index int64) error) error
	// PullRequestByIndex returns store.ErrNotFound when index is no pull
	// request of the repository.
	PullRequestByIndex(ctx context.Context, repoID, index int64) (*store.PullRequest, *store.Issue, error)
	// PullRequestsOfIssues loads a page's pull request rows at once.
	PullRequestsOfIssues(ctx context.Context, issueIDs []int64) (map[int64]*store.PullRequest, error)
	// ListPullRequests returns a page of pull requests (their issues)
	// and their total.
	ListPullRequests(ctx context.Context, o store.PullListOptions) ([]store.Issue, int64, error)
	// PinnedIssues lists a repository's pinned pull requests (pulls true).
	PinnedIssues(ctx context.Context, repoID int64, pulls bool) ([]store.Issue, error)
	IssueAssignees(ctx context.Context, issueIDs []int64) (map[int64][]int64, error)
	// RequestedReviewersOf is the reviews area's: the people asked to
	// review a page's pull requests who have not answered yet.
	RequestedReviewersOf(ctx context.Context, issueIDs []int64) (map[int64][]int64, error)
	LabelsOfIssues(ctx context.Context, issueIDs []int64) (map[int64][]store.Label, error)
	// MilestonesByID loads milestones with their counts; unknown ids are
	// absent.
	MilestonesByID(ctx context.Context, ids []int64) (map[int64]*store.Milestone, error)
}

// Git is what the pull requests read and write in repositories.
type Git interface {
	RepoPath(owner, name string) (string, error)
	// GetBranch returns git.ErrNotFound for a missing branch.
	GetBranch(ctx context.Context, path, name string) (git.Branch, error)
	// BranchesByName reads the branches among names that exist.
	BranchesByName(ctx context.Context, path string, names []string) ([]git.Branch, error)
	FetchCommit(ctx context.Context, dst, src, sha string) error
	MergeBase(ctx context.Context, path, a, b string) (string, error)
	Mergeable(ctx context.Context, path, base, head string) (bool, error)
	DiffStatBetween(ctx context.Context, path, from, to string) (git.DiffStat, error)
	SetPullHead(ctx context.Context, path string, index int64, sha string) error
	DropPullHead(ctx context.Context, path string, index int64, sha string) error
}

// Modes gives the caller's access to a page's repositories at once.
type Modes interface {
	Modes(ctx context.Context, repos []store.Repository, viewer *auth.Principal) (map[int64]store.AccessMode, error)
}

// Service holds the pull request rules apart from any transport.
// Permission was checked by the interceptor (the policies in the proto
// and the rule pull-head).
type Service struct {
	store  Store
	git    Git
	access *access.Checker
	limits paging.Limits
}

// NewService builds the use cases.
func NewService(s Store, g Git, c *access.Checker, limits paging.Limits) *Service {
	return &Service{store: s, git: g, access: c, limits: limits}
}
