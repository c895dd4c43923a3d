package migrations

import "gorm.io/gorm"

// Step0115_stars_follows adds stars (a user starred a repository; the
// repository's num_stars of 0003 counts them, kept right by the writes
// that add or remove a row, not by a trigger) and follows (user_id
// follows follow_id).
func (History) Step0115_stars_follows(tx *gorm.DB) error {
	type Star struct {
		ID          int64 `gorm:"primaryKey"`
		UserID      int64 `gorm:"not null;uniqueIndex:idx_stars_user_repo,priority:1"`
		RepoID      int64 `gorm:"not null;uniqueIndex:idx_stars_user_repo,priority:2;index"`
		CreatedUnix int64 `gorm:"not null;default:0"`
	}
	if err := tx.Table("stars").Migrator().CreateTable(&Star{}); err != nil {
		return err
	}
	type Follow struct {
		ID          int64 `gorm:"primaryKey"`
		UserID      int64 `gorm:"not null;uniqueIndex:idx_follows_user_follow,priority:1"`
		FollowID    int64 `gorm:"not null;uniqueIndex:idx_follows_user_follow,priority:2;index"`
		CreatedUnix int64 `gorm:"not null;default:0"`
	}
	return tx.Table("follows").Migrator().CreateTable(&Follow{})
}
