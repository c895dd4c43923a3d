package migrations

import (
	"fmt"

	"gorm.io/gorm"
)

// Step0060_user_settings adds the settings of /user/settings that the
// users table did not have yet.
func (History) Step0060_user_settings(tx *gorm.DB) error {
	type User struct {
		KeepEmailPrivate    bool   `gorm:"not null;default:false"`
		KeepActivityPrivate bool   `gorm:"not null;default:false"`
		Theme               string `gorm:"size:30;not null;default:''"`
		DiffViewStyle       string `gorm:"size:15;not null;default:''"`
	}
	for _, col := range []string{"KeepEmailPrivate", "KeepActivityPrivate", "Theme", "DiffViewStyle"} {
		if err := tx.Table("users").Migrator().AddColumn(&User{}, col); err != nil {
			return fmt.Errorf("add users.%s: %w", col, err)
		}
	}
	return nil
}
