package migrations

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"sync"

	"gorm.io/gorm"
)

// A new SQLite database (the embedded default's first start, and every
// test store) used to run every step, each ALTER TABLE making SQLite parse
// the whole schema again: ~40 ms of a cold start's ~100 (issue 16). It
// gets instead what the steps build, written down as statements in
// fresh_sqlite.json: the schema's tables, the rows the steps insert
// (schema_migrations' ids among them), then indexes, views and triggers
// (after the rows, so no trigger fires on them). The file is generated
// from the steps themselves and carries the Version it was made from; a
// file from other steps is not used, and the store's
// TestFreshSchemaIsTheSteps fails until it is made again:
//
//	go test ./services/store/ -run TestFreshSchemaIsTheSteps -args -update-fresh-schema
//
// PostgreSQL runs the steps: its tests clone a migrated template, and a
// server's start there is not a cold start on an empty data directory.

//go:embed fresh_sqlite.json
var freshSQLite []byte

// FreshSchema is fresh_sqlite.json: the statements that build what the
// steps named by Version build on an empty SQLite database.
type FreshSchema struct {
	Version    string   `json:"version"`
	Statements []string `json:"statements"`
}

var fresh = sync.OnceValues(func() (FreshSchema, error) {
	var f FreshSchema
	err := json.Unmarshal(freshSQLite, &f)
	return f, err
})

// applyFresh builds an empty SQLite database from fresh_sqlite.json when
// it is current; done is false when it did nothing.
func applyFresh(tx *gorm.DB) (done bool, err error) {
	if tx.Dialector.Name() != "sqlite" {
		return false, nil
	}
	f, err := fresh()
	if err != nil {
		return false, fmt.Errorf("migrations: fresh_sqlite.json: %w", err)
	}
	if f.Version != Version() {
		return false, nil
	}
	var objects int64
	if err := tx.Raw("SELECT count(*) FROM sqlite_master").Scan(&objects).Error; err != nil {
		return false, err
	}
	if objects > 0 {
		return false, nil
	}
	ctx := tx.Statement.Context
	for _, q := range f.Statements {
		// The connection's own Exec: gorm would read the ? of a literal
		// as a placeholder.
		if _, err := tx.Statement.ConnPool.ExecContext(ctx, q); err != nil {
			return false, fmt.Errorf("migrations: build the fresh schema: %s: %w", q, err)
		}
	}
	return true, nil
}
