package migrations

import "gorm.io/gorm"

// Step0106_actions adds the Actions settings of organizations,
// repositories and users: secrets (values sealed by the caller), variables
// and runner registration tokens. A row's level is its (owner_id,
// repo_id) pair: an owner's rows have repo_id 0, a repository's owner_id
// 0, the instance's both 0, so the levels never share a row.
func (History) Step0106_actions(tx *gorm.DB) error {
	type ActionSecret struct {
		ID          int64  `gorm:"primaryKey"`
		OwnerID     int64  `gorm:"not null;default:0;uniqueIndex:idx_action_secrets_scope_name,priority:1"`
		RepoID      int64  `gorm:"not null;default:0;uniqueIndex:idx_action_secrets_scope_name,priority:2;index"`
		Name        string `gorm:"type:varchar(255);not null;uniqueIndex:idx_action_secrets_scope_name,priority:3"`
		Data        []byte `gorm:"not null"`
		Description string `gorm:"type:text;not null;default:''"`
		CreatedUnix int64  `gorm:"not null;default:0"`
		UpdatedUnix int64  `gorm:"not null;default:0"`
	}
	type ActionVariable struct {
		ID          int64  `gorm:"primaryKey"`
		OwnerID     int64  `gorm:"not null;default:0;uniqueIndex:idx_action_variables_scope_name,priority:1"`
		RepoID      int64  `gorm:"not null;default:0;uniqueIndex:idx_action_variables_scope_name,priority:2;index"`
		Name        string `gorm:"type:varchar(255);not null;uniqueIndex:idx_action_variables_scope_name,priority:3"`
		Data        string `gorm:"type:text;not null;default:''"`
		Description string `gorm:"type:text;not null;default:''"`
		CreatedUnix int64  `gorm:"not null;default:0"`
		UpdatedUnix int64  `gorm:"not null;default:0"`
	}
	type ActionRunnerToken struct {
		ID      int64 `gorm:"primaryKey"`
		OwnerID int64 `gorm:"not null;default:0;uniqueIndex:idx_action_runner_tokens_scope,priority:1"`
		RepoID  int64 `gorm:"not null;default:0;uniqueIndex:idx_action_runner_tokens_scope,priority:2;index"`
		// Token is sealed (shown again on request); TokenHash finds the
		// scope of a token a runner presents.
		Token       []byte `gorm:"not null"`
		TokenHash   string `gorm:"type:varchar(64);not null;index"`
		CreatedUnix int64  `gorm:"not null;default:0"`
	}
	if err := tx.Table("action_secrets").Migrator().CreateTable(&ActionSecret{}); err != nil {
		return err
	}
	if err := tx.Table("action_variables").Migrator().CreateTable(&ActionVariable{}); err != nil {
		return err
	}
	return tx.Table("action_runner_tokens").Migrator().CreateTable(&ActionRunnerToken{})
}
