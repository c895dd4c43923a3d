package migrations

import "gorm.io/gorm"

// Step0121_email_addresses adds the secondary e-mail addresses of users
// (POST /user/emails); the primary one stays users.email. lower_email is
// unique here, and the writes keep it apart from users.lower_email.
func (History) Step0121_email_addresses(tx *gorm.DB) error {
	type EmailAddress struct {
		ID          int64  `gorm:"primaryKey"`
		UID         int64  `gorm:"column:uid;not null;index"`
		Email       string `gorm:"not null"`
		LowerEmail  string `gorm:"not null;uniqueIndex"`
		CreatedUnix int64  `gorm:"not null;default:0"`
	}
	return tx.Table("email_addresses").Migrator().CreateTable(&EmailAddress{})
}
