package migrations

import "gorm.io/gorm"

// Step0082_issue_page_indexes lets a repository's issue page (newest
// first, open, closed or all) read its 50 rows from an index in that
// order, whatever the number of issues of the repository and of the
// site: without them the page scanned idx_issues_created_unix through
// every repository's issues, or sorted all of the repository's.
// (repo_id, is_closed) is a prefix of the new one and goes.
func (History) Step0082_issue_page_indexes(tx *gorm.DB) error {
	for _, stmt := range []string{
		`CREATE INDEX idx_issues_repo_created ON issues (repo_id, created_unix, id)`,
		`CREATE INDEX idx_issues_repo_closed_created ON issues (repo_id, is_closed, created_unix, id)`,
		`DROP INDEX idx_issues_repo_closed`,
	} {
		if err := tx.Exec(stmt).Error; err != nil {
			return err
		}
	}
	return nil
}
