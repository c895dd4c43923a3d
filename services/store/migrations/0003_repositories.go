package migrations

import (
	"fmt"

	"gorm.io/gorm"
)

// Step0003_repositories creates repositories and what the repository
// area keeps about them: collaborators, branch records, releases,
// watches, pull and push mirrors.
func (History) Step0003_repositories(tx *gorm.DB) error {
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
}
