package store_test

import (
	"context"
	"testing"

	"gorm.io/gorm"

	"forge/services/store/storetest"
)

// BenchmarkCommitCountWrites is what the commit count (migration 0125)
// costs a writer on PostgreSQL: transactions of four one-row statements
// from 16 goroutines, on a table with the counting trigger and on one
// without it. Its table is made by the benchmark; with triggers, Migrate
// runs again and gives it the trigger, as it does every later table.
//
//	go test -run '^$' -bench CommitCountWrites ./services/store/
func BenchmarkCommitCountWrites(b *testing.B) {
	for _, counted := range []bool{false, true} {
		name := "without-trigger"
		if counted {
			name = "with-trigger"
		}
		b.Run(name, func(b *testing.B) {
			s := storetest.Open(b, "postgres")
			ctx := context.Background()
			if err := s.DB().Exec("CREATE TABLE bench_rows (id bigserial PRIMARY KEY, a integer NOT NULL)").Error; err != nil {
				b.Fatal(err)
			}
			if counted {
				if err := s.Migrate(ctx); err != nil {
					b.Fatal(err)
				}
			}
			var triggers int64
			s.DB().Raw("SELECT count(*) FROM pg_trigger WHERE tgrelid = 'bench_rows'::regclass").Scan(&triggers)
			if (triggers > 0) != counted {
				b.Fatalf("%d triggers on the benchmark's table", triggers)
			}
			b.SetParallelism(8)
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					err := s.DB().Transaction(func(tx *gorm.DB) error {
						var id int64
						if err := tx.Raw("INSERT INTO bench_rows (a) VALUES (1) RETURNING id").Scan(&id).Error; err != nil {
							return err
						}
						if err := tx.Exec("UPDATE bench_rows SET a = a + 1 WHERE id = ?", id).Error; err != nil {
							return err
						}
						if err := tx.Exec("INSERT INTO bench_rows (a) VALUES (2)").Error; err != nil {
							return err
						}
						return tx.Exec("UPDATE bench_rows SET a = a + 1 WHERE id = ?", id).Error
					})
					if err != nil {
						b.Error(err)
						return
					}
				}
			})
		})
	}
}
