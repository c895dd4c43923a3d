package store

import (
	"context"
	"time"

	"gorm.io/gorm"

	"forge/services/errs"
)

// ErrTagProtectionExists: the repository already has a tag protection
// with that name pattern (Gitea answers 403, see rpcerr).
var ErrTagProtectionExists = errs.New(errs.AlreadyExists, "Tag protection already exist")

// TagProtection is a tag protection rule of a repository: the tags its
// NamePattern matches may be created, moved or deleted only by the
// whitelisted users and teams (ids).
type TagProtection struct {
	ID               int64 `gorm:"primaryKey"`
	RepoID           int64
	NamePattern      string
	WhitelistUserIDs IDList `gorm:"column:whitelist_user_ids"`
	WhitelistTeamIDs IDList `gorm:"column:whitelist_team_ids"`
	CreatedUnix      int64
	UpdatedUnix      int64
}

// TableName is the rules' table.
func (TagProtection) TableName() string { return "tag_protections" }

// TagProtections returns the rules of a repository in creation order.
func (s *Store) TagProtections(ctx context.Context, repoID int64) ([]TagProtection, error) {
	var out []TagProtection
	err := s.db.WithContext(ctx).Where("repo_id = ?", repoID).Order("id").Find(&out).Error
	return out, err
}

// TagProtectionByID returns a rule of the repository; ErrNotFound when it
// has none with that id.
func (s *Store) TagProtectionByID(ctx context.Context, repoID, id int64) (*TagProtection, error) {
	var p TagProtection
	if err := s.db.WithContext(ctx).Where("id = ? AND repo_id = ?", id, repoID).Take(&p).Error; err != nil {
		return nil, notFound(err)
	}
	return &p, nil
}

// CreateTagProtection stores a new rule, setting its id and times;
// ErrTagProtectionExists when the repository has a rule with the same
// pattern. Rules are created under the repository's row lock, so two
// concurrent creations of one pattern cannot both succeed.
func (s *Store) CreateTagProtection(ctx context.Context, p *TagProtection) error {
	now := time.Now().Unix()
	p.ID, p.CreatedUnix, p.UpdatedUnix = 0, now, now
	fillTagIDLists(p)
	return s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var ids []int64
		if err := s.forUpdate(tx.Model(&Repository{})).Where("id = ?", p.RepoID).Pluck("id", &ids).Error; err != nil {
			return err
		}
		if len(ids) == 0 {
			return ErrNotFound
		}
		var n int64
		if err := tx.Model(&TagProtection{}).Where("repo_id = ? AND name_pattern = ?", p.RepoID, p.NamePattern).Count(&n).Error; err != nil {
			return err
		}
		if n > 0 {
			return ErrTagProtectionExists
		}
		return tx.Create(p).Error
	})
}

// UpdateTagProtection writes the pattern and whitelists of an existing
// rule (by id) and its update time; ErrNotFound when it is gone.
func (s *Store) UpdateTagProtection(ctx context.Context, p *TagProtection) error {
	p.UpdatedUnix = time.Now().Unix()
	fillTagIDLists(p)
	res := s.db.WithContext(ctx).Model(&TagProtection{}).Where("id = ? AND repo_id = ?", p.ID, p.RepoID).
		Updates(map[string]any{"name_pattern": p.NamePattern, "whitelist_user_ids": p.WhitelistUserIDs,
			"whitelist_team_ids": p.WhitelistTeamIDs, "updated_unix": p.UpdatedUnix})
	if res.Error != nil {
		return res.Error
	}
	if res.RowsAffected == 0 {
		return ErrNotFound
	}
	return nil
}

// DeleteTagProtection removes a rule of the repository; ErrNotFound when
// there is none with that id.
func (s *Store) DeleteTagProtection(ctx context.Context, repoID, id int64) error {
	res := s.db.WithContext(ctx).Where("id = ? AND repo_id = ?", id, repoID).Delete(&TagProtection{})
	if res.Error != nil {
		return res.Error
	}
	if res.RowsAffected == 0 {
		return ErrNotFound
	}
	return nil
}

func fillTagIDLists(p *TagProtection) {
	for _, l := range []*IDList{&p.WhitelistUserIDs, &p.WhitelistTeamIDs} {
		if *l == "" {
			*l = "[]"
		}
	}
}
