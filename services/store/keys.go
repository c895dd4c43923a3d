package store

import (
	"context"
	"errors"
	"time"

	"gorm.io/gorm"

	"forge/services/errs"
)

// The kinds of public_keys rows, as Gitea numbers them.
const (
	KeyTypeUser   = 1
	KeyTypeDeploy = 2
)

// The refusals of a key that cannot be added, Gitea's messages (422).
var (
	// ErrKeyUsed: the key is already a user's key (or, added as a user's
	// key, a deploy key).
	ErrKeyUsed = errs.New(errs.Invalid, "Key content has been used as non-deploy key")
	// ErrKeyTitleUsed: the account already has a key of that title.
	ErrKeyTitleUsed = errs.New(errs.Invalid, "Key title has been used")
	// ErrDeployKeyAdded: the key already is a deploy key of the repository.
	ErrDeployKeyAdded = errs.New(errs.Invalid, "This key has already been added to this repository")
	// ErrDeployKeyNameUsed: the repository has a deploy key of that name.
	ErrDeployKeyNameUsed = errs.New(errs.Invalid, "A key with the same name already exists")
)

// PublicKey is one SSH key: a user's (Type KeyTypeUser, OwnerID its
// account) or a deploy key (KeyTypeDeploy, owned by no one; its
// repositories are in deploy_keys).
type PublicKey struct {
	ID          int64
	OwnerID     int64
	Name        string
	Fingerprint string
	Content     string
	Mode        AccessMode
	Type        int
	CreatedUnix int64
	UpdatedUnix int64
}

func (PublicKey) TableName() string { return "public_keys" }

// DeployKey is a public key added to one repository.
type DeployKey struct {
	ID          int64
	KeyID       int64
	RepoID      int64
	Name        string
	Fingerprint string
	Mode        AccessMode
	CreatedUnix int64
	UpdatedUnix int64
	// Content is the key's line, loaded with the row (not a column).
	Content string `gorm:"->;-:migration"`
}

func (DeployKey) TableName() string { return "deploy_keys" }

// AddPublicKey adds k (Type, OwnerID, Name, Fingerprint, Content set) as a
// user's key. Returns ErrKeyUsed when any key has that fingerprint and
// ErrKeyTitleUsed when the owner has a key of that name. A deploy key
// left without repositories does not count: it is replaced.
func (s *Store) AddPublicKey(ctx context.Context, k *PublicKey) error {
	now := time.Now().Unix()
	k.Type, k.Mode, k.CreatedUnix, k.UpdatedUnix = KeyTypeUser, AccessWrite, now, now
	return s.keyTx(ctx, func(tx *gorm.DB) error {
		var old PublicKey
		err := tx.Where("fingerprint = ?", k.Fingerprint).Take(&old).Error
		switch {
		case err == nil && old.Type == KeyTypeDeploy:
			var n int64
			if err := tx.Model(&DeployKey{}).Where("key_id = ?", old.ID).Count(&n).Error; err != nil {
				return err
			}
			if n > 0 {
				return ErrKeyUsed
			}
			if err := tx.Delete(&PublicKey{}, old.ID).Error; err != nil {
				return err
			}
		case err == nil:
			return ErrKeyUsed
		case !errors.Is(err, gorm.ErrRecordNotFound):
			return err
		}
		var n int64
		if err := tx.Model(&PublicKey{}).Where("owner_id = ? AND type = ? AND name = ?", k.OwnerID, KeyTypeUser, k.Name).
			Count(&n).Error; err != nil {
			return err
		}
		if n > 0 {
			return ErrKeyTitleUsed
		}
		return tx.Create(k).Error
	})
}

// keyTx runs f in a transaction; a unique-index conflict (a concurrent
// insert of the same key) is ErrKeyUsed.
func (s *Store) keyTx(ctx context.Context, f func(tx *gorm.DB) error) error {
	err := s.db.WithContext(ctx).Transaction(f)
	if errors.Is(err, gorm.ErrDuplicatedKey) {
		return ErrKeyUsed
	}
	return err
}

