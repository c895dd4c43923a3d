package migrations

import "gorm.io/gorm"

// Step0001_users_and_access_tokens creates users (people and,
// later, organizations) and their access tokens.
func (History) Step0001_users_and_access_tokens(tx *gorm.DB) error {
	type User struct {
		ID                      int64   `gorm:"primaryKey"`
		LowerName               string  `gorm:"size:255;not null;uniqueIndex"`
		Name                    string  `gorm:"size:255;not null"`
		FullName                string  `gorm:"not null;default:''"`
		Email                   string  `gorm:"not null;default:''"`
		LowerEmail              *string `gorm:"size:255;uniqueIndex"`
		Type                    int     `gorm:"not null;default:0"`
		PasswdHash              string  `gorm:"not null;default:''"`
		LoginSource             int64   `gorm:"not null;default:0"`
		LoginName               string  `gorm:"not null;default:''"`
		MustChangePassword      bool    `gorm:"not null;default:false"`
		IsAdmin                 bool    `gorm:"not null;default:false;index"`
		IsActive                bool    `gorm:"not null;default:false"`
		ProhibitLogin           bool    `gorm:"not null;default:false"`
		Restricted              bool    `gorm:"not null;default:false"`
		Visibility              int     `gorm:"not null;default:0"`
		Location                string  `gorm:"not null;default:''"`
		Website                 string  `gorm:"not null;default:''"`
		Description             string  `gorm:"not null;default:''"`
		Language                string  `gorm:"not null;default:''"`
		MaxRepoCreation         int     `gorm:"not null;default:-1"`
		AllowGitHook            bool    `gorm:"not null;default:false"`
		AllowImportLocal        bool    `gorm:"not null;default:false"`
		AllowCreateOrganization bool    `gorm:"not null;default:true"`
		TOTPSecret              []byte
		LastLoginUnix           int64 `gorm:"not null;default:0"`
		CreatedUnix             int64 `gorm:"not null;default:0"`
		UpdatedUnix             int64 `gorm:"not null;default:0"`
	}
	type AccessToken struct {
		ID             int64  `gorm:"primaryKey"`
		UID            int64  `gorm:"not null;uniqueIndex:idx_access_tokens_uid_name,priority:1"`
		Name           string `gorm:"size:255;not null;uniqueIndex:idx_access_tokens_uid_name,priority:2"`
		TokenHash      string `gorm:"size:64;not null;uniqueIndex"`
		TokenLastEight string `gorm:"size:8;not null"`
		Scope          string `gorm:"not null;default:''"`
		CreatedUnix    int64  `gorm:"not null;default:0"`
		UpdatedUnix    int64  `gorm:"not null;default:0"`
		LastUsedUnix   int64  `gorm:"not null;default:0"`
	}
	if err := tx.Table("users").Migrator().CreateTable(&User{}); err != nil {
		return err
	}
	return tx.Table("access_tokens").Migrator().CreateTable(&AccessToken{})
}
