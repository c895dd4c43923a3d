package store_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"gorm.io/gorm"

	"forge/services/store/storetest"
)

// TestPoolExhaustionDoesNotStall: transactions holding every pooled
// connection while other callers run statements the store has not run
// before must all finish. With gorm's prepared-statement cache
// (PrepareStmt) they did not: a caller outside a transaction took the
// cache's lock to prepare a new statement and waited for a connection,
// while the transactions holding the connections waited for that lock
// to run their own next statement (go-gorm/gorm#7465). The server hung
// for good under concurrent comments on one issue.
func TestPoolExhaustionDoesNotStall(t *testing.T) {
	for _, kind := range storetest.Backends {
		t.Run(kind, func(t *testing.T) {
			s := storeWithConns(t, kind, 2)
			ctx := context.Background()
			done := make(chan struct{})
			go func() {
				defer close(done)
				var wg sync.WaitGroup
				for round := range 100 {
					// Each round's statement is new: two transactions
					// (holding both connections) and two callers outside
					// any transaction all run it at about the same time.
					query := fmt.Sprintf("SELECT %d", round)
					for i := range 4 {
						wg.Add(1)
						go func() {
							defer wg.Done()
							var n int64
							if i < 2 {
								_ = s.DB().WithContext(ctx).Transaction(func(tx *gorm.DB) error {
									time.Sleep(2 * time.Millisecond)
									return tx.Raw(query).Scan(&n).Error
								})
								return
							}
							time.Sleep(time.Millisecond)
							_ = s.DB().WithContext(ctx).Raw(query).Scan(&n).Error
						}()
					}
				}
				wg.Wait()
			}()
			select {
			case <-done:
			case <-time.After(30 * time.Second):
				t.Fatal("callers still waiting after 30 s: the pool is deadlocked")
			}
		})
	}
}
