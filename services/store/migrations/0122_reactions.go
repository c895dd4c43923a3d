package migrations

import "gorm.io/gorm"

// Step0122_reactions adds reactions: a user's reaction (type "+1",
// "heart", ...) on an issue (comment_id 0) or one of its comments, once
// per user and type.
func (History) Step0122_reactions(tx *gorm.DB) error {
	type Reaction struct {
		ID          int64  `gorm:"primaryKey"`
		Type        string `gorm:"not null;uniqueIndex:idx_reactions_unique,priority:4"`
		RepoID      int64  `gorm:"not null;index"`
		IssueID     int64  `gorm:"not null;uniqueIndex:idx_reactions_unique,priority:1"`
		CommentID   int64  `gorm:"not null;default:0;uniqueIndex:idx_reactions_unique,priority:2"`
		UserID      int64  `gorm:"not null;uniqueIndex:idx_reactions_unique,priority:3;index"`
		CreatedUnix int64  `gorm:"not null;default:0"`
	}
	return tx.Table("reactions").Migrator().CreateTable(&Reaction{})
}
