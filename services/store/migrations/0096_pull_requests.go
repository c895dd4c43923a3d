package migrations

import "gorm.io/gorm"

// Step0096_pull_requests adds pull requests: the pull_requests row beside
// the issue that carries a pull request's number, title and conversation.
// repo_id is the base repository (the issue's), head_repo_id the
// repository of the head branch (the same one, or a fork of it).
func (History) Step0096_pull_requests(tx *gorm.DB) error {
	type PullRequest struct { // this step's own snapshot of the table
		ID           int64  `gorm:"primaryKey"`
		IssueID      int64  `gorm:"not null;uniqueIndex"`
		RepoID       int64  `gorm:"not null;uniqueIndex:idx_pull_requests_repo_index,priority:1"`
		Index        int64  `gorm:"not null;uniqueIndex:idx_pull_requests_repo_index,priority:2"`
		HeadRepoID   int64  `gorm:"not null;index:idx_pull_requests_targets,priority:1"`
		HeadBranch   string `gorm:"not null;index:idx_pull_requests_targets,priority:2"`
		BaseBranch   string `gorm:"not null"`
		HeadSHA      string `gorm:"column:head_sha;not null"`
		MergeBase    string `gorm:"not null"`
		Mergeable    bool   `gorm:"not null"`
		Additions    int    `gorm:"not null"`
		Deletions    int    `gorm:"not null"`
		ChangedFiles int    `gorm:"not null"`
		HasMerged    bool   `gorm:"not null"`
		MergedUnix   int64  `gorm:"not null"`
		MergedSHA    string `gorm:"column:merged_sha;not null"`
		MergerID     int64  `gorm:"not null"`
	}
	return tx.Table("pull_requests").Migrator().CreateTable(&PullRequest{})
}
