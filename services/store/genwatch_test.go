package store_test

import (
	"context"
	"errors"
	"testing"

	"forge/services/store"
	"forge/services/store/storetest"
)

// TestGenerationSeenFromOtherConnections: the generations a store answers
// (from its watcher's copy on SQLite) move as soon as another store on the
// same database, which stands for another process, has committed a
// change (also right after a checkpoint restarted the WAL); and stay put,
// without a stale answer, across many rounds.
func TestGenerationSeenFromOtherConnections(t *testing.T) {
	for _, kind := range storetest.Backends {
		t.Run(kind, func(t *testing.T) { generationSeen(t, kind) })
	}
}

func generationSeen(t *testing.T, kind string) {
	ctx := context.Background()
	stores := storesOnOneDatabase(t, kind, 2)
	s, other := stores[0], stores[1]
	{
		u := newUser("gen", "gen@example.org", false)
		if err := s.CreateUser(ctx, u); err != nil {
			t.Fatal(err)
		}
		gen := func(st *store.Store) store.Generation {
			t.Helper()
			g, err := st.AuthGeneration(ctx)
			if err != nil {
				t.Fatal(err)
			}
			return g
		}
		for i := range 200 {
			before := gen(s)
			if gen(s) != before {
				t.Fatalf("round %d: generation moved without a change", i)
			}
			if kind == "sqlite3" && i%10 == 0 {
				// The WAL restarts from its first frame after a full
				// checkpoint: the next commit must still show.
				if err := other.DB().Exec(`PRAGMA wal_checkpoint(TRUNCATE)`).Error; err != nil {
					t.Fatal(err)
				}
			}
			if err := other.DB().Exec(`UPDATE users SET version = version + 1 WHERE id = ?`, u.ID).Error; err != nil {
				t.Fatal(err)
			}
			if after := gen(s); after.Auth != before.Auth+1 {
				t.Fatalf("round %d: generation %d after the other's change, want %d", i, after.Auth, before.Auth+1)
			}
			if err := other.DB().Exec(`UPDATE repositories SET description = 'x' WHERE id = 0`).Error; err != nil {
				t.Fatal(err)
			}
			if after := gen(s); after.Auth != before.Auth+1 {
				t.Fatalf("round %d: a write that bumps nothing moved the generation", i)
			}
		}
	}
}

// TestRepositoryCountersSeenFromOtherConnections: the counters a store
// answers (kept between two commits on SQLite) move as soon as another
// store on the same database, standing for another process, has
// committed a change to them, including after a checkpoint restarted the
// WAL; and reading them twice without a change gives the same answer.
func TestRepositoryCountersSeenFromOtherConnections(t *testing.T) {
	for _, kind := range storetest.Backends {
		t.Run(kind, func(t *testing.T) {
			ctx := context.Background()
			stores := storesOnOneDatabase(t, kind, 2)
			s, other := stores[0], stores[1]
			u := newUser("counted", "counted@example.org", false)
			if err := s.CreateUser(ctx, u); err != nil {
				t.Fatal(err)
			}
			repo := &store.Repository{OwnerID: u.ID, OwnerName: u.Name, Name: "counted", IsEmpty: true, DefaultBranch: "main"}
			if err := s.CreateRepository(ctx, repo, 0); err != nil {
				t.Fatal(err)
			}
			stars := func() int {
				t.Helper()
				r := store.Repository{ID: repo.ID}
				if err := s.RepositoryCounters(ctx, &r); err != nil {
					t.Fatal(err)
				}
				if !r.ReleasesCounted {
					t.Fatal("releases not counted")
				}
				return r.NumStars
			}
			for i := range 100 {
				before := stars()
				if again := stars(); again != before {
					t.Fatalf("round %d: %d stars, then %d without a change", i, before, again)
				}
				if kind == "sqlite3" && i%10 == 0 {
					if err := other.DB().Exec(`PRAGMA wal_checkpoint(TRUNCATE)`).Error; err != nil {
						t.Fatal(err)
					}
				}
				if err := other.DB().Exec(`UPDATE repositories SET num_stars = num_stars + 1 WHERE id = ?`, repo.ID).Error; err != nil {
					t.Fatal(err)
				}
				if after := stars(); after != before+1 {
					t.Fatalf("round %d: %d stars after the other's change, want %d", i, after, before+1)
				}
			}
			if err := s.RepositoryCounters(ctx, &store.Repository{ID: repo.ID + 1000}); !errors.Is(err, store.ErrNotFound) {
				t.Fatalf("missing repository: %v", err)
			}
		})
	}
}

// TestCountersPrefetchedWithTheGeneration: on PostgreSQL the generation
// read of a check brings the counters of the repository the check
// prefetches (WithCountersPrefetch), and RepositoryCounters serves them
// until the check is done; after that, and for any other repository, it
// reads them afresh. SQLite ignores the prefetch (its counters are kept
// between commits).
func TestCountersPrefetchedWithTheGeneration(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		repo, other := newRepo(t, s, "prefetched"), newRepo(t, s, "elsewhere")
		newIssue(t, s, repo, "one", false)
		newIssue(t, s, repo, "two", false)
		newIssue(t, s, other, "three", false)
		counted := func(ctx context.Context, r *store.Repository) int {
			t.Helper()
			c := *r
			if err := s.RepositoryCounters(ctx, &c); err != nil {
				t.Fatal(err)
			}
			return c.NumIssues
		}

		check, done := store.WithCountersPrefetch(ctx, repo.ID)
		if _, err := s.AuthGeneration(check); err != nil {
			t.Fatal(err)
		}
		newIssue(t, s, repo, "four", false) // after the generation read
		newIssue(t, s, other, "five", false)
		want := 3 // SQLite: read afresh after the commit
		if s.DB().Dialector.Name() == "postgres" {
			want = 2 // the counters of the generation's snapshot
		}
		if got := counted(check, repo); got != want {
			t.Errorf("during the check: %d issues, want %d", got, want)
		}
		if got := counted(check, other); got != 2 {
			t.Errorf("another repository during the check: %d issues, want 2", got)
		}
		done()
		if got := counted(check, repo); got != 3 {
			t.Errorf("after the check: %d issues, want 3", got)
		}

		// A repository that does not exist prefetches nothing.
		missing, done := store.WithCountersPrefetch(ctx, repo.ID+other.ID+1000)
		defer done()
		if _, err := s.AuthGeneration(missing); err != nil {
			t.Fatal(err)
		}
		if got := counted(missing, repo); got != 3 {
			t.Errorf("with a prefetch of a missing repository: %d issues, want 3", got)
		}
	})
}
