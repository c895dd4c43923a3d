package migrations

import (
	"fmt"

	"gorm.io/gorm"
)

// Step0062_orgs_and_teams creates organizations' teams: their members,
// repositories and per-unit access, and the organization membership
// (whether it is public). Organizations themselves are rows of users;
// repo_admin_change_team_access is their setting. Recorded as
// 0020_orgs_and_teams before ids followed the order steps run in (see
// renamed).
func (History) Step0062_orgs_and_teams(tx *gorm.DB) error {
	type Team struct {
		ID                      int64  `gorm:"primaryKey"`
		OrgID                   int64  `gorm:"not null;uniqueIndex:idx_teams_org_name,priority:1"`
		LowerName               string `gorm:"size:255;not null;uniqueIndex:idx_teams_org_name,priority:2"`
		Name                    string `gorm:"size:255;not null"`
		Description             string `gorm:"not null;default:''"`
		Authorize               int    `gorm:"not null;default:0"`
		IncludesAllRepositories bool   `gorm:"not null;default:false"`
		CanCreateOrgRepo        bool   `gorm:"not null;default:false"`
		NumRepos                int    `gorm:"not null;default:0"`
		NumMembers              int    `gorm:"not null;default:0"`
		CreatedUnix             int64  `gorm:"not null;default:0"`
		UpdatedUnix             int64  `gorm:"not null;default:0"`
	}
	type TeamUser struct {
		ID     int64 `gorm:"primaryKey"`
		OrgID  int64 `gorm:"not null;index"`
		TeamID int64 `gorm:"not null;uniqueIndex:idx_team_users_team_uid,priority:1"`
		UID    int64 `gorm:"column:uid;not null;uniqueIndex:idx_team_users_team_uid,priority:2;index"`
	}
	type TeamRepo struct {
		ID     int64 `gorm:"primaryKey"`
		OrgID  int64 `gorm:"not null;index"`
		TeamID int64 `gorm:"not null;uniqueIndex:idx_team_repos_team_repo,priority:1"`
		RepoID int64 `gorm:"not null;uniqueIndex:idx_team_repos_team_repo,priority:2;index"`
	}
	type TeamUnit struct {
		ID         int64 `gorm:"primaryKey"`
		OrgID      int64 `gorm:"not null;index"`
		TeamID     int64 `gorm:"not null;uniqueIndex:idx_team_units_team_type,priority:1"`
		Type       int   `gorm:"not null;uniqueIndex:idx_team_units_team_type,priority:2"`
		AccessMode int   `gorm:"not null;default:0"`
	}
	type OrgUser struct {
		ID       int64 `gorm:"primaryKey"`
		UID      int64 `gorm:"column:uid;not null;uniqueIndex:idx_org_users_uid_org,priority:1"`
		OrgID    int64 `gorm:"not null;uniqueIndex:idx_org_users_uid_org,priority:2;index"`
		IsPublic bool  `gorm:"not null;default:false"`
	}
	tables := []struct {
		name  string
		model any
	}{
		{"teams", &Team{}}, {"team_users", &TeamUser{}}, {"team_repos", &TeamRepo{}},
		{"team_units", &TeamUnit{}}, {"org_users", &OrgUser{}},
	}
	for _, t := range tables {
		if err := tx.Table(t.name).Migrator().CreateTable(t.model); err != nil {
			return fmt.Errorf("create %s: %w", t.name, err)
		}
	}
	type User struct {
		RepoAdminChangeTeamAccess bool `gorm:"not null;default:false"`
	}
	return tx.Table("users").Migrator().AddColumn(&User{}, "RepoAdminChangeTeamAccess")
}
