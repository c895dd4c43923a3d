package migrations

import "gorm.io/gorm"

// Step0104_comment_refs gives timeline comments the two refs Gitea's
// change-target-branch comment (type 25) records: the old and the new
// base branch of a retargeted pull request. Other comments leave them
// empty.
func (History) Step0104_comment_refs(tx *gorm.DB) error {
	type Comment struct {
		OldRef string `gorm:"column:old_ref;not null;default:''"`
		NewRef string `gorm:"column:new_ref;not null;default:''"`
	}
	m := tx.Table("comments").Migrator()
	if err := m.AddColumn(&Comment{}, "OldRef"); err != nil {
		return err
	}
	return m.AddColumn(&Comment{}, "NewRef")
}
