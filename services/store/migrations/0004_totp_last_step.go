package migrations

import "gorm.io/gorm"

// Step0004_totp_last_step records the last accepted TOTP time step per
// user, so a one-time code is accepted once, by any process.
func (History) Step0004_totp_last_step(tx *gorm.DB) error {
	type User struct {
		TOTPLastStep int64 `gorm:"column:totp_last_step;not null;default:0"`
	}
	return tx.Table("users").Migrator().AddColumn(&User{}, "TOTPLastStep")
}
