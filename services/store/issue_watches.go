package store

import (
	"context"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"forge/services/errs"
)

// IssueWatch is a user's explicit choice about one issue: subscribed
// (IsWatching) or unsubscribed. Without one, a user follows an issue when
// they watch its repository or posted it or a comment on it; with one,
// the choice decides (IssueFollowed, and the notification fan-out).
type IssueWatch struct {
	ID          int64 `gorm:"primaryKey"`
	RepoID      int64
	IssueID     int64
	UserID      int64
	IsWatching  bool
	CreatedUnix int64
	UpdatedUnix int64
}

func (IssueWatch) TableName() string { return "issue_watches" }

// SetIssueWatch records a user's choice to follow an issue (watching) or
// not, replacing an earlier one. The issue row is locked first, as
// DeleteIssue locks it, so a row is never left behind an issue deleted
// meanwhile. ErrNotFound if the issue is gone.
func (s *Store) SetIssueWatch(ctx context.Context, is *Issue, userID int64, watching bool) error {
	now := time.Now().Unix()
	return s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var cur Issue
		if err := s.forUpdate(tx).Select("id").Where("id = ?", is.ID).Take(&cur).Error; err != nil {
			return notFound(err)
		}
		w := IssueWatch{RepoID: is.RepoID, IssueID: is.ID, UserID: userID, IsWatching: watching, CreatedUnix: now, UpdatedUnix: now}
		err := tx.Clauses(clause.OnConflict{
			Columns:   []clause.Column{{Name: "issue_id"}, {Name: "user_id"}},
			DoUpdates: clause.AssignmentColumns([]string{"is_watching", "updated_unix"}),
		}).Create(&w).Error
		return errs.Wrap(err, "set issue watch")
	})
}

// IssueFollowed reports whether a user follows an issue: their explicit
// choice when they made one; else whether they watch the repository, or
// posted the issue, a comment or a review on it.
func (s *Store) IssueFollowed(ctx context.Context, is *Issue, userID int64) (bool, error) {
	db := s.db.WithContext(ctx)
	var ws []IssueWatch
	if err := db.Where("issue_id = ? AND user_id = ?", is.ID, userID).Limit(1).Find(&ws).Error; err != nil {
		return false, errs.Wrap(err, "load issue watch")
	}
	if len(ws) == 1 {
		return ws[0].IsWatching, nil
	}
	if is.PosterID == userID {
		return true, nil
	}
	var n int64
	if err := db.Model(&Watch{}).Where("repo_id = ? AND user_id = ?", is.RepoID, userID).Count(&n).Error; err != nil {
		return false, errs.Wrap(err, "load watch")
	}
	if n > 0 {
		return true, nil
	}
	err := db.Model(&Comment{}).Where("issue_id = ? AND poster_id = ? AND type IN ?", is.ID, userID,
		[]int{CommentTypeComment, CommentTypeReview}).Count(&n).Error
	return n > 0, errs.Wrap(err, "load participation")
}

// ListIssueSubscribers returns a page of the users who subscribed to an
// issue explicitly (active accounts, that visible shows), in the order
// they subscribed, and how many there are.
func (s *Store) ListIssueSubscribers(ctx context.Context, issueID int64, visible UserFilter, offset, limit int) ([]User, int64, error) {
	q := s.db.WithContext(ctx).Table("users").
		Joins("JOIN issue_watches ON issue_watches.user_id = users.id").
		Where("issue_watches.issue_id = ? AND issue_watches.is_watching = ? AND users.is_active = ?", issueID, true, true)
	if ids := s.visibleUserIDs(visible); ids != nil {
		q = q.Where("users.id IN (?)", ids)
	}
	var total int64
	if err := q.Count(&total).Error; err != nil {
		return nil, 0, errs.Wrap(err, "count issue subscribers")
	}
	users := []User{}
	err := q.Select("users.*").Order("issue_watches.id").Offset(offset).Limit(limit).Find(&users).Error
	return users, total, errs.Wrap(err, "list issue subscribers")
}