// AddDeployKey adds the key (fingerprint, content) to the repository
// under name with mode (AccessRead or AccessWrite), reusing its
// public_keys row when another repository has it. Returns ErrKeyUsed when
// the key is a user's key, ErrDeployKeyAdded when the repository has it
// already and ErrDeployKeyNameUsed when the name is taken there.
func (s *Store) AddDeployKey(ctx context.Context, repoID int64, name, fingerprint, content string, mode AccessMode) (*DeployKey, error) {
	now := time.Now().Unix()
	dk := &DeployKey{RepoID: repoID, Name: name, Fingerprint: fingerprint, Mode: mode, CreatedUnix: now, UpdatedUnix: now}
	err := s.keyTx(ctx, func(tx *gorm.DB) error {
		var pk PublicKey
		err := tx.Where("fingerprint = ?", fingerprint).Take(&pk).Error
		switch {
		case errors.Is(err, gorm.ErrRecordNotFound):
			pk = PublicKey{Name: name, Fingerprint: fingerprint, Content: content, Mode: mode, Type: KeyTypeDeploy,
				CreatedUnix: now, UpdatedUnix: now}
			if err := tx.Create(&pk).Error; err != nil {
				return err
			}
		case err != nil:
			return err
		case pk.Type != KeyTypeDeploy:
			return ErrKeyUsed
		}
		var n int64
		if err := tx.Model(&DeployKey{}).Where("repo_id = ? AND key_id = ?", repoID, pk.ID).Count(&n).Error; err != nil {
			return err
		}
		if n > 0 {
			return ErrDeployKeyAdded
		}
		if err := tx.Model(&DeployKey{}).Where("repo_id = ? AND name = ?", repoID, name).Count(&n).Error; err != nil {
			return err
		}
		if n > 0 {
			return ErrDeployKeyNameUsed
		}
		dk.KeyID, dk.Content = pk.ID, pk.Content
		return tx.Omit("Content").Create(dk).Error
	})
	if err != nil {
		return nil, err
	}
	return dk, nil
}

// PublicKeyByID returns a user's key. Returns ErrNotFound when there is
// none of that id or it is a deploy key.
func (s *Store) PublicKeyByID(ctx context.Context, id int64) (*PublicKey, error) {
	var k PublicKey
	err := s.db.WithContext(ctx).Where("id = ? AND type = ?", id, KeyTypeUser).Take(&k).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, ErrNotFound
	}
	return &k, err
}

// PublicKeyByFingerprint returns the key (a user's or a deploy key) with
// that fingerprint. Returns ErrNotFound when there is none.
func (s *Store) PublicKeyByFingerprint(ctx context.Context, fingerprint string) (*PublicKey, error) {
	var k PublicKey
	err := s.db.WithContext(ctx).Where("fingerprint = ?", fingerprint).Take(&k).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, ErrNotFound
	}
	return &k, err
}

// ListPublicKeys returns a page of the owner's keys, oldest first, and
// their total; fingerprint, when not empty, keeps the one with it.
func (s *Store) ListPublicKeys(ctx context.Context, ownerID int64, fingerprint string, offset, limit int) ([]PublicKey, int64, error) {
	q := s.db.WithContext(ctx).Model(&PublicKey{}).Where("owner_id = ? AND type = ?", ownerID, KeyTypeUser)
	if fingerprint != "" {
		q = q.Where("fingerprint = ?", fingerprint)
	}
	var total int64
	if err := q.Count(&total).Error; err != nil {
		return nil, 0, err
	}
	keys := []PublicKey{}
	err := q.Order("id").Offset(offset).Limit(limit).Find(&keys).Error
	return keys, total, err
}

// DeletePublicKey deletes the owner's key id. Returns ErrNotFound when the
// owner has no such key.
func (s *Store) DeletePublicKey(ctx context.Context, ownerID, id int64) error {
	res := s.db.WithContext(ctx).Where("id = ? AND owner_id = ? AND type = ?", id, ownerID, KeyTypeUser).Delete(&PublicKey{})
	if res.Error != nil {
		return res.Error
	}
	if res.RowsAffected == 0 {
		return ErrNotFound
	}
	return nil
}

// deployKeys selects deploy keys with their key's content.
func (s *Store) deployKeys(ctx context.Context) *gorm.DB {
	return s.db.WithContext(ctx).Table("deploy_keys").
		Select("deploy_keys.*, public_keys.content AS content").
		Joins("JOIN public_keys ON public_keys.id = deploy_keys.key_id")
}

