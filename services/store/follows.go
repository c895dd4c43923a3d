package store

import (
	"context"
	"errors"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// Follow records that a user (UserID) follows another (FollowID).
type Follow struct {
	ID          int64
	UserID      int64
	FollowID    int64
	CreatedUnix int64
}

func (Follow) TableName() string { return "follows" }

// FollowUser makes userID follow followID; following twice is a no-op,
// and so is following oneself (as Gitea).
func (s *Store) FollowUser(ctx context.Context, userID, followID int64) error {
	if userID == followID {
		return nil
	}
	f := Follow{UserID: userID, FollowID: followID, CreatedUnix: time.Now().Unix()}
	return s.db.WithContext(ctx).Clauses(clause.OnConflict{DoNothing: true}).Create(&f).Error
}

// UnfollowUser stops userID following followID; a no-op if they did not.
func (s *Store) UnfollowUser(ctx context.Context, userID, followID int64) error {
	return s.db.WithContext(ctx).Where("user_id = ? AND follow_id = ?", userID, followID).Delete(&Follow{}).Error
}

// IsFollowing reports whether userID follows followID.
func (s *Store) IsFollowing(ctx context.Context, userID, followID int64) (bool, error) {
	var f Follow
	err := s.db.WithContext(ctx).Select("id").Where("user_id = ? AND follow_id = ?", userID, followID).Take(&f).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return false, nil
	}
	return err == nil, err
}

// ListFollowers returns a page of the users following userID that visible
// shows, in the order they followed, and how many there are.
func (s *Store) ListFollowers(ctx context.Context, userID int64, visible UserFilter, offset, limit int) ([]User, int64, error) {
	return s.listFollows(ctx, "follows.user_id", "follows.follow_id", userID, visible, offset, limit)
}

// ListFollowing returns a page of the users userID follows that visible
// shows, in the order they were followed, and how many there are.
func (s *Store) ListFollowing(ctx context.Context, userID int64, visible UserFilter, offset, limit int) ([]User, int64, error) {
	return s.listFollows(ctx, "follows.follow_id", "follows.user_id", userID, visible, offset, limit)
}

// listFollows lists the users in column listed of the follows whose
// column by is userID.
func (s *Store) listFollows(ctx context.Context, listed, by string, userID int64, visible UserFilter, offset, limit int) ([]User, int64, error) {
	q := s.db.WithContext(ctx).Table("users").
		Joins("JOIN follows ON "+listed+" = users.id").
		Where(by+" = ?", userID)
	if ids := s.visibleUserIDs(visible); ids != nil {
		q = q.Where("users.id IN (?)", ids)
	}
	var total int64
	if err := q.Count(&total).Error; err != nil {
		return nil, 0, err
	}
	users := []User{}
	err := q.Select("users.*").Order("follows.id").Offset(offset).Limit(limit).Find(&users).Error
	return users, total, err
}

// SocialCounts is how many users follow a user, how many they follow
// and how many repositories they starred (Gitea's followers_count,
// following_count and starred_repos_count).
type SocialCounts struct {
	Followers, Following, Stars int64
}

// UserSocialCounts counts them for one user in one statement, prepared
// once (hot.go): GET /user runs it on every call.
func (s *Store) UserSocialCounts(ctx context.Context, userID int64) (SocialCounts, error) {
	var c SocialCounts
	stmt, err := s.socialStatement(ctx)
	if err != nil {
		return c, err
	}
	err = stmt.QueryRowContext(ctx, userID, userID, userID).Scan(&c.Followers, &c.Following, &c.Stars)
	return c, err
}

// SocialCountsOf counts them for a page of users in one statement; ids
// that name no user are absent.
func (s *Store) SocialCountsOf(ctx context.Context, ids []int64) (map[int64]SocialCounts, error) {
	out := make(map[int64]SocialCounts, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	rows, err := s.db.WithContext(ctx).Raw(`SELECT u.id,
		(SELECT COUNT(*) FROM follows WHERE follow_id = u.id),
		(SELECT COUNT(*) FROM follows WHERE user_id = u.id),
		(SELECT COUNT(*) FROM stars WHERE user_id = u.id)
		FROM users u WHERE u.id IN ?`, ids).Rows()
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var c SocialCounts
		if err := rows.Scan(&id, &c.Followers, &c.Following, &c.Stars); err != nil {
			return nil, err
		}
		out[id] = c
	}
	return out, rows.Err()
}
