package store

import (
	"context"

	"gorm.io/gorm"

	"forge/services/errs"
)

// BranchRename is a branch of repository RepoID renamed in git from From
// to To.
type BranchRename struct {
	RepoID   int64
	From, To string
}

// RenameBranchReferences makes, in one transaction, what names branch
// From of the repository name To, as Gitea's branch rename does: the
// repository's default branch, the protection rule named exactly From (a
// pattern rule is not a name of the branch), and the open, unmerged pull
// requests whose base branch (in this repository) or head branch (from
// this repository, whatever the base repository) is From. The branch
// records themselves follow git (repos.Syncer). The pull requests are
// written first and the repository row is not locked: a refresher holds a
// pull request's row while its webhook event references the repository
// (a key-share lock), so the opposite order could deadlock.
func (s *Store) RenameBranchReferences(ctx context.Context, r BranchRename) error {
	return s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		// ids are the open pull requests whose repo column is the
		// repository and branch column the old name.
		ids := func(repoCol, branchCol string) ([]int64, error) {
			var prs []PullRequest
			err := s.openPulls(tx).
				Where("pull_requests."+repoCol+" = ? AND pull_requests."+branchCol+" = ?", r.RepoID, r.From).
				Find(&prs).Error
			out := make([]int64, len(prs))
			for i := range prs {
				out[i] = prs[i].ID
			}
			return out, err
		}
		base, err := ids("repo_id", "base_branch")
		if err != nil {
			return errs.Wrap(err, "find pull requests into the branch")
		}
		head, err := ids("head_repo_id", "head_branch")
		if err != nil {
			return errs.Wrap(err, "find pull requests from the branch")
		}
		if len(base) > 0 {
			if err := tx.Model(&PullRequest{}).Where("id IN ?", base).Update("base_branch", r.To).Error; err != nil {
				return errs.Wrap(err, "rename pull request bases")
			}
		}
		if len(head) > 0 {
			if err := tx.Model(&PullRequest{}).Where("id IN ?", head).Update("head_branch", r.To).Error; err != nil {
				return errs.Wrap(err, "rename pull request heads")
			}
		}
		if err := tx.Model(&Repository{}).Where("id = ? AND default_branch = ?", r.RepoID, r.From).
			Update("default_branch", r.To).Error; err != nil {
			return errs.Wrap(err, "rename the default branch")
		}
		if err := tx.Model(&BranchProtection{}).Where("repo_id = ? AND rule_name = ?", r.RepoID, r.From).
			Update("rule_name", r.To).Error; err != nil {
			return errs.Wrap(err, "rename the protection rule")
		}
		return nil
	})
}
