package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"gorm.io/gorm"

	"forge/services/errs"
)

// PullRequest is what a pull request adds to its issue (the issue holds
// its number, title, body, state, labels, assignees and comments).
// RepoID is the base repository, the issue's; HeadRepoID the repository
// of the head branch: the same one, or a fork of it.
type PullRequest struct {
	ID         int64 `gorm:"primaryKey"`
	IssueID    int64
	RepoID     int64
	Index      int64
	HeadRepoID int64
	HeadBranch string
	BaseBranch string
	// HeadSHA is the head commit, kept in the base repository under
	// refs/pull/<index>/head; the refresher (services/pulls) follows the
	// head branch while the pull request is open.
	HeadSHA string `gorm:"column:head_sha"`
	// BaseSHA is the base branch's commit MergeBase, Mergeable and the
	// diff size were computed against (empty: not yet known).
	BaseSHA   string `gorm:"column:base_sha"`
	MergeBase string
	// Mergeable: head merges into base without conflicts.
	Mergeable                          bool
	Additions, Deletions, ChangedFiles int
	HasMerged                          bool
	MergedUnix                         int64
	MergedSHA                          string `gorm:"column:merged_sha"`
	MergerID                           int64
	// AllowMaintainerEdit is the poster's choice to let maintainers push
	// to the head branch.
	AllowMaintainerEdit bool
}

func (PullRequest) TableName() string { return "pull_requests" }

// ErrPullRequestExists is returned for a second open pull request with
// the same head and base; its message is Gitea's.
var ErrPullRequestExists = errs.New(errs.Conflict, "pull request already exists for these targets")

// NewPullRequest is a pull request to open: its issue (IsPull is set by
// CreatePullRequest) and its row.
type NewPullRequest struct {
	NewIssue
	Pull PullRequest
}

// CreatePullRequest opens a pull request in one transaction: it stores
// the issue as CreateIssue does (the number comes from the issue index
// the repository's issues share), refuses a duplicate of an open pull
// request with the same head repository and branch and base branch
// (ErrPullRequestExists, with Gitea's message naming the existing one),
// inserts the pull request row, then calls keep with the new number
// before committing. keep writes what must exist before the pull request
// does (its head ref); its error aborts the creation. While keep runs,
// the repository's issue index is locked, so the number is the caller's
// alone: a ref left by a creation that never committed is simply
// overwritten by the next one. n's Issue and Pull are filled in.
// ErrNotFound if the repository does not exist.
func (s *Store) CreatePullRequest(ctx context.Context, n *NewPullRequest, keep func(index int64) error) error {
	is := &n.Issue
	is.IsPull = true
	now := time.Now().Unix()
	is.CreatedUnix, is.UpdatedUnix, is.IsClosed = now, now, false
	return s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if err := s.insertIssue(tx, &n.NewIssue, now); err != nil {
			return err
		}
		// The issue index row is locked now: creators in this repository
		// check one after the other.
		var dup PullRequest
		err := tx.Model(&PullRequest{}).Select("pull_requests.*").
			Joins("JOIN issues ON issues.id = pull_requests.issue_id").
			Where("pull_requests.repo_id = ? AND pull_requests.head_repo_id = ? AND pull_requests.head_branch = ? AND pull_requests.base_branch = ?",
				is.RepoID, n.Pull.HeadRepoID, n.Pull.HeadBranch, n.Pull.BaseBranch).
			Where("issues.is_closed = ? AND pull_requests.has_merged = ?", false, false).
			Where("pull_requests.issue_id <> ?", is.ID).
			Take(&dup).Error
		if err == nil {
			return ErrPullRequestExists.WithMessage(fmt.Sprintf(
				"pull request already exists for these targets [id: %d, issue_id: %d, head_repo_id: %d, base_repo_id: %d, head_branch: %s, base_branch: %s]",
				dup.ID, dup.IssueID, dup.HeadRepoID, dup.RepoID, dup.HeadBranch, dup.BaseBranch))
		}
		if !errors.Is(err, gorm.ErrRecordNotFound) {
			return errs.Wrap(err, "find duplicate pull request")
		}
		pr := &n.Pull
		pr.ID, pr.IssueID, pr.RepoID, pr.Index = 0, is.ID, is.RepoID, is.Index
		if err := tx.Create(pr).Error; err != nil {
			return errs.Wrap(err, "insert pull request")
		}
		return keep(is.Index)
	})
}

