package store

import (
	"context"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"forge/services/errs"
)

// TrackedTime is time a user spent on an issue (Time seconds), added by
// hand or by a stopped stopwatch. A deleted one is kept, marked Deleted,
// as in Gitea, and left out of every list.
type TrackedTime struct {
	ID          int64 `gorm:"primaryKey"`
	RepoID      int64
	IssueID     int64
	UserID      int64
	CreatedUnix int64
	Time        int64
	Deleted     bool
}

func (TrackedTime) TableName() string { return "tracked_times" }

// Stopwatch is a user's running stopwatch on an issue (one per user and
// issue).
type Stopwatch struct {
	ID          int64 `gorm:"primaryKey"`
	RepoID      int64
	IssueID     int64
	UserID      int64
	CreatedUnix int64
}

func (Stopwatch) TableName() string { return "stopwatches" }

// Stopwatch outcomes, with Gitea's messages (409).
var (
	ErrStopwatchRunning = errs.New(errs.AlreadyExists, "cannot start a stopwatch again if it already exists")
	ErrStopwatchMissing = errs.New(errs.AlreadyExists, "cannot stop/cancel a non existent stopwatch")
)

// TrackedTimeOptions selects tracked times; zero fields do not filter.
type TrackedTimeOptions struct {
	RepoID, IssueID, UserID int64
	// Since, Before bound the creation time (Unix seconds).
	Since, Before int64
	Offset, Limit int
}

// AddTrackedTime stores t (RepoID, IssueID, UserID, Time; CreatedUnix 0:
// now). ErrNotFound if the issue is gone.
func (s *Store) AddTrackedTime(ctx context.Context, t TrackedTime) (*TrackedTime, error) {
	t.ID, t.Deleted = 0, false
	if t.CreatedUnix == 0 {
		t.CreatedUnix = time.Now().Unix()
	}
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var is Issue
		if err := s.forUpdate(tx).Select("id").Where("id = ? AND repo_id = ?", t.IssueID, t.RepoID).Take(&is).Error; err != nil {
			return notFound(err)
		}
		return errs.Wrap(tx.Create(&t).Error, "add tracked time")
	})
	if err != nil {
		return nil, err
	}
	return &t, nil
}

// ListTrackedTimes returns a page of the tracked times o selects, oldest
// first, and how many there are.
func (s *Store) ListTrackedTimes(ctx context.Context, o TrackedTimeOptions) ([]TrackedTime, int64, error) {
	q := s.db.WithContext(ctx).Model(&TrackedTime{}).Where("deleted = ?", false)
	if o.RepoID != 0 {
		q = q.Where("repo_id = ?", o.RepoID)
	}
	if o.IssueID != 0 {
		q = q.Where("issue_id = ?", o.IssueID)
	}
	if o.UserID != 0 {
		q = q.Where("user_id = ?", o.UserID)
	}
	if o.Since != 0 {
		q = q.Where("created_unix >= ?", o.Since)
	}
	if o.Before != 0 {
		q = q.Where("created_unix <= ?", o.Before)
	}
	var total int64
	if err := q.Count(&total).Error; err != nil {
		return nil, 0, errs.Wrap(err, "count tracked times")
	}
	var out []TrackedTime
	q = q.Order("id")
	if o.Limit > 0 {
		q = q.Offset(o.Offset).Limit(o.Limit)
	}
	if err := q.Find(&out).Error; err != nil {
		return nil, 0, errs.Wrap(err, "list tracked times")
	}
	return out, total, nil
}

// TrackedTimeByID returns a tracked time of an issue that is not
// deleted; ErrNotFound otherwise.
func (s *Store) TrackedTimeByID(ctx context.Context, issueID, id int64) (*TrackedTime, error) {
	var t TrackedTime
	if err := s.db.WithContext(ctx).Where("id = ? AND issue_id = ? AND deleted = ?", id, issueID, false).Take(&t).Error; err != nil {
		return nil, notFound(err)
	}
	return &t, nil
}

// DeleteTrackedTime marks a tracked time deleted; ErrNotFound if it is
// gone or deleted already.
func (s *Store) DeleteTrackedTime(ctx context.Context, id int64) error {
	res := s.db.WithContext(ctx).Model(&TrackedTime{}).Where("id = ? AND deleted = ?", id, false).Update("deleted", true)
	if res.Error != nil {
		return errs.Wrap(res.Error, "delete tracked time")
	}
	if res.RowsAffected == 0 {
		return ErrNotFound
	}
	return nil
}

