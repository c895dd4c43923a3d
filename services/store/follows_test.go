package store_test

import (
	"context"
	"testing"

	"forge/services/store"
	"forge/services/store/storetest"
)

func TestFollows(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		var us []*store.User
		for _, n := range []string{"alice", "bob", "carol"} {
			u := newUser(n, n+"@x.org", false)
			if err := s.CreateUser(ctx, u); err != nil {
				t.Fatal(err)
			}
			us = append(us, u)
		}
		alice, bob, carol := us[0], us[1], us[2]
		for range 2 { // the second is a no-op
			if err := s.FollowUser(ctx, bob.ID, alice.ID); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.FollowUser(ctx, carol.ID, alice.ID); err != nil {
			t.Fatal(err)
		}
		if err := s.FollowUser(ctx, alice.ID, alice.ID); err != nil { // oneself: no-op
			t.Fatal(err)
		}
		if on, err := s.IsFollowing(ctx, alice.ID, alice.ID); err != nil || on {
			t.Fatalf("alice follows herself: %v %v", on, err)
		}
		fs, total, err := s.ListFollowers(ctx, alice.ID, store.UserFilter{All: true}, 0, 10)
		if err != nil || total != 2 || len(fs) != 2 || fs[0].ID != bob.ID || fs[1].ID != carol.ID {
			t.Fatalf("followers: %v %d %v", names(fs), total, err)
		}
		fs, total, err = s.ListFollowing(ctx, bob.ID, store.UserFilter{All: true}, 0, 10)
		if err != nil || total != 1 || fs[0].ID != alice.ID {
			t.Fatalf("following: %v %d %v", names(fs), total, err)
		}
		if err := s.UnfollowUser(ctx, bob.ID, alice.ID); err != nil {
			t.Fatal(err)
		}
		if on, _ := s.IsFollowing(ctx, bob.ID, alice.ID); on {
			t.Fatal("bob still follows alice")
		}
	})
}
