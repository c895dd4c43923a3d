package store

import (
	"gorm.io/gorm"
)

// The unit rule in SQL. services/access decides a user's mode on one unit
// of a repository (Checker.UnitMode, modes); lists of issues and of
// notification threads cannot ask it row by row, so the store applies the
// same rule in their queries, from both sides: the repositories whose unit
// a viewer may read (unitReadableRepoIDs, for lists), and the users who
// may read a unit of one repository (unitReaderIDs, for the fan-out). The
// rule, as modes has it:
//
//   - site administrators and the repository's owner own every unit;
//   - a collaborator has their mode on every unit;
//   - a team of the owning organization that reaches the repository
//     (listed, or including all) gives owner access when its authorize is
//     admin or more, else its mode on that unit (team_units);
//   - everyone but restricted users reads every unit of a public
//     repository;
//   - a unit switched off is open only to who administers it.

// issueUnitTypes are the units of an issue and of a pull request.
var issueUnitTypes = [2]int{UnitTypeIssues, UnitTypePullRequests}

// unitReadableRepoIDs is "SELECT repositories.id FROM repositories" whose
// unit f's viewer may read (the unit rule above; visibility of the
// repository and its owner is applyRepoFilter's), or nil when the viewer
// reads every unit (site administrators).
func (s *Store) unitReadableRepoIDs(f RepoFilter, unit int) *gorm.DB {
	if f.ViewerIsAdmin {
		return nil
	}
	mine := s.db.Model(&TeamUser{}).Select("team_id").Where("uid = ?", f.ViewerID)
	teamsWith := func(min AccessMode) *gorm.DB {
		return s.db.Model(&Team{}).Select("teams.id").Where("teams.id IN (?)", mine).
			Where("(teams.authorize >= ? OR teams.id IN (?))", AccessAdmin,
				s.db.Model(&TeamUnit{}).Select("team_id").Where("type = ? AND access_mode >= ?", unit, min))
	}
	// reach is the repositories the teams reach: listed, or all of their
	// organization's.
	reach := func(teams *gorm.DB) *gorm.DB {
		return s.db.Where("repositories.id IN (?)", s.db.Model(&TeamRepo{}).Select("repo_id").Where("team_id IN (?)", teams)).
			Or("repositories.owner_id IN (?)", s.db.Model(&Team{}).Select("org_id").
				Where("includes_all_repositories = ? AND id IN (?)", true, teams))
	}
	has := func(min AccessMode) *gorm.DB {
		return s.db.Where("repositories.owner_id = ?", f.ViewerID).
			Or("repositories.id IN (?)", s.db.Model(&Collaboration{}).Select("repo_id").
				Where("user_id = ? AND mode >= ?", f.ViewerID, min)).
			Or(reach(teamsWith(min)))
	}
	read := has(AccessRead)
	if !f.ExplicitOnly {
		read = read.Or("repositories.is_private = ?", false)
	}
	q := s.db.Model(&Repository{}).Select("repositories.id").Where(read)
	if col := unitColumn(unit); col != "" {
		q = q.Where(s.db.Where("repositories."+col+" = ?", true).Or(has(AccessAdmin)))
	}
	return q
}

// issueUnitCond keeps the rows of q whose issue (repository repoCol, a
// pull request when pullCond holds) lies in a unit f's viewer may read:
// issues, or pull requests for a pull request.
func (s *Store) issueUnitCond(q *gorm.DB, f RepoFilter, repoCol, pullCond string) *gorm.DB {
	issues := s.unitReadableRepoIDs(f, UnitTypeIssues)
	if issues == nil {
		return q
	}
	pulls := s.unitReadableRepoIDs(f, UnitTypePullRequests)
	return q.Where("((NOT ("+pullCond+") AND "+repoCol+" IN (?)) OR ("+pullCond+" AND "+repoCol+" IN (?)))", issues, pulls)
}

// unitReaderIDs is "SELECT users.id FROM users" who may read unit of r
// (the unit rule above, from the users' side).
func (s *Store) unitReaderIDs(r *Repository, unit int) *gorm.DB {
	tx := s.db
	teams := tx.Model(&Team{}).Select("teams.id").
		Where("teams.org_id = ? AND (teams.includes_all_repositories = ? OR teams.id IN (?))", r.OwnerID, true,
			tx.Model(&TeamRepo{}).Select("team_id").Where("repo_id = ?", r.ID))
	has := func(min AccessMode) *gorm.DB {
		withUnit := teams.Session(&gorm.Session{}).
			Where("(teams.authorize >= ? OR teams.id IN (?))", AccessAdmin,
				tx.Model(&TeamUnit{}).Select("team_id").Where("type = ? AND access_mode >= ?", unit, min))
		return tx.Where("users.is_admin = ?", true).
			Or("users.id = ?", r.OwnerID).
			Or("users.id IN (?)", tx.Model(&Collaboration{}).Select("user_id").Where("repo_id = ? AND mode >= ?", r.ID, min)).
			Or("users.id IN (?)", tx.Model(&TeamUser{}).Select("uid").Where("team_id IN (?)", withUnit))
	}
	q := tx.Model(&User{}).Select("users.id")
	if col := unitColumn(unit); col != "" && !unitOn(r, unit) {
		return q.Where(has(AccessAdmin))
	}
	read := has(AccessRead)
	if !r.IsPrivate {
		read = read.Or("users.restricted = ?", false)
	}
	return q.Where(read)
}

// unitColumn is the repositories column that switches unit on ("" for
// code, always on).
func unitColumn(unit int) string {
	switch unit {
	case UnitTypeIssues:
		return "has_issues"
	case UnitTypePullRequests:
		return "has_pull_requests"
	case UnitTypeReleases:
		return "has_releases"
	case UnitTypeWiki:
		return "has_wiki"
	}
	return ""
}

// unitOn is unitColumn's value on r.
func unitOn(r *Repository, unit int) bool {
	switch unit {
	case UnitTypeIssues:
		return r.HasIssues
	case UnitTypePullRequests:
		return r.HasPullRequests
	case UnitTypeReleases:
		return r.HasReleases
	case UnitTypeWiki:
		return r.HasWiki
	}
	return true
}
