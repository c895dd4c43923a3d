package store_test

import (
	"context"
	"testing"

	"forge/services/store/storetest"
)

// BenchmarkGeneration: what a request pays to learn the generations:
// reading them (as before the watcher) against asking the watcher, on
// SQLite (PRAGMA data_version on its own connection, the generations
// read again only when it moved) and PostgreSQL.
//
//	go test -run '^$' -bench Generation -benchmem ./services/store/
func BenchmarkGeneration(b *testing.B) {
	for _, kind := range storetest.Backends {
		s := storetest.Open(b, kind)
		ctx := context.Background()
		b.Run(kind+"/read", func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if _, err := s.ReadGenerationForTest(ctx); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(kind+"/watched", func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if _, err := s.AuthGeneration(ctx); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
