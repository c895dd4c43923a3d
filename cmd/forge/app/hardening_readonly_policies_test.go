package app_test

import (
	"slices"
	"strings"
	"testing"

	"forge/services/auth"
)

// TestRepositoryWritesAreDeclared: every registered method that writes with
// the repository scope says in its policy what it writes in the
// repository, so that archived repositories and mirrors refuse it
// (services/access.ReadOnly). An undeclared one would write a read-only
// repository.
func TestRepositoryWritesAreDeclared(t *testing.T) {
	s := startServer(t, "sqlite3", nil)
	policies := s.App.Policies()
	for service, info := range s.App.GRPCServer().GetServiceInfo() {
		if strings.HasPrefix(service, "grpc.") { // reflection, health
			continue
		}
		for _, m := range info.Methods {
			name := "/" + service + "/" + m.Name
			p, ok := policies[name]
			if !ok {
				t.Errorf("%s is registered without a policy", name)
				continue
			}
			if p.Level == auth.LevelWrite && slices.Contains(p.Scopes, auth.CategoryRepository) && p.Writes == auth.WritesUndeclared {
				t.Errorf("%s writes with the repository scope but does not declare what it writes (Policy.Writes)", name)
			}
		}
	}
}
