package migrations

import "gorm.io/gorm"

// Step0099_pull_request_base_sha records, beside a pull request's head
// commit, the base commit its merge base, mergeable state and diff size
// were computed against, so that a pull request whose base or head branch
// has moved since is told by comparing two commits with git's refs; and
// the poster's allow_maintainer_edit choice. Existing rows get an empty
// base_sha: the refresher recomputes them at start-up.
func (History) Step0099_pull_request_base_sha(tx *gorm.DB) error {
	type PullRequest struct {
		BaseSHA             string `gorm:"column:base_sha;not null;default:''"`
		AllowMaintainerEdit bool   `gorm:"not null;default:false"`
	}
	m := tx.Table("pull_requests").Migrator()
	if err := m.AddColumn(&PullRequest{}, "BaseSHA"); err != nil {
		return err
	}
	return m.AddColumn(&PullRequest{}, "AllowMaintainerEdit")
}
