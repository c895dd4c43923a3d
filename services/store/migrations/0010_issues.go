package migrations

import (
	"fmt"

	"gorm.io/gorm"
)

// Step0010_issues creates the issue tracker: issues (shared with pull
// requests), their per-repository index, comments, assignees, labels, and
// the activity queue notifications are fanned out from.
func (History) Step0010_issues(tx *gorm.DB) error {
	type Issue struct {
		ID          int64  `gorm:"primaryKey"`
		RepoID      int64  `gorm:"not null;uniqueIndex:idx_issues_repo_index,priority:1;index:idx_issues_repo_closed,priority:1"`
		Index       int64  `gorm:"not null;uniqueIndex:idx_issues_repo_index,priority:2"`
		PosterID    int64  `gorm:"not null;default:0;index"`
		Title       string `gorm:"size:255;not null;default:''"`
		Content     string `gorm:"not null;default:''"`
		IsClosed    bool   `gorm:"not null;default:false;index:idx_issues_repo_closed,priority:2"`
		IsPull      bool   `gorm:"not null;default:false"`
		IsLocked    bool   `gorm:"not null;default:false"`
		NumComments int    `gorm:"not null;default:0"`
		CreatedUnix int64  `gorm:"not null;default:0;index"`
		UpdatedUnix int64  `gorm:"not null;default:0;index"`
		ClosedUnix  int64  `gorm:"not null;default:0"`
	}
	type IssueIndex struct {
		RepoID   int64 `gorm:"primaryKey;autoIncrement:false"`
		MaxIndex int64 `gorm:"not null;default:0"`
	}
	type Comment struct {
		ID          int64  `gorm:"primaryKey"`
		Type        int    `gorm:"not null;default:0"`
		RepoID      int64  `gorm:"not null;index"`
		IssueID     int64  `gorm:"not null;index"`
		PosterID    int64  `gorm:"not null;default:0;index"`
		Content     string `gorm:"not null;default:''"`
		CreatedUnix int64  `gorm:"not null;default:0"`
		UpdatedUnix int64  `gorm:"not null;default:0;index"`
	}
	type IssueAssignee struct {
		ID         int64 `gorm:"primaryKey"`
		RepoID     int64 `gorm:"not null;index"`
		IssueID    int64 `gorm:"not null;uniqueIndex:idx_issue_assignees_issue_user,priority:1"`
		AssigneeID int64 `gorm:"not null;uniqueIndex:idx_issue_assignees_issue_user,priority:2;index"`
	}
	type Label struct {
		ID              int64  `gorm:"primaryKey"`
		RepoID          int64  `gorm:"not null;default:0;index"`
		OrgID           int64  `gorm:"not null;default:0;index"`
		Name            string `gorm:"size:255;not null;default:''"`
		Exclusive       bool   `gorm:"not null;default:false"`
		Description     string `gorm:"not null;default:''"`
		Color           string `gorm:"size:9;not null;default:''"`
		NumIssues       int    `gorm:"not null;default:0"`
		NumClosedIssues int    `gorm:"not null;default:0"`
		ArchivedUnix    int64  `gorm:"not null;default:0"`
		CreatedUnix     int64  `gorm:"not null;default:0"`
		UpdatedUnix     int64  `gorm:"not null;default:0"`
	}
	type IssueLabel struct {
		ID      int64 `gorm:"primaryKey"`
		RepoID  int64 `gorm:"not null;index"`
		IssueID int64 `gorm:"not null;uniqueIndex:idx_issue_labels_issue_label,priority:1"`
		LabelID int64 `gorm:"not null;uniqueIndex:idx_issue_labels_issue_label,priority:2;index"`
	}
	type Activity struct {
		ID          int64  `gorm:"primaryKey"`
		Kind        string `gorm:"size:32;not null"`
		RepoID      int64  `gorm:"not null;index"`
		IssueID     int64  `gorm:"not null;default:0"`
		CommentID   int64  `gorm:"not null;default:0"`
		ActorID     int64  `gorm:"not null;default:0"`
		CreatedUnix int64  `gorm:"not null;default:0"`
	}
	tables := []struct {
		name  string
		model any
	}{
		{"issues", &Issue{}}, {"issue_index", &IssueIndex{}}, {"comments", &Comment{}},
		{"issue_assignees", &IssueAssignee{}}, {"labels", &Label{}}, {"issue_labels", &IssueLabel{}},
		{"activities", &Activity{}},
	}
	for _, t := range tables {
		if err := tx.Table(t.name).Migrator().CreateTable(t.model); err != nil {
			return fmt.Errorf("create %s: %w", t.name, err)
		}
	}
	// open_issues_count and closed counts, kept by the issue writes.
	type Repository struct {
		NumIssues       int `gorm:"not null;default:0"`
		NumClosedIssues int `gorm:"not null;default:0"`
		NumPulls        int `gorm:"not null;default:0"`
		NumClosedPulls  int `gorm:"not null;default:0"`
	}
	for _, col := range []string{"NumIssues", "NumClosedIssues", "NumPulls", "NumClosedPulls"} {
		if err := tx.Table("repositories").Migrator().AddColumn(&Repository{}, col); err != nil {
			return fmt.Errorf("add repositories.%s: %w", col, err)
		}
	}
	return nil
}
