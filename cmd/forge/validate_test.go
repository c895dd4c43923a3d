package main

import (
	"strings"
	"testing"
)

// TestCLIChecksDeclaredRules: the command line calls the services without
// the interceptor chain, so it checks the declared field rules itself.
func TestCLIChecksDeclaredRules(t *testing.T) {
	c := newCLI(t)
	_, errOut, code := c.run("admin", "user", "create", "--username", "alice", "--password", "alice-password",
		"--email", "alice@example.org", "--access-token", "--access-token-name", " ")
	if code == 0 || strings.TrimSpace(errOut) != "forge: [Name]: Required" {
		t.Fatalf("blank token name: exit %d, stderr %q", code, errOut)
	}
}
