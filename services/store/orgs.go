package store

import (
	"context"
	"errors"
	"strings"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"forge/services/errs"
)

// OwnersTeamName is the team every organization has: its members own the
// organization. It cannot be deleted, renamed or left empty.
const OwnersTeamName = "Owners"

// Organization errors.
var (
	// ErrTeamExists: a team of that name exists in the organization. Its
	// message is completed by the caller (Gitea names the org id and name).
	ErrTeamExists = errs.New(errs.AlreadyExists, "team already exists")
	// ErrLastOrgOwner: the change would leave the Owners team empty. Gitea
	// answers 500; forge a client error (README row 13).
	ErrLastOrgOwner = errs.New(errs.FailedPrecondition, "the last member of the Owners team cannot be removed")
	// ErrOwnersTeam: the Owners team cannot be deleted.
	ErrOwnersTeam = errs.New(errs.FailedPrecondition, "the Owners team cannot be deleted")
	// ErrOrgOwnsRepos: an organization that still owns repositories
	// cannot be deleted (Gitea: ErrUserOwnRepos, answered 500; forge 422).
	ErrOrgOwnsRepos = errs.New(errs.FailedPrecondition, "organization still has ownership of repositories")
	// ErrRepoNotInOrg: a team can only reach its organization's
	// repositories.
	ErrRepoNotInOrg = errs.New(errs.FailedPrecondition, "repository does not belong to team's organization")
)

// Team is a group of an organization's members with one access to a set
// of its repositories (all of them with IncludesAllRepositories).
type Team struct {
	ID                      int64 `gorm:"primaryKey"`
	OrgID                   int64
	LowerName               string
	Name                    string
	Description             string
	Authorize               AccessMode
	IncludesAllRepositories bool
	CanCreateOrgRepo        bool
	NumRepos                int
	NumMembers              int
	CreatedUnix             int64
	UpdatedUnix             int64
	// Units are the team's per-unit modes, loaded with the team.
	Units []TeamUnit `gorm:"-"`
}

func (Team) TableName() string { return "teams" }

// IsOwnerTeam reports the organization's Owners team.
func (t *Team) IsOwnerTeam() bool { return t.LowerName == strings.ToLower(OwnersTeamName) }

// UnitMode is the team's access to unit type u (Gitea's unit numbers,
// see UnitCode...): AccessNone when the team has no row for it.
func (t *Team) UnitMode(u int) AccessMode {
	for _, tu := range t.Units {
		if tu.Type == u {
			return tu.AccessMode
		}
	}
	return AccessNone
}

// TeamUser is a member of a team; membership in any team is membership in
// the organization.
type TeamUser struct {
	ID     int64 `gorm:"primaryKey"`
	OrgID  int64
	TeamID int64
	UID    int64 `gorm:"column:uid"`
}

func (TeamUser) TableName() string { return "team_users" }

// TeamRepo is a repository a team reaches (besides all of them with
// IncludesAllRepositories).
type TeamRepo struct {
	ID     int64 `gorm:"primaryKey"`
	OrgID  int64
	TeamID int64
	RepoID int64
}

func (TeamRepo) TableName() string { return "team_repos" }

// TeamUnit is a team's access to one repository unit.
type TeamUnit struct {
	ID         int64 `gorm:"primaryKey"`
	OrgID      int64
	TeamID     int64
	Type       int
	AccessMode AccessMode
}

func (TeamUnit) TableName() string { return "team_units" }

// OrgUser records a member of an organization and whether the membership
// is public.
type OrgUser struct {
	ID       int64 `gorm:"primaryKey"`
	UID      int64 `gorm:"column:uid"`
	OrgID    int64
	IsPublic bool
}

func (OrgUser) TableName() string { return "org_users" }

// Gitea's repository unit types, as stored in team_units.
const (
	UnitTypeCode            = 1
	UnitTypeIssues          = 2
	UnitTypePullRequests    = 3
	UnitTypeReleases        = 4
	UnitTypeWiki            = 5
	UnitTypeExternalWiki    = 6
	UnitTypeExternalTracker = 7
	UnitTypeProjects        = 8
	UnitTypePackages        = 9
	UnitTypeActions         = 10
)

