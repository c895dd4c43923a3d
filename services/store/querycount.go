package store

import (
	"context"
	"sync/atomic"

	"gorm.io/gorm"
)

// The store counts the statements it sends through gorm: one atomic add
// per statement, cheap enough to keep on in production, where it can back
// a metric. Tests read it around a request to hold lists to a constant
// number of queries per page (cmd/forge/app TestListQueriesConstant).
// Statements of background work (a context marked by Background: the
// notifier, the schedulers) are not counted: they run beside requests,
// and a request's count must not depend on what ran beside it.

type backgroundKey struct{}

// Background marks ctx as background work, whose statements QueryCount
// leaves out.
func Background(ctx context.Context) context.Context {
	return context.WithValue(ctx, backgroundKey{}, true)
}

// countQueries registers the counter on every kind of statement gorm
// runs (finds, scans, raw statements, writes).
func countQueries(db *gorm.DB, n *atomic.Int64) error {
	inc := func(db *gorm.DB) {
		// A subquery is built by running the callbacks dry: no statement.
		if db.DryRun {
			return
		}
		if ctx := db.Statement.Context; ctx != nil && ctx.Value(backgroundKey{}) != nil {
			return
		}
		n.Add(1)
	}
	cb := db.Callback()
	for _, err := range []error{
		cb.Query().Before("gorm:query").Register("forge:count", inc),
		cb.Row().Before("gorm:row").Register("forge:count", inc),
		cb.Raw().Before("gorm:raw").Register("forge:count", inc),
		cb.Create().Before("gorm:create").Register("forge:count", inc),
		cb.Update().Before("gorm:update").Register("forge:count", inc),
		cb.Delete().Before("gorm:delete").Register("forge:count", inc),
	} {
		if err != nil {
			return err
		}
	}
	return nil
}

// QueryCount is how many statements the store has sent through gorm since
// it was opened, for requests: neither background work's (Background)
// nor the prepared authentication lookup (hot.go) are among them.
func (s *Store) QueryCount() int64 { return s.queries.Load() }
