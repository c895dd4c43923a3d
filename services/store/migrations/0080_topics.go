package migrations

import "gorm.io/gorm"

// Step0080_topics adds repository topics: the topic names (one row per
// name, kept when no repository uses it any more, as Gitea does), the
// repositories tagged with each, and the repository's own sorted copy of
// its names (repositories.topics, a JSON array) that its API object shows
// without a query of its own, as Gitea keeps it.
func (History) Step0080_topics(tx *gorm.DB) error {
	type Topic struct {
		ID          int64  `gorm:"primaryKey"`
		Name        string `gorm:"size:50;not null;uniqueIndex"`
		CreatedUnix int64  `gorm:"not null;default:0"`
		UpdatedUnix int64  `gorm:"not null;default:0"`
	}
	type RepoTopic struct {
		RepoID  int64 `gorm:"primaryKey;autoIncrement:false"`
		TopicID int64 `gorm:"primaryKey;autoIncrement:false;index"`
	}
	type Repository struct {
		Topics string `gorm:"type:text;not null;default:'[]'"`
	}
	if err := tx.Table("topics").Migrator().CreateTable(&Topic{}); err != nil {
		return err
	}
	if err := tx.Table("repo_topics").Migrator().CreateTable(&RepoTopic{}); err != nil {
		return err
	}
	return tx.Table("repositories").Migrator().AddColumn(&Repository{}, "Topics")
}
