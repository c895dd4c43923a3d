package store

import (
	"context"
	"errors"
	"time"

	"gorm.io/gorm"
)

// CreateAccessToken inserts t. Returns ErrTokenNameUsed when the user
// already has a token of that name.
func (s *Store) CreateAccessToken(ctx context.Context, t *AccessToken) error {
	now := time.Now().Unix()
	t.CreatedUnix, t.UpdatedUnix = now, now
	err := s.db.WithContext(ctx).Create(t).Error
	if errors.Is(err, gorm.ErrDuplicatedKey) {
		var n int64
		if s.db.WithContext(ctx).Model(&AccessToken{}).Where("uid = ? AND name = ?", t.UID, t.Name).Count(&n); n > 0 {
			return ErrTokenNameUsed
		}
	}
	return err
}

// ListAccessTokens returns a page of the user's tokens, oldest first, and
// their total number.
func (s *Store) ListAccessTokens(ctx context.Context, uid int64, offset, limit int) ([]AccessToken, int64, error) {
	q := s.db.WithContext(ctx).Model(&AccessToken{}).Where("uid = ?", uid)
	var total int64
	if err := q.Count(&total).Error; err != nil {
		return nil, 0, err
	}
	tokens := []AccessToken{}
	err := q.Order("id").Offset(offset).Limit(limit).Find(&tokens).Error
	return tokens, total, err
}

// AccessTokensByName returns the user's tokens with that name.
func (s *Store) AccessTokensByName(ctx context.Context, uid int64, name string) ([]AccessToken, error) {
	var tokens []AccessToken
	err := s.db.WithContext(ctx).Where("uid = ? AND name = ?", uid, name).Order("id").Find(&tokens).Error
	return tokens, err
}

// DeleteAccessToken deletes the user's token with that id. Returns
// ErrNotFound when the user has no such token (including another user's).
func (s *Store) DeleteAccessToken(ctx context.Context, uid, id int64) error {
	res := s.db.WithContext(ctx).Where("id = ? AND uid = ?", id, uid).Delete(&AccessToken{})
	if res.Error != nil {
		return res.Error
	}
	if res.RowsAffected == 0 {
		return ErrNotFound
	}
	return nil
}

// TouchAccessTokens records last-use times (token id → unix seconds) in one
// transaction; it never moves a time backwards.
func (s *Store) TouchAccessTokens(ctx context.Context, used map[int64]int64) error {
	if len(used) == 0 {
		return nil
	}
	return s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		for id, at := range used {
			err := tx.Model(&AccessToken{}).Where("id = ? AND last_used_unix < ?", id, at).
				Update("last_used_unix", at).Error
			if err != nil {
				return err
			}
		}
		return nil
	})
}
