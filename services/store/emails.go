package store

import (
	"context"
	"strings"
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
