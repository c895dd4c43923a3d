package store

import (
	"context"
	"errors"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"forge/services/errs"
)

// Reaction is a user's reaction (Type: "+1", "heart", ...) on an issue
// (CommentID 0) or on one of its comments. A user reacts once per type on
// each: the unique index (issue_id, comment_id, user_id, type) holds it
// under concurrent writers.
type Reaction struct {
	ID          int64 `gorm:"primaryKey"`
	Type        string
	RepoID      int64
	IssueID     int64
	CommentID   int64
	UserID      int64
	CreatedUnix int64
}

func (Reaction) TableName() string { return "reactions" }

// AddReaction stores r (RepoID, IssueID, CommentID, UserID, Type) unless
// the user reacted so already, and returns the stored row and whether it
// is new. ErrNotFound if the issue (or the comment) is gone.
func (s *Store) AddReaction(ctx context.Context, r Reaction) (*Reaction, bool, error) {
	r.ID, r.CreatedUnix = 0, time.Now().Unix()
	var out Reaction
	created := false
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		// The issue's row orders this insert against the issue's delete.
		var is Issue
		if err := s.forUpdate(tx).Select("id").Where("id = ? AND repo_id = ?", r.IssueID, r.RepoID).Take(&is).Error; err != nil {
			return notFound(err)
		}
		if r.CommentID != 0 {
			var c Comment
			if err := tx.Select("id").Where("id = ? AND issue_id = ?", r.CommentID, r.IssueID).Take(&c).Error; err != nil {
				return notFound(err)
			}
		}
		res := tx.Clauses(clause.OnConflict{DoNothing: true}).Create(&r)
		if res.Error != nil {
			return errs.Wrap(res.Error, "add reaction")
		}
		created = res.RowsAffected == 1
		return tx.Where("issue_id = ? AND comment_id = ? AND user_id = ? AND type = ?", r.IssueID, r.CommentID, r.UserID, r.Type).
			Take(&out).Error
	})
	if err != nil {
		return nil, false, err
	}
	return &out, created, nil
}

// RemoveReaction deletes a user's reaction of type typ on an issue
// (commentID 0) or a comment; none is no error.
func (s *Store) RemoveReaction(ctx context.Context, issueID, commentID, userID int64, typ string) error {
	return s.db.WithContext(ctx).Where("issue_id = ? AND comment_id = ? AND user_id = ? AND type = ?", issueID, commentID, userID, typ).
		Delete(&Reaction{}).Error
}

// ListReactions returns the reactions on an issue (commentID 0) or on a
// comment, oldest first, a page of them (limit 0: all), and how many
// there are.
func (s *Store) ListReactions(ctx context.Context, issueID, commentID int64, offset, limit int) ([]Reaction, int64, error) {
	q := s.db.WithContext(ctx).Model(&Reaction{}).Where("issue_id = ? AND comment_id = ?", issueID, commentID)
	var total int64
	if err := q.Count(&total).Error; err != nil {
		return nil, 0, errs.Wrap(err, "count reactions")
	}
	var out []Reaction
	q = q.Order("created_unix, id")
	if limit > 0 {
		q = q.Offset(offset).Limit(limit)
	}
	if err := q.Find(&out).Error; err != nil {
		return nil, 0, errs.Wrap(err, "list reactions")
	}
	return out, total, nil
}

// deleteReactionsOf deletes the reactions of an issue, or of one comment
// (commentID non-zero), inside tx.
func deleteReactionsOf(tx *gorm.DB, issueID, commentID int64) error {
	q := tx.Where("issue_id = ?", issueID)
	if commentID != 0 {
		q = q.Where("comment_id = ?", commentID)
	}
	if err := q.Delete(&Reaction{}).Error; err != nil && !errors.Is(err, gorm.ErrRecordNotFound) {
		return errs.Wrap(err, "delete reactions")
	}
	return nil
}