// ListDeployKeys returns a page of the repository's deploy keys, oldest
// first, and their total; keyID and fingerprint, when set, filter.
func (s *Store) ListDeployKeys(ctx context.Context, repoID, keyID int64, fingerprint string, offset, limit int) ([]DeployKey, int64, error) {
	q := s.db.WithContext(ctx).Model(&DeployKey{}).Where("repo_id = ?", repoID)
	if keyID != 0 {
		q = q.Where("key_id = ?", keyID)
	}
	if fingerprint != "" {
		q = q.Where("fingerprint = ?", fingerprint)
	}
	var total int64
	if err := q.Count(&total).Error; err != nil {
		return nil, 0, err
	}
	ids := []int64{}
	if err := q.Order("id").Offset(offset).Limit(limit).Pluck("id", &ids).Error; err != nil {
		return nil, 0, err
	}
	keys := []DeployKey{}
	if len(ids) == 0 {
		return keys, total, nil
	}
	err := s.deployKeys(ctx).Where("deploy_keys.id IN ?", ids).Order("deploy_keys.id").Find(&keys).Error
	return keys, total, err
}

// DeployKeyOf returns the repository's deploy key id. Returns ErrNotFound
// when the repository has none of that id.
func (s *Store) DeployKeyOf(ctx context.Context, repoID, id int64) (*DeployKey, error) {
	var k DeployKey
	err := s.deployKeys(ctx).Where("deploy_keys.id = ? AND deploy_keys.repo_id = ?", id, repoID).Take(&k).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, ErrNotFound
	}
	return &k, err
}

// DeployKeyFor returns the deploy key of public key keyID on the
// repository. Returns ErrNotFound when the key is not one of its deploy
// keys.
func (s *Store) DeployKeyFor(ctx context.Context, keyID, repoID int64) (*DeployKey, error) {
	var k DeployKey
	err := s.deployKeys(ctx).Where("deploy_keys.key_id = ? AND deploy_keys.repo_id = ?", keyID, repoID).Take(&k).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, ErrNotFound
	}
	return &k, err
}

// DeleteDeployKey deletes the repository's deploy key id, and its public
// key when no other repository has it. Returns ErrNotFound when the
// repository has no such key.
func (s *Store) DeleteDeployKey(ctx context.Context, repoID, id int64) error {
	return s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var k DeployKey
		err := tx.Select("id", "key_id").Where("id = ? AND repo_id = ?", id, repoID).Take(&k).Error
		if errors.Is(err, gorm.ErrRecordNotFound) {
			return ErrNotFound
		}
		if err != nil {
			return err
		}
		if err := tx.Delete(&DeployKey{}, k.ID).Error; err != nil {
			return err
		}
		var n int64
		if err := tx.Model(&DeployKey{}).Where("key_id = ?", k.KeyID).Count(&n).Error; err != nil {
			return err
		}
		if n > 0 {
			return nil
		}
		return tx.Where("id = ? AND type = ?", k.KeyID, KeyTypeDeploy).Delete(&PublicKey{}).Error
	})
}

// DeployKeyRepos is every repository deploy key keyID (a public_keys id)
// is added to, with its mode there.
func (s *Store) DeployKeyRepos(ctx context.Context, keyID int64) (map[int64]AccessMode, error) {
	var rows []DeployKey
	if err := s.db.WithContext(ctx).Model(&DeployKey{}).Select("repo_id", "mode").Where("key_id = ?", keyID).
		Find(&rows).Error; err != nil {
		return nil, err
	}
	out := make(map[int64]AccessMode, len(rows))
	for _, r := range rows {
		out[r.RepoID] = r.Mode
	}
	return out, nil
}

// AnyPublicKeyByID returns the key of that id, a user's or a deploy key.
// Returns ErrNotFound when there is none.
func (s *Store) AnyPublicKeyByID(ctx context.Context, id int64) (*PublicKey, error) {
	var k PublicKey
	err := s.db.WithContext(ctx).Where("id = ?", id).Take(&k).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, ErrNotFound
	}
	return &k, err
}
