package store

import (
	"context"

	"gorm.io/gorm"

	"forge/services/store/migrations"
)

// Migrate applies the pending migrations (services/store/migrations).
// Concurrent callers (several forge processes starting on one PostgreSQL)
// are serialised by an advisory lock.
func (s *Store) Migrate(ctx context.Context) error {
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if s.postgres {
			if err := tx.Exec("SELECT pg_advisory_xact_lock(4242001)").Error; err != nil {
				return err
			}
		}
		return migrations.Apply(tx)
	})
	if err != nil {
		return err
	}
	return s.prepareHot(ctx)
}

// SchemaVersion names the schema the migrations build, for caches keyed
// by schema (the test template database); see migrations.Version.
func SchemaVersion() string { return migrations.Version() }
