package store_test

import (
	"context"
	"testing"

	"forge/services/store"
	"forge/services/store/storetest"
)

// TestAuthGeneration: the authentication generation moves with every
// change that can alter what a token authenticates as, in the change's own
// transaction, and stays put for the writes of every request (token
// last-use times, TOTP step claims), which would otherwise empty the
// caches that rely on it.
func TestAuthGeneration(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		gen := func() int64 {
			t.Helper()
			g, err := s.AuthGeneration(ctx)
			if err != nil {
				t.Fatal(err)
			}
			return g.Auth
		}
		step := func(what string, moves bool, change func() error) {
			t.Helper()
			before := gen()
			if err := change(); err != nil {
				t.Fatalf("%s: %v", what, err)
			}
			if after := gen(); (after != before) != moves {
				t.Fatalf("%s: generation %d -> %d, want moved=%v", what, before, after, moves)
			}
		}
		admin, bob := newUser("admin", "admin@example.org", true), newUser("bob", "bob@example.org", false)
		var tok store.AccessToken
		step("create users and a token", false, func() error {
			if err := s.CreateUser(ctx, admin); err != nil {
				return err
			}
			if err := s.CreateUser(ctx, bob); err != nil {
				return err
			}
			tok = store.AccessToken{UID: bob.ID, Name: "t", TokenHash: "h"}
			return s.CreateAccessToken(ctx, &tok)
		})
		step("token last used", false, func() error { return s.TouchAccessTokens(ctx, map[int64]int64{tok.ID: 100}) })
		step("TOTP step claimed", false, func() error { _, err := s.ClaimTOTPStep(ctx, bob.ID, 7); return err })
		step("user deactivated", true, func() error {
			_, err := s.UpdateUser(ctx, "bob", func(u *store.User) error { u.IsActive = false; return nil })
			return err
		})
		step("refused change", false, func() error {
			_, err := s.UpdateUser(ctx, "admin", func(u *store.User) error { u.IsAdmin = false; return nil })
			if err != store.ErrLastAdmin {
				t.Fatalf("demote the last admin: %v", err)
			}
			return nil
		})
		step("token deleted", true, func() error { return s.DeleteAccessToken(ctx, bob.ID, tok.ID) })
		step("user deleted", true, func() error { return s.DeleteUser(ctx, "bob", nil) })
	})
}
