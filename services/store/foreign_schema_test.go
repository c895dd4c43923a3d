package store_test

import (
	"context"
	"strings"
	"testing"

	"forge/services/store"
	"forge/services/store/storetest"
)

// TestGiteaSchemaRefused: a database holding Gitea's own tables (its
// "version" table, "user", "repository", "access_token") and no forge
// history is refused with a message that says so, and nothing of forge's
// is written beside it.
func TestGiteaSchemaRefused(t *testing.T) {
	for _, kind := range storetest.Backends {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			cfg := storetest.Empty(t, kind)
			s, err := store.Open(cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			for _, stmt := range []string{
				`CREATE TABLE version (id BIGINT PRIMARY KEY, version BIGINT)`,
				`INSERT INTO version (id, version) VALUES (1, 305)`,
				`CREATE TABLE "user" (id BIGINT PRIMARY KEY, lower_name VARCHAR(255) NOT NULL, name VARCHAR(255) NOT NULL, passwd VARCHAR(255))`,
				`CREATE TABLE repository (id BIGINT PRIMARY KEY, owner_id BIGINT, lower_name VARCHAR(255), name VARCHAR(255))`,
				`CREATE TABLE access_token (id BIGINT PRIMARY KEY, uid BIGINT, name VARCHAR(255), token_hash VARCHAR(255))`,
			} {
				if err := s.DB().Exec(stmt).Error; err != nil {
					t.Fatal(err)
				}
			}
			err = s.Migrate(context.Background())
			if err == nil || !strings.Contains(err.Error(), "Gitea") || !strings.Contains(err.Error(), "[database]") {
				t.Fatalf("migrate on Gitea's schema: %v, want a refusal naming Gitea and [database]", err)
			}
			if s.DB().Migrator().HasTable("schema_migrations") || s.DB().Migrator().HasTable("users") {
				t.Fatal("forge's tables were created beside Gitea's")
			}
		})
	}
}