// CreateOrganization inserts org (an account of type organization) and its
// Owners team with creatorID as the only member, in one transaction.
// Returns ErrUserExists when the name is taken.
func (s *Store) CreateOrganization(ctx context.Context, org *User, creatorID int64) error {
	org.Type = UserTypeOrganization
	org.LowerName = strings.ToLower(org.Name)
	org.LowerEmail = nil // an organization's e-mail is shown, never unique nor used to sign in
	org.IsActive = true
	now := time.Now().Unix()
	org.CreatedUnix, org.UpdatedUnix = now, now
	if org.MaxRepoCreation == 0 {
		org.MaxRepoCreation = -1
	}
	return s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if err := checkUnique(tx, org); err != nil {
			return err
		}
		if err := tx.Create(org).Error; err != nil {
			if errors.Is(err, gorm.ErrDuplicatedKey) {
				return ErrUserExists
			}
			return err
		}
		owners := &Team{
			OrgID: org.ID, Name: OwnersTeamName, Authorize: AccessOwner,
			IncludesAllRepositories: true, CanCreateOrgRepo: true,
		}
		for _, u := range AllUnitTypes() {
			owners.Units = append(owners.Units, TeamUnit{Type: u, AccessMode: AccessOwner})
		}
		if err := s.insertTeam(tx, owners); err != nil {
			return err
		}
		return s.addTeamMember(tx, owners, creatorID)
	})
}

// AllUnitTypes are the unit types an admin or owner team gets.
func AllUnitTypes() []int {
	return []int{UnitTypeCode, UnitTypeIssues, UnitTypePullRequests, UnitTypeReleases, UnitTypeWiki,
		UnitTypeExternalWiki, UnitTypeExternalTracker, UnitTypeProjects, UnitTypePackages, UnitTypeActions}
}

func (s *Store) insertTeam(tx *gorm.DB, t *Team) error {
	t.LowerName = strings.ToLower(t.Name)
	now := time.Now().Unix()
	t.CreatedUnix, t.UpdatedUnix = now, now
	var n int64
	if err := tx.Model(&Team{}).Where("org_id = ? AND lower_name = ?", t.OrgID, t.LowerName).Count(&n).Error; err != nil {
		return err
	}
	if n > 0 {
		return ErrTeamExists
	}
	if err := tx.Create(t).Error; err != nil {
		if errors.Is(err, gorm.ErrDuplicatedKey) {
			return ErrTeamExists
		}
		return err
	}
	return s.replaceUnits(tx, t)
}

func (s *Store) replaceUnits(tx *gorm.DB, t *Team) error {
	if err := tx.Where("team_id = ?", t.ID).Delete(&TeamUnit{}).Error; err != nil {
		return err
	}
	for i := range t.Units {
		t.Units[i].ID = 0
		t.Units[i].OrgID, t.Units[i].TeamID = t.OrgID, t.ID
	}
	if len(t.Units) == 0 {
		return nil
	}
	return tx.Create(&t.Units).Error
}

// addTeamMember adds uid to t (and to the organization), idempotently.
// The membership row is written first and stays locked until the
// transaction ends (joinOrg), so a concurrent removal waits for the team
// row before it decides whether uid is left in no team.
func (s *Store) addTeamMember(tx *gorm.DB, t *Team, uid int64) error {
	if err := joinOrg(tx, t.OrgID, uid); err != nil {
		return err
	}
	// ON CONFLICT DO NOTHING: a concurrent add of the same member is a
	// no-op, not a failed (and, on PostgreSQL, aborted) transaction.
	if err := tx.Clauses(clause.OnConflict{DoNothing: true}).Create(&TeamUser{OrgID: t.OrgID, TeamID: t.ID, UID: uid}).Error; err != nil {
		return err
	}
	return recountTeam(tx, t.ID)
}

// joinOrg makes uid a member of the organization and holds its membership
// row locked until the transaction ends: an upsert that updates the row
// when it exists takes its lock (a DO NOTHING would not), and waits for a
// concurrent removal of the row to finish, then inserts it again.
//
// Every path that adds or drops an organization membership locks that
// row first (joinOrg, lockMembership, lockMemberships), and a drop
// decides "in no team any more" with a statement run after it holds the
// lock; so a drop cannot decide on a snapshot that misses the team row a
// concurrent add is writing (PostgreSQL, READ COMMITTED). SQLite
// serializes writing transactions (_txlock=immediate).
func joinOrg(tx *gorm.DB, orgID, uid int64) error {
	return tx.Clauses(clause.OnConflict{
		Columns:   []clause.Column{{Name: "uid"}, {Name: "org_id"}},
		DoUpdates: clause.Assignments(map[string]any{"is_public": gorm.Expr("org_users.is_public")}),
	}).Create(&OrgUser{OrgID: orgID, UID: uid}).Error
}

// lockMembership locks uid's membership row of the organization, if any,
// until the transaction ends (see joinOrg).
func (s *Store) lockMembership(tx *gorm.DB, orgID, uid int64) error {
	var ids []int64
	return s.forUpdate(tx.Model(&OrgUser{})).Where("org_id = ? AND uid = ?", orgID, uid).Pluck("id", &ids).Error
}

