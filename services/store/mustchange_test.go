package store_test

import (
	"context"
	"testing"

	"forge/services/store"
	"forge/services/store/storetest"
)

// TestSetMustChangePassword: named accounts, or all less the excluded;
// organizations never; a changed row's version moves; rows already at the
// value are not counted.
func TestSetMustChangePassword(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		for _, u := range []*store.User{
			{Name: "ann", Email: "ann@example.org", IsActive: true},
			{Name: "ben", Email: "ben@example.org", IsActive: true},
			{Name: "cat", Email: "cat@example.org", IsActive: true},
			{Name: "org", Type: store.UserTypeOrganization, IsActive: true},
		} {
			if err := s.CreateUser(ctx, u); err != nil {
				t.Fatal(err)
			}
		}
		before, _ := s.UserByName(ctx, "ann")
		if n, err := s.SetMustChangePassword(ctx, false, []string{"ANN", "nobody"}, nil, true); err != nil || n != 1 {
			t.Fatalf("named: %d %v", n, err)
		}
		after, _ := s.UserByName(ctx, "ann")
		if !after.MustChangePassword || after.Version == before.Version {
			t.Fatalf("ann: must %v, version %d → %d", after.MustChangePassword, before.Version, after.Version)
		}
		if n, err := s.SetMustChangePassword(ctx, true, nil, []string{"Cat"}, true); err != nil || n != 1 {
			t.Fatalf("all but cat: %d %v (ann already set, ben changes, the organization never)", n, err)
		}
		for name, want := range map[string]bool{"ann": true, "ben": true, "cat": false, "org": false} {
			if u, _ := s.UserByName(ctx, name); u.MustChangePassword != want {
				t.Errorf("%s: %v, want %v", name, u.MustChangePassword, want)
			}
		}
		if n, err := s.SetMustChangePassword(ctx, true, nil, nil, false); err != nil || n != 2 {
			t.Fatalf("unset all: %d %v", n, err)
		}
	})
}
