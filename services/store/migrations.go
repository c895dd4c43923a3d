package store

import (
	"context"
	"fmt"
	"strings"

	"github.com/go-gormigrate/gormigrate/v2"
	"gorm.io/gorm"
)

// migrations is the versioned schema history, embedded in the binary. Each
// step declares its own snapshot of the tables it touches, so later changes
// to the models never rewrite history. Append; never edit a released step.
var migrations = []*gormigrate.Migration{
	{
		ID: "0001_users_and_access_tokens",
		Migrate: func(tx *gorm.DB) error {
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
		},
	},
	{
		// A row version, bumped by every update, lets the authentication path
		// reuse a cached user row while it is current.
		ID: "0002_users_version",
		Migrate: func(tx *gorm.DB) error {
			type User struct {
				Version int64 `gorm:"not null;default:0"`
			}
			return tx.Table("users").Migrator().AddColumn(&User{}, "Version")
		},
	},
}

// Migrate applies the pending migrations. Concurrent callers (several forge
// processes starting on one PostgreSQL) are serialised by an advisory lock.
func (s *Store) Migrate(ctx context.Context) error {
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if s.postgres {
			if err := tx.Exec("SELECT pg_advisory_xact_lock(4242001)").Error; err != nil {
				return err
			}
		}
		opts := *gormigrate.DefaultOptions
		opts.TableName = "schema_migrations"
		return gormigrate.New(tx, &opts, migrations).Migrate()
	})
	if err != nil {
		return err
	}
	return s.prepareHot(ctx)
}

// SchemaVersion names the latest migration, for caches keyed by schema
// (the test template database).
func SchemaVersion() string {
	id := migrations[len(migrations)-1].ID
	return strings.ToLower(id[:4]) + fmt.Sprintf("_%d", len(migrations))
}
