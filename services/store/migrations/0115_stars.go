package migrations

import "gorm.io/gorm"

// Step0115_stars adds stars: a user starred a repository. The
// repository's num_stars (0003) counts them; it is kept right by the
// writes that add or remove a row, not by a trigger.
func (History) Step0115_stars(tx *gorm.DB) error {
	type Star struct {
		ID          int64 `gorm:"primaryKey"`
		UserID      int64 `gorm:"not null;uniqueIndex:idx_stars_user_repo,priority:1"`
		RepoID      int64 `gorm:"not null;uniqueIndex:idx_stars_user_repo,priority:2;index"`
		CreatedUnix int64 `gorm:"not null;default:0"`
	}
	return tx.Table("stars").Migrator().CreateTable(&Star{})
}
