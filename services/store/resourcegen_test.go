package store_test

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"forge/services/store"
	"forge/services/store/storetest"
)

// TestResourceGeneration: the resource generation moves with every change
// to a repository row that resolving it can show (name, owner, visibility,
// units, settings), with its deletion and with collaborations, in the
// change's own transaction,
// and stays put for the counters the issue and watch writes move, which
// would otherwise empty the cache of resolved repositories on every new
// issue.
func TestResourceGeneration(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		gen := func() store.Generation {
			t.Helper()
			g, err := s.AuthGeneration(ctx)
			if err != nil {
				t.Fatal(err)
			}
			return g
		}
		step := func(what string, moves bool, change func() error) {
			t.Helper()
			before := gen()
			if err := change(); err != nil {
				t.Fatalf("%s: %v", what, err)
			}
			after := gen()
			if (after.Resource != before.Resource) != moves {
				t.Fatalf("%s: resource generation %d -> %d, want moved=%v", what, before.Resource, after.Resource, moves)
			}
			if after.Auth != before.Auth {
				t.Fatalf("%s: authentication generation moved", what)
			}
		}
		alice, bob := newUser("alice", "alice@example.org", false), newUser("bob", "bob@example.org", false)
		for _, u := range []*store.User{alice, bob} {
			if err := s.CreateUser(ctx, u); err != nil {
				t.Fatal(err)
			}
		}
		r := &store.Repository{OwnerID: alice.ID, OwnerName: "alice", Name: "demo", DefaultBranch: "main"}
		step("create", false, func() error { return s.CreateRepository(ctx, r, alice.ID) })
		update := func(change func(r *store.Repository)) func() error {
			return func() error {
				_, err := s.UpdateRepository(ctx, r.ID, func(r *store.Repository) error { change(r); return nil })
				return err
			}
		}
		step("watched", false, func() error { _, err := s.Watch(ctx, bob.ID, r.ID); return err })
		step("issue counters", false, func() error {
			return s.DB().Exec("UPDATE repositories SET num_issues = num_issues + 1, num_closed_issues = num_closed_issues + 1, num_pulls = num_pulls + 1, num_stars = num_stars + 1, num_forks = num_forks + 1 WHERE id = ?", r.ID).Error
		})
		step("collaborator added", true, func() error { return s.SetCollaborator(ctx, r.ID, bob.ID, store.AccessRead) })
		step("collaborator removed", true, func() error { return s.DeleteCollaborator(ctx, r.ID, bob.ID) })
		step("made private", true, update(func(r *store.Repository) { r.IsPrivate = true }))
		step("renamed", true, update(func(r *store.Repository) { r.Name = "renamed" }))
		step("issues on", true, update(func(r *store.Repository) { r.HasIssues = !r.HasIssues }))
		step("transferred", true, update(func(r *store.Repository) { r.OwnerID, r.OwnerName = bob.ID, "bob" }))
		step("marked empty", true, func() error {
			return s.DB().Exec("UPDATE repositories SET is_empty = ? WHERE id = ?", true, r.ID).Error
		})
		step("deleted", true, func() error { return s.DB().Exec("DELETE FROM repositories WHERE id = ?", r.ID).Error })
	})
}

// counterColumns are the repositories columns the resource generation
// does not follow (migration 0093), and the tag records' bookkeeping flag
// (0116), which no answer shows.
var counterColumns = map[string]bool{"id": true, "num_watches": true, "num_stars": true, "num_forks": true,
	"num_issues": true, "num_closed_issues": true, "num_pulls": true, "num_closed_pulls": true, "num_branches": true,
	"tag_refs_recorded": true}

// TestResourceGenerationCoversColumns: every column of repositories but
// the counters moves the resource generation, so a column added later
// without recreating the trigger fails here rather than serving stale
// rows.
func TestResourceGenerationCoversColumns(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		cols, err := s.DB().Migrator().ColumnTypes("repositories")
		if err != nil {
			t.Fatal(err)
		}
		var def string
		if s.DB().Dialector.Name() == "postgres" {
			err = s.DB().Raw(`SELECT pg_get_triggerdef(oid) FROM pg_trigger WHERE tgname = 'repositories_resource_generation_update'`).Scan(&def).Error
		} else {
			err = s.DB().Raw(`SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = 'repositories_resource_generation_update'`).Scan(&def).Error
		}
		if err != nil || def == "" {
			t.Fatalf("trigger: %q %v", def, err)
		}
		def = strings.ToLower(def)
		for _, c := range cols {
			name := strings.ToLower(c.Name())
			if counterColumns[name] {
				continue
			}
			if !regexp.MustCompile(`old\.` + name + `\b`).MatchString(def) {
				t.Errorf("column %s does not move the resource generation", name)
			}
		}
	})
}