// DeleteUserTimes marks every tracked time of a user on an issue
// deleted; ErrNotFound if there is none.
func (s *Store) DeleteUserTimes(ctx context.Context, issueID, userID int64) error {
	res := s.db.WithContext(ctx).Model(&TrackedTime{}).Where("issue_id = ? AND user_id = ? AND deleted = ?", issueID, userID, false).
		Update("deleted", true)
	if res.Error != nil {
		return errs.Wrap(res.Error, "delete tracked times")
	}
	if res.RowsAffected == 0 {
		return ErrNotFound
	}
	return nil
}

// StartStopwatch starts a user's stopwatch on an issue; one running on
// another issue is stopped first and its time added, in the same
// transaction. ErrStopwatchRunning if one runs on this issue.
func (s *Store) StartStopwatch(ctx context.Context, repoID, issueID, userID int64) error {
	now := time.Now().Unix()
	return s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var running []Stopwatch
		// The user's row orders their stopwatch changes.
		var u User
		if err := s.forUpdate(tx).Select("id").Where("id = ?", userID).Take(&u).Error; err != nil {
			return notFound(err)
		}
		if err := tx.Where("user_id = ?", userID).Find(&running).Error; err != nil {
			return errs.Wrap(err, "load stopwatches")
		}
		for _, sw := range running {
			if sw.IssueID == issueID {
				return ErrStopwatchRunning
			}
			if err := finishStopwatch(tx, sw, now); err != nil {
				return err
			}
		}
		res := tx.Clauses(clause.OnConflict{DoNothing: true}).
			Create(&Stopwatch{RepoID: repoID, IssueID: issueID, UserID: userID, CreatedUnix: now})
		if res.Error != nil {
			return errs.Wrap(res.Error, "start stopwatch")
		}
		if res.RowsAffected == 0 {
			return ErrStopwatchRunning
		}
		return nil
	})
}

// StopStopwatch stops a user's stopwatch on an issue and adds its time
// (add) or drops it; ErrStopwatchMissing if none runs.
func (s *Store) StopStopwatch(ctx context.Context, issueID, userID int64, add bool) error {
	now := time.Now().Unix()
	return s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var sw Stopwatch
		if err := s.forUpdate(tx).Where("issue_id = ? AND user_id = ?", issueID, userID).Take(&sw).Error; err != nil {
			if notFound(err) == ErrNotFound {
				return ErrStopwatchMissing
			}
			return errs.Wrap(err, "load stopwatch")
		}
		if !add {
			return errs.Wrap(tx.Delete(&Stopwatch{}, sw.ID).Error, "cancel stopwatch")
		}
		return finishStopwatch(tx, sw, now)
	})
}

// finishStopwatch deletes sw and adds its time up to now.
func finishStopwatch(tx *gorm.DB, sw Stopwatch, now int64) error {
	res := tx.Delete(&Stopwatch{}, sw.ID)
	if res.Error != nil {
		return errs.Wrap(res.Error, "stop stopwatch")
	}
	if res.RowsAffected == 0 {
		return ErrStopwatchMissing
	}
	t := TrackedTime{RepoID: sw.RepoID, IssueID: sw.IssueID, UserID: sw.UserID, CreatedUnix: now, Time: max(now-sw.CreatedUnix, 0)}
	return errs.Wrap(tx.Create(&t).Error, "add stopwatch time")
}

// ListStopwatches returns a page of a user's running stopwatches, oldest
// first, and how many there are.
func (s *Store) ListStopwatches(ctx context.Context, userID int64, offset, limit int) ([]Stopwatch, int64, error) {
	q := s.db.WithContext(ctx).Model(&Stopwatch{}).Where("user_id = ?", userID)
	var total int64
	if err := q.Count(&total).Error; err != nil {
		return nil, 0, errs.Wrap(err, "count stopwatches")
	}
	var out []Stopwatch
	if err := q.Order("id").Offset(offset).Limit(limit).Find(&out).Error; err != nil {
		return nil, 0, errs.Wrap(err, "list stopwatches")
	}
	return out, total, nil
}