// PullRequestByIndex returns the pull request numbered index in a
// repository and its issue; ErrNotFound when the number is a plain issue
// or unused.
func (s *Store) PullRequestByIndex(ctx context.Context, repoID, index int64) (*PullRequest, *Issue, error) {
	var pr PullRequest
	if err := s.db.WithContext(ctx).Where(`repo_id = ? AND "index" = ?`, repoID, index).Take(&pr).Error; err != nil {
		return nil, nil, notFound(err)
	}
	is, err := s.IssueByID(ctx, pr.IssueID)
	if err != nil {
		return nil, nil, err
	}
	return &pr, is, nil
}

// PullRequestsOfIssues loads the pull request rows of issues, by issue id.
func (s *Store) PullRequestsOfIssues(ctx context.Context, issueIDs []int64) (map[int64]*PullRequest, error) {
	out := map[int64]*PullRequest{}
	if len(issueIDs) == 0 {
		return out, nil
	}
	var rows []PullRequest
	if err := s.db.WithContext(ctx).Where("issue_id IN ?", uniqueIDs(issueIDs)).Find(&rows).Error; err != nil {
		return nil, errs.Wrap(err, "load pull requests")
	}
	for i := range rows {
		out[rows[i].IssueID] = &rows[i]
	}
	return out, nil
}

// PullListOptions filters ListPullRequests.
type PullListOptions struct {
	RepoID int64
	// State is "open", "closed", or anything else for both (Gitea: an
	// empty state lists every pull request).
	State string
	// Sort is Gitea's: oldest, recentupdate, leastupdate, mostcomment,
	// leastcomment; anything else is newest first.
	Sort string
	// LabelIDs: the pull request carries each of these labels.
	LabelIDs []int64
	// MilestoneID (> 0): the pull request is in that milestone.
	MilestoneID   int64
	Offset, Limit int
}

// ListPullRequests returns a page of a repository's pull requests (their
// issues) and how many match.
func (s *Store) ListPullRequests(ctx context.Context, o PullListOptions) ([]Issue, int64, error) {
	q := s.db.WithContext(ctx).Model(&Issue{}).Where("issues.repo_id = ? AND issues.is_pull = ?", o.RepoID, true)
	switch o.State {
	case "open":
		q = q.Where("issues.is_closed = ?", false)
	case "closed":
		q = q.Where("issues.is_closed = ?", true)
	}
	for _, id := range uniqueIDs(o.LabelIDs) {
		q = q.Where("issues.id IN (?)", s.db.Model(&IssueLabel{}).Select("issue_id").Where("label_id = ?", id))
	}
	if o.MilestoneID > 0 {
		q = q.Where("issues.milestone_id = ?", o.MilestoneID)
	}
	var total int64
	if err := q.Count(&total).Error; err != nil {
		return nil, 0, errs.Wrap(err, "count pull requests")
	}
	switch o.Sort {
	case "oldest":
		q = q.Order("issues.created_unix").Order("issues.id")
	case "recentupdate":
		q = q.Order("issues.updated_unix DESC").Order("issues.created_unix DESC").Order("issues.id DESC")
	case "leastupdate":
		q = q.Order("issues.updated_unix").Order("issues.created_unix").Order("issues.id")
	case "mostcomment":
		q = q.Order("issues.num_comments DESC").Order("issues.created_unix DESC").Order("issues.id DESC")
	case "leastcomment":
		q = q.Order("issues.num_comments").Order("issues.created_unix DESC").Order("issues.id DESC")
	default:
		q = q.Order("issues.created_unix DESC").Order("issues.id DESC")
	}
	out := []Issue{}
	if err := q.Offset(o.Offset).Limit(o.Limit).Find(&out).Error; err != nil {
		return nil, 0, errs.Wrap(err, "list pull requests")
	}
	return out, total, nil
}

// ForkOwnedBy returns the fork of repository parentID owned by ownerID;
// ErrNotFound when that owner has none.
func (s *Store) ForkOwnedBy(ctx context.Context, parentID, ownerID int64) (*Repository, error) {
	var r Repository
	err := s.db.WithContext(ctx).Where("fork_id = ? AND owner_id = ?", parentID, ownerID).Order("id").Take(&r).Error
	if err != nil {
		return nil, notFound(err)
	}
	return &r, nil
}
