package store_test

import (
	"context"
	"testing"

	"forge/services/store"
	"forge/services/store/storetest"
)

func TestListEmails(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		for _, u := range []store.User{
			{Name: "zed", Email: "A@example.org", FullName: "Zed Zulu", IsActive: true},
			{Name: "amy", Email: "b_x@example.org", FullName: "Amy"},
			{Name: "bob", Email: "c@example.org", FullName: "Bob B_x"},
			{Name: "corp", Type: store.UserTypeOrganization, Email: "d@example.org"},
		} {
			if err := s.CreateUser(ctx, &u); err != nil {
				t.Fatal(err)
			}
		}
		all, total, err := s.ListEmails(ctx, store.EmailListOptions{Limit: 10})
		if err != nil || total != 3 || len(all) != 3 || all[0].Name != "zed" || all[1].Name != "amy" || all[2].Name != "bob" {
			t.Fatalf("all: %v %d %+v", err, total, all)
		}
		page, total, err := s.ListEmails(ctx, store.EmailListOptions{Offset: 2, Limit: 2})
		if err != nil || total != 3 || len(page) != 1 || page[0].Name != "bob" {
			t.Fatalf("page 2: %v %d %+v", err, total, page)
		}
		// "b_x" matches amy's address and bob's full name; "_" is literal.
		found, total, err := s.ListEmails(ctx, store.EmailListOptions{Query: "B_X", Limit: 10})
		if err != nil || total != 2 || len(found) != 2 || found[0].Name != "amy" || found[1].Name != "bob" {
			t.Fatalf("search: %v %d %+v", err, total, found)
		}
		found, total, err = s.ListEmails(ctx, store.EmailListOptions{Query: "zed", Limit: 10})
		if err != nil || total != 1 || found[0].Name != "zed" {
			t.Fatalf("search by name: %v %d %+v", err, total, found)
		}
	})
}
