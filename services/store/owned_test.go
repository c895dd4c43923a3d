package store_test

import (
	"context"
	"strings"
	"testing"

	"forge/services/store"
	"forge/services/store/storetest"
)

// TestOwnedTables: deletes refuse until the owned tables are declared
// (deleting the parent row alone would leave orphans), a misspelt
// declaration is refused, and a declared table's rows go with their
// repository.
func TestOwnedTables(t *testing.T) {
	ctx := context.Background()
	// A store opened by a program that forgot Own.
	bare, err := store.Open(storetest.Database(t, "sqlite3"))
	if err != nil {
		t.Fatal(err)
	}
	defer bare.Close()
	if err := bare.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	if err := bare.DeleteRepository(ctx, 1); err == nil || !strings.Contains(err.Error(), "not declared") {
		t.Fatalf("DeleteRepository without Own: %v", err)
	}
	if err := bare.DeleteUser(ctx, "nobody", nil); err == nil || !strings.Contains(err.Error(), "not declared") {
		t.Fatalf("DeleteUser without Own: %v", err)
	}
	for _, o := range []store.Owned{
		{Repository: []string{"releasez"}},
		{Repository: []string{"users"}}, // no repo_id
		{User: []store.OwnedColumn{{Table: "watches", Column: "uid"}}},
	} {
		if err := bare.Own(ctx, o); err == nil {
			t.Errorf("Own(%+v) accepted", o)
		}
	}

	storetest.Each(t, func(t *testing.T, declared *store.Store) {

		owner := newUser("owner", "owner@x.org", false)
		if err := declared.CreateUser(ctx, owner); err != nil {
			t.Fatal(err)
		}
		r := &store.Repository{OwnerID: owner.ID, OwnerName: owner.Name, Name: "r"}
		if err := declared.CreateRepository(ctx, r, owner.ID); err != nil {
			t.Fatal(err)
		}
		if err := declared.CreateRelease(ctx, &store.Release{RepoID: r.ID, TagName: "v1", LowerTagName: "v1"}); err != nil {
			t.Fatal(err)
		}
		if err := declared.DeleteRepository(ctx, r.ID); err != nil {
			t.Fatal(err)
		}
		for _, table := range storetest.Owned.Repository {
			if n, err := declared.CountOwned(ctx, table, "repo_id", r.ID); err != nil || n != 0 {
				t.Errorf("%d rows of %s survived their repository (%v)", n, table, err)
			}
		}
	})
}
