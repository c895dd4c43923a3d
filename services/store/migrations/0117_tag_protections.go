package migrations

import "gorm.io/gorm"

// Step0117_tag_protections adds tag protection rules (Gitea's protected
// tags): a name pattern (a glob, or a regular expression between slashes)
// and the users and teams (JSON arrays of ids) allowed to create, move
// or delete the tags it matches.
func (History) Step0117_tag_protections(tx *gorm.DB) error {
	type TagProtection struct {
		ID               int64  `gorm:"primaryKey"`
		RepoID           int64  `gorm:"not null;index"`
		NamePattern      string `gorm:"not null;default:''"`
		WhitelistUserIDs string `gorm:"column:whitelist_user_ids;not null;default:'[]'"`
		WhitelistTeamIDs string `gorm:"column:whitelist_team_ids;not null;default:'[]'"`
		CreatedUnix      int64  `gorm:"not null;default:0"`
		UpdatedUnix      int64  `gorm:"not null;default:0"`
	}
	return tx.Table("tag_protections").Migrator().CreateTable(&TagProtection{})
}
