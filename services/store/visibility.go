package store

import (
	"context"
	"slices"

	"gorm.io/gorm"
)

// UserFilter says which accounts a viewer may see. The rule is decided in
// services/users (users.Filter builds every UserFilter); the store only
// applies it, in SQL for lists (visibleUserIDs) and for one account
// (UserVisible), with Settled as its database-free part. The three read
// the same fields side by side here, and the conformance suite checks that
// they agree.
type UserFilter struct {
	// All: every account is visible (site administrators).
	All bool
	// ViewerID is the signed-in viewer, 0 when anonymous. A viewer always
	// sees themself, the owners of repositories shared with them as a
	// collaborator (they could not reach those repositories otherwise) and
	// the organizations they are a member of.
	ViewerID int64
	// Visibilities are the account visibilities the viewer sees without
	// any relation to the account.
	Visibilities []Visibility
	// Related are the visibilities of accounts the viewer sees when the
	// account collaborates on a repository the viewer owns or collaborates
	// on (restricted viewers, who see nobody by visibility alone).
	Related []Visibility
	// OnlyPublic keeps, of the accounts the rest shows, the public ones
	// (public-only tokens).
	OnlyPublic bool
}

// Settled decides visibility without the database where it can: visible
// is true when the filter alone shows u; settled is false when only a
// relation (UserVisible) can still show it.
func (f UserFilter) Settled(u *User) (visible, settled bool) {
	if f.OnlyPublic && u.Visibility != VisibilityPublic {
		return false, true
	}
	if f.All || (f.ViewerID != 0 && u.ID == f.ViewerID) || slices.Contains(f.Visibilities, u.Visibility) {
		return true, true
	}
	return false, f.ViewerID == 0
}

// visibleUserIDs is "SELECT id FROM users WHERE <visible>", or nil when
// every account is visible.
func (s *Store) visibleUserIDs(f UserFilter) *gorm.DB {
	if f.All && !f.OnlyPublic {
		return nil
	}
	return s.db.Model(&User{}).Select("users.id").Where(s.userVisibleCond(f))
}

// userVisibleCond is the WHERE condition on the users table.
func (s *Store) userVisibleCond(f UserFilter) *gorm.DB {
	if f.OnlyPublic {
		rest := f
		rest.OnlyPublic = false
		return s.db.Where("users.visibility = ?", VisibilityPublic).Where(s.userVisibleCond(rest))
	}
	if f.All {
		return s.db.Where("1 = 1")
	}
	cond := s.db.Where("1 = 0")
	if len(f.Visibilities) > 0 {
		cond = cond.Or("users.visibility IN ?", f.Visibilities)
	}
	if f.ViewerID == 0 {
		return cond
	}
	shared := s.db.Model(&Collaboration{}).Select("repo_id").Where("user_id = ?", f.ViewerID)
	// Organizations the viewer is a member of, whatever their visibility,
	// and the owners of repositories reached through a team.
	orgs := s.db.Model(&OrgUser{}).Select("org_id").Where("uid = ?", f.ViewerID)
	cond = cond.Or("users.id = ?", f.ViewerID).
		Or("users.id IN (?)", s.db.Model(&Repository{}).Select("owner_id").Where("id IN (?)", shared)).
		Or("users.id IN (?)", orgs)
	if len(f.Related) > 0 {
		// Repositories the viewer owns or collaborates on, and their
		// collaborators; and the viewer's organizations' members.
		mine := s.db.Model(&Repository{}).Select("id").Where("owner_id = ?", f.ViewerID)
		peers := s.db.Model(&Collaboration{}).Select("user_id").
			Where("repo_id IN (?) OR repo_id IN (?)", mine, shared)
		members := s.db.Model(&OrgUser{}).Select("uid").Where("org_id IN (?)", orgs)
		cond = cond.Or("users.visibility IN ? AND (users.id IN (?) OR users.id IN (?))", f.Related, peers, members)
	}
	return cond
}

// UserVisible reports whether the account with id is visible under f,
// relations included.
func (s *Store) UserVisible(ctx context.Context, f UserFilter, id int64) (bool, error) {
	if f.All && !f.OnlyPublic {
		return true, nil
	}
	var n int64
	err := s.db.WithContext(ctx).Model(&User{}).Where("users.id = ?", id).Where(s.userVisibleCond(f)).Count(&n).Error
	return n > 0, err
}

// VisibleUserIDs reports which of the accounts ids are visible under f,
// relations included, in one query for any number of ids (lists that
// embed their posters ask once per page).
func (s *Store) VisibleUserIDs(ctx context.Context, f UserFilter, ids []int64) (map[int64]bool, error) {
	out := map[int64]bool{}
	if len(ids) == 0 {
		return out, nil
	}
	if f.All && !f.OnlyPublic {
		for _, id := range ids {
			out[id] = true
		}
		return out, nil
	}
	var found []int64
	err := s.db.WithContext(ctx).Model(&User{}).Where("users.id IN ?", uniqueIDs(ids)).Where(s.userVisibleCond(f)).
		Pluck("users.id", &found).Error
	if err != nil {
		return nil, err
	}
	for _, id := range found {
		out[id] = true
	}
	return out, nil
}

// RepoFilter says which repositories a viewer may list. services/access
// builds it (access.Filter) from the same rule as Checker.Mode.
type RepoFilter struct {
	// ViewerID is the signed-in viewer, 0 when anonymous: they see the
	// repositories they own, those they collaborate on and those their
	// teams reach.
	ViewerID int64
	// ViewerIsAdmin: every repository is visible.
	ViewerIsAdmin bool
	// ExplicitOnly drops public repositories the viewer has no explicit
	// access to (restricted viewers).
	ExplicitOnly bool
	// OnlyPublic drops private repositories (public-only tokens).
	OnlyPublic bool
	// Owners: the owner must be visible to the viewer.
	Owners UserFilter
}

// applyRepoFilter keeps the rows of q (repositories) that f shows.
func (s *Store) applyRepoFilter(q *gorm.DB, f RepoFilter) *gorm.DB {
	if !f.ViewerIsAdmin {
		collab := s.db.Model(&Collaboration{}).Select("repo_id").Where("user_id = ?", f.ViewerID)
		teamRepos, teamOrgs := s.teamRepoIDs(f.ViewerID)
		explicit := "(repositories.owner_id = ? OR repositories.id IN (?) OR repositories.id IN (?) OR repositories.owner_id IN (?))"
		if f.ExplicitOnly {
			q = q.Where(explicit, f.ViewerID, collab, teamRepos, teamOrgs)
		} else {
			q = q.Where("(repositories.is_private = ? OR "+explicit+")", false, f.ViewerID, collab, teamRepos, teamOrgs)
		}
		if owners := s.visibleUserIDs(f.Owners); owners != nil {
			q = q.Where("repositories.owner_id IN (?)", owners)
		}
	}
	if f.OnlyPublic {
		q = q.Where("repositories.is_private = ?", false)
	}
	return q
}
