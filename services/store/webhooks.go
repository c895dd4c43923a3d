package store

import (
	"context"
	"time"

	"gorm.io/gorm"
)

// Webhook is a hook of a repository (RepoID), an owner (OwnerID, a user or
// an organization) or the instance (both 0: a system hook when IsSystem,
// else a default hook copied into each new repository). Secret and
// AuthorizationHeader are sealed by the caller; Events is the
// comma-separated list of the event flags chosen (services/webhooks);
// Meta holds a chat type's settings as JSON.
type Webhook struct {
	ID                  int64
	RepoID              int64
	OwnerID             int64
	IsSystem            bool
	Type                string
	URL                 string
	HTTPMethod          string
	ContentType         int
	Secret              []byte
	AuthorizationHeader []byte
	Events              string
	BranchFilter        string
	Meta                string
	Active              bool
	CreatedUnix         int64
	UpdatedUnix         int64
}

func (Webhook) TableName() string { return "webhooks" }

// Instance hook kinds (HookScope.Kind).
const (
	HookKindSystem  = "system"
	HookKindDefault = "default"
	HookKindAll     = "all"
)

// HookScope is the level a hook belongs to: a repository (RepoID), an
// owner (OwnerID) or, with Instance, the instance's hooks of Kind.
type HookScope struct {
	RepoID   int64
	OwnerID  int64
	Instance bool
	Kind     string // HookKind*; with Instance only
}

func (sc HookScope) where(q *gorm.DB) *gorm.DB {
	q = q.Where("repo_id = ? AND owner_id = ?", sc.RepoID, sc.OwnerID)
	if sc.Instance {
		switch sc.Kind {
		case HookKindSystem:
			q = q.Where("is_system = ?", true)
		case HookKindDefault:
			q = q.Where("is_system = ?", false)
		}
	}
	return q
}

// Hooks returns a page of the scope's hooks, oldest first, and their total.
func (s *Store) Hooks(ctx context.Context, sc HookScope, offset, limit int) ([]Webhook, int64, error) {
	q := sc.where(s.db.WithContext(ctx).Model(&Webhook{}))
	var total int64
	if err := q.Count(&total).Error; err != nil {
		return nil, 0, err
	}
	var out []Webhook
	err := sc.where(s.db.WithContext(ctx)).Order("id").Offset(offset).Limit(limit).Find(&out).Error
	return out, total, err
}

// HookByID returns the scope's hook id; ErrNotFound when the scope has
// none of that id (an instance scope finds both kinds).
func (s *Store) HookByID(ctx context.Context, sc HookScope, id int64) (*Webhook, error) {
	sc.Kind = HookKindAll
	var h Webhook
	err := sc.where(s.db.WithContext(ctx)).Where("id = ?", id).Take(&h).Error
	if err == gorm.ErrRecordNotFound {
		return nil, ErrNotFound
	}
	return &h, err
}

// CreateHook stores h and sets its id and times.
func (s *Store) CreateHook(ctx context.Context, h *Webhook) error {
	now := time.Now().Unix()
	h.ID, h.CreatedUnix, h.UpdatedUnix = 0, now, now
	return s.db.WithContext(ctx).Create(h).Error
}

// UpdateHook writes h's settings (not its level); ErrNotFound when it is
// gone.
func (s *Store) UpdateHook(ctx context.Context, h *Webhook) error {
	h.UpdatedUnix = time.Now().Unix()
	res := s.db.WithContext(ctx).Model(&Webhook{}).Where("id = ?", h.ID).Updates(map[string]any{
		"type": h.Type, "url": h.URL, "http_method": h.HTTPMethod, "content_type": h.ContentType,
		"secret": h.Secret, "authorization_header": h.AuthorizationHeader, "events": h.Events,
		"branch_filter": h.BranchFilter, "meta": h.Meta, "active": h.Active, "updated_unix": h.UpdatedUnix,
	})
	if res.Error != nil {
		return res.Error
	}
	if res.RowsAffected == 0 {
		return ErrNotFound
	}
	return nil
}

// DeleteHook deletes the scope's hook id with its queued and past
// deliveries; ErrNotFound when the scope has none of that id.
func (s *Store) DeleteHook(ctx context.Context, sc HookScope, id int64) error {
	sc.Kind = HookKindAll
	return s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		res := sc.where(tx).Where("id = ?", id).Delete(&Webhook{})
		if res.Error != nil {
			return res.Error
		}
		if res.RowsAffected == 0 {
			return ErrNotFound
		}
		if err := tx.Where("hook_id = ?", id).Delete(&HookEvent{}).Error; err != nil {
			return err
		}
		return tx.Where("hook_id = ?", id).Delete(&HookTask{}).Error
	})
}

// copyDefaultHooks gives the new repository repoID a copy of each of the
// instance's default hooks, inside its creating transaction.
func copyDefaultHooks(tx *gorm.DB, repoID int64) error {
	now := time.Now().Unix()
	return tx.Exec(`INSERT INTO webhooks (repo_id, owner_id, is_system, type, url, http_method, content_type,
	secret, authorization_header, events, branch_filter, meta, active, created_unix, updated_unix)
SELECT ?, 0, false, type, url, http_method, content_type, secret, authorization_header, events,
	branch_filter, meta, active, ?, ?
FROM webhooks WHERE repo_id = 0 AND owner_id = 0 AND is_system = false ORDER BY id`, repoID, now, now).Error
}

// HooksForRepo returns the active hooks an event in repository repoID
// goes to: the repository's, its owner's and the system hooks, in that
// order.
func (s *Store) HooksForRepo(ctx context.Context, repoID int64) ([]Webhook, error) {
	var out []Webhook
	err := s.db.WithContext(ctx).Where(`active = ? AND (repo_id = ?
	OR (repo_id = 0 AND owner_id <> 0 AND owner_id = (SELECT owner_id FROM repositories WHERE id = ?))
	OR (repo_id = 0 AND owner_id = 0 AND is_system = ?))`, true, repoID, repoID, true).
		Order("CASE WHEN repo_id <> 0 THEN 0 WHEN owner_id <> 0 THEN 1 ELSE 2 END, id").Find(&out).Error
	return out, err
}

// WebhookByID returns hook id at any level; ErrNotFound when it is gone.
func (s *Store) WebhookByID(ctx context.Context, id int64) (*Webhook, error) {
	var h Webhook
	err := s.db.WithContext(ctx).Where("id = ?", id).Take(&h).Error
	if err == gorm.ErrRecordNotFound {
		return nil, ErrNotFound
	}
	return &h, err
}
