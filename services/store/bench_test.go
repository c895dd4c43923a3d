package store_test

import (
	"context"
	"testing"

	"forge/services/store"
	"forge/services/store/storetest"
)

// BenchmarkAccessTokenByHash is the per-request authentication lookup.
//
//	go test -run '^$' -bench AccessTokenByHash -benchmem ./services/store/
func BenchmarkAccessTokenByHash(b *testing.B) {
	for _, kind := range storetest.Backends {
		b.Run(kind, func(b *testing.B) {
			s := storetest.Open(b, kind)
			ctx := context.Background()
			u := newUser("bench", "bench@example.org", false)
			if err := s.CreateUser(ctx, u); err != nil {
				b.Fatal(err)
			}
			if err := s.CreateAccessToken(ctx, &store.AccessToken{UID: u.ID, Name: "t", TokenHash: "hash"}); err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					if _, _, err := s.AccessTokenByHash(ctx, "hash"); err != nil {
						b.Fatal(err)
					}
				}
			})
		})
	}
}
