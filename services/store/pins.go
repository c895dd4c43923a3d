package store

import (
	"context"

	"gorm.io/gorm"

	"forge/services/errs"
)

// ErrPinLimit: the repository pins as many issues (or pull requests) as
// [repository.issue] MAX_PINNED allows (Gitea's message, typo included).
var ErrPinLimit = errs.New(errs.FailedPrecondition, "the max number of pinned issues has been readched")

// Timeline events of locks and pins, with Gitea's numbers.
const (
	CommentTypeLock   = 23 // Content: the reason
	CommentTypeUnlock = 24
	CommentTypePin    = 36
	CommentTypeUnpin  = 37
)

// SetIssueLocked locks (locked) or unlocks the issue issueID as doerID,
// recording the event (a lock with its reason) in its timeline in the
// same transaction. An issue already so is left alone. ErrNotFound if
// the issue is gone.
func (s *Store) SetIssueLocked(ctx context.Context, issueID, doerID int64, locked bool, reason string) error {
	return s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var is Issue
		if err := s.forUpdate(tx).Where("id = ?", issueID).Take(&is).Error; err != nil {
			return notFound(err)
		}
		if is.IsLocked == locked {
			return nil
		}
		if err := tx.Model(&Issue{}).Where("id = ?", is.ID).Update("is_locked", locked).Error; err != nil {
			return errs.Wrap(err, "lock issue")
		}
		c := Comment{Type: CommentTypeUnlock, RepoID: is.RepoID, IssueID: is.ID, PosterID: doerID}
		if locked {
			c.Type, c.Content = CommentTypeLock, reason
		}
		return recordEvent(tx, c)
	})
}

// pinScope locks the repository's row, so pin changes of one repository
// run one at a time and the positions stay 1..n.
func (s *Store) pinScope(tx *gorm.DB, repoID int64) error {
	var r Repository
	return notFound(s.forUpdate(tx).Select("id").Where("id = ?", repoID).Take(&r).Error)
}

// PinIssue pins the issue issueID last among its repository's pinned
// issues of its kind (issues, or pull requests) as doerID and records
// the event; a pinned issue is left alone. ErrPinLimit when limit are
// pinned already, ErrNotFound if the issue is gone.
func (s *Store) PinIssue(ctx context.Context, issueID, doerID int64, limit int) error {
	return s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		is, err := s.pinnable(tx, issueID)
		if err != nil || is.PinOrder > 0 {
			return err
		}
		var last int
		if err := tx.Model(&Issue{}).Select("COALESCE(MAX(pin_order), 0)").
			Where("repo_id = ? AND is_pull = ?", is.RepoID, is.IsPull).Scan(&last).Error; err != nil {
			return errs.Wrap(err, "count pins")
		}
		if last >= limit {
			return ErrPinLimit
		}
		if err := tx.Model(&Issue{}).Where("id = ?", is.ID).Update("pin_order", last+1).Error; err != nil {
			return errs.Wrap(err, "pin issue")
		}
		return recordEvent(tx, Comment{Type: CommentTypePin, RepoID: is.RepoID, IssueID: is.ID, PosterID: doerID})
	})
}

// UnpinIssue unpins the issue issueID as doerID (those after it move up)
// and records the event; an issue not pinned is left alone. ErrNotFound
// if the issue is gone.
func (s *Store) UnpinIssue(ctx context.Context, issueID, doerID int64) error {
	return s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		is, err := s.pinnable(tx, issueID)
		if err != nil || is.PinOrder == 0 {
			return err
		}
		if err := tx.Model(&Issue{}).Where("repo_id = ? AND is_pull = ? AND pin_order > ?", is.RepoID, is.IsPull, is.PinOrder).
			Update("pin_order", gorm.Expr("pin_order - 1")).Error; err != nil {
			return errs.Wrap(err, "move pins")
		}
		if err := tx.Model(&Issue{}).Where("id = ?", is.ID).Update("pin_order", 0).Error; err != nil {
			return errs.Wrap(err, "unpin issue")
		}
		return recordEvent(tx, Comment{Type: CommentTypeUnpin, RepoID: is.RepoID, IssueID: is.ID, PosterID: doerID})
	})
}

// MoveIssuePin moves the pinned issue issueID to position (from 1;
// beyond the last: last), shifting the others; an issue not pinned is
// left alone. ErrNotFound if the issue is gone.
func (s *Store) MoveIssuePin(ctx context.Context, issueID int64, position int) error {
	return s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		is, err := s.pinnable(tx, issueID)
		if err != nil || is.PinOrder == 0 {
			return err
		}
		var last int
		if err := tx.Model(&Issue{}).Select("COALESCE(MAX(pin_order), 0)").
			Where("repo_id = ? AND is_pull = ?", is.RepoID, is.IsPull).Scan(&last).Error; err != nil {
			return errs.Wrap(err, "count pins")
		}
		position = min(max(position, 1), last)
		if position == is.PinOrder {
			return nil
		}
		same := tx.Model(&Issue{}).Where("repo_id = ? AND is_pull = ?", is.RepoID, is.IsPull)
		var res *gorm.DB
		if position < is.PinOrder {
			res = same.Where("pin_order >= ? AND pin_order < ?", position, is.PinOrder).Update("pin_order", gorm.Expr("pin_order + 1"))
		} else {
			res = same.Where("pin_order > ? AND pin_order <= ?", is.PinOrder, position).Update("pin_order", gorm.Expr("pin_order - 1"))
		}
		if res.Error != nil {
			return errs.Wrap(res.Error, "move pins")
		}
		return errs.Wrap(tx.Model(&Issue{}).Where("id = ?", is.ID).Update("pin_order", position).Error, "move pin")
	})
}

// pinnable locks the issue's repository for a pin change and loads the
// issue.
func (s *Store) pinnable(tx *gorm.DB, issueID int64) (*Issue, error) {
	var is Issue
	if err := tx.Select("id, repo_id").Where("id = ?", issueID).Take(&is).Error; err != nil {
		return nil, notFound(err)
	}
	if err := s.pinScope(tx, is.RepoID); err != nil {
		return nil, err
	}
	if err := tx.Where("id = ?", issueID).Take(&is).Error; err != nil {
		return nil, notFound(err)
	}
	return &is, nil
}

// PinnedIssues returns a repository's pinned issues (pulls false) or
// pull requests, in pin order.
func (s *Store) PinnedIssues(ctx context.Context, repoID int64, pulls bool) ([]Issue, error) {
	var out []Issue
	err := s.db.WithContext(ctx).Where("repo_id = ? AND is_pull = ? AND pin_order > 0", repoID, pulls).
		Order("pin_order").Find(&out).Error
	return out, errs.Wrap(err, "list pinned issues")
}
