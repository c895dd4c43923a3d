package store_test

import (
	"context"
	"fmt"
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

// BenchmarkSyncBranchesPerPush records one pushed branch into a repository
// that already has 10 or 10,000 branch records: the cost must not grow
// with the number of branches.
//
//	go test -run '^$' -bench SyncBranchesPerPush -benchmem ./services/store/
func BenchmarkSyncBranchesPerPush(b *testing.B) {
	for _, kind := range storetest.Backends {
		for _, n := range []int{10, 10000} {
			b.Run(fmt.Sprintf("%s/branches=%d", kind, n), func(b *testing.B) {
				s := storetest.Open(b, kind)
				ctx := context.Background()
				owner := newUser("bench", "bench@example.org", false)
				if err := s.CreateUser(ctx, owner); err != nil {
					b.Fatal(err)
				}
				r := &store.Repository{OwnerID: owner.ID, OwnerName: owner.Name, Name: "big", IsEmpty: true}
				if err := s.CreateRepository(ctx, r, 0); err != nil {
					b.Fatal(err)
				}
				initial := make([]store.BranchUpdate, n)
				for i := range initial {
					initial[i] = store.BranchUpdate{Name: fmt.Sprintf("branch-%05d", i), CommitID: "c0", CommitUnix: int64(i)}
				}
				if err := s.SyncBranches(ctx, r.ID, 1, initial, nil); err != nil {
					b.Fatal(err)
				}
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					u := []store.BranchUpdate{{Name: "branch-00005", CommitID: fmt.Sprintf("c%d", i), CommitUnix: int64(n + i)}}
					if err := s.SyncBranches(ctx, r.ID, 1, u, nil); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
