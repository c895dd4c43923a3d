package migrations

import "gorm.io/gorm"

// Step0112_milestones adds repository milestones, the issue columns that
// refer to one (milestone_id) or were accepted but not stored (ref, the
// due date), the milestone change recorded by timeline comments (type 8),
// and explicit issue subscriptions (issue_watches: a user subscribed to,
// or unsubscribed from, one issue, overriding what watching the
// repository or taking part implies). A milestone's issue counts are
// counted from issues (idx_issues_milestone), not stored.
func (History) Step0112_milestones(tx *gorm.DB) error {
	type Milestone struct {
		ID           int64  `gorm:"primaryKey"`
		RepoID       int64  `gorm:"not null;index:idx_milestones_repo_name,priority:1"`
		Name         string `gorm:"type:varchar(255);not null;default:'';index:idx_milestones_repo_name,priority:2"`
		Content      string `gorm:"type:text;not null;default:''"`
		IsClosed     bool   `gorm:"not null;default:false"`
		DeadlineUnix int64  `gorm:"not null;default:0"`
		ClosedUnix   int64  `gorm:"not null;default:0"`
		CreatedUnix  int64  `gorm:"not null;default:0"`
		UpdatedUnix  int64  `gorm:"not null;default:0"`
	}
	if err := tx.Table("milestones").Migrator().CreateTable(&Milestone{}); err != nil {
		return err
	}
	type Issue struct {
		MilestoneID  int64  `gorm:"column:milestone_id;not null;default:0"`
		Ref          string `gorm:"column:ref;type:varchar(255);not null;default:''"`
		DeadlineUnix int64  `gorm:"column:deadline_unix;not null;default:0"`
	}
	m := tx.Table("issues").Migrator()
	for _, col := range []string{"MilestoneID", "Ref", "DeadlineUnix"} {
		if err := m.AddColumn(&Issue{}, col); err != nil {
			return err
		}
	}
	if err := tx.Exec(`CREATE INDEX idx_issues_milestone ON issues (milestone_id, is_closed)`).Error; err != nil {
		return err
	}
	type Comment struct {
		OldMilestoneID int64 `gorm:"column:old_milestone_id;not null;default:0"`
		MilestoneID    int64 `gorm:"column:milestone_id;not null;default:0"`
	}
	cm := tx.Table("comments").Migrator()
	for _, col := range []string{"OldMilestoneID", "MilestoneID"} {
		if err := cm.AddColumn(&Comment{}, col); err != nil {
			return err
		}
	}
	type IssueWatch struct {
		ID          int64 `gorm:"primaryKey"`
		RepoID      int64 `gorm:"not null;index"`
		IssueID     int64 `gorm:"not null;uniqueIndex:idx_issue_watches_issue_user,priority:1"`
		UserID      int64 `gorm:"not null;index;uniqueIndex:idx_issue_watches_issue_user,priority:2"`
		IsWatching  bool  `gorm:"not null;default:false"`
		CreatedUnix int64 `gorm:"not null;default:0"`
		UpdatedUnix int64 `gorm:"not null;default:0"`
	}
	return tx.Table("issue_watches").Migrator().CreateTable(&IssueWatch{})
}
