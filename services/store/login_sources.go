package store

import (
	"context"
	"errors"
	"time"

	"gorm.io/gorm"

	"forge/services/errs"
)

// LoginSourceType is the kind of an external authentication source
// (Gitea's numbers).
type LoginSourceType int

// LoginSourceLDAP is an LDAP directory searched with a bind DN (Gitea's
// "LDAP (via BindDN)").
const LoginSourceLDAP LoginSourceType = 2

// LoginSource is an external authentication source. Cfg is the source's
// configuration sealed by its owner (services/ldapauth): the store never
// sees the bind password in clear.
type LoginSource struct {
	ID            int64
	Type          LoginSourceType
	Name          string
	IsActive      bool
	IsSyncEnabled bool
	Cfg           []byte
	CreatedUnix   int64
	UpdatedUnix   int64
}

// TableName is the table of login sources.
func (LoginSource) TableName() string { return "login_sources" }

var (
	// ErrLoginSourceExists: another source has that name.
	ErrLoginSourceExists = errs.New(errs.AlreadyExists, "login source already exists")
	// ErrLoginSourceInUse: users still sign in through the source.
	ErrLoginSourceInUse = errs.New(errs.FailedPrecondition, "login source is still used by some users")
)

// CreateLoginSource inserts src, filling its id. Returns
// ErrLoginSourceExists when the name is taken.
func (s *Store) CreateLoginSource(ctx context.Context, src *LoginSource) error {
	now := time.Now().Unix()
	src.CreatedUnix, src.UpdatedUnix = now, now
	err := s.db.WithContext(ctx).Create(src).Error
	if errors.Is(err, gorm.ErrDuplicatedKey) {
		return ErrLoginSourceExists
	}
	return err
}

// UpdateLoginSource loads the source id, applies change and saves it in one
// transaction. Returns ErrNotFound for an unknown id and
// ErrLoginSourceExists when the new name is taken.
func (s *Store) UpdateLoginSource(ctx context.Context, id int64, change func(*LoginSource) error) (*LoginSource, error) {
	var out LoginSource
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if err := s.forUpdate(tx).Where("id = ?", id).Take(&out).Error; err != nil {
			return notFound(err)
		}
		if err := change(&out); err != nil {
			return err
		}
		out.ID = id
		out.UpdatedUnix = time.Now().Unix()
		err := tx.Save(&out).Error
		if errors.Is(err, gorm.ErrDuplicatedKey) {
			return ErrLoginSourceExists
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return &out, nil
}

// LoginSourceByID returns the source id, or ErrNotFound.
func (s *Store) LoginSourceByID(ctx context.Context, id int64) (*LoginSource, error) {
	var src LoginSource
	if err := s.db.WithContext(ctx).Where("id = ?", id).Take(&src).Error; err != nil {
		return nil, notFound(err)
	}
	return &src, nil
}

// LoginSources returns every source by id.
func (s *Store) LoginSources(ctx context.Context) ([]LoginSource, error) {
	out := []LoginSource{}
	err := s.db.WithContext(ctx).Order("id").Find(&out).Error
	return out, err
}

// DeleteLoginSource deletes the source id. Returns ErrNotFound for an
// unknown id and ErrLoginSourceInUse while users belong to it.
func (s *Store) DeleteLoginSource(ctx context.Context, id int64) error {
	return s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var src LoginSource
		if err := s.forUpdate(tx).Where("id = ?", id).Take(&src).Error; err != nil {
			return notFound(err)
		}
		var n int64
		if err := tx.Model(&User{}).Where("login_source = ?", id).Count(&n).Error; err != nil {
			return err
		}
		if n > 0 {
			return ErrLoginSourceInUse
		}
		return tx.Where("id = ?", id).Delete(&LoginSource{}).Error
	})
}
