package main

import (
	"strings"
	"testing"
)

// TestCLIErrorsWithoutRPCWrapper: admin commands print the service's
// message, never grpc-go's "rpc error: code = ... desc = ..." rendering.
func TestCLIErrorsWithoutRPCWrapper(t *testing.T) {
	c := newCLI(t)
	create := []string{"admin", "user", "create", "--username", "alice", "--password", "alice-password",
		"--email", "alice@example.org", "--must-change-password=false"}
	if _, errOut, code := c.run(create...); code != 0 {
		t.Fatalf("create: %d %s", code, errOut)
	}
	for _, args := range [][]string{
		create, // the name is taken
		{"admin", "user", "create", "--username", "bob", "--password", "x", "--email", "bob@example.org"}, // too short
		{"admin", "user", "delete", "--username", "nobody"},
	} {
		_, errOut, code := c.run(args...)
		if code == 0 {
			t.Errorf("%v: succeeded", args)
			continue
		}
		if strings.Contains(errOut, "rpc error") || strings.Contains(errOut, "code =") || !strings.HasPrefix(errOut, "forge: ") {
			t.Errorf("%v: stderr %q", args, errOut)
		}
	}
}
