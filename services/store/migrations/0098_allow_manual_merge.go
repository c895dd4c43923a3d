package migrations

import (
	"strings"

	"gorm.io/gorm"
)

// Step0098_allow_manual_merge adds the repository setting that lets
// writers mark a pull request merged by hand (Gitea's allow_manual_merge,
// off by default), and recreates the resource generation's update trigger
// (0093, 0095) to follow it too: merges read the settings of the resolved
// repository, which that generation keeps fresh.
func (History) Step0098_allow_manual_merge(tx *gorm.DB) error {
	stmts := []string{
		`ALTER TABLE repositories ADD COLUMN allow_manual_merge boolean NOT NULL DEFAULT false`,
	}
	// The repositories columns at this step, counters excluded.
	cols := []string{"owner_id", "owner_name", "lower_name", "name", "description", "website",
		"default_branch", "is_private", "is_empty", "is_archived", "is_mirror", "is_template",
		"original_url", "size", "has_issues", "has_wiki", "has_pull_requests", "has_projects",
		"has_releases", "has_packages", "has_actions", "ignore_whitespace_conflicts",
		"allow_merge_commits", "allow_rebase", "allow_rebase_explicit", "allow_squash_merge",
		"allow_fast_forward_only_merge", "allow_rebase_update", "default_delete_branch_after_merge",
		"default_merge_style", "default_allow_maintainer_edit", "archived_unix", "created_unix",
		"updated_unix", "topics", "is_fork", "fork_id", "allow_manual_merge"}
	distinct := " IS NOT "
	if tx.Dialector.Name() == "postgres" {
		distinct = " IS DISTINCT FROM "
	}
	changed := make([]string, len(cols))
	for i, c := range cols {
		changed[i] = "OLD." + c + distinct + "NEW." + c
	}
	when := strings.Join(changed, " OR ")
	if tx.Dialector.Name() == "postgres" {
		stmts = append(stmts,
			`DROP TRIGGER repositories_resource_generation_update ON repositories`,
			`CREATE TRIGGER repositories_resource_generation_update AFTER UPDATE ON repositories FOR EACH ROW
			WHEN (`+when+`) EXECUTE FUNCTION bump_resource_generation()`)
	} else {
		stmts = append(stmts,
			`DROP TRIGGER repositories_resource_generation_update`,
			`CREATE TRIGGER repositories_resource_generation_update AFTER UPDATE ON repositories FOR EACH ROW
			WHEN `+when+` BEGIN UPDATE auth_generation SET resource_value = resource_value + 1 WHERE id = 1; END`)
	}
	for _, q := range stmts {
		if err := tx.Exec(q).Error; err != nil {
			return err
		}
	}
	return nil
}
