package store

import (
	"context"
	"errors"
	"strings"
	"time"

	"gorm.io/gorm"
)

// CreateUser inserts u, filling ID and the lower-case columns. Returns
// ErrUserExists or ErrEmailUsed on conflicts.
func (s *Store) CreateUser(ctx context.Context, u *User) error {
	u.LowerName = strings.ToLower(u.Name)
	u.LowerEmail = lowerEmail(u.Email)
	now := time.Now().Unix()
	if u.CreatedUnix == 0 {
		u.CreatedUnix = now
	}
	u.UpdatedUnix = now
	return s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if err := checkUnique(tx, u); err != nil {
			return err
		}
		if err := tx.Create(u).Error; err != nil {
			if errors.Is(err, gorm.ErrDuplicatedKey) {
				return checkUniqueOr(tx, u, ErrUserExists)
			}
			return err
		}
		return nil
	})
}

// checkUnique reports which unique rule u breaks, if any. The unique indexes
// are the real guard; this only names the conflict.
func checkUnique(tx *gorm.DB, u *User) error {
	var n int64
	if err := tx.Model(&User{}).Where("lower_name = ? AND id <> ?", u.LowerName, u.ID).Count(&n).Error; err != nil {
		return err
	}
	if n > 0 {
		return ErrUserExists
	}
	if u.LowerEmail != nil {
		if err := tx.Model(&User{}).Where("lower_email = ? AND id <> ?", *u.LowerEmail, u.ID).Count(&n).Error; err != nil {
			return err
		}
		if n > 0 {
			return ErrEmailUsed
		}
		// A secondary address of another account (of the account
		// itself: it becomes the primary one, and stays listed).
		if err := tx.Model(&EmailAddress{}).Where("lower_email = ? AND uid <> ?", *u.LowerEmail, u.ID).Count(&n).Error; err != nil {
			return err
		}
		if n > 0 {
			return ErrEmailUsed
		}
	}
	return nil
}

func checkUniqueOr(tx *gorm.DB, u *User, fallback error) error {
	if err := checkUnique(tx, u); err != nil {
		return err
	}
	return fallback
}

func lowerEmail(email string) *string {
	if email == "" {
		return nil
	}
	l := strings.ToLower(email)
	return &l
}

// UserByName finds a user or organization by name, case-insensitively.
func (s *Store) UserByName(ctx context.Context, name string) (*User, error) {
	var u User
	err := s.db.WithContext(ctx).Where("lower_name = ?", strings.ToLower(name)).Take(&u).Error
	if err != nil {
		return nil, notFound(err)
	}
	return &u, nil
}

// UserByID finds a user or organization by id.
func (s *Store) UserByID(ctx context.Context, id int64) (*User, error) {
	var u User
	if err := s.db.WithContext(ctx).Where("id = ?", id).Take(&u).Error; err != nil {
		return nil, notFound(err)
	}
	return &u, nil
}

// ListUsersOptions filters ListUsers. Zero values match everything.
type ListUsersOptions struct {
	SourceID  int64
	LoginName string
	// Query is a case-insensitive substring of the name or full name.
	Query string
	// EmailOf, when set, makes Query match e-mail addresses too (Gitea's
	// user search): every address for a site administrator, else the
	// public ones and the viewer's own.
	EmailOf *UserFilter
	UID     int64
	// Visible, when non-nil, keeps only the accounts it shows.
	Visible *UserFilter
	Offset  int
	Limit   int
}

// ListUsers returns a page of individual users sorted by name, and the
// total number that match.
func (s *Store) ListUsers(ctx context.Context, opts ListUsersOptions) ([]User, int64, error) {
	q := s.db.WithContext(ctx).Model(&User{}).Where("type = ?", UserTypeIndividual)
	if opts.SourceID != 0 {
		q = q.Where("login_source = ?", opts.SourceID)
	}
	if opts.LoginName != "" {
		q = q.Where("login_name = ?", opts.LoginName)
	}
	if opts.UID != 0 {
		q = q.Where("id = ?", opts.UID)
	}
	if opts.Visible != nil {
		if ids := s.visibleUserIDs(*opts.Visible); ids != nil {
			q = q.Where("users.id IN (?)", ids)
		}
	}
	if opts.Query != "" {
		like := "%" + escapeLike(strings.ToLower(opts.Query)) + "%"
		match := "lower_name LIKE ? ESCAPE '\\' OR LOWER(full_name) LIKE ? ESCAPE '\\'"
		args := []any{like, like}
		if f := opts.EmailOf; f != nil {
			switch {
			case f.All:
				match += " OR LOWER(email) LIKE ? ESCAPE '\\'"
				args = append(args, like)
			default:
				match += " OR (LOWER(email) LIKE ? ESCAPE '\\' AND (keep_email_private = ? OR users.id = ?))"
				args = append(args, like, false, f.ViewerID)
			}
		}
		q = q.Where("("+match+")", args...)
	}
	var total int64
	if err := q.Count(&total).Error; err != nil {
		return nil, 0, err
	}
	users := []User{}
	err := q.Order("lower_name").Offset(opts.Offset).Limit(opts.Limit).Find(&users).Error
	return users, total, err
}

