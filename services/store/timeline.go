package store

import (
	"context"
	"time"

	"gorm.io/gorm"

	"forge/services/errs"
)

// recordEvent writes a timeline event (a comment row of a type other than
// CommentTypeComment) inside the transaction of the change it records, so
// the timeline never shows a change that rolled back nor misses one that
// committed. Events are not comments: they do not move num_comments.
func recordEvent(tx *gorm.DB, c Comment) error {
	c.ID = 0
	if c.CreatedUnix == 0 {
		c.CreatedUnix = time.Now().Unix()
	}
	c.UpdatedUnix = c.CreatedUnix
	return errs.Wrap(tx.Create(&c).Error, "record timeline event")
}

// TimelineOptions selects a page of an issue's timeline.
type TimelineOptions struct {
	IssueID int64
	// Since, Before bound the update time (Unix seconds); 0: unbounded.
	Since, Before int64
	Offset, Limit int
}

// ListTimeline returns a page of an issue's comments and events, oldest
// first, and how many match.
func (s *Store) ListTimeline(ctx context.Context, o TimelineOptions) ([]Comment, int64, error) {
	q := s.db.WithContext(ctx).Model(&Comment{}).Where("issue_id = ?", o.IssueID)
	if o.Since != 0 {
		q = q.Where("updated_unix >= ?", o.Since)
	}
	if o.Before != 0 {
		q = q.Where("updated_unix <= ?", o.Before)
	}
	var total int64
	if err := q.Count(&total).Error; err != nil {
		return nil, 0, errs.Wrap(err, "count timeline")
	}
	out := []Comment{}
	if err := q.Order("created_unix").Order("id").Offset(o.Offset).Limit(o.Limit).Find(&out).Error; err != nil {
		return nil, 0, errs.Wrap(err, "list timeline")
	}
	return out, total, nil
}

// LabelsByID loads labels by id, archived or not (a timeline shows the
// labels its events name); unknown ids are absent.
func (s *Store) LabelsByID(ctx context.Context, ids []int64) (map[int64]*Label, error) {
	out := map[int64]*Label{}
	if len(ids) == 0 {
		return out, nil
	}
	var rows []Label
	if err := s.db.WithContext(ctx).Where("id IN ?", uniqueIDs(ids)).Find(&rows).Error; err != nil {
		return nil, errs.Wrap(err, "load labels")
	}
	for i := range rows {
		out[rows[i].ID] = &rows[i]
	}
	return out, nil
}
