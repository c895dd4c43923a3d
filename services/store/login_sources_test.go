package store_test

import (
	"context"
	"errors"
	"testing"

	"forge/services/store"
	"forge/services/store/storetest"
)

func TestLoginSources(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		a := &store.LoginSource{Type: store.LoginSourceLDAP, Name: "a", IsActive: true, Cfg: []byte{1, 2}}
		b := &store.LoginSource{Type: store.LoginSourceLDAP, Name: "b", Cfg: []byte{3}}
		for _, src := range []*store.LoginSource{a, b} {
			if err := s.CreateLoginSource(ctx, src); err != nil || src.ID == 0 {
				t.Fatalf("create %s: %v", src.Name, err)
			}
		}
		if err := s.CreateLoginSource(ctx, &store.LoginSource{Name: "a", Cfg: []byte{}}); !errors.Is(err, store.ErrLoginSourceExists) {
			t.Fatalf("second a: %v", err)
		}
		if _, err := s.UpdateLoginSource(ctx, b.ID, func(src *store.LoginSource) error { src.Name = "a"; return nil }); !errors.Is(err, store.ErrLoginSourceExists) {
			t.Fatalf("rename onto a: %v", err)
		}
		got, err := s.UpdateLoginSource(ctx, b.ID, func(src *store.LoginSource) error {
			src.IsActive, src.Cfg = true, []byte{9}
			return nil
		})
		if err != nil || !got.IsActive || got.Name != "b" || string(got.Cfg) != "\x09" {
			t.Fatalf("update b: %+v %v", got, err)
		}
		if _, err := s.UpdateLoginSource(ctx, 999, func(*store.LoginSource) error { return nil }); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("update unknown: %v", err)
		}
		all, err := s.LoginSources(ctx)
		if err != nil || len(all) != 2 || all[0].ID != a.ID || all[1].ID != b.ID {
			t.Fatalf("list: %+v %v", all, err)
		}
		u := &store.User{Name: "ext", Email: "ext@example.org", IsActive: true, LoginSource: a.ID, LoginName: "ext"}
		if err := s.CreateUser(ctx, u); err != nil {
			t.Fatal(err)
		}
		if err := s.DeleteLoginSource(ctx, a.ID); !errors.Is(err, store.ErrLoginSourceInUse) {
			t.Fatalf("delete in use: %v", err)
		}
		if err := s.DeleteLoginSource(ctx, b.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := s.LoginSourceByID(ctx, b.ID); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("deleted b: %v", err)
		}
		if err := s.DeleteLoginSource(ctx, b.ID); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("delete again: %v", err)
		}
	})
}
