package store_test

import (
	"context"
	"database/sql"
	"errors"
	"sync"
	"testing"

	"forge/services/store"
	"forge/services/store/storetest"
)

// TestGenerationReadsShared: on PostgreSQL concurrent requests share their
// generation reads (genrounds.go), and none is answered with a read older
// than its asking: a commit that finished before a request asked, from
// any connection, is always seen. Each request still gets the counters of
// the repository it prefetches, whichever repositories share its read,
// and a request that gives up fails no other.
func TestGenerationReadsShared(t *testing.T) {
	s := storeWithConns(t, "postgres", 8)
	ctx := context.Background()
	repos := []*store.Repository{newRepo(t, s, "first"), newRepo(t, s, "second"), newRepo(t, s, "third")}
	for i, r := range repos {
		for range i + 1 {
			newIssue(t, s, r, "an issue", false)
		}
	}
	before := s.GenerationRoundsForTest()
	const workers, each = 24, 40
	var wg sync.WaitGroup
	errs := make(chan string, workers*each)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				// A commit that moves the generation, then a request.
				var bumped int64
				if w%4 == 0 {
					if err := s.DB().Raw("UPDATE auth_generation SET value = value + 1 WHERE id = 1 RETURNING value").Row().Scan(&bumped); err != nil {
						errs <- err.Error()
						return
					}
				}
				rctx := ctx
				if w%4 == 1 && i%2 == 0 {
					var cancel context.CancelFunc
					rctx, cancel = context.WithCancel(ctx)
					cancel() // a request that has given up
				}
				r := repos[(w+i)%len(repos)]
				check, done := store.WithCountersPrefetch(rctx, r.ID)
				g, err := s.AuthGeneration(check)
				if err != nil {
					done()
					if rctx.Err() == nil {
						errs <- "generation: " + err.Error()
					}
					continue
				}
				if g.Auth < bumped {
					errs <- "a read older than the request's own commit"
				}
				c := *r
				if err := s.RepositoryCounters(check, &c); err != nil && rctx.Err() == nil {
					errs <- "counters: " + err.Error()
				} else if err == nil && c.NumIssues != (w+i)%len(repos)+1 {
					errs <- "counters of another repository"
				}
				done()
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Fatal(e)
	}
	if reads := s.GenerationRoundsForTest() - before; reads >= workers*each {
		t.Fatalf("%d reads for %d requests: none shared", reads, workers*each)
	} else {
		t.Logf("%d reads for %d requests", reads, workers*each)
	}
}

// TestSnapshotMark: on PostgreSQL the mark stays while nothing commits,
// whatever is read, and moves with any commit of a write, from any
// connection (here plain SQL beside the store's own). SQLite has none
// (its mark is CommitMark).
func TestSnapshotMark(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		m1, ok := s.SnapshotMark(ctx)
		if s.DB().Dialector.Name() != "postgres" {
			if ok {
				t.Fatalf("a snapshot mark on SQLite: %q", m1)
			}
			return
		}
		if !ok || m1 == "" {
			t.Fatalf("no mark: %q %v", m1, ok)
		}
		if _, err := s.UserByID(ctx, 1); err != nil && !errors.Is(err, store.ErrNotFound) {
			t.Fatal(err)
		}
		if m2, _ := s.SnapshotMark(ctx); m2 != m1 {
			t.Fatalf("a read moved the mark: %q, then %q", m1, m2)
		}
		other, err := sql.Open("pgx", storetest.AdminDSN())
		if err != nil {
			t.Fatal(err)
		}
		defer other.Close()
		// Another database of the same server: it moves the mark too
		// (the mark is the server's), which only costs a replay.
		if _, err := other.ExecContext(ctx, "CREATE TEMP TABLE mark_probe (x int); INSERT INTO mark_probe VALUES (1)"); err != nil {
			t.Fatal(err)
		}
		m3, _ := s.SnapshotMark(ctx)
		if m3 == m1 {
			t.Fatalf("a commit did not move the mark %q", m1)
		}
		newRepo(t, s, "marked") // a commit through the store
		if m4, _ := s.SnapshotMark(ctx); m4 == m3 {
			t.Fatalf("a commit did not move the mark %q", m3)
		}
	})
}

// TestOneReadPerRequest: on PostgreSQL the snapshot mark and the
// generations a request reads on a WithOneRead context come from one
// round; without it each is a read of its own.
func TestOneReadPerRequest(t *testing.T) {
	s := storeWithConns(t, "postgres", 2)
	ctx := context.Background()
	reads := func(ctx context.Context) int64 {
		t.Helper()
		before := s.GenerationRoundsForTest()
		if _, ok := s.SnapshotMark(ctx); !ok {
			t.Fatal("no snapshot mark")
		}
		if _, err := s.AuthGeneration(ctx); err != nil {
			t.Fatal(err)
		}
		return s.GenerationRoundsForTest() - before
	}
	if n := reads(store.WithOneRead(ctx)); n != 1 {
		t.Fatalf("%d reads with one read per request, want 1", n)
	}
	if n := reads(ctx); n != 2 {
		t.Fatalf("%d reads without, want 2", n)
	}
}