// lockMemberships locks the membership rows of the organization's users
// that uids selects ("SELECT uid ..."), in uid order so that two lockers
// cannot deadlock (see joinOrg).
func (s *Store) lockMemberships(tx *gorm.DB, orgID int64, uids *gorm.DB) error {
	var ids []int64
	return s.forUpdate(tx.Model(&OrgUser{})).Where("org_id = ? AND uid IN (?)", orgID, uids).Order("uid").Pluck("id", &ids).Error
}

// recountTeam brings a team's counters in step with its rows.
func recountTeam(tx *gorm.DB, teamID int64) error {
	return tx.Exec(`UPDATE teams SET
		num_members = (SELECT COUNT(*) FROM team_users WHERE team_users.team_id = teams.id),
		num_repos = (SELECT COUNT(*) FROM team_repos WHERE team_repos.team_id = teams.id)
		WHERE id = ?`, teamID).Error
}

// OrgMembership is what a user is in an organization.
type OrgMembership struct {
	Member bool // in any team
	Owner  bool // in the Owners team
	Public bool // the membership is public
}

// OrgMembership reports uid's membership of the organization orgID.
func (s *Store) OrgMembership(ctx context.Context, orgID, uid int64) (OrgMembership, error) {
	var m OrgMembership
	if uid == 0 {
		return m, nil
	}
	var ou []OrgUser
	if err := s.db.WithContext(ctx).Where("org_id = ? AND uid = ?", orgID, uid).Limit(1).Find(&ou).Error; err != nil {
		return m, errs.Wrap(err, "org membership")
	}
	if len(ou) == 0 {
		return m, nil
	}
	m.Member, m.Public = true, ou[0].IsPublic
	var n int64
	err := s.db.WithContext(ctx).Model(&TeamUser{}).
		Joins("JOIN teams ON teams.id = team_users.team_id").
		Where("team_users.org_id = ? AND team_users.uid = ? AND teams.lower_name = ?", orgID, uid, strings.ToLower(OwnersTeamName)).
		Count(&n).Error
	if err != nil {
		return m, errs.Wrap(err, "org ownership")
	}
	m.Owner = n > 0
	return m, nil
}

// OrgListOptions filters ListOrganizations.
type OrgListOptions struct {
	// MemberID keeps the organizations uid is a member of; 0: any.
	MemberID int64
	// PublicMemberships keeps, with MemberID, only public memberships.
	PublicMemberships bool
	// Visible, when non-nil, keeps the organizations it shows.
	Visible *UserFilter
	Offset  int
	Limit   int
}

// ListOrganizations returns a page of organizations sorted by name and
// the total that match.
func (s *Store) ListOrganizations(ctx context.Context, o OrgListOptions) ([]User, int64, error) {
	q := s.db.WithContext(ctx).Model(&User{}).Where("users.type = ?", UserTypeOrganization)
	if o.MemberID != 0 {
		m := s.db.Model(&OrgUser{}).Select("org_id").Where("uid = ?", o.MemberID)
		if o.PublicMemberships {
			m = m.Where("is_public = ?", true)
		}
		q = q.Where("users.id IN (?)", m)
	}
	if o.Visible != nil {
		if ids := s.visibleUserIDs(*o.Visible); ids != nil {
			q = q.Where("users.id IN (?)", ids)
		}
	}
	var total int64
	if err := q.Count(&total).Error; err != nil {
		return nil, 0, errs.Wrap(err, "count organizations")
	}
	out := []User{}
	if err := q.Order("users.lower_name").Offset(o.Offset).Limit(o.Limit).Find(&out).Error; err != nil {
		return nil, 0, errs.Wrap(err, "list organizations")
	}
	return out, total, nil
}

// DeleteOrganization deletes the organization orgID with its teams and
// memberships. Returns ErrOrgOwnsRepos while it owns repositories (the
// check and the delete run in one transaction with the row locked, so a
// repository created meanwhile waits or is refused), ErrNotFound when
// missing.
func (s *Store) DeleteOrganization(ctx context.Context, orgID int64) error {
	return s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var org User
		if err := s.forUpdate(tx).Where("id = ? AND type = ?", orgID, UserTypeOrganization).Take(&org).Error; err != nil {
			return notFound(err)
		}
		var n int64
		if err := tx.Model(&Repository{}).Where("owner_id = ?", orgID).Count(&n).Error; err != nil {
			return err
		}
		if n > 0 {
			return ErrOrgOwnsRepos
		}
		// Its labels too (labels area): it owns no repository, so no
		// issue carries them.
		for _, m := range []any{&TeamUnit{}, &TeamRepo{}, &TeamUser{}, &Team{}, &OrgUser{}, &Label{}} {
			if err := tx.Where("org_id = ?", orgID).Delete(m).Error; err != nil {
				return err
			}
		}
		return tx.Delete(&User{}, orgID).Error
	})
}

