package store

import (
	"context"
	"errors"
	"time"

	"gorm.io/gorm"

	"forge/services/errs"
)

// AutoMerge is a scheduled merge of a pull request (Gitea's "merge when
// checks succeed"): the merge its doer asked for, run as the doer once
// the base branch's protection lets it through.
type AutoMerge struct {
	ID                     int64 `gorm:"primaryKey"`
	PullID                 int64
	RepoID                 int64
	DoerID                 int64
	MergeStyle             string
	Title, Message         string
	DeleteBranchAfterMerge bool
	// ClaimedUntil: a process runs the merge until then (Unix seconds);
	// others leave it alone (ClaimAutoMerge).
	ClaimedUntil int64
	CreatedUnix  int64
}

func (AutoMerge) TableName() string { return "pull_auto_merges" }

// ScheduledMerge is a scheduled merge with the pull request it merges.
type ScheduledMerge struct {
	AutoMerge
	Index, IssueID int64
}

// Comment types of scheduled merges (Gitea's numbers).
const (
	// CommentTypeScheduledMerge: the poster scheduled the pull request to
	// be merged when its checks succeed.
	CommentTypeScheduledMerge = 34
	// CommentTypeCancelScheduledMerge: the scheduled merge was cancelled
	// (by the poster, or dropped because its doer may no longer merge).
	CommentTypeCancelScheduledMerge = 35
)

// ErrAutoMergeScheduled: the pull request has a scheduled merge already
// (409).
var ErrAutoMergeScheduled = errs.New(errs.Conflict, "pull request is already scheduled to auto merge when checks succeed")

// ScheduleAutoMerge stores a's schedule and its timeline event (on the
// pull request's issue issueID, by a.DoerID) in one transaction.
// ErrAutoMergeScheduled when the pull request has one already.
func (s *Store) ScheduleAutoMerge(ctx context.Context, a *AutoMerge, issueID int64) error {
	now := time.Now().Unix()
	a.ID, a.CreatedUnix, a.ClaimedUntil = 0, now, 0
	return s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		err := tx.Create(a).Error
		if errors.Is(err, gorm.ErrDuplicatedKey) {
			return ErrAutoMergeScheduled
		}
		if err != nil {
			return errs.Wrap(err, "schedule merge")
		}
		return recordEvent(tx, Comment{Type: CommentTypeScheduledMerge, RepoID: a.RepoID, IssueID: issueID,
			PosterID: a.DoerID, CreatedUnix: now})
	})
}

// AutoMergeOfPull returns the pull request's scheduled merge;
// ErrNotFound when none is scheduled.
func (s *Store) AutoMergeOfPull(ctx context.Context, pullID int64) (*AutoMerge, error) {
	var a AutoMerge
	if err := s.db.WithContext(ctx).Where("pull_id = ?", pullID).Take(&a).Error; err != nil {
		return nil, notFound(err)
	}
	return &a, nil
}

// CancelAutoMerge deletes the pull request's scheduled merge and records
// the cancellation by doerID on its issue, in one transaction;
// ErrNotFound when none is scheduled.
func (s *Store) CancelAutoMerge(ctx context.Context, pullID, issueID, doerID int64) error {
	return s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var a AutoMerge
		if err := tx.Where("pull_id = ?", pullID).Take(&a).Error; err != nil {
			return notFound(err)
		}
		res := tx.Where("id = ?", a.ID).Delete(&AutoMerge{})
		if res.Error != nil {
			return errs.Wrap(res.Error, "cancel scheduled merge")
		}
		if res.RowsAffected == 0 {
			return ErrNotFound
		}
		return recordEvent(tx, Comment{Type: CommentTypeCancelScheduledMerge, RepoID: a.RepoID, IssueID: issueID, PosterID: doerID})
	})
}

// maxScheduledMerges bounds the scheduled merges of a repository looked
// at in one pass.
const maxScheduledMerges = 200

// ScheduledMergesOfRepo returns the scheduled merges into repository
// repoID that no process claims now, oldest first (at most 200).
func (s *Store) ScheduledMergesOfRepo(ctx context.Context, repoID int64) ([]ScheduledMerge, error) {
	out := []ScheduledMerge{}
	err := s.db.WithContext(ctx).Table("pull_auto_merges").
		Select("pull_auto_merges.*, pull_requests.\"index\" AS \"index\", pull_requests.issue_id AS issue_id").
		Joins("JOIN pull_requests ON pull_requests.id = pull_auto_merges.pull_id").
		Where("pull_auto_merges.repo_id = ? AND pull_auto_merges.claimed_until < ?", repoID, time.Now().Unix()).
		Order("pull_auto_merges.id").Limit(maxScheduledMerges).Scan(&out).Error
	if err != nil {
		return nil, errs.Wrap(err, "list scheduled merges")
	}
	return out, nil
}

// ReposWithScheduledMerges lists the repositories with scheduled merges.
func (s *Store) ReposWithScheduledMerges(ctx context.Context) ([]int64, error) {
	var ids []int64
	if err := s.db.WithContext(ctx).Model(&AutoMerge{}).Distinct().Pluck("repo_id", &ids).Error; err != nil {
		return nil, errs.Wrap(err, "list repositories with scheduled merges")
	}
	return ids, nil
}

// ClaimAutoMerge claims scheduled merge id for the caller until the Unix
// time until; false when another process holds an unexpired claim or the
// schedule is gone. The merge recorded (MarkPullRequestMerged) deletes
// the schedule in its transaction, so a claimed merge runs once.
func (s *Store) ClaimAutoMerge(ctx context.Context, id, until int64) (bool, error) {
	res := s.db.WithContext(ctx).Model(&AutoMerge{}).Where("id = ? AND claimed_until < ?", id, time.Now().Unix()).
		Update("claimed_until", until)
	if res.Error != nil {
		return false, errs.Wrap(res.Error, "claim scheduled merge")
	}
	return res.RowsAffected == 1, nil
}

// ReleaseAutoMerge gives up the claim on scheduled merge id (the merge
// could not run yet).
func (s *Store) ReleaseAutoMerge(ctx context.Context, id int64) error {
	return errs.Wrap(s.db.WithContext(ctx).Model(&AutoMerge{}).Where("id = ?", id).Update("claimed_until", 0).Error,
		"release scheduled merge")
}
