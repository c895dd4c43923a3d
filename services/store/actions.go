package store

import (
	"context"
	"errors"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"forge/services/errs"
)

// ActionScope is the level an Actions secret, variable or runner token
// belongs to: an owner (user or organization, RepoID 0), a repository
// (OwnerID 0) or the instance (both 0). Levels never share rows: an
// organization's secret and its repository's secret of the same name are
// two secrets.
type ActionScope struct {
	OwnerID int64
	RepoID  int64
}

// ActionSecret is an Actions secret; Data is sealed by the caller and
// never leaves the store in clear.
type ActionSecret struct {
	ID          int64
	OwnerID     int64
	RepoID      int64
	Name        string // upper case
	Data        []byte
	Description string
	CreatedUnix int64
	UpdatedUnix int64
}

func (ActionSecret) TableName() string { return "action_secrets" }

// ActionVariable is an Actions variable.
type ActionVariable struct {
	ID          int64
	OwnerID     int64
	RepoID      int64
	Name        string // upper case
	Data        string
	Description string
	CreatedUnix int64
	UpdatedUnix int64
}

func (ActionVariable) TableName() string { return "action_variables" }

// ActionRunnerToken is the active runner registration token of a scope;
// Token is sealed by the caller, TokenHash its SHA-256 in hex.
type ActionRunnerToken struct {
	ID          int64
	OwnerID     int64
	RepoID      int64
	Token       []byte
	TokenHash   string
	CreatedUnix int64
}

func (ActionRunnerToken) TableName() string { return "action_runner_tokens" }

// ErrVariableExists: the scope already has a variable of that name.
var ErrVariableExists = errs.New(errs.AlreadyExists, "variable name already exists")

func (sc ActionScope) where(q *gorm.DB) *gorm.DB {
	return q.Where("owner_id = ? AND repo_id = ?", sc.OwnerID, sc.RepoID)
}

// ActionSecrets returns a page of the scope's secrets by name and their
// total number.
func (s *Store) ActionSecrets(ctx context.Context, sc ActionScope, offset, limit int) ([]ActionSecret, int64, error) {
	q := sc.where(s.db.WithContext(ctx).Model(&ActionSecret{}))
	var total int64
	if err := q.Count(&total).Error; err != nil {
		return nil, 0, err
	}
	out := []ActionSecret{}
	err := q.Select("id, owner_id, repo_id, name, description, created_unix, updated_unix").
		Order("name").Offset(offset).Limit(limit).Find(&out).Error
	return out, total, err
}

// PutActionSecret creates the scope's secret name (upper case) with the
// sealed value, or replaces the value of the existing one; created tells
// which. One statement decides, so concurrent puts of one name create it
// once.
func (s *Store) PutActionSecret(ctx context.Context, sc ActionScope, name string, sealed []byte, description string) (created bool, err error) {
	now := time.Now().Unix()
	row := ActionSecret{OwnerID: sc.OwnerID, RepoID: sc.RepoID, Name: name, Data: sealed,
		Description: description, CreatedUnix: now, UpdatedUnix: now}
	db := s.db.WithContext(ctx)
	res := db.Clauses(clause.OnConflict{
		Columns: []clause.Column{{Name: "owner_id"}, {Name: "repo_id"}, {Name: "name"}}, DoNothing: true,
	}).Create(&row)
	if res.Error != nil {
		return false, res.Error
	}
	if res.RowsAffected == 1 {
		return true, nil
	}
	err = sc.where(db.Model(&ActionSecret{})).Where("name = ?", name).
		Updates(map[string]any{"data": sealed, "description": description, "updated_unix": now}).Error
	return false, err
}

// DeleteActionSecret deletes the scope's secret name. ErrNotFound when
// the scope has none of that name.
func (s *Store) DeleteActionSecret(ctx context.Context, sc ActionScope, name string) error {
	res := sc.where(s.db.WithContext(ctx)).Where("name = ?", name).Delete(&ActionSecret{})
	if res.Error != nil {
		return res.Error
	}
	if res.RowsAffected == 0 {
		return ErrNotFound
	}
	return nil
}

