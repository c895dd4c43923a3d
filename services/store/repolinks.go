package store

import (
	"context"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// repoLink is a user's link to a repository that the repository counts:
// a watch (repositories.num_watches) or a star (num_stars). The row is
// inserted or deleted and the counter moved in the same transaction, and
// only when the row really changed, so concurrent calls for the same user
// and repository count once.
type repoLink struct {
	table   string // watches, stars: user_id, repo_id, created_unix
	counter string // the repositories column that counts the rows
}

var (
	watchLink = repoLink{table: "watches", counter: "num_watches"}
	starLink  = repoLink{table: "stars", counter: "num_stars"}
)

// add links the user to the repository. It reports whether the link is
// new; adding it twice is a no-op. ErrNotFound if the repository does not
// exist.
func (l repoLink) add(ctx context.Context, db *gorm.DB, userID, repoID int64) (bool, error) {
	added := false
	err := db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		row := map[string]any{"user_id": userID, "repo_id": repoID, "created_unix": time.Now().Unix()}
		res := tx.Table(l.table).Clauses(clause.OnConflict{DoNothing: true}).Create(row)
		if res.Error != nil || res.RowsAffected == 0 {
			return res.Error
		}
		res = tx.Model(&Repository{}).Where("id = ?", repoID).Update(l.counter, gorm.Expr(l.counter+" + 1"))
		if res.Error != nil {
			return res.Error
		}
		if res.RowsAffected == 0 {
			return ErrNotFound // rolls the row back
		}
		added = true
		return nil
	})
	return added, err
}

// remove unlinks the user from the repository. It reports whether there
// was a link; removing it twice is a no-op.
func (l repoLink) remove(ctx context.Context, db *gorm.DB, userID, repoID int64) (bool, error) {
	removed := false
	err := db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		res := tx.Exec("DELETE FROM "+l.table+" WHERE user_id = ? AND repo_id = ?", userID, repoID)
		if res.Error != nil || res.RowsAffected == 0 {
			return res.Error
		}
		removed = true
		return tx.Model(&Repository{}).Where("id = ? AND "+l.counter+" > 0", repoID).
			Update(l.counter, gorm.Expr(l.counter+" - 1")).Error
	})
	return removed, err
}

// has reports whether the user is linked to the repository.
func (l repoLink) has(ctx context.Context, db *gorm.DB, userID, repoID int64) (bool, error) {
	var ids []int64
	err := db.WithContext(ctx).Table(l.table).Where("user_id = ? AND repo_id = ?", userID, repoID).Limit(1).Pluck("id", &ids).Error
	return len(ids) > 0, err
}

// users returns a page of the users linked to a repository that visible
// shows, in the order they linked, and how many there are.
func (l repoLink) users(ctx context.Context, s *Store, repoID int64, visible UserFilter, offset, limit int) ([]User, int64, error) {
	q := s.db.WithContext(ctx).Table("users").
		Joins("JOIN "+l.table+" ON "+l.table+".user_id = users.id").
		Where(l.table+".repo_id = ?", repoID)
	if ids := s.visibleUserIDs(visible); ids != nil {
		q = q.Where("users.id IN (?)", ids)
	}
	var total int64
	if err := q.Count(&total).Error; err != nil {
		return nil, 0, err
	}
	users := []User{}
	err := q.Select("users.*").Order(l.table + ".id").Offset(offset).Limit(limit).Find(&users).Error
	return users, total, err
}

// repositories returns a page of the repositories o.UserID is linked to
// that the viewer can see, by repository name, and how many there are.
func (l repoLink) repositories(ctx context.Context, s *Store, o WatchedListOptions) ([]Repository, int64, error) {
	q := s.db.WithContext(ctx).Model(&Repository{}).
		Joins("JOIN "+l.table+" ON "+l.table+".repo_id = repositories.id").
		Where(l.table+".user_id = ?", o.UserID)
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
