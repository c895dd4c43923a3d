package migrations

import "gorm.io/gorm"

// Step0103_branch_protections adds branch protection rules, one row per
// rule of a repository, named by a branch name or a glob. Whitelists are
// JSON arrays of user or team ids (a rule has few, read with the rule);
// status_check_contexts is NULL when the rule was created without the
// field, which Gitea answers as null rather than [].
func (History) Step0103_branch_protections(tx *gorm.DB) error {
	type BranchProtection struct {
		ID                            int64   `gorm:"primaryKey"`
		RepoID                        int64   `gorm:"not null;uniqueIndex:idx_branch_protections_repo_rule,priority:1"`
		RuleName                      string  `gorm:"type:varchar(255);not null;uniqueIndex:idx_branch_protections_repo_rule,priority:2"`
		EnablePush                    bool    `gorm:"not null;default:false"`
		EnablePushWhitelist           bool    `gorm:"not null;default:false"`
		PushWhitelistUserIDs          string  `gorm:"type:text;not null;default:'[]'"`
		PushWhitelistTeamIDs          string  `gorm:"type:text;not null;default:'[]'"`
		PushWhitelistDeployKeys       bool    `gorm:"not null;default:false"`
		EnableMergeWhitelist          bool    `gorm:"not null;default:false"`
		MergeWhitelistUserIDs         string  `gorm:"type:text;not null;default:'[]'"`
		MergeWhitelistTeamIDs         string  `gorm:"type:text;not null;default:'[]'"`
		EnableStatusCheck             bool    `gorm:"not null;default:false"`
		StatusCheckContexts           *string `gorm:"type:text"`
		RequiredApprovals             int64   `gorm:"not null;default:0"`
		EnableApprovalsWhitelist      bool    `gorm:"not null;default:false"`
		ApprovalsWhitelistUserIDs     string  `gorm:"type:text;not null;default:'[]'"`
		ApprovalsWhitelistTeamIDs     string  `gorm:"type:text;not null;default:'[]'"`
		BlockOnRejectedReviews        bool    `gorm:"not null;default:false"`
		BlockOnOfficialReviewRequests bool    `gorm:"not null;default:false"`
		BlockOnOutdatedBranch         bool    `gorm:"not null;default:false"`
		DismissStaleApprovals         bool    `gorm:"not null;default:false"`
		IgnoreStaleApprovals          bool    `gorm:"not null;default:false"`
		RequireSignedCommits          bool    `gorm:"not null;default:false"`
		ProtectedFilePatterns         string  `gorm:"type:text;not null;default:''"`
		UnprotectedFilePatterns       string  `gorm:"type:text;not null;default:''"`
		CreatedUnix                   int64   `gorm:"not null;default:0"`
		UpdatedUnix                   int64   `gorm:"not null;default:0"`
	}
	return tx.Table("branch_protections").Migrator().CreateTable(&BranchProtection{})
}
