package store_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"

	"forge/services/store"
	"forge/services/store/storetest"
)

// TestClaimTOTPStep: a step is claimed once, even by concurrent callers;
// only later steps succeed afterwards; saving a user read before the claim
// does not wind the step back.
func TestClaimTOTPStep(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		u := newUser("alice", "alice@example.org", false)
		if err := s.CreateUser(ctx, u); err != nil {
			t.Fatal(err)
		}
		var won atomic.Int32
		var wg sync.WaitGroup
		for range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				ok, err := s.ClaimTOTPStep(ctx, u.ID, 1000)
				if err != nil {
					t.Error(err)
				}
				if ok {
					won.Add(1)
				}
			}()
		}
		wg.Wait()
		if won.Load() != 1 {
			t.Fatalf("step 1000 claimed %d times, want once", won.Load())
		}
		if ok, _ := s.ClaimTOTPStep(ctx, u.ID, 999); ok {
			t.Fatal("an earlier step was accepted after a later one")
		}
		// An update of a row read before the claim keeps the claimed step.
		if _, err := s.UpdateUser(ctx, "alice", func(u *store.User) error { u.FullName = "Alice"; return nil }); err != nil {
			t.Fatal(err)
		}
		if ok, _ := s.ClaimTOTPStep(ctx, u.ID, 1000); ok {
			t.Fatal("UpdateUser reset the last TOTP step")
		}
		if ok, err := s.ClaimTOTPStep(ctx, u.ID, 1001); !ok || err != nil {
			t.Fatalf("next step: %v %v", ok, err)
		}
		got, err := s.UserByName(ctx, "alice")
		if err != nil || got.TOTPLastStep != 1001 {
			t.Fatalf("TOTPLastStep %+v %v", got, err)
		}
	})
}
