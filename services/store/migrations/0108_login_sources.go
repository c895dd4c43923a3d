package migrations

import "gorm.io/gorm"

// Step0108_login_sources adds the external authentication sources (LDAP).
// A source's configuration, bind password included, is one JSON document
// sealed by the caller (secretbox), so nothing of it is readable at rest;
// the columns beside it are what listing and choosing a source need.
// Users already carry login_source and login_name (0001).
func (History) Step0108_login_sources(tx *gorm.DB) error {
	type LoginSource struct {
		ID            int64  `gorm:"primaryKey"`
		Type          int    `gorm:"not null;default:0"`
		Name          string `gorm:"type:varchar(255);not null;uniqueIndex"`
		IsActive      bool   `gorm:"not null;default:false"`
		IsSyncEnabled bool   `gorm:"not null;default:false"`
		Cfg           []byte `gorm:"not null"`
		CreatedUnix   int64  `gorm:"not null;default:0"`
		UpdatedUnix   int64  `gorm:"not null;default:0"`
	}
	if err := tx.Table("login_sources").Migrator().CreateTable(&LoginSource{}); err != nil {
		return err
	}
	return tx.Exec("CREATE INDEX IF NOT EXISTS idx_users_login_source ON users (login_source)").Error
}