func escapeLike(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}

// UpdateUser loads the user named name, applies change and saves it, in one
// transaction. It returns ErrLastAdmin, without saving, when the change
// would leave no active site administrator, and ErrUserExists/ErrEmailUsed
// on conflicts.
func (s *Store) UpdateUser(ctx context.Context, name string, change func(u *User) error) (*User, error) {
	var out User
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var u User
		if err := s.forUpdate(tx).Where("lower_name = ?", strings.ToLower(name)).Take(&u).Error; err != nil {
			return notFound(err)
		}
		wasActiveAdmin := u.IsAdmin && u.IsActive
		if err := change(&u); err != nil {
			return err
		}
		if wasActiveAdmin && !(u.IsAdmin && u.IsActive) {
			if err := s.ensureOtherActiveAdmin(tx, u.ID); err != nil {
				return err
			}
		}
		u.LowerName = strings.ToLower(u.Name)
		u.LowerEmail = lowerEmail(u.Email)
		if u.Type == UserTypeOrganization {
			// An organization's e-mail is shown, never unique nor used
			// to sign in (CreateOrganization).
			u.LowerEmail = nil
		}
		u.UpdatedUnix = time.Now().Unix()
		u.Version++
		if err := checkUnique(tx, &u); err != nil {
			return err
		}
		if err := tx.Save(&u).Error; err != nil {
			if errors.Is(err, gorm.ErrDuplicatedKey) {
				return checkUniqueOr(tx, &u, ErrEmailUsed)
			}
			return err
		}
		out = u
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &out, nil
}

// ensureOtherActiveAdmin fails with ErrLastAdmin unless an active admin
// other than id exists. On PostgreSQL it locks those rows, so two
// concurrent demotions cannot both see the other as remaining.
func (s *Store) ensureOtherActiveAdmin(tx *gorm.DB, id int64) error {
	// Changes that may remove an active administrator are serialised by
	// one transaction-scoped advisory lock on PostgreSQL, and the count
	// then reads committed rows without locking them: locking the other
	// administrators' rows instead deadlocks two concurrent demotions
	// (each holds its own row and waits for the other's). SQLite has one
	// writer at a time.
	if s.postgres {
		if err := tx.Exec("SELECT pg_advisory_xact_lock(?)", adminChangeLock).Error; err != nil {
			return err
		}
	}
	var ids []int64
	err := tx.Model(&User{}).
		Where("is_admin = ? AND is_active = ? AND type = ? AND id <> ?", true, true, UserTypeIndividual, id).
		Limit(1).Pluck("id", &ids).Error
	if err != nil {
		return err
	}
	if len(ids) == 0 {
		return ErrLastAdmin
	}
	return nil
}

// adminChangeLock is the advisory lock key of ensureOtherActiveAdmin
// (migrations use 4242001).
const adminChangeLock = 4242002

