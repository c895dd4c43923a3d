package ldapauth

import "testing"

// SetSyncMaxEntries lowers the bound of a synchronization's search for
// the test t.
func SetSyncMaxEntries(t *testing.T, n int) {
	old := syncMaxEntries
	syncMaxEntries = n
	t.Cleanup(func() { syncMaxEntries = old })
}
