package migrations

import "gorm.io/gorm"

// Step0107_webhooks adds webhooks and their durable delivery queue:
// webhooks (a repository's, an owner's or the instance's: repo_id and
// owner_id both 0, is_system telling system from default hooks; secret
// and authorization header sealed by the caller), hook_events (the
// outbox a change writes in its own transaction) and hook_tasks (one
// delivery of one event to one hook, claimed by a worker until
// claimed_until, retried at next_unix, its request and response kept).
func (History) Step0107_webhooks(tx *gorm.DB) error {
	type Webhook struct {
		ID                  int64  `gorm:"primaryKey"`
		RepoID              int64  `gorm:"not null;default:0;index"`
		OwnerID             int64  `gorm:"not null;default:0;index"`
		IsSystem            bool   `gorm:"not null;default:false"`
		Type                string `gorm:"type:varchar(16);not null"`
		URL                 string `gorm:"type:text;not null"`
		HTTPMethod          string `gorm:"type:varchar(8);not null;default:'POST'"`
		ContentType         int    `gorm:"not null;default:1"`
		Secret              []byte
		AuthorizationHeader []byte
		Events              string `gorm:"type:text;not null;default:''"`
		BranchFilter        string `gorm:"type:text;not null;default:''"`
		Meta                string `gorm:"type:text;not null;default:''"`
		Active              bool   `gorm:"not null;default:false"`
		CreatedUnix         int64  `gorm:"not null;default:0"`
		UpdatedUnix         int64  `gorm:"not null;default:0"`
	}
	type HookEvent struct {
		ID        int64  `gorm:"primaryKey"`
		Kind      string `gorm:"type:varchar(64);not null"`
		RepoID    int64  `gorm:"not null;default:0;index"`
		IssueID   int64  `gorm:"not null;default:0"`
		CommentID int64  `gorm:"not null;default:0"`
		ReleaseID int64  `gorm:"not null;default:0"`
		ActorID   int64  `gorm:"not null;default:0"`
		// HookID: a test delivery for this one hook; 0 every matching hook.
		HookID       int64  `gorm:"not null;default:0"`
		Ref          string `gorm:"type:text;not null;default:''"`
		OldSHA       string `gorm:"type:varchar(64);not null;default:''"`
		NewSHA       string `gorm:"type:varchar(64);not null;default:''"`
		Extra        string `gorm:"type:text;not null;default:''"`
		ClaimedUntil int64  `gorm:"not null;default:0;index"`
		CreatedUnix  int64  `gorm:"not null;default:0"`
	}
	type HookTask struct {
		ID            int64  `gorm:"primaryKey"`
		HookID        int64  `gorm:"not null;index"`
		RepoID        int64  `gorm:"not null;default:0;index"`
		UUID          string `gorm:"type:varchar(36);not null;uniqueIndex"`
		Event         string `gorm:"type:varchar(64);not null"`
		EventType     string `gorm:"type:varchar(64);not null"`
		Payload       string `gorm:"type:text;not null"`
		Attempts      int    `gorm:"not null;default:0"`
		Done          bool   `gorm:"not null;default:false;index:idx_hook_tasks_due,priority:1"`
		NextUnix      int64  `gorm:"not null;default:0;index:idx_hook_tasks_due,priority:2"`
		ClaimedUntil  int64  `gorm:"not null;default:0"`
		Succeeded     bool   `gorm:"not null;default:false"`
		RequestInfo   string `gorm:"type:text;not null;default:''"`
		ResponseInfo  string `gorm:"type:text;not null;default:''"`
		DeliveredUnix int64  `gorm:"not null;default:0"`
		CreatedUnix   int64  `gorm:"not null;default:0"`
	}
	if err := tx.Table("webhooks").Migrator().CreateTable(&Webhook{}); err != nil {
		return err
	}
	if err := tx.Table("hook_events").Migrator().CreateTable(&HookEvent{}); err != nil {
		return err
	}
	return tx.Table("hook_tasks").Migrator().CreateTable(&HookTask{})
}
