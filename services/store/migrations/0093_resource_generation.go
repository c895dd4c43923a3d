package migrations

import (
	"strings"

	"gorm.io/gorm"
)

// Step0093_resource_generation adds the resource generation, a second
// column of auth_generation's one row, which the database bumps, by
// triggers, in the transaction of any change to a repository row that can
// alter what resolving it answers (every column but the counters the
// issue, watch, star and fork writes move, which would otherwise empty the
// caches on every new issue; every deletion) and of any change to what a
// caller's access to a repository is computed from: collaborations and
// the teams of organizations (teams, team_users, team_units, team_repos).
// The owner's row is covered by the authentication generation already
// (user updates and deletions). Reading both in one statement (store.AuthGeneration) keeps
// a request at one counter read; caches of resolved repositories are
// valid while both are unchanged (access.Checker).
func (History) Step0093_resource_generation(tx *gorm.DB) error {
	// The repositories columns at this step, counters excluded. A later
	// step that adds a column recreates the update trigger with it
	// (TestResourceGenerationCoversColumns fails until it does).
	cols := []string{"owner_id", "owner_name", "lower_name", "name", "description", "website",
		"default_branch", "is_private", "is_empty", "is_archived", "is_mirror", "is_template",
		"original_url", "size", "has_issues", "has_wiki", "has_pull_requests", "has_projects",
		"has_releases", "has_packages", "has_actions", "ignore_whitespace_conflicts",
		"allow_merge_commits", "allow_rebase", "allow_rebase_explicit", "allow_squash_merge",
		"allow_fast_forward_only_merge", "allow_rebase_update", "default_delete_branch_after_merge",
		"default_merge_style", "default_allow_maintainer_edit", "archived_unix", "created_unix",
		"updated_unix", "topics"}
	distinct := " IS NOT "
	if tx.Dialector.Name() == "postgres" {
		distinct = " IS DISTINCT FROM "
	}
	changed := make([]string, len(cols))
	for i, c := range cols {
		changed[i] = "OLD." + c + distinct + "NEW." + c
	}
	when := strings.Join(changed, " OR ")
	stmts := []string{`ALTER TABLE auth_generation ADD COLUMN resource_value bigint NOT NULL DEFAULT 0`}
	grants := []string{"collaborations", "teams", "team_users", "team_units", "team_repos"}
	if tx.Dialector.Name() == "postgres" {
		stmts = append(stmts,
			`CREATE FUNCTION bump_resource_generation() RETURNS trigger LANGUAGE plpgsql AS $$
			BEGIN UPDATE auth_generation SET resource_value = resource_value + 1 WHERE id = 1; RETURN NULL; END $$`,
			`CREATE TRIGGER repositories_resource_generation_update AFTER UPDATE ON repositories FOR EACH ROW
			WHEN (`+when+`) EXECUTE FUNCTION bump_resource_generation()`,
			`CREATE TRIGGER repositories_resource_generation_delete AFTER DELETE ON repositories
			FOR EACH STATEMENT EXECUTE FUNCTION bump_resource_generation()`,
		)
		for _, t := range grants {
			stmts = append(stmts, `CREATE TRIGGER `+t+`_resource_generation AFTER INSERT OR UPDATE OR DELETE ON `+t+`
			FOR EACH STATEMENT EXECUTE FUNCTION bump_resource_generation()`)
		}
	} else {
		const bump = `BEGIN UPDATE auth_generation SET resource_value = resource_value + 1 WHERE id = 1; END`
		for _, t := range grants {
			for _, op := range []string{"INSERT", "UPDATE", "DELETE"} {
				stmts = append(stmts, `CREATE TRIGGER `+t+`_resource_generation_`+strings.ToLower(op)+` AFTER `+op+` ON `+t+` FOR EACH ROW `+bump)
			}
		}
		stmts = append(stmts,
			`CREATE TRIGGER repositories_resource_generation_update AFTER UPDATE ON repositories FOR EACH ROW
			WHEN `+when+` `+bump,
			`CREATE TRIGGER repositories_resource_generation_delete AFTER DELETE ON repositories FOR EACH ROW `+bump,
		)
	}
	for _, q := range stmts {
		if err := tx.Exec(q).Error; err != nil {
			return err
		}
	}
	return nil
}
