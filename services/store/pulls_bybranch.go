package store

import (
	"context"
	"strings"
)

// PullRequestByBranches returns the pull request of repository repoID
// from branch head of the repository headOwner/headName (the repository
// itself or a fork of it; names compared without case) into branch base,
// and its issue: the open one when there is one, else the newest.
// ErrNotFound when there is none.
func (s *Store) PullRequestByBranches(ctx context.Context, repoID int64, base, headOwner, headName, head string) (*PullRequest, *Issue, error) {
	var pr PullRequest
	err := s.db.WithContext(ctx).Table("pull_requests").Select("pull_requests.*").
		Joins("JOIN repositories ON repositories.id = pull_requests.head_repo_id").
		Joins("JOIN issues ON issues.id = pull_requests.issue_id").
		Where("pull_requests.repo_id = ? AND pull_requests.base_branch = ? AND pull_requests.head_branch = ?", repoID, base, head).
		Where("LOWER(repositories.owner_name) = ? AND repositories.lower_name = ?", strings.ToLower(headOwner), strings.ToLower(headName)).
		Order("issues.is_closed, pull_requests.id DESC").
		Take(&pr).Error
	if err != nil {
		return nil, nil, notFound(err)
	}
	is, err := s.IssueByID(ctx, pr.IssueID)
	if err != nil {
		return nil, nil, err
	}
	return &pr, is, nil
}
