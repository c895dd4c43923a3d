package issues

import (
	"context"

	"forge/services/access"
	"forge/services/paging"
	"forge/services/store"
)

// Store is what the issue use cases read and write. *store.Store
// implements it (checked in cmd/forge/app). Errors other than the
// sentinels named below are internal failures.
type Store interface {
	// UserByName returns store.ErrNotFound for an unknown name.
	access.VisibilityStore
	// VisibleUserIDs applies account visibility to a page's people at once.
	access.VisibleAmong
	// UsersByID loads the users among ids; unknown ids are absent.
	UsersByID(ctx context.Context, ids []int64) (map[int64]*store.User, error)
	// RepositoriesByID loads the repositories among ids.
	RepositoriesByID(ctx context.Context, ids []int64) (map[int64]*store.Repository, error)

	// CreateIssue allocates the index and stores the issue and its
	// assignees; store.ErrNotFound for an unknown repository.
	CreateIssue(ctx context.Context, n *store.NewIssue) error
	// IssueByIndex returns store.ErrNotFound when the repository has no
	// issue with that index.
	IssueByIndex(ctx context.Context, repoID, index int64) (*store.Issue, error)
	// UpdateIssue applies change to the locked issue; store.ErrNotFound
	// for an unknown index; change's error is returned as is.
	UpdateIssue(ctx context.Context, repoID, index, actorID int64, change func(e *store.IssueEdit) error) (*store.Issue, error)
	// DeleteIssue returns store.ErrNotFound for an unknown index.
	DeleteIssue(ctx context.Context, repoID, index int64) error
	// ListIssues returns a page of issues and their total.
	ListIssues(ctx context.Context, o store.IssueListOptions) ([]store.Issue, int64, error)
	// IssuesByID loads the issues among ids.
	IssuesByID(ctx context.Context, ids []int64) (map[int64]*store.Issue, error)
	// IssueAssignees and LabelsOfIssues load what an issue shows.
	IssueAssignees(ctx context.Context, issueIDs []int64) (map[int64][]int64, error)
	LabelsOfIssues(ctx context.Context, issueIDs []int64) (map[int64][]store.Label, error)
	// MilestonesByID loads milestones with their counts; unknown ids are
	// absent. MilestonesByNames resolves names (lower-cased) to ids.
	MilestonesByID(ctx context.Context, ids []int64) (map[int64]*store.Milestone, error)
	MilestonesByNames(ctx context.Context, repoID int64, names []string) (map[string]int64, error)
	// AttachmentsOf loads the files of several issues (column
	// "issue_id": their own, not their comments') or comments
	// ("comment_id") at once, oldest first; repoID 0 spans repositories.
	AttachmentsOf(ctx context.Context, repoID int64, column string, ids []int64) (map[int64][]store.Attachment, error)

	// CreateComment returns store.ErrNotFound when the issue is not in
	// the repository.
	CreateComment(ctx context.Context, c *store.Comment) error
	// CommentByID, UpdateComment and DeleteComment return
	// store.ErrNotFound when the repository has no such comment.
	CommentByID(ctx context.Context, repoID, id int64) (*store.Comment, error)
	UpdateComment(ctx context.Context, repoID, id int64, change func(c *store.Comment) error) (*store.Comment, error)
	DeleteComment(ctx context.Context, repoID, id int64) error
	// ListComments returns plain comments and their total.
	ListComments(ctx context.Context, o store.CommentListOptions) ([]store.Comment, int64, error)

	// SetIssueLocked locks or unlocks an issue and records it;
	// store.ErrNotFound when it is gone.
	SetIssueLocked(ctx context.Context, issueID, doerID int64, locked bool, reason string) error
	// PinIssue, UnpinIssue and MoveIssuePin change an issue's pin;
	// store.ErrPinLimit when limit are pinned, store.ErrNotFound when it
	// is gone.
	PinIssue(ctx context.Context, issueID, doerID int64, limit int) error
	UnpinIssue(ctx context.Context, issueID, doerID int64) error
	MoveIssuePin(ctx context.Context, issueID int64, position int) error
	// PinnedIssues lists a repository's pinned issues or pull requests.
	PinnedIssues(ctx context.Context, repoID int64, pulls bool) ([]store.Issue, error)
}

// Service holds the issue tracker's rules apart from any transport: the
// gRPC adapter (Server) decodes a request, calls one of its methods and
// renders the result. Permission on the repository was checked by the
// interceptor (the policies in the proto); rules on a second object (a
// poster, an assignee) are the functions of services/access.
type Service struct {
	store  Store
	access *access.Checker
	limits paging.Limits
	// maxPinned is [repository.issue] MAX_PINNED.
	maxPinned int
}

// NewService builds the use cases.
func NewService(s Store, c *access.Checker, limits paging.Limits) *Service {
	return &Service{store: s, access: c, limits: limits, maxPinned: 3}
}

// maxIssueComments bounds the per-issue comment list, which Gitea does
// not page.
const maxIssueComments = 5000
