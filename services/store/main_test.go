package store_test

import (
	"fmt"
	"os"
	"testing"

	"forge/services/area/all"
	"forge/services/store"
	"forge/services/store/storetest"
)

// owned is what the server's areas declare as owned by repositories and
// users, the declaration every store these tests open is given.
var owned store.Owned

// TestMain reads the areas' declaration of owned tables, so the store's
// deletes are tested on the tables the server gives them, not on a copy.
func TestMain(m *testing.M) {
	var err error
	if owned, err = all.Owned(); err != nil {
		fmt.Fprintln(os.Stderr, "the areas' owned tables:", err)
		os.Exit(1)
	}
	storetest.Owned = &owned
	os.Exit(m.Run())
}
