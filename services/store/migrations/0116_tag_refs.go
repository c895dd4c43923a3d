package migrations

import "gorm.io/gorm"

// Step0116_tag_refs adds the records of a repository's tag refs (name and
// the object the ref points at) and the repository flag saying they have
// been taken from git once. Tag lists keep reading git; the records exist
// so that each tag change's webhook events are written exactly once, in
// the transaction that updates the record, also when the process died
// after git moved the ref (the reconciler finds the record out of step).
// Existing repositories start without records: their first tag change
// records all their tags, without events for the tags it did not touch.
func (History) Step0116_tag_refs(tx *gorm.DB) error {
	type TagRef struct {
		ID          int64  `gorm:"primaryKey"`
		RepoID      int64  `gorm:"not null;uniqueIndex:idx_tag_refs_repo_name,priority:1"`
		Name        string `gorm:"not null;uniqueIndex:idx_tag_refs_repo_name,priority:2"`
		SHA         string `gorm:"column:sha;not null;default:''"`
		UpdatedUnix int64  `gorm:"not null;default:0"`
	}
	if err := tx.Table("tag_refs").Migrator().CreateTable(&TagRef{}); err != nil {
		return err
	}
	return tx.Exec(`ALTER TABLE repositories ADD COLUMN tag_refs_recorded boolean NOT NULL DEFAULT false`).Error
}
