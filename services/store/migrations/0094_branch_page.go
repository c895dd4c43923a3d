package migrations

import "gorm.io/gorm"

// Step0094_branch_page lets a repository's branch page cost the same
// whatever the number of its branches:
//
//   - an index in the page's order (latest commit first, then by name;
//     names are unique per repository, so the order is total): without
//     it the page read every branch record of the repository and sorted
//     them;
//   - repositories.num_branches, the number of the repository's branch
//     records, kept by the branch record writes in their transaction
//     (the page's total, which was a count of the records). Like the
//     issue counters it does not move the resource generation (the
//     update trigger of 0093 lists the columns that do).
func (History) Step0094_branch_page(tx *gorm.DB) error {
	type Repository struct {
		NumBranches int `gorm:"not null;default:0"`
	}
	if err := tx.Table("repositories").Migrator().AddColumn(&Repository{}, "NumBranches"); err != nil {
		return err
	}
	for _, stmt := range []string{
		`CREATE INDEX idx_branches_repo_commit_unix ON branches (repo_id, commit_unix DESC, name)`,
		`UPDATE repositories SET num_branches = (SELECT COUNT(*) FROM branches WHERE branches.repo_id = repositories.id)`,
	} {
		if err := tx.Exec(stmt).Error; err != nil {
			return err
		}
	}
	return nil
}
