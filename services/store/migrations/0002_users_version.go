package migrations

import "gorm.io/gorm"

// Step0002_users_version adds a row version, bumped by every update, so
// the authentication path can reuse a cached user row while it is current.
func (History) Step0002_users_version(tx *gorm.DB) error {
	type User struct {
		Version int64 `gorm:"not null;default:0"`
	}
	return tx.Table("users").Migrator().AddColumn(&User{}, "Version")
}
