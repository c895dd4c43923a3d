package store

import (
	"context"
	"errors"
	"strings"
	"time"

	"gorm.io/gorm"
)

// EmailListOptions selects the e-mail addresses of the site
// administrator's lists (GET /admin/emails and /admin/emails/search).
type EmailListOptions struct {
	// Query, when set, keeps the addresses whose address, user name or
	// full name contains it, case-insensitively.
	Query  string
	Offset int
	Limit  int
}

// ListEmails returns a page of the individual users that have an e-mail
// address (one each, the primary), sorted by address, and how many
// match in all. It returns only driver errors.
func (s *Store) ListEmails(ctx context.Context, opts EmailListOptions) ([]User, int64, error) {
	q := s.db.WithContext(ctx).Model(&User{}).
		Where("type = ? AND lower_email IS NOT NULL AND lower_email <> ''", UserTypeIndividual)
	if opts.Query != "" {
		like := "%" + escapeLike(strings.ToLower(opts.Query)) + "%"
		q = q.Where("(lower_email LIKE ? ESCAPE '\\' OR lower_name LIKE ? ESCAPE '\\' OR LOWER(full_name) LIKE ? ESCAPE '\\')",
			like, like, like)
	}
	var total int64
	if err := q.Count(&total).Error; err != nil {
		return nil, 0, err
	}
	users := []User{}
	err := q.Order("lower_email, id").Offset(opts.Offset).Limit(opts.Limit).Find(&users).Error
	return users, total, err
}

// EmailAddress is a user's secondary e-mail address (the primary one is
// users.email).
type EmailAddress struct {
	ID          int64
	UID         int64 `gorm:"column:uid"`
	Email       string
	LowerEmail  string
	CreatedUnix int64
}

func (EmailAddress) TableName() string { return "email_addresses" }

// emailTaken reports whether lower is any account's primary address or a
// secondary address.
func emailTaken(tx *gorm.DB, lower string) (bool, error) {
	var n int64
	if err := tx.Model(&User{}).Where("lower_email = ?", lower).Count(&n).Error; err != nil || n > 0 {
		return n > 0, err
	}
	err := tx.Model(&EmailAddress{}).Where("lower_email = ?", lower).Count(&n).Error
	return n > 0, err
}

// AddEmailAddresses gives user uid the secondary addresses emails, all or
// none. It returns ErrEmailUsed, with the address, when one is already an
// account's address (or named twice).
func (s *Store) AddEmailAddresses(ctx context.Context, uid int64, emails []string) (string, error) {
	var used string
	now := time.Now().Unix()
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var u User
		if err := s.forUpdate(tx).Select("id").Where("id = ?", uid).Take(&u).Error; err != nil {
			return notFound(err)
		}
		for _, e := range emails {
			lower := strings.ToLower(e)
			taken, err := emailTaken(tx, lower)
			if err != nil {
				return err
			}
			if taken {
				used = e
				return ErrEmailUsed
			}
			if err := tx.Create(&EmailAddress{UID: uid, Email: e, LowerEmail: lower, CreatedUnix: now}).Error; err != nil {
				if errors.Is(err, gorm.ErrDuplicatedKey) {
					used = e
					return ErrEmailUsed
				}
				return err
			}
		}
		return nil
	})
	return used, err
}

// SecondaryEmails lists a user's secondary addresses, oldest first.
func (s *Store) SecondaryEmails(ctx context.Context, uid int64) ([]EmailAddress, error) {
	var out []EmailAddress
	err := s.db.WithContext(ctx).Where("uid = ?", uid).Order("id").Find(&out).Error
	return out, err
}

// DeleteEmailAddresses removes user uid's secondary addresses emails, all
// or none. It returns ErrNotFound, with the address, when one is not a
// secondary address of the user.
func (s *Store) DeleteEmailAddresses(ctx context.Context, uid int64, emails []string) (string, error) {
	var missing string
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		for _, e := range emails {
			res := tx.Where("uid = ? AND lower_email = ?", uid, strings.ToLower(e)).Delete(&EmailAddress{})
			if res.Error != nil {
				return res.Error
			}
			if res.RowsAffected == 0 {
				missing = e
				return ErrNotFound
			}
		}
		return nil
	})
	return missing, err
}