// DeleteUser deletes an individual user with the rows of every table the
// areas declare as owned by a user (Own): tokens, collaborations, watches.
// check runs inside the transaction on the loaded user and may veto the
// deletion. Returns ErrLastAdmin for the last active administrator.
func (s *Store) DeleteUser(ctx context.Context, name string, check func(u *User) error) error {
	if s.owned == nil {
		return errUndeclared
	}
	return s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var u User
		if err := s.forUpdate(tx).Where("lower_name = ?", strings.ToLower(name)).Take(&u).Error; err != nil {
			return notFound(err)
		}
		if check != nil {
			if err := check(&u); err != nil {
				return err
			}
		}
		if u.IsAdmin && u.IsActive {
			if err := s.ensureOtherActiveAdmin(tx, u.ID); err != nil {
				return err
			}
		}
		// The counters of the repositories the user watches or starred drop before
		// the watches and stars go with the other owned rows.
		watched := tx.Model(&Watch{}).Select("repo_id").Where("user_id = ?", u.ID)
		if err := tx.Model(&Repository{}).Where("id IN (?) AND num_watches > 0", watched).
			Update("num_watches", gorm.Expr("num_watches - 1")).Error; err != nil {
			return err
		}
		starred := tx.Model(&Star{}).Select("repo_id").Where("user_id = ?", u.ID)
		if err := tx.Model(&Repository{}).Where("id IN (?) AND num_stars > 0", starred).
			Update("num_stars", gorm.Expr("num_stars - 1")).Error; err != nil {
			return err
		}
		// The last owner of an organization cannot go: the organization
		// would be left without anyone to manage it. The Owners teams
		// are locked first (lockOwnersTeam), as for a member removal.
		var orgs []int64
		if err := tx.Model(&TeamUser{}).Where("uid = ?", u.ID).Distinct().Pluck("org_id", &orgs).Error; err != nil {
			return err
		}
		var teams []int64
		if err := tx.Model(&TeamUser{}).Where("uid = ?", u.ID).Pluck("team_id", &teams).Error; err != nil {
			return err
		}
		for _, org := range orgs {
			owners, err := s.lockOwnersTeam(tx, org)
			if err != nil {
				return err
			}
			if err := ensureNotLastOwner(tx, owners.ID, u.ID); err != nil {
				return err
			}
		}
		if err := deleteOwned(tx, s.owned.User, u.ID); err != nil {
			return err
		}
		for _, id := range teams {
			if err := recountTeam(tx, id); err != nil {
				return err
			}
		}
		return tx.Delete(&User{}, u.ID).Error
	})
}

// UsersByEmails returns the individual users whose e-mail is one of emails
// (case-insensitively), keyed by lower-case e-mail.
func (s *Store) UsersByEmails(ctx context.Context, emails []string) (map[string]*User, error) {
	lower := make([]string, len(emails))
	for i, e := range emails {
		lower[i] = strings.ToLower(e)
	}
	users, err := s.cachedUsers(ctx, s.db.WithContext(ctx).Table("users").
		Where("lower_email IN ? AND type = ?", lower, UserTypeIndividual))
	if err != nil {
		return nil, err
	}
	out := make(map[string]*User, len(users))
	for _, u := range users {
		if u.LowerEmail != nil {
			out[*u.LowerEmail] = u
		}
	}
	return out, nil
}

// ClaimTOTPStep records step as user id's last accepted TOTP time step if
// it is later than the one recorded, in one conditional UPDATE, so two
// processes cannot both accept the same code. It reports false when that
// step (or a later one) was already accepted: the code is spent.
func (s *Store) ClaimTOTPStep(ctx context.Context, id, step int64) (bool, error) {
	res := s.db.WithContext(ctx).Exec("UPDATE users SET totp_last_step = ? WHERE id = ? AND totp_last_step < ?", step, id, step)
	if res.Error != nil {
		return false, res.Error
	}
	return res.RowsAffected == 1, nil
}

// SetMustChangePassword sets the must-change-password flag to value on the
// individual accounts named (lower-cased names), or on all of them when
// all is set, less those excluded, in one statement, and returns how many
// accounts changed (those already at value are left alone). Each changed
// row's version moves, so caches of it expire.
func (s *Store) SetMustChangePassword(ctx context.Context, all bool, names, exclude []string, value bool) (int64, error) {
	lower := func(in []string) []string {
		out := make([]string, len(in))
		for i, n := range in {
			out[i] = strings.ToLower(n)
		}
		return out
	}
	q := s.db.WithContext(ctx).Model(&User{}).Where("type = ? AND must_change_password <> ?", UserTypeIndividual, value)
	if !all {
		q = q.Where("lower_name IN ?", lower(names))
	}
	if len(exclude) > 0 {
		q = q.Where("lower_name NOT IN ?", lower(exclude))
	}
	res := q.Updates(map[string]any{"must_change_password": value, "version": gorm.Expr("version + 1"), "updated_unix": time.Now().Unix()})
	return res.RowsAffected, res.Error
}