// OrgMemberListOptions filters ListOrgMembers.
type OrgMemberListOptions struct {
	OrgID int64
	// PublicOnly keeps public memberships.
	PublicOnly bool
	// Visible keeps the accounts it shows.
	Visible UserFilter
	Offset  int
	Limit   int
}

// ListOrgMembers returns a page of an organization's members sorted by
// name, and their total.
func (s *Store) ListOrgMembers(ctx context.Context, o OrgMemberListOptions) ([]User, int64, error) {
	m := s.db.Model(&OrgUser{}).Select("uid").Where("org_id = ?", o.OrgID)
	if o.PublicOnly {
		m = m.Where("is_public = ?", true)
	}
	return s.pageUsers(ctx, s.db.WithContext(ctx).Model(&User{}).Where("users.id IN (?)", m), o.Visible, o.Offset, o.Limit)
}

func (s *Store) pageUsers(ctx context.Context, q *gorm.DB, visible UserFilter, offset, limit int) ([]User, int64, error) {
	if ids := s.visibleUserIDs(visible); ids != nil {
		q = q.Where("users.id IN (?)", ids)
	}
	var total int64
	if err := q.Count(&total).Error; err != nil {
		return nil, 0, errs.Wrap(err, "count members")
	}
	out := []User{}
	if err := q.Order("users.lower_name").Offset(offset).Limit(limit).Find(&out).Error; err != nil {
		return nil, 0, errs.Wrap(err, "list members")
	}
	return out, total, nil
}

// SetOrgMemberPublic publicizes or conceals uid's membership. Returns
// ErrNotFound when uid is not a member.
func (s *Store) SetOrgMemberPublic(ctx context.Context, orgID, uid int64, public bool) error {
	res := s.db.WithContext(ctx).Model(&OrgUser{}).Where("org_id = ? AND uid = ?", orgID, uid).Update("is_public", public)
	if res.Error != nil {
		return errs.Wrap(res.Error, "publicize member")
	}
	if res.RowsAffected == 0 {
		return ErrNotFound
	}
	return nil
}

// RemoveOrgMember removes uid from every team of the organization and
// from its members. Returns ErrNotFound when uid is not a member and
// ErrLastOrgOwner when uid is the last member of the Owners team.
func (s *Store) RemoveOrgMember(ctx context.Context, orgID, uid int64) error {
	return s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		owners, err := s.lockOwnersTeam(tx, orgID)
		if err != nil {
			return err
		}
		if err := ensureNotLastOwner(tx, owners.ID, uid); err != nil {
			return err
		}
		// Locked before the teams are read: an add waiting on it then
		// finds the membership gone and joins again with its team.
		if err := s.lockMembership(tx, orgID, uid); err != nil {
			return err
		}
		var teams []int64
		if err := tx.Model(&TeamUser{}).Where("org_id = ? AND uid = ?", orgID, uid).Pluck("team_id", &teams).Error; err != nil {
			return err
		}
		res := tx.Where("org_id = ? AND uid = ?", orgID, uid).Delete(&OrgUser{})
		if res.Error != nil {
			return res.Error
		}
		if res.RowsAffected == 0 {
			return ErrNotFound
		}
		if err := tx.Where("org_id = ? AND uid = ?", orgID, uid).Delete(&TeamUser{}).Error; err != nil {
			return err
		}
		for _, id := range teams {
			if err := recountTeam(tx, id); err != nil {
				return err
			}
		}
		return nil
	})
}

// lockOwnersTeam loads and locks the organization's Owners team: every
// change that removes a member of it takes this lock first, so two
// concurrent removals cannot both see the other owner remaining.
func (s *Store) lockOwnersTeam(tx *gorm.DB, orgID int64) (*Team, error) {
	var t Team
	err := s.forUpdate(tx).Where("org_id = ? AND lower_name = ?", orgID, strings.ToLower(OwnersTeamName)).Take(&t).Error
	if err != nil {
		return nil, notFound(err)
	}
	return &t, nil
}

// ensureNotLastOwner fails with ErrLastOrgOwner when uid is the only
// member of the Owners team ownersID.
func ensureNotLastOwner(tx *gorm.DB, ownersID, uid int64) error {
	var members []int64
	if err := tx.Model(&TeamUser{}).Where("team_id = ?", ownersID).Limit(2).Pluck("uid", &members).Error; err != nil {
		return err
	}
	if len(members) == 1 && members[0] == uid {
		return ErrLastOrgOwner
	}
	return nil
}

