package migrations

import "gorm.io/gorm"

// Step0030_issue_mentions records who an issue's body or comments
// mention (@name), kept by the issue writes: the mentioned_by filter and
// notifications.
func (History) Step0030_issue_mentions(tx *gorm.DB) error {
	type IssueMention struct {
		ID      int64 `gorm:"primaryKey"`
		RepoID  int64 `gorm:"not null;index"`
		IssueID int64 `gorm:"not null;uniqueIndex:idx_issue_mentions_issue_user,priority:1"`
		UserID  int64 `gorm:"not null;uniqueIndex:idx_issue_mentions_issue_user,priority:2;index"`
	}
	return tx.Table("issue_mentions").Migrator().CreateTable(&IssueMention{})
}
