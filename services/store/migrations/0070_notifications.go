package migrations

import "gorm.io/gorm"

// Step0070_notifications creates notification threads: one per user and
// issue, moved back to unread by later activity on the issue (the
// notifier's fan-out upserts on the unique pair).
func (History) Step0070_notifications(tx *gorm.DB) error {
	type Notification struct {
		ID          int64 `gorm:"primaryKey"`
		UserID      int64 `gorm:"not null;uniqueIndex:idx_notifications_user_issue,priority:1;index:idx_notifications_user_updated,priority:1"`
		RepoID      int64 `gorm:"not null;index"`
		IssueID     int64 `gorm:"not null;uniqueIndex:idx_notifications_user_issue,priority:2;index"`
		CommentID   int64 `gorm:"not null;default:0"`
		Status      int   `gorm:"not null;default:1"`
		Source      int   `gorm:"not null;default:1"`
		UpdatedUnix int64 `gorm:"not null;default:0;index:idx_notifications_user_updated,priority:2"`
		CreatedUnix int64 `gorm:"not null;default:0"`
	}
	return tx.Table("notifications").Migrator().CreateTable(&Notification{})
}
