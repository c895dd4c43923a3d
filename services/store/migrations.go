package store

import (
	"context"
	"fmt"
	"strings"

	"github.com/go-gormigrate/gormigrate/v2"
	"gorm.io/gorm"
)

// migrations is the versioned schema history, embedded in the binary. Each
// step declares its own snapshot of the tables it touches, so later changes
// to the models never rewrite history. Append; never edit a released step.
var migrations = []*gormigrate.Migration{
	{
		ID: "0001_users_and_access_tokens",
		Migrate: func(tx *gorm.DB) error {
			type User struct {
				ID                      int64   `gorm:"primaryKey"`
				LowerName               string  `gorm:"size:255;not null;uniqueIndex"`
				Name                    string  `gorm:"size:255;not null"`
				FullName                string  `gorm:"not null;default:''"`
				Email                   string  `gorm:"not null;default:''"`
				LowerEmail              *string `gorm:"size:255;uniqueIndex"`
				Type                    int     `gorm:"not null;default:0"`
				PasswdHash              string  `gorm:"not null;default:''"`
				LoginSource             int64   `gorm:"not null;default:0"`
				LoginName               string  `gorm:"not null;default:''"`
				MustChangePassword      bool    `gorm:"not null;default:false"`
				IsAdmin                 bool    `gorm:"not null;default:false;index"`
				IsActive                bool    `gorm:"not null;default:false"`
				ProhibitLogin           bool    `gorm:"not null;default:false"`
				Restricted              bool    `gorm:"not null;default:false"`
				Visibility              int     `gorm:"not null;default:0"`
				Location                string  `gorm:"not null;default:''"`
				Website                 string  `gorm:"not null;default:''"`
				Description             string  `gorm:"not null;default:''"`
				Language                string  `gorm:"not null;default:''"`
				MaxRepoCreation         int     `gorm:"not null;default:-1"`
				AllowGitHook            bool    `gorm:"not null;default:false"`
				AllowImportLocal        bool    `gorm:"not null;default:false"`
				AllowCreateOrganization bool    `gorm:"not null;default:true"`
				TOTPSecret              []byte
				LastLoginUnix           int64 `gorm:"not null;default:0"`
				CreatedUnix             int64 `gorm:"not null;default:0"`
				UpdatedUnix             int64 `gorm:"not null;default:0"`
			}
			type AccessToken struct {
				ID             int64  `gorm:"primaryKey"`
				UID            int64  `gorm:"not null;uniqueIndex:idx_access_tokens_uid_name,priority:1"`
				Name           string `gorm:"size:255;not null;uniqueIndex:idx_access_tokens_uid_name,priority:2"`
				TokenHash      string `gorm:"size:64;not null;uniqueIndex"`
				TokenLastEight string `gorm:"size:8;not null"`
				Scope          string `gorm:"not null;default:''"`
				CreatedUnix    int64  `gorm:"not null;default:0"`
				UpdatedUnix    int64  `gorm:"not null;default:0"`
				LastUsedUnix   int64  `gorm:"not null;default:0"`
			}
			if err := tx.Table("users").Migrator().CreateTable(&User{}); err != nil {
				return err
			}
			return tx.Table("access_tokens").Migrator().CreateTable(&AccessToken{})
		},
	},
	{
		// A row version, bumped by every update, lets the authentication path
		// reuse a cached user row while it is current.
		ID: "0002_users_version",
		Migrate: func(tx *gorm.DB) error {
			type User struct {
				Version int64 `gorm:"not null;default:0"`
			}
			return tx.Table("users").Migrator().AddColumn(&User{}, "Version")
		},
	},
	{
		// Repositories and everything the repository issue keeps about them.
		ID: "0003_repositories",
		Migrate: func(tx *gorm.DB) error {
			type Repository struct {
				ID                            int64  `gorm:"primaryKey"`
				OwnerID                       int64  `gorm:"not null;uniqueIndex:idx_repositories_owner_name,priority:1"`
				OwnerName                     string `gorm:"size:255;not null;default:''"`
				LowerName                     string `gorm:"size:255;not null;uniqueIndex:idx_repositories_owner_name,priority:2"`
				Name                          string `gorm:"size:255;not null"`
				Description                   string `gorm:"not null;default:''"`
				Website                       string `gorm:"not null;default:''"`
				DefaultBranch                 string `gorm:"size:255;not null;default:''"`
				IsPrivate                     bool   `gorm:"not null;default:false;index"`
				IsEmpty                       bool   `gorm:"not null;default:true"`
				IsArchived                    bool   `gorm:"not null;default:false"`
				IsMirror                      bool   `gorm:"not null;default:false"`
				IsTemplate                    bool   `gorm:"not null;default:false"`
				OriginalURL                   string `gorm:"not null;default:''"`
				NumWatches                    int    `gorm:"not null;default:0"`
				NumStars                      int    `gorm:"not null;default:0"`
				NumForks                      int    `gorm:"not null;default:0"`
				Size                          int64  `gorm:"not null;default:0"`
				HasIssues                     bool   `gorm:"not null;default:true"`
				HasWiki                       bool   `gorm:"not null;default:true"`
				HasPullRequests               bool   `gorm:"not null;default:true"`
				HasProjects                   bool   `gorm:"not null;default:true"`
				HasReleases                   bool   `gorm:"not null;default:true"`
				HasPackages                   bool   `gorm:"not null;default:true"`
				HasActions                    bool   `gorm:"not null;default:true"`
				IgnoreWhitespaceConflicts     bool   `gorm:"not null;default:false"`
				AllowMergeCommits             bool   `gorm:"not null;default:true"`
				AllowRebase                   bool   `gorm:"not null;default:true"`
				AllowRebaseExplicit           bool   `gorm:"not null;default:true"`
				AllowSquashMerge              bool   `gorm:"not null;default:true"`
				AllowFastForwardOnlyMerge     bool   `gorm:"not null;default:true"`
				AllowRebaseUpdate             bool   `gorm:"not null;default:true"`
				DefaultDeleteBranchAfterMerge bool   `gorm:"not null;default:false"`
				DefaultMergeStyle             string `gorm:"not null;default:'merge'"`
				DefaultAllowMaintainerEdit    bool   `gorm:"not null;default:false"`
				ArchivedUnix                  int64  `gorm:"not null;default:0"`
				CreatedUnix                   int64  `gorm:"not null;default:0"`
				UpdatedUnix                   int64  `gorm:"not null;default:0"`
			}
			type Collaboration struct {
				ID          int64 `gorm:"primaryKey"`
				RepoID      int64 `gorm:"not null;uniqueIndex:idx_collaborations_repo_user,priority:1"`
				UserID      int64 `gorm:"not null;uniqueIndex:idx_collaborations_repo_user,priority:2;index"`
				Mode        int   `gorm:"not null;default:2"`
				CreatedUnix int64 `gorm:"not null;default:0"`
			}
			type Branch struct {
				ID            int64  `gorm:"primaryKey"`
				RepoID        int64  `gorm:"not null;uniqueIndex:idx_branches_repo_name,priority:1"`
				Name          string `gorm:"size:255;not null;uniqueIndex:idx_branches_repo_name,priority:2"`
				CommitID      string `gorm:"size:64;not null;default:''"`
				CommitMessage string `gorm:"not null;default:''"`
				CommitUnix    int64  `gorm:"not null;default:0"`
				PusherID      int64  `gorm:"not null;default:0"`
				CreatedUnix   int64  `gorm:"not null;default:0"`
				UpdatedUnix   int64  `gorm:"not null;default:0"`
			}
			type Release struct {
				ID           int64  `gorm:"primaryKey"`
				RepoID       int64  `gorm:"not null;uniqueIndex:idx_releases_repo_tag,priority:1"`
				PublisherID  int64  `gorm:"not null;default:0"`
				TagName      string `gorm:"size:255;not null"`
				LowerTagName string `gorm:"size:255;not null;uniqueIndex:idx_releases_repo_tag,priority:2"`
				Target       string `gorm:"size:255;not null;default:''"`
				Title        string `gorm:"not null;default:''"`
				Sha1         string `gorm:"size:64;not null;default:''"`
				Note         string `gorm:"not null;default:''"`
				IsDraft      bool   `gorm:"not null;default:false"`
				IsPrerelease bool   `gorm:"not null;default:false"`
				IsTag        bool   `gorm:"not null;default:false"`
				CreatedUnix  int64  `gorm:"not null;default:0;index"`
				UpdatedUnix  int64  `gorm:"not null;default:0"`
			}
			type Watch struct {
				ID          int64 `gorm:"primaryKey"`
				UserID      int64 `gorm:"not null;uniqueIndex:idx_watches_user_repo,priority:1"`
				RepoID      int64 `gorm:"not null;uniqueIndex:idx_watches_user_repo,priority:2;index"`
				CreatedUnix int64 `gorm:"not null;default:0"`
			}
			type Mirror struct {
				ID             int64  `gorm:"primaryKey"`
				RepoID         int64  `gorm:"not null;uniqueIndex"`
				IntervalSecs   int64  `gorm:"not null;default:0"`
				RemoteAddress  string `gorm:"not null;default:''"`
				RemoteSealed   []byte
				LastError      string `gorm:"not null;default:''"`
				UpdatedUnix    int64  `gorm:"not null;default:0"`
				NextUpdateUnix int64  `gorm:"not null;default:0;index"`
			}
			type PushMirror struct {
				ID             int64  `gorm:"primaryKey"`
				RepoID         int64  `gorm:"not null;uniqueIndex:idx_push_mirrors_repo_name,priority:1"`
				RemoteName     string `gorm:"size:255;not null;uniqueIndex:idx_push_mirrors_repo_name,priority:2"`
				RemoteAddress  string `gorm:"not null;default:''"`
				RemoteSealed   []byte
				SyncOnCommit   bool   `gorm:"not null;default:false"`
				IntervalSecs   int64  `gorm:"not null;default:0"`
				LastError      string `gorm:"not null;default:''"`
				LastUpdateUnix int64  `gorm:"not null;default:0"`
				NextUpdateUnix int64  `gorm:"not null;default:0;index"`
				CreatedUnix    int64  `gorm:"not null;default:0"`
			}
			tables := []struct {
				name  string
				model any
			}{
				{"repositories", &Repository{}}, {"collaborations", &Collaboration{}}, {"branches", &Branch{}},
				{"releases", &Release{}}, {"watches", &Watch{}}, {"mirrors", &Mirror{}}, {"push_mirrors", &PushMirror{}},
			}
			for _, t := range tables {
				if err := tx.Table(t.name).Migrator().CreateTable(t.model); err != nil {
					return fmt.Errorf("create %s: %w", t.name, err)
				}
			}
			return nil
		},
	},
	{
		// The last accepted TOTP time step per user, so a one-time code is
		// accepted once, by any process.
		ID: "0004_totp_last_step",
		Migrate: func(tx *gorm.DB) error {
			type User struct {
				TOTPLastStep int64 `gorm:"column:totp_last_step;not null;default:0"`
			}
			return tx.Table("users").Migrator().AddColumn(&User{}, "TOTPLastStep")
		},
	},
	{
		// The issue tracker: issues (shared with pull requests), their
		// per-repository index, comments, assignees, labels, and the
		// activity queue notifications are fanned out from.
		ID: "0010_issues",
		Migrate: func(tx *gorm.DB) error {
			type Issue struct {
				ID          int64  `gorm:"primaryKey"`
				RepoID      int64  `gorm:"not null;uniqueIndex:idx_issues_repo_index,priority:1;index:idx_issues_repo_closed,priority:1"`
				Index       int64  `gorm:"not null;uniqueIndex:idx_issues_repo_index,priority:2"`
				PosterID    int64  `gorm:"not null;default:0;index"`
				Title       string `gorm:"size:255;not null;default:''"`
				Content     string `gorm:"not null;default:''"`
				IsClosed    bool   `gorm:"not null;default:false;index:idx_issues_repo_closed,priority:2"`
				IsPull      bool   `gorm:"not null;default:false"`
				IsLocked    bool   `gorm:"not null;default:false"`
				NumComments int    `gorm:"not null;default:0"`
				CreatedUnix int64  `gorm:"not null;default:0;index"`
				UpdatedUnix int64  `gorm:"not null;default:0;index"`
				ClosedUnix  int64  `gorm:"not null;default:0"`
			}
			type IssueIndex struct {
				RepoID   int64 `gorm:"primaryKey;autoIncrement:false"`
				MaxIndex int64 `gorm:"not null;default:0"`
			}
			type Comment struct {
				ID          int64  `gorm:"primaryKey"`
				Type        int    `gorm:"not null;default:0"`
				RepoID      int64  `gorm:"not null;index"`
				IssueID     int64  `gorm:"not null;index"`
				PosterID    int64  `gorm:"not null;default:0;index"`
				Content     string `gorm:"not null;default:''"`
				CreatedUnix int64  `gorm:"not null;default:0"`
				UpdatedUnix int64  `gorm:"not null;default:0;index"`
			}
			type IssueAssignee struct {
				ID         int64 `gorm:"primaryKey"`
				RepoID     int64 `gorm:"not null;index"`
				IssueID    int64 `gorm:"not null;uniqueIndex:idx_issue_assignees_issue_user,priority:1"`
				AssigneeID int64 `gorm:"not null;uniqueIndex:idx_issue_assignees_issue_user,priority:2;index"`
			}
			type Label struct {
				ID              int64  `gorm:"primaryKey"`
				RepoID          int64  `gorm:"not null;default:0;index"`
				OrgID           int64  `gorm:"not null;default:0;index"`
				Name            string `gorm:"size:255;not null;default:''"`
				Exclusive       bool   `gorm:"not null;default:false"`
				Description     string `gorm:"not null;default:''"`
				Color           string `gorm:"size:9;not null;default:''"`
				NumIssues       int    `gorm:"not null;default:0"`
				NumClosedIssues int    `gorm:"not null;default:0"`
				ArchivedUnix    int64  `gorm:"not null;default:0"`
				CreatedUnix     int64  `gorm:"not null;default:0"`
				UpdatedUnix     int64  `gorm:"not null;default:0"`
			}
			type IssueLabel struct {
				ID      int64 `gorm:"primaryKey"`
				RepoID  int64 `gorm:"not null;index"`
				IssueID int64 `gorm:"not null;uniqueIndex:idx_issue_labels_issue_label,priority:1"`
				LabelID int64 `gorm:"not null;uniqueIndex:idx_issue_labels_issue_label,priority:2;index"`
			}
			type Activity struct {
				ID          int64  `gorm:"primaryKey"`
				Kind        string `gorm:"size:32;not null"`
				RepoID      int64  `gorm:"not null;index"`
				IssueID     int64  `gorm:"not null;default:0"`
				CommentID   int64  `gorm:"not null;default:0"`
				ActorID     int64  `gorm:"not null;default:0"`
				CreatedUnix int64  `gorm:"not null;default:0"`
			}
			tables := []struct {
				name  string
				model any
			}{
				{"issues", &Issue{}}, {"issue_index", &IssueIndex{}}, {"comments", &Comment{}},
				{"issue_assignees", &IssueAssignee{}}, {"labels", &Label{}}, {"issue_labels", &IssueLabel{}},
				{"activities", &Activity{}},
			}
			for _, t := range tables {
				if err := tx.Table(t.name).Migrator().CreateTable(t.model); err != nil {
					return fmt.Errorf("create %s: %w", t.name, err)
				}
			}
			// open_issues_count and closed counts, kept by the issue writes.
			type Repository struct {
				NumIssues       int `gorm:"not null;default:0"`
				NumClosedIssues int `gorm:"not null;default:0"`
				NumPulls        int `gorm:"not null;default:0"`
				NumClosedPulls  int `gorm:"not null;default:0"`
			}
			for _, col := range []string{"NumIssues", "NumClosedIssues", "NumPulls", "NumClosedPulls"} {
				if err := tx.Table("repositories").Migrator().AddColumn(&Repository{}, col); err != nil {
					return fmt.Errorf("add repositories.%s: %w", col, err)
				}
			}
			return nil
		},
	},
	{
		// Who an issue's body or comments mention (@name), kept by the
		// issue writes: the mentioned_by filter and, later, notifications.
		ID: "0030_issue_mentions",
		Migrate: func(tx *gorm.DB) error {
			type IssueMention struct {
				ID      int64 `gorm:"primaryKey"`
				RepoID  int64 `gorm:"not null;index"`
				IssueID int64 `gorm:"not null;uniqueIndex:idx_issue_mentions_issue_user,priority:1"`
				UserID  int64 `gorm:"not null;uniqueIndex:idx_issue_mentions_issue_user,priority:2;index"`
			}
			return tx.Table("issue_mentions").Migrator().CreateTable(&IssueMention{})
		},
	},
	{
		// The settings of /user/settings that the users table did not
		// have yet.
		ID: "0060_user_settings",
		Migrate: func(tx *gorm.DB) error {
			type User struct {
				KeepEmailPrivate    bool   `gorm:"not null;default:false"`
				KeepActivityPrivate bool   `gorm:"not null;default:false"`
				Theme               string `gorm:"size:30;not null;default:''"`
				DiffViewStyle       string `gorm:"size:15;not null;default:''"`
			}
			for _, col := range []string{"KeepEmailPrivate", "KeepActivityPrivate", "Theme", "DiffViewStyle"} {
				if err := tx.Table("users").Migrator().AddColumn(&User{}, col); err != nil {
					return fmt.Errorf("add users.%s: %w", col, err)
				}
			}
			return nil
		},
	},
	{
		// Issue dependencies: issue_id depends on (is blocked by)
		// dependency_id; repo_id is the dependent issue's repository.
		ID: "0060_issue_dependencies",
		Migrate: func(tx *gorm.DB) error {
			type IssueDependency struct {
				ID           int64 `gorm:"primaryKey"`
				RepoID       int64 `gorm:"not null;index"`
				IssueID      int64 `gorm:"not null;uniqueIndex:idx_issue_dependencies_pair,priority:1"`
				DependencyID int64 `gorm:"not null;uniqueIndex:idx_issue_dependencies_pair,priority:2;index"`
				CreatedUnix  int64 `gorm:"not null;default:0"`
			}
			return tx.Table("issue_dependencies").Migrator().CreateTable(&IssueDependency{})
		},
	},
	{
		// Organizations and teams: teams of an organization, their
		// members, repositories and per-unit access, and the
		// organization membership (whether it is public). Organizations
		// themselves are rows of users; repo_admin_change_team_access is
		// their setting.
		ID: "0020_orgs_and_teams",
		Migrate: func(tx *gorm.DB) error {
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
		},
	},
	{
		// Attachments: release assets and issue and comment files. The
		// file lives in the blob store under uuid; the row is written after
		// the file and removed before it, and the sweep removes files
		// without a row (services/attachments).
		ID: "0050_attachments",
		Migrate: func(tx *gorm.DB) error {
			type Attachment struct {
				ID            int64  `gorm:"primaryKey"`
				UUID          string `gorm:"column:uuid;size:40;not null;uniqueIndex:idx_attachments_uuid"`
				RepoID        int64  `gorm:"not null;index"`
				IssueID       int64  `gorm:"not null;default:0;index"`
				CommentID     int64  `gorm:"not null;default:0;index"`
				ReleaseID     int64  `gorm:"not null;default:0;index"`
				UploaderID    int64  `gorm:"not null;default:0"`
				Name          string `gorm:"size:255;not null;default:''"`
				Size          int64  `gorm:"not null;default:0"`
				DownloadCount int64  `gorm:"not null;default:0"`
				CreatedUnix   int64  `gorm:"not null;default:0"`
			}
			return tx.Table("attachments").Migrator().CreateTable(&Attachment{})
		},
	},
	{
		// Notification threads: one per user and issue, moved back to
		// unread by later activity on the issue (the notifier's fan-out
		// upserts on the unique pair).
		ID: "0070_notifications",
		Migrate: func(tx *gorm.DB) error {
			type Notification struct {
				ID          int64 `gorm:"primaryKey"`
				UserID      int64 `gorm:"not null;uniqueIndex:idx_notifications_user_issue,priority:1;index:idx_notifications_user_updated,priority:1"`
				RepoID      int64 `gorm:"not null;index"`
				IssueID     int64 `gorm:"not null;uniqueIndex:idx_notifications_user_issue,priority:2;index"`
				CommentID   int64 `gorm:"not null;default:0"`
				Status      int   `gorm:"not null;default:1"`
				Source      int   `gorm:"not null;default:1"`
				UpdatedUnix int64 `gorm:"not null;default:0;index:idx_notifications_user_updated,priority:2"`
				CreatedUnix int64 `gorm:"not null;default:0"`
			}
			return tx.Table("notifications").Migrator().CreateTable(&Notification{})
		},
	},
}

// Migrate applies the pending migrations. Concurrent callers (several forge
// processes starting on one PostgreSQL) are serialised by an advisory lock.
func (s *Store) Migrate(ctx context.Context) error {
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if s.postgres {
			if err := tx.Exec("SELECT pg_advisory_xact_lock(4242001)").Error; err != nil {
				return err
			}
		}
		opts := *gormigrate.DefaultOptions
		opts.TableName = "schema_migrations"
		return gormigrate.New(tx, &opts, migrations).Migrate()
	})
	if err != nil {
		return err
	}
	return s.prepareHot(ctx)
}

// SchemaVersion names the latest migration, for caches keyed by schema
// (the test template database).
func SchemaVersion() string {
	id := migrations[len(migrations)-1].ID
	return strings.ToLower(id[:4]) + fmt.Sprintf("_%d", len(migrations))
}