// ActionVariables returns a page of the scope's variables by name and
// their total number.
func (s *Store) ActionVariables(ctx context.Context, sc ActionScope, offset, limit int) ([]ActionVariable, int64, error) {
	q := sc.where(s.db.WithContext(ctx).Model(&ActionVariable{}))
	var total int64
	if err := q.Count(&total).Error; err != nil {
		return nil, 0, err
	}
	out := []ActionVariable{}
	err := q.Order("name").Offset(offset).Limit(limit).Find(&out).Error
	return out, total, err
}

// ActionVariableByName returns the scope's variable name. ErrNotFound
// when there is none.
func (s *Store) ActionVariableByName(ctx context.Context, sc ActionScope, name string) (*ActionVariable, error) {
	var v ActionVariable
	err := sc.where(s.db.WithContext(ctx)).Where("name = ?", name).Take(&v).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, err
	}
	return &v, nil
}

// CreateActionVariable inserts v. ErrVariableExists when its scope
// already has a variable of that name.
func (s *Store) CreateActionVariable(ctx context.Context, v *ActionVariable) error {
	now := time.Now().Unix()
	v.CreatedUnix, v.UpdatedUnix = now, now
	err := s.db.WithContext(ctx).Create(v).Error
	if errors.Is(err, gorm.ErrDuplicatedKey) {
		return ErrVariableExists
	}
	return err
}

// UpdateActionVariable sets the name, value and description of the
// scope's variable name. ErrNotFound when there is none, ErrVariableExists
// when newName is another variable's.
func (s *Store) UpdateActionVariable(ctx context.Context, sc ActionScope, name, newName, data, description string) error {
	res := sc.where(s.db.WithContext(ctx).Model(&ActionVariable{})).Where("name = ?", name).
		Updates(map[string]any{"name": newName, "data": data, "description": description, "updated_unix": time.Now().Unix()})
	if errors.Is(res.Error, gorm.ErrDuplicatedKey) {
		return ErrVariableExists
	}
	if res.Error != nil {
		return res.Error
	}
	if res.RowsAffected == 0 {
		return ErrNotFound
	}
	return nil
}

// DeleteActionVariable deletes the scope's variable name. ErrNotFound
// when there is none.
func (s *Store) DeleteActionVariable(ctx context.Context, sc ActionScope, name string) error {
	res := sc.where(s.db.WithContext(ctx)).Where("name = ?", name).Delete(&ActionVariable{})
	if res.Error != nil {
		return res.Error
	}
	if res.RowsAffected == 0 {
		return ErrNotFound
	}
	return nil
}

// RunnerToken returns the scope's active runner registration token,
// storing fresh() first when it has none; of concurrent first calls, one
// token wins and all return it.
func (s *Store) RunnerToken(ctx context.Context, sc ActionScope, fresh func() (sealed []byte, hash string)) (*ActionRunnerToken, error) {
	db := s.db.WithContext(ctx)
	var t ActionRunnerToken
	err := sc.where(db).Take(&t).Error
	if err == nil {
		return &t, nil
	}
	if !errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, err
	}
	sealed, hash := fresh()
	row := ActionRunnerToken{OwnerID: sc.OwnerID, RepoID: sc.RepoID, Token: sealed, TokenHash: hash, CreatedUnix: time.Now().Unix()}
	if err := db.Clauses(clause.OnConflict{
		Columns: []clause.Column{{Name: "owner_id"}, {Name: "repo_id"}}, DoNothing: true,
	}).Create(&row).Error; err != nil {
		return nil, err
	}
	if err := sc.where(db).Take(&t).Error; err != nil {
		return nil, err
	}
	return &t, nil
}
