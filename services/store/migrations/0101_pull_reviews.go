package migrations

import "gorm.io/gorm"

// Step0101_pull_reviews adds pull request reviews: a review (a verdict,
// a pending draft, or a review request of a person or a team, as Gitea
// keeps them in one table) and its line comments. Staleness is not
// stored: a review is stale when its commit is not the pull request's
// head, which the pull request row already tells.
func (History) Step0101_pull_reviews(tx *gorm.DB) error {
	type Review struct {
		ID     int64 `gorm:"primaryKey"`
		RepoID int64 `gorm:"not null;index"`
		// A pull request's reviews are listed, counted and looked up by
		// reviewer in the order of their ids.
		IssueID        int64  `gorm:"not null;index:idx_reviews_issue_reviewer,priority:1"`
		ReviewerID     int64  `gorm:"not null;default:0;index:idx_reviews_issue_reviewer,priority:2"`
		ReviewerTeamID int64  `gorm:"not null;default:0"`
		Type           int    `gorm:"not null;default:0"`
		Content        string `gorm:"type:text;not null;default:''"`
		CommitID       string `gorm:"type:varchar(64);not null;default:''"`
		Official       bool   `gorm:"not null;default:false"`
		Dismissed      bool   `gorm:"not null;default:false"`
		NumComments    int    `gorm:"not null;default:0"`
		CreatedUnix    int64  `gorm:"not null;default:0"`
		UpdatedUnix    int64  `gorm:"not null;default:0"`
	}
	type ReviewComment struct {
		ID       int64  `gorm:"primaryKey"`
		RepoID   int64  `gorm:"not null;index"`
		IssueID  int64  `gorm:"not null"`
		ReviewID int64  `gorm:"not null;index"`
		PosterID int64  `gorm:"not null;default:0"`
		Content  string `gorm:"type:text;not null;default:''"`
		TreePath string `gorm:"type:text;not null;default:''"`
		// Line is on the new side when positive, the old side when
		// negative.
		Line        int64  `gorm:"not null;default:0"`
		CommitID    string `gorm:"type:varchar(64);not null;default:''"`
		Patch       string `gorm:"type:text;not null;default:''"`
		CreatedUnix int64  `gorm:"not null;default:0"`
		UpdatedUnix int64  `gorm:"not null;default:0"`
	}
	if err := tx.Table("reviews").Migrator().CreateTable(&Review{}); err != nil {
		return err
	}
	return tx.Table("review_comments").Migrator().CreateTable(&ReviewComment{})
}
