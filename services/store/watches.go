package store

import (
	"context"
	"errors"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// Watching keeps repositories.num_watches equal to the number of watch
// rows: the row is inserted or deleted and the counter moved in the same
// transaction, and only when the row really changed, so concurrent calls
// for the same user and repository count once.

// Watch makes a user watch a repository. It reports whether the user was
// not watching before; watching twice is a no-op. ErrNotFound if the
// repository does not exist.
func (s *Store) Watch(ctx context.Context, userID, repoID int64) (bool, error) {
	added := false
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		w := Watch{UserID: userID, RepoID: repoID, CreatedUnix: time.Now().Unix()}
		res := tx.Clauses(clause.OnConflict{DoNothing: true}).Create(&w)
		if res.Error != nil || res.RowsAffected == 0 {
			return res.Error
		}
		res = tx.Model(&Repository{}).Where("id = ?", repoID).Update("num_watches", gorm.Expr("num_watches + 1"))
		if res.Error != nil {
			return res.Error
		}
		if res.RowsAffected == 0 {
			return ErrNotFound // rolls the watch row back
		}
		added = true
		return nil
	})
	return added, err
}

// Unwatch stops a user watching a repository. It reports whether the user
// was watching; unwatching twice is a no-op.
func (s *Store) Unwatch(ctx context.Context, userID, repoID int64) (bool, error) {
	removed := false
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		res := tx.Where("user_id = ? AND repo_id = ?", userID, repoID).Delete(&Watch{})
		if res.Error != nil || res.RowsAffected == 0 {
			return res.Error
		}
		removed = true
		return tx.Model(&Repository{}).Where("id = ? AND num_watches > 0", repoID).
			Update("num_watches", gorm.Expr("num_watches - 1")).Error
	})
	return removed, err
}

// IsWatching reports whether a user watches a repository.
func (s *Store) IsWatching(ctx context.Context, userID, repoID int64) (bool, error) {
	var w Watch
	err := s.db.WithContext(ctx).Select("id").Where("user_id = ? AND repo_id = ?", userID, repoID).Take(&w).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return false, nil
	}
	return err == nil, err
}

// ListWatchers returns a page of the users watching a repository that
// visible shows, in the order they started watching, and how many there
// are.
func (s *Store) ListWatchers(ctx context.Context, repoID int64, visible UserFilter, offset, limit int) ([]User, int64, error) {
	q := s.db.WithContext(ctx).Table("users").
		Joins("JOIN watches ON watches.user_id = users.id").
		Where("watches.repo_id = ?", repoID)
	if ids := s.visibleUserIDs(visible); ids != nil {
		q = q.Where("users.id IN (?)", ids)
	}
	var total int64
	if err := q.Count(&total).Error; err != nil {
		return nil, 0, err
	}
	users := []User{}
	err := q.Select("users.*").Order("watches.id").Offset(offset).Limit(limit).Find(&users).Error
	return users, total, err
}

// WatchedListOptions selects the repositories a user watches, as a viewer
// may see them.
type WatchedListOptions struct {
	UserID int64 // the watcher
	// RepoFilter applies the visibility rules of repository access.
	RepoFilter
	Offset int
	Limit  int
}

// ListWatchedRepositories returns a page of the repositories a user
// watches that the viewer can see, by repository name, and how many there
// are.
func (s *Store) ListWatchedRepositories(ctx context.Context, o WatchedListOptions) ([]Repository, int64, error) {
	q := s.db.WithContext(ctx).Model(&Repository{}).
		Joins("JOIN watches ON watches.repo_id = repositories.id").
		Where("watches.user_id = ?", o.UserID)
	q = s.applyRepoFilter(q, o.RepoFilter)
	var total int64
	if err := q.Count(&total).Error; err != nil {
		return nil, 0, err
	}
	repos := []Repository{}
	err := q.Select("repositories.*").Order("repositories.lower_name").Order("repositories.id").
		Offset(o.Offset).Limit(o.Limit).Find(&repos).Error
	return repos, total, err
}
