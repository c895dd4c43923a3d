package store

import (
	"context"
	"fmt"
	"strings"

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
		if err := refuseGiteaSchema(tx); err != nil {
			return err
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

// giteaTables are tables of Gitea's own schema; forge's are named
// differently (users, repositories, access_tokens, schema_migrations).
var giteaTables = []string{"version", "user", "repository", "access_token"}

// refuseGiteaSchema stops a migration on a database Gitea created: forge
// neither reads nor converts Gitea's tables, and creating its own beside
// them would leave two diverging copies of the site in one database.
func refuseGiteaSchema(tx *gorm.DB) error {
	m := tx.Migrator()
	if m.HasTable("schema_migrations") && !m.HasTable("version") {
		return nil // forge's own database
	}
	var found []string
	for _, t := range giteaTables {
		if m.HasTable(t) {
			found = append(found, t)
		}
	}
	if len(found) == 0 {
		return nil
	}
	return fmt.Errorf("the database holds Gitea's own schema (tables %s): forge does not read or convert Gitea's tables "+
		"and will not create its own beside them; set [database] to an empty database for forge", strings.Join(found, ", "))
}