// TeamByID returns a team with its units, ErrNotFound when missing.
func (s *Store) TeamByID(ctx context.Context, id int64) (*Team, error) {
	var t Team
	if err := s.db.WithContext(ctx).Where("id = ?", id).Take(&t).Error; err != nil {
		return nil, notFound(err)
	}
	if err := s.loadUnits(s.db.WithContext(ctx), []*Team{&t}); err != nil {
		return nil, errs.Wrap(err, "team units")
	}
	return &t, nil
}

// TeamByName returns an organization's team by name, case-insensitively.
func (s *Store) TeamByName(ctx context.Context, orgID int64, name string) (*Team, error) {
	var t Team
	if err := s.db.WithContext(ctx).Where("org_id = ? AND lower_name = ?", orgID, strings.ToLower(name)).Take(&t).Error; err != nil {
		return nil, notFound(err)
	}
	if err := s.loadUnits(s.db.WithContext(ctx), []*Team{&t}); err != nil {
		return nil, errs.Wrap(err, "team units")
	}
	return &t, nil
}

func (s *Store) loadUnits(db *gorm.DB, teams []*Team) error {
	if len(teams) == 0 {
		return nil
	}
	ids := make([]int64, len(teams))
	byID := map[int64]*Team{}
	for i, t := range teams {
		ids[i] = t.ID
		byID[t.ID] = t
		t.Units = nil
	}
	var units []TeamUnit
	if err := db.Where("team_id IN ?", ids).Order("type").Find(&units).Error; err != nil {
		return err
	}
	for _, u := range units {
		byID[u.TeamID].Units = append(byID[u.TeamID].Units, u)
	}
	return nil
}

// TeamListOptions filters ListTeams.
type TeamListOptions struct {
	OrgID int64 // 0: any
	// MemberID keeps the teams uid is a member of; 0: any.
	MemberID int64
	// Visible, when non-nil, keeps the teams of the organizations it
	// shows.
	Visible *UserFilter
	// Keyword is a case-insensitive substring of the name (and of the
	// description with IncludeDesc).
	Keyword     string
	IncludeDesc bool
	Offset      int
	Limit       int
}

// ListTeams returns a page of teams with their units, sorted by name, and
// the total that match.
func (s *Store) ListTeams(ctx context.Context, o TeamListOptions) ([]Team, int64, error) {
	q := s.db.WithContext(ctx).Model(&Team{})
	if o.OrgID != 0 {
		q = q.Where("teams.org_id = ?", o.OrgID)
	}
	if o.MemberID != 0 {
		q = q.Where("teams.id IN (?)", s.db.Model(&TeamUser{}).Select("team_id").Where("uid = ?", o.MemberID))
	}
	if o.Visible != nil {
		if ids := s.visibleUserIDs(*o.Visible); ids != nil {
			q = q.Where("teams.org_id IN (?)", ids)
		}
	}
	if o.Keyword != "" {
		like := "%" + escapeLike(strings.ToLower(o.Keyword)) + "%"
		if o.IncludeDesc {
			q = q.Where("(teams.lower_name LIKE ? ESCAPE '\\' OR LOWER(teams.description) LIKE ? ESCAPE '\\')", like, like)
		} else {
			q = q.Where("teams.lower_name LIKE ? ESCAPE '\\'", like)
		}
	}
	var total int64
	if err := q.Count(&total).Error; err != nil {
		return nil, 0, errs.Wrap(err, "count teams")
	}
	teams := []Team{}
	if err := q.Order("teams.lower_name").Order("teams.id").Offset(o.Offset).Limit(o.Limit).Find(&teams).Error; err != nil {
		return nil, 0, errs.Wrap(err, "list teams")
	}
	ptrs := make([]*Team, len(teams))
	for i := range teams {
		ptrs[i] = &teams[i]
	}
	if err := s.loadUnits(s.db.WithContext(ctx), ptrs); err != nil {
		return nil, 0, errs.Wrap(err, "team units")
	}
	return teams, total, nil
}

// CreateTeam inserts t with its units. Returns ErrTeamExists when the
// organization has a team of that name.
func (s *Store) CreateTeam(ctx context.Context, t *Team) error {
	return s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		return s.insertTeam(tx, t)
	})
}

