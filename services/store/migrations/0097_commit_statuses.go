package migrations

import "gorm.io/gorm"

// Step0097_commit_statuses adds commit statuses: the statuses themselves
// (numbered 1, 2, ... per commit, as Gitea), the last number handed out
// per commit (allocated by an upsert that locks the row until commit, so
// concurrent reporters neither collide nor skip), and the latest status
// of each context of a commit with its state, kept in the transaction of
// every insert, so the combined status of one commit or of many is read
// without scanning their history.
func (History) Step0097_commit_statuses(tx *gorm.DB) error {
	type CommitStatus struct {
		ID     int64  `gorm:"primaryKey"`
		RepoID int64  `gorm:"not null;uniqueIndex:idx_commit_statuses_repo_sha_index,priority:1;index:idx_commit_statuses_repo_sha_state,priority:1"`
		SHA    string `gorm:"column:sha;type:varchar(64);not null;uniqueIndex:idx_commit_statuses_repo_sha_index,priority:2;index:idx_commit_statuses_repo_sha_state,priority:2"`
		Index  int64  `gorm:"not null;uniqueIndex:idx_commit_statuses_repo_sha_index,priority:3;index:idx_commit_statuses_repo_sha_state,priority:4"`
		// A list filtered by state pages in the order of its own index.
		State       string `gorm:"type:varchar(7);not null;index:idx_commit_statuses_repo_sha_state,priority:3"`
		Context     string `gorm:"type:text;not null;default:''"`
		ContextHash string `gorm:"type:varchar(40);not null"`
		TargetURL   string `gorm:"type:text;not null;default:''"`
		Description string `gorm:"type:text;not null;default:''"`
		CreatorID   int64  `gorm:"not null;default:0"`
		CreatedUnix int64  `gorm:"not null;default:0"`
		UpdatedUnix int64  `gorm:"not null;default:0"`
	}
	type CommitStatusIndex struct {
		RepoID   int64  `gorm:"primaryKey;autoIncrement:false"`
		SHA      string `gorm:"column:sha;type:varchar(64);primaryKey"`
		MaxIndex int64  `gorm:"not null"`
	}
	type CommitStatusLatest struct {
		RepoID      int64  `gorm:"primaryKey;autoIncrement:false;index:idx_commit_status_latest_page,priority:1"`
		SHA         string `gorm:"column:sha;type:varchar(64);primaryKey;index:idx_commit_status_latest_page,priority:2"`
		ContextHash string `gorm:"type:varchar(40);primaryKey"`
		StatusIndex int64  `gorm:"not null;index:idx_commit_status_latest_page,priority:3"`
		State       string `gorm:"type:varchar(7);not null"`
	}
	if err := tx.Table("commit_statuses").Migrator().CreateTable(&CommitStatus{}); err != nil {
		return err
	}
	if err := tx.Table("commit_status_index").Migrator().CreateTable(&CommitStatusIndex{}); err != nil {
		return err
	}
	return tx.Table("commit_status_latest").Migrator().CreateTable(&CommitStatusLatest{})
}
