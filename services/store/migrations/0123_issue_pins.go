package migrations

import "gorm.io/gorm"

// Step0123_issue_pins adds issues.pin_order: an issue's place among its
// repository's pinned issues of its kind, from 1 (0: not pinned).
func (History) Step0123_issue_pins(tx *gorm.DB) error {
	type Issue struct {
		PinOrder int `gorm:"not null;default:0"`
	}
	return tx.Table("issues").Migrator().AddColumn(&Issue{}, "PinOrder")
}