// UpdateTeam applies change to the locked team and saves it with its
// units. The Owners team keeps its name, access, units and
// can_create_org_repo whatever change does. Returns ErrNotFound or
// ErrTeamExists.
func (s *Store) UpdateTeam(ctx context.Context, id int64, change func(t *Team) error) (*Team, error) {
	var out Team
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var t Team
		if err := s.forUpdate(tx).Where("id = ?", id).Take(&t).Error; err != nil {
			return notFound(err)
		}
		if err := s.loadUnits(tx, []*Team{&t}); err != nil {
			return err
		}
		before := t
		before.Units = append([]TeamUnit(nil), t.Units...)
		if err := change(&t); err != nil {
			return err
		}
		if before.IsOwnerTeam() {
			t.Name, t.Authorize, t.CanCreateOrgRepo, t.IncludesAllRepositories, t.Units =
				before.Name, before.Authorize, true, true, before.Units
		}
		t.LowerName = strings.ToLower(t.Name)
		t.UpdatedUnix = time.Now().Unix()
		if t.LowerName != before.LowerName {
			var n int64
			if err := tx.Model(&Team{}).Where("org_id = ? AND lower_name = ? AND id <> ?", t.OrgID, t.LowerName, t.ID).Count(&n).Error; err != nil {
				return err
			}
			if n > 0 {
				return ErrTeamExists
			}
		}
		if err := tx.Select("lower_name", "name", "description", "authorize", "includes_all_repositories", "can_create_org_repo", "updated_unix").
			Updates(&t).Error; err != nil {
			if errors.Is(err, gorm.ErrDuplicatedKey) {
				return ErrTeamExists
			}
			return err
		}
		if err := s.replaceUnits(tx, &t); err != nil {
			return err
		}
		out = t
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &out, nil
}

// DeleteTeam deletes a team with its members, repositories and units;
// members left in no team leave the organization. Returns ErrNotFound, or
// ErrOwnersTeam for the Owners team.
func (s *Store) DeleteTeam(ctx context.Context, id int64) error {
	return s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var t Team
		if err := s.forUpdate(tx).Where("id = ?", id).Take(&t).Error; err != nil {
			return notFound(err)
		}
		if t.IsOwnerTeam() {
			return ErrOwnersTeam
		}
		members := tx.Model(&TeamUser{}).Select("uid").Where("team_id = ?", id)
		if err := s.lockMemberships(tx, t.OrgID, members); err != nil {
			return err
		}
		// The members in no other team leave the organization; decided
		// after the locks, so a concurrent add to another team is seen.
		elsewhere := tx.Model(&TeamUser{}).Select("uid").Where("org_id = ? AND team_id <> ?", t.OrgID, id)
		if err := tx.Where("org_id = ? AND uid IN (?) AND uid NOT IN (?)", t.OrgID, members, elsewhere).Delete(&OrgUser{}).Error; err != nil {
			return err
		}
		for _, m := range []any{&TeamUnit{}, &TeamRepo{}, &TeamUser{}} {
			if err := tx.Where("team_id = ?", id).Delete(m).Error; err != nil {
				return err
			}
		}
		return tx.Delete(&Team{}, id).Error
	})
}

// dropIfTeamless removes uid from the organization's members when in no
// team of it any more. The caller holds uid's membership lock, so this
// statement sees every team row committed before it.
func dropIfTeamless(tx *gorm.DB, orgID, uid int64) error {
	still := tx.Model(&TeamUser{}).Select("uid").Where("org_id = ? AND uid = ?", orgID, uid)
	return tx.Where("org_id = ? AND uid = ? AND uid NOT IN (?)", orgID, uid, still).Delete(&OrgUser{}).Error
}

// ListTeamMembers returns a page of a team's members that visible shows,
// sorted by name, and their total.
func (s *Store) ListTeamMembers(ctx context.Context, teamID int64, visible UserFilter, offset, limit int) ([]User, int64, error) {
	m := s.db.Model(&TeamUser{}).Select("uid").Where("team_id = ?", teamID)
	return s.pageUsers(ctx, s.db.WithContext(ctx).Model(&User{}).Where("users.id IN (?)", m), visible, offset, limit)
}

// IsTeamMember reports whether uid is a member of the team.
func (s *Store) IsTeamMember(ctx context.Context, teamID, uid int64) (bool, error) {
	var n int64
	if err := s.db.WithContext(ctx).Model(&TeamUser{}).Where("team_id = ? AND uid = ?", teamID, uid).Count(&n).Error; err != nil {
		return false, errs.Wrap(err, "team member")
	}
	return n > 0, nil
}

// AddTeamMember adds uid to the team and the organization (nothing when
// already a member). Returns ErrNotFound for an unknown team.
func (s *Store) AddTeamMember(ctx context.Context, teamID, uid int64) error {
	return s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var t Team
		if err := tx.Where("id = ?", teamID).Take(&t).Error; err != nil {
			return notFound(err)
		}
		// The user and the organization must exist and stay until the add
		// commits: a deletion of either (which locks the account first)
		// waits and then takes the new rows, or went first and the add
		// finds nothing, rather than leaving rows of a deleted account.
		// Accounts are locked before teams, as DeleteUser does.
		q := tx.Model(&User{}).Where("id IN ?", []int64{uid, t.OrgID}).Order("id")
		if s.postgres {
			q = q.Clauses(clause.Locking{Strength: "KEY SHARE"})
		}
		var ids []int64
		if err := q.Pluck("id", &ids).Error; err != nil {
			return err
		}
		if len(ids) != 2 {
			return ErrNotFound
		}
		// The team is locked: a team deleted meanwhile is not found,
		// rather than left with a member row.
		if err := s.forUpdate(tx).Where("id = ?", teamID).Take(&t).Error; err != nil {
			return notFound(err)
		}
		return s.addTeamMember(tx, &t, uid)
	})
}

