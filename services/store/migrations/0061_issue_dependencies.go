package migrations

import "gorm.io/gorm"

// Step0061_issue_dependencies creates issue dependencies: issue_id
// depends on (is blocked by) dependency_id; repo_id is the dependent
// issue's repository. Recorded as 0060_issue_dependencies before ids
// were made unique (see renamed).
func (History) Step0061_issue_dependencies(tx *gorm.DB) error {
	type IssueDependency struct {
		ID           int64 `gorm:"primaryKey"`
		RepoID       int64 `gorm:"not null;index"`
		IssueID      int64 `gorm:"not null;uniqueIndex:idx_issue_dependencies_pair,priority:1"`
		DependencyID int64 `gorm:"not null;uniqueIndex:idx_issue_dependencies_pair,priority:2;index"`
		CreatedUnix  int64 `gorm:"not null;default:0"`
	}
	return tx.Table("issue_dependencies").Migrator().CreateTable(&IssueDependency{})
}
