package migrations

import "gorm.io/gorm"

// Step0109_pull_auto_merges adds the scheduled merges of pull requests
// (Gitea's "merge when checks succeed"): at most one per pull request,
// run as its doer once the base branch's checks pass. claimed_until lets
// one process at a time run a merge (a claim that outlives a crashed
// process expires).
func (History) Step0109_pull_auto_merges(tx *gorm.DB) error {
	type PullAutoMerge struct {
		ID                     int64  `gorm:"primaryKey"`
		PullID                 int64  `gorm:"not null;uniqueIndex"`
		RepoID                 int64  `gorm:"not null;index"`
		DoerID                 int64  `gorm:"not null;index"`
		MergeStyle             string `gorm:"type:varchar(32);not null;default:''"`
		Title                  string `gorm:"type:text;not null;default:''"`
		Message                string `gorm:"type:text;not null;default:''"`
		DeleteBranchAfterMerge bool   `gorm:"not null;default:false"`
		ClaimedUntil           int64  `gorm:"not null;default:0"`
		CreatedUnix            int64  `gorm:"not null;default:0"`
	}
	return tx.Table("pull_auto_merges").Migrator().CreateTable(&PullAutoMerge{})
}