// RemoveTeamMember removes uid from the team; left in no team, they leave
// the organization. Returns ErrNotFound when uid is not a member and
// ErrLastOrgOwner for the last member of the Owners team.
func (s *Store) RemoveTeamMember(ctx context.Context, teamID, uid int64) error {
	return s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var t Team
		if err := tx.Where("id = ?", teamID).Take(&t).Error; err != nil {
			return notFound(err)
		}
		if t.IsOwnerTeam() {
			if _, err := s.lockOwnersTeam(tx, t.OrgID); err != nil {
				return err
			}
			if err := ensureNotLastOwner(tx, t.ID, uid); err != nil {
				return err
			}
		}
		if err := s.lockMembership(tx, t.OrgID, uid); err != nil {
			return err
		}
		res := tx.Where("team_id = ? AND uid = ?", teamID, uid).Delete(&TeamUser{})
		if res.Error != nil {
			return res.Error
		}
		if res.RowsAffected == 0 {
			return ErrNotFound
		}
		if err := recountTeam(tx, teamID); err != nil {
			return err
		}
		return dropIfTeamless(tx, t.OrgID, uid)
	})
}

// HasTeamRepo reports whether the team reaches the repository explicitly
// (team_repos), not counting IncludesAllRepositories.
func (s *Store) HasTeamRepo(ctx context.Context, teamID, repoID int64) (bool, error) {
	var n int64
	if err := s.db.WithContext(ctx).Model(&TeamRepo{}).Where("team_id = ? AND repo_id = ?", teamID, repoID).Count(&n).Error; err != nil {
		return false, errs.Wrap(err, "team repository")
	}
	return n > 0, nil
}

// AddTeamRepo gives the team the repository (idempotent). Returns
// ErrRepoNotInOrg when the repository belongs to another owner.
func (s *Store) AddTeamRepo(ctx context.Context, teamID, repoID int64) error {
	return s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var t Team
		if err := tx.Where("id = ?", teamID).Take(&t).Error; err != nil {
			return notFound(err)
		}
		var r Repository
		if err := tx.Where("id = ?", repoID).Take(&r).Error; err != nil {
			return notFound(err)
		}
		if r.OwnerID != t.OrgID {
			return ErrRepoNotInOrg
		}
		if err := tx.Clauses(clause.OnConflict{DoNothing: true}).Create(&TeamRepo{OrgID: t.OrgID, TeamID: teamID, RepoID: repoID}).Error; err != nil {
			return err
		}
		return recountTeam(tx, teamID)
	})
}

// RemoveTeamRepo takes the repository from the team (nothing when it did
// not have it).
func (s *Store) RemoveTeamRepo(ctx context.Context, teamID, repoID int64) error {
	return s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if err := tx.Where("team_id = ? AND repo_id = ?", teamID, repoID).Delete(&TeamRepo{}).Error; err != nil {
			return err
		}
		return recountTeam(tx, teamID)
	})
}

// TeamGrant is one team's access to a repository, for the access checker.
type TeamGrant struct {
	Authorize AccessMode
	// Units maps unit types to the team's mode there.
	Units map[int]AccessMode
}

// TeamGrants returns the grants of the teams of the repository's
// organization that uid is a member of and that reach the repository
// (explicitly or with IncludesAllRepositories). None for a repository of
// an individual.
func (s *Store) TeamGrants(ctx context.Context, repoID, ownerID, uid int64) ([]TeamGrant, error) {
	db := s.db.WithContext(ctx)
	var teams []Team
	err := db.Model(&Team{}).
		Where("teams.org_id = ?", ownerID).
		Where("teams.id IN (?)", s.db.Model(&TeamUser{}).Select("team_id").Where("uid = ? AND org_id = ?", uid, ownerID)).
		Where("(teams.includes_all_repositories = ? OR teams.id IN (?))", true,
			s.db.Model(&TeamRepo{}).Select("team_id").Where("repo_id = ?", repoID)).
		Find(&teams).Error
	if err != nil {
		return nil, errs.Wrap(err, "team grants")
	}
	if len(teams) == 0 {
		return nil, nil
	}
	ptrs := make([]*Team, len(teams))
	for i := range teams {
		ptrs[i] = &teams[i]
	}
	if err := s.loadUnits(db, ptrs); err != nil {
		return nil, errs.Wrap(err, "team units")
	}
	out := make([]TeamGrant, len(teams))
	for i, t := range teams {
		g := TeamGrant{Authorize: t.Authorize, Units: map[int]AccessMode{}}
		for _, u := range t.Units {
			g.Units[u.Type] = u.AccessMode
		}
		out[i] = g
	}
	return out, nil
}

