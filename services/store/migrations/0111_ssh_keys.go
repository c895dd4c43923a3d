package migrations

import "gorm.io/gorm"

// Step0111_ssh_keys adds SSH public keys, as Gitea's two tables: one row
// per key in public_keys (its fingerprint unique, so a key is a user's or
// a deploy key, never both), and one row per repository a deploy key is
// added to in deploy_keys (one deploy key may serve several repositories,
// each with its own name and mode).
func (History) Step0111_ssh_keys(tx *gorm.DB) error {
	type PublicKey struct {
		ID          int64  `gorm:"primaryKey"`
		OwnerID     int64  `gorm:"not null;default:0;index"`
		Name        string `gorm:"type:varchar(255);not null;default:''"`
		Fingerprint string `gorm:"type:varchar(255);not null;uniqueIndex"`
		Content     string `gorm:"type:text;not null"`
		Mode        int    `gorm:"not null;default:2"`
		Type        int    `gorm:"not null;default:1"`
		CreatedUnix int64  `gorm:"not null;default:0"`
		UpdatedUnix int64  `gorm:"not null;default:0"`
	}
	type DeployKey struct {
		ID          int64  `gorm:"primaryKey"`
		KeyID       int64  `gorm:"not null;uniqueIndex:deploy_keys_repo_key,priority:2;index"`
		RepoID      int64  `gorm:"not null;uniqueIndex:deploy_keys_repo_key,priority:1"`
		Name        string `gorm:"type:varchar(255);not null;default:''"`
		Fingerprint string `gorm:"type:varchar(255);not null;default:''"`
		Mode        int    `gorm:"not null;default:1"`
		CreatedUnix int64  `gorm:"not null;default:0"`
		UpdatedUnix int64  `gorm:"not null;default:0"`
	}
	if err := tx.Table("public_keys").Migrator().CreateTable(&PublicKey{}); err != nil {
		return err
	}
	return tx.Table("deploy_keys").Migrator().CreateTable(&DeployKey{})
}
