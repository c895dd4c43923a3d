package migrations

import "gorm.io/gorm"

// Step0120_repo_transfers adds pending repository transfers: a
// repository's owner offered it to recipient_id, who has not accepted or
// rejected it yet (one per repository; team_ids are the recipient
// organization's teams to give it, comma-separated).
func (History) Step0120_repo_transfers(tx *gorm.DB) error {
	type RepoTransfer struct {
		ID          int64  `gorm:"primaryKey"`
		RepoID      int64  `gorm:"not null;uniqueIndex"`
		DoerID      int64  `gorm:"not null"`
		RecipientID int64  `gorm:"not null;index"`
		TeamIDs     string `gorm:"column:team_ids;not null;default:''"`
		CreatedUnix int64  `gorm:"not null;default:0"`
	}
	return tx.Table("repo_transfers").Migrator().CreateTable(&RepoTransfer{})
}
