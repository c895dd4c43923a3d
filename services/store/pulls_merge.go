package store

import (
	"context"
	"time"

	"gorm.io/gorm"

	"forge/services/errs"
)

// ErrPullRequestMerged: the pull request is merged already (Gitea answers
// 405 with an empty message: see rpcerr).
var ErrPullRequestMerged = &errs.Error{Kind: errs.FailedPrecondition}

// PullMerge is what a merge records.
type PullMerge struct {
	PullID, IssueID, RepoID int64
	MergerID                int64
	// MergedSHA is the commit the base branch moved to; HeadSHA the head
	// commit merged.
	MergedSHA, HeadSHA string
	// MergedUnix is when it was merged; zero means now.
	MergedUnix int64
}

// MarkPullRequestMerged records a merge in one transaction: the pull
// request row becomes merged (by m.MergerID, at m.MergedUnix, as m.MergedSHA, with
// the head merged) and its issue is closed, moving the repository's and
// labels' counters and queueing the closing activity; the pull request's
// scheduled merge, if any, is deleted. A pull request
// merged meanwhile is ErrPullRequestMerged and changes nothing, with one
// exception: a merger may claim a merge recorded without one (the
// refresher saw the base contain the head) of the same commit, because
// that base move was the merger's own and the refresher can run first.
func (s *Store) MarkPullRequestMerged(ctx context.Context, m PullMerge) error {
	now := time.Now().Unix()
	mergedUnix := m.MergedUnix
	if mergedUnix == 0 {
		mergedUnix = now
	}
	return s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var is Issue
		if err := s.forUpdate(tx).Where("id = ? AND repo_id = ?", m.IssueID, m.RepoID).Take(&is).Error; err != nil {
			return notFound(err)
		}
		merged := tx.Where("has_merged = ?", false)
		if m.MergerID != 0 {
			merged = merged.Or("merger_id = ? AND merged_sha = ?", 0, m.MergedSHA)
		}
		res := tx.Model(&PullRequest{}).Where("id = ?", m.PullID).Where(merged).Updates(map[string]any{
			"has_merged": true, "merged_unix": mergedUnix, "merged_sha": m.MergedSHA, "merger_id": m.MergerID, "head_sha": m.HeadSHA,
		})
		if res.Error != nil {
			return errs.Wrap(res.Error, "mark pull request merged")
		}
		if res.RowsAffected == 0 {
			return ErrPullRequestMerged
		}
		// A scheduled merge is used up by any merge (its own, another, a
		// push): deleting it here makes the merge it schedules run once.
		if err := tx.Where("pull_id = ?", m.PullID).Delete(&AutoMerge{}).Error; err != nil {
			return errs.Wrap(err, "drop the scheduled merge")
		}
		if is.IsClosed {
			// A merger claiming the refresher's record of its own merge
			// also becomes the poster of the merge event.
			if m.MergerID == 0 {
				return nil
			}
			return errs.Wrap(tx.Model(&Comment{}).
				Where("issue_id = ? AND type = ? AND poster_id = ?", is.ID, CommentTypeMergePull, 0).
				Update("poster_id", m.MergerID).Error, "claim the merge event")
		}
		if err := tx.Model(&Issue{}).Where("id = ?", is.ID).
			Updates(map[string]any{"is_closed": true, "closed_unix": now, "updated_unix": now}).Error; err != nil {
			return errs.Wrap(err, "close the pull request's issue")
		}
		event := Comment{Type: CommentTypeMergePull, RepoID: is.RepoID, IssueID: is.ID, PosterID: m.MergerID,
			CommitSHA: m.MergedSHA, CreatedUnix: now}
		if err := recordEvent(tx, event); err != nil {
			return err
		}
		if err := moveIssueCounters(tx, is.RepoID, true, 0, 1); err != nil {
			return err
		}
		if err := moveLabelClosedCounts(tx, is.ID, 1); err != nil {
			return err
		}
		return s.enqueueActivity(tx, Activity{Kind: ActivityIssueClosed, RepoID: is.RepoID, IssueID: is.ID, ActorID: m.MergerID, CreatedUnix: now})
	})
}

// OtherOpenPullsFromBranch counts the open pull requests other than
// exceptPullID whose head is branch of repository headRepoID (a head
// branch they use is not deleted after a merge).
func (s *Store) OtherOpenPullsFromBranch(ctx context.Context, headRepoID int64, branch string, exceptPullID int64) (int64, error) {
	var n int64
	err := s.db.WithContext(ctx).Model(&PullRequest{}).
		Joins("JOIN issues ON issues.id = pull_requests.issue_id").
		Where("pull_requests.head_repo_id = ? AND pull_requests.head_branch = ? AND pull_requests.id <> ?", headRepoID, branch, exceptPullID).
		Where("issues.is_closed = ? AND pull_requests.has_merged = ?", false, false).
		Count(&n).Error
	if err != nil {
		return 0, errs.Wrap(err, "count pull requests from a branch")
	}
	return n, nil
}
