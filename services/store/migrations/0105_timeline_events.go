package migrations

import "gorm.io/gorm"

// Step0105_timeline_events gives comments the fields of the timeline
// events recorded as comment rows (Gitea's comment types): a label
// event's label, an assignee event's user and whether they were removed,
// a title change's old and new title, a review event's review and a
// merge's commit. The timeline lists an issue's rows in order, so the
// index leads with the issue.
func (History) Step0105_timeline_events(tx *gorm.DB) error {
	type Comment struct {
		IssueID         int64  `gorm:"index:idx_comments_issue_created,priority:1"`
		CreatedUnix     int64  `gorm:"index:idx_comments_issue_created,priority:2"`
		ID              int64  `gorm:"index:idx_comments_issue_created,priority:3"`
		LabelID         int64  `gorm:"not null;default:0"`
		AssigneeID      int64  `gorm:"not null;default:0"`
		RemovedAssignee bool   `gorm:"not null;default:false"`
		OldTitle        string `gorm:"not null;default:''"`
		NewTitle        string `gorm:"not null;default:''"`
		ReviewID        int64  `gorm:"not null;default:0"`
		CommitSHA       string `gorm:"column:commit_sha;size:64;not null;default:''"`
	}
	m := tx.Table("comments").Migrator()
	for _, col := range []string{"LabelID", "AssigneeID", "RemovedAssignee", "OldTitle", "NewTitle", "ReviewID", "CommitSHA"} {
		if err := m.AddColumn(&Comment{}, col); err != nil {
			return err
		}
	}
	return m.CreateIndex(&Comment{}, "idx_comments_issue_created")
}
