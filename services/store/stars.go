package store

import (
	"context"
	"errors"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// Starring keeps repositories.num_stars equal to the number of star rows,
// as watching keeps num_watches: the row and the counter change in one
// transaction, and the counter only when the row really changed, so
// concurrent calls for the same user and repository count once.

// Star makes a user star a repository. It reports whether the user had
// not starred it before; starring twice is a no-op. ErrNotFound if the
// repository does not exist.
func (s *Store) Star(ctx context.Context, userID, repoID int64) (bool, error) {
	added := false
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		st := Star{UserID: userID, RepoID: repoID, CreatedUnix: time.Now().Unix()}
		res := tx.Clauses(clause.OnConflict{DoNothing: true}).Create(&st)
		if res.Error != nil || res.RowsAffected == 0 {
			return res.Error
		}
		res = tx.Model(&Repository{}).Where("id = ?", repoID).Update("num_stars", gorm.Expr("num_stars + 1"))
		if res.Error != nil {
			return res.Error
		}
		if res.RowsAffected == 0 {
			return ErrNotFound // rolls the star row back
		}
		added = true
		return nil
	})
	return added, err
}

// Unstar removes a user's star from a repository. It reports whether the
// user had starred it; unstarring twice is a no-op.
func (s *Store) Unstar(ctx context.Context, userID, repoID int64) (bool, error) {
	removed := false
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		res := tx.Where("user_id = ? AND repo_id = ?", userID, repoID).Delete(&Star{})
		if res.Error != nil || res.RowsAffected == 0 {
			return res.Error
		}
		removed = true
		return tx.Model(&Repository{}).Where("id = ? AND num_stars > 0", repoID).
			Update("num_stars", gorm.Expr("num_stars - 1")).Error
	})
	return removed, err
}

// IsStarring reports whether a user starred a repository.
func (s *Store) IsStarring(ctx context.Context, userID, repoID int64) (bool, error) {
	var st Star
	err := s.db.WithContext(ctx).Select("id").Where("user_id = ? AND repo_id = ?", userID, repoID).Take(&st).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return false, nil
	}
	return err == nil, err
}

// ListStargazers returns a page of the users who starred a repository
// that visible shows, in the order they starred it, and how many there
// are.
func (s *Store) ListStargazers(ctx context.Context, repoID int64, visible UserFilter, offset, limit int) ([]User, int64, error) {
	q := s.db.WithContext(ctx).Table("users").
		Joins("JOIN stars ON stars.user_id = users.id").
		Where("stars.repo_id = ?", repoID)
	if ids := s.visibleUserIDs(visible); ids != nil {
		q = q.Where("users.id IN (?)", ids)
	}
	var total int64
	if err := q.Count(&total).Error; err != nil {
		return nil, 0, err
	}
	users := []User{}
	err := q.Select("users.*").Order("stars.id").Offset(offset).Limit(limit).Find(&users).Error
	return users, total, err
}

// ListStarredRepositories returns a page of the repositories a user
// (o.UserID) starred that the viewer can see, by repository name, and how
// many there are.
func (s *Store) ListStarredRepositories(ctx context.Context, o WatchedListOptions) ([]Repository, int64, error) {
	q := s.db.WithContext(ctx).Model(&Repository{}).
		Joins("JOIN stars ON stars.repo_id = repositories.id").
		Where("stars.user_id = ?", o.UserID)
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
