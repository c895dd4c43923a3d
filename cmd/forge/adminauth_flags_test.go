package main

import (
	"io"
	"testing"

	"forge/services/ldapauth"
)

// TestUpdateLDAPSynchronizeUsers: update-ldap turns the synchronization on
// with --synchronize-users and off with --disable-synchronize-users (Gitea's
// flags), and leaves it as it was without either.
func TestUpdateLDAPSynchronizeUsers(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		args      []string
		was, want bool
	}{
		{[]string{"--id", "1", "--synchronize-users"}, false, true},
		{[]string{"--id", "1", "--disable-synchronize-users"}, true, false},
		{[]string{"--id", "1", "--name", "x"}, true, true},
		{[]string{"--id", "1", "--name", "x"}, false, false},
	} {
		e := &cliEnv{stdout: io.Discard, stderr: io.Discard}
		f := e.ldapFlagSet("admin auth update-ldap", true)
		if err := f.fs.Parse(c.args); err != nil {
			t.Fatal(err)
		}
		src := ldapauth.Source{Sync: c.was}
		if err := f.apply(&src); err != nil {
			t.Fatal(err)
		}
		if src.Sync != c.want {
			t.Errorf("%v from %t: sync %t, want %t", c.args, c.was, src.Sync, c.want)
		}
	}
}