// CanCreateOrgRepo reports whether uid is in a team of the organization
// that may create repositories (the Owners team always may).
func (s *Store) CanCreateOrgRepo(ctx context.Context, orgID, uid int64) (bool, error) {
	var n int64
	err := s.db.WithContext(ctx).Model(&Team{}).
		Where("org_id = ? AND can_create_org_repo = ?", orgID, true).
		Where("id IN (?)", s.db.Model(&TeamUser{}).Select("team_id").Where("uid = ? AND org_id = ?", uid, orgID)).
		Count(&n).Error
	if err != nil {
		return false, errs.Wrap(err, "can create org repo")
	}
	return n > 0, nil
}

// teamRepoIDs is "SELECT id FROM repositories" that uid reaches through a
// team: those of its teams' repositories and every repository of an
// organization where one of its teams includes all.
func (s *Store) teamRepoIDs(uid int64) (explicit, allOwners *gorm.DB) {
	mine := s.db.Model(&TeamUser{}).Select("team_id").Where("uid = ?", uid)
	explicit = s.db.Model(&TeamRepo{}).Select("repo_id").Where("team_id IN (?)", mine)
	allOwners = s.db.Model(&Team{}).Select("org_id").Where("includes_all_repositories = ? AND id IN (?)", true, mine)
	return explicit, allOwners
}

// TeamGrantsOf is TeamGrants for several repositories at once (a page of
// a repository list), in two queries; repositories uid's teams do not
// reach are absent.
func (s *Store) TeamGrantsOf(ctx context.Context, repoIDs []int64, uid int64) (map[int64][]TeamGrant, error) {
	out := map[int64][]TeamGrant{}
	if len(repoIDs) == 0 {
		return out, nil
	}
	db := s.db.WithContext(ctx)
	type row struct {
		RepoID int64
		Team   `gorm:"embedded"`
	}
	var rows []row
	err := db.Table("teams").Select("repositories.id AS repo_id, teams.*").
		Joins("JOIN repositories ON repositories.owner_id = teams.org_id").
		Where("repositories.id IN ?", uniqueIDs(repoIDs)).
		Where("teams.id IN (?)", s.db.Model(&TeamUser{}).Select("team_id").Where("uid = ?", uid)).
		Where("(teams.includes_all_repositories = ? OR teams.id IN (SELECT team_id FROM team_repos WHERE team_repos.repo_id = repositories.id))", true).
		Scan(&rows).Error
	if err != nil {
		return nil, errs.Wrap(err, "team grants")
	}
	if len(rows) == 0 {
		return out, nil
	}
	teams := map[int64]*Team{}
	var ptrs []*Team
	for i := range rows {
		if teams[rows[i].ID] == nil {
			t := rows[i].Team
			teams[t.ID] = &t
			ptrs = append(ptrs, &t)
		}
	}
	if err := s.loadUnits(db, ptrs); err != nil {
		return nil, errs.Wrap(err, "team units")
	}
	for _, r := range rows {
		t := teams[r.ID]
		g := TeamGrant{Authorize: t.Authorize, Units: map[int]AccessMode{}}
		for _, u := range t.Units {
			g.Units[u.Type] = u.AccessMode
		}
		out[r.RepoID] = append(out[r.RepoID], g)
	}
	return out, nil
}

// ListRepoTeams returns the teams of the organization orgID that reach
// the repository: those given it and those with every repository
// (IncludesAllRepositories), by name, with their units.
func (s *Store) ListRepoTeams(ctx context.Context, orgID, repoID int64) ([]Team, error) {
	db := s.db.WithContext(ctx)
	var teams []Team
	err := db.Where("org_id = ?", orgID).
		Where("includes_all_repositories = ? OR id IN (?)", true, db.Model(&TeamRepo{}).Select("team_id").Where("repo_id = ?", repoID)).
		Order("lower_name").Find(&teams).Error
	if err != nil {
		return nil, err
	}
	ptrs := make([]*Team, len(teams))
	for i := range teams {
		ptrs[i] = &teams[i]
	}
	if err := s.loadUnits(db, ptrs); err != nil {
		return nil, errs.Wrap(err, "team units")
	}
	return teams, nil
}
