package store

import (
	"context"
	"errors"
	"time"

	"gorm.io/gorm"

	"forge/services/errs"
)

// ChildRetarget is what retargeting the children of a merged pull request
// needs: in repository RepoID, the open pull requests whose base is branch
// From (about to be deleted) move onto base To, by DoerID.
type ChildRetarget struct {
	RepoID   int64
	From, To string
	DoerID   int64
}

// maxRetargetedChildren bounds one retarget; children beyond it keep
// their base and are closed with the branch, as when retargeting is off.
const maxRetargetedChildren = 500

// RetargetChildPullRequests moves, in one transaction, every open and
// unmerged pull request of c.RepoID whose base branch is c.From onto
// c.To (most recently updated first, as Gitea), and records a
// change-target-branch comment on each. The row is the same pull request:
// its reviews, comments and history stay. Its base_sha is cleared so the
// refresher recomputes merge base, mergeable state and size against the
// new base. Children that cannot move are skipped, as Gitea skips them:
// one whose head is c.To itself, or one that would duplicate an open pull
// request from the same head into c.To. The repository's issue index row
// is locked as creators lock it, so no duplicate is opened meanwhile. It
// returns the ids of the pull requests moved.
func (s *Store) RetargetChildPullRequests(ctx context.Context, c ChildRetarget) ([]int64, error) {
	var moved []int64
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		moved = moved[:0]
		var idx IssueIndex
		if err := s.forUpdate(tx).Where("repo_id = ?", c.RepoID).Take(&idx).Error; err != nil {
			return errs.Wrap(err, "lock the issue index")
		}
		var children []PullRequest
		err := s.openPulls(tx).
			Where("pull_requests.repo_id = ? AND pull_requests.base_branch = ?", c.RepoID, c.From).
			Order("issues.updated_unix DESC, pull_requests.id").Limit(maxRetargetedChildren).
			Find(&children).Error
		if err != nil {
			return errs.Wrap(err, "find the child pull requests")
		}
		now := time.Now().Unix()
		for i := range children {
			pr := &children[i]
			if pr.HeadRepoID == c.RepoID && pr.HeadBranch == c.To {
				continue
			}
			// Locked as closing locks it: a child closed meanwhile stays
			// closed on its old base.
			var is Issue
			if err := s.forUpdate(tx).Where("id = ?", pr.IssueID).Take(&is).Error; err != nil {
				return notFound(err)
			}
			if is.IsClosed {
				continue
			}
			if err := s.duplicatePull(tx, pr, c.To); errors.Is(err, ErrPullRequestExists) {
				continue
			} else if err != nil {
				return err
			}
			res := tx.Model(&PullRequest{}).Where("id = ? AND base_branch = ?", pr.ID, c.From).
				Updates(map[string]any{"base_branch": c.To, "base_sha": ""})
			if res.Error != nil {
				return errs.Wrap(res.Error, "retarget a child pull request")
			}
			if res.RowsAffected == 0 {
				continue
			}
			comment := Comment{Type: CommentTypeChangeTargetBranch, RepoID: c.RepoID, IssueID: pr.IssueID,
				PosterID: c.DoerID, OldRef: c.From, NewRef: c.To, CreatedUnix: now, UpdatedUnix: now}
			if err := tx.Create(&comment).Error; err != nil {
				return errs.Wrap(err, "record the change of target branch")
			}
			if err := tx.Model(&Issue{}).Where("id = ?", pr.IssueID).Update("updated_unix", now).Error; err != nil {
				return errs.Wrap(err, "touch the child pull request")
			}
			moved = append(moved, pr.ID)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return moved, nil
}

// ClosePullRequestsOfGoneBranches closes the pull requests in prs, as
// they were read, whose head or base branch no longer exists (the
// refresher found it missing in git): each one still open, unmerged and
// still naming the same branches is closed, moving the repository's and
// labels' counters and queueing the closing activity (no actor: who
// deleted the branch is not known here). A row that changed meanwhile (a
// retarget, a merge) is left alone. It returns how many it closed.
func (s *Store) ClosePullRequestsOfGoneBranches(ctx context.Context, prs []PullRequest) (int, error) {
	closed := 0
	for i := range prs {
		from := &prs[i]
		did := false
		err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
			var is Issue
			if err := s.forUpdate(tx).Where("id = ?", from.IssueID).Take(&is).Error; err != nil {
				return notFound(err)
			}
			if is.IsClosed {
				return nil
			}
			var pr PullRequest
			err := s.forUpdate(tx).Where("id = ? AND has_merged = ? AND repo_id = ? AND base_branch = ? AND head_repo_id = ? AND head_branch = ?",
				from.ID, false, from.RepoID, from.BaseBranch, from.HeadRepoID, from.HeadBranch).Take(&pr).Error
			if errors.Is(err, gorm.ErrRecordNotFound) {
				return nil
			}
			if err != nil {
				return errs.Wrap(err, "read the pull request")
			}
			now := time.Now().Unix()
			if err := tx.Model(&Issue{}).Where("id = ?", is.ID).
				Updates(map[string]any{"is_closed": true, "closed_unix": now, "updated_unix": now}).Error; err != nil {
				return errs.Wrap(err, "close the pull request")
			}
			if err := moveIssueCounters(tx, is.RepoID, true, 0, 1); err != nil {
				return err
			}
			if err := moveLabelClosedCounts(tx, is.ID, 1); err != nil {
				return err
			}
			did = true
			if err := recordEvent(tx, Comment{Type: CommentTypeClose, RepoID: is.RepoID, IssueID: is.ID, CreatedUnix: now}); err != nil {
				return err
			}
			return s.enqueueActivity(tx, Activity{Kind: ActivityIssueClosed, RepoID: is.RepoID, IssueID: is.ID, CreatedUnix: now})
		})
		if err != nil && !errors.Is(err, ErrNotFound) {
			return closed, err
		}
		if err == nil && did {
			closed++
		}
	}
	return closed, nil
}
