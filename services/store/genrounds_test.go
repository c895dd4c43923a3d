package store_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"gorm.io/gorm"

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

// TestCommitCount: on PostgreSQL the count stays while nothing commits to
// forge's database, whatever is read and whatever other databases of the
// server commit, and moves with every commit of a write to any of forge's
// tables, from any process: the store's own writes and plain SQL on
// another process's connection alike. A rolled-back write leaves it, and
// so does folding the rows of ended connections. SQLite has none (its
// mark is CommitMark).
func TestCommitCount(t *testing.T) {
	t.Run("sqlite3", func(t *testing.T) {
		s := storetest.Open(t, "sqlite3")
		if n, ok := s.CommitCount(context.Background()); ok {
			t.Fatalf("a commit count on SQLite: %d", n)
		}
		if err := s.CountRefMove(context.Background()); err != nil {
			t.Fatalf("counting a ref move on SQLite: %v", err)
		}
	})
	t.Run("postgres", func(t *testing.T) {
		stores := storesOnOneDatabase(t, "postgres", 2)
		s, other := stores[0], stores[1]
		ctx := context.Background()
		count := func() int64 {
			t.Helper()
			n, ok := s.CommitCount(ctx)
			if !ok {
				t.Fatal("no commit count")
			}
			return n
		}
		moved := func(what string, want bool, change func() error) {
			t.Helper()
			before := count()
			if err := change(); err != nil {
				t.Fatalf("%s: %v", what, err)
			}
			if after := count(); (after != before) != want {
				t.Fatalf("%s: count %d, then %d (want moved: %v)", what, before, after, want)
			}
		}
		moved("a read", false, func() error {
			_, err := s.UserByID(ctx, 1)
			if errors.Is(err, store.ErrNotFound) {
				err = nil
			}
			return err
		})
		admin, err := sql.Open("pgx", storetest.AdminDSN())
		if err != nil {
			t.Fatal(err)
		}
		defer admin.Close()
		moved("another database's commit", false, func() error {
			_, err := admin.ExecContext(ctx, "CREATE TEMP TABLE count_probe (x int); INSERT INTO count_probe VALUES (1)")
			return err
		})
		moved("a commit through the store", true, func() error { newRepo(t, s, "counted"); return nil })
		moved("a ref move counted by another process", true, func() error { return other.CountRefMove(ctx) })
		moved("SQL from another process", true, func() error {
			return other.DB().Exec("UPDATE repositories SET description = 'x' WHERE name = 'counted'").Error
		})
		moved("a rolled-back write", false, func() error {
			err := other.DB().Transaction(func(tx *gorm.DB) error {
				if err := tx.Exec("UPDATE repositories SET description = 'y' WHERE name = 'counted'").Error; err != nil {
					return err
				}
				return errors.New("roll back")
			})
			if err.Error() == "roll back" {
				err = nil
			}
			return err
		})
		// Many writers: each of their commits counts once, whatever the
		// statements per transaction.
		before := count()
		var wg sync.WaitGroup
		for w := range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				st := stores[w%2]
				for range 5 {
					err := st.DB().Transaction(func(tx *gorm.DB) error {
						for range 3 {
							if err := tx.Exec("UPDATE repositories SET description = description || 'z' WHERE name = 'counted'").Error; err != nil {
								return err
							}
						}
						return nil
					})
					if err != nil {
						t.Error(err)
					}
				}
			}()
		}
		wg.Wait()
		if got := count() - before; got != 40 {
			t.Fatalf("40 committed transactions moved the count by %d", got)
		}
		// Past compactAbove rows, a round's reader folds those of ended
		// connections itself, in the background, the sum unchanged.
		if err := s.DB().Exec("INSERT INTO commit_count (pid, n) SELECT 100000000 + g, 1 FROM generate_series(1, 70) g").Error; err != nil {
			t.Fatal(err)
		}
		before = count()
		folded := false
		for range 100 {
			var rows int64
			if err := s.DB().Raw("SELECT count(*) FROM commit_count WHERE pid > 100000000").Scan(&rows).Error; err != nil {
				t.Fatal(err)
			}
			if folded = rows == 0; folded {
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
		if !folded {
			t.Fatal("the rows of ended connections were not folded")
		}
		if n := count(); n != before {
			t.Fatalf("folding moved the count from %d to %d", before, n)
		}
		// The rows of ended connections fold into row 0, the sum unchanged.
		var rows int64
		if err := s.DB().Raw("SELECT count(*) FROM commit_count").Scan(&rows).Error; err != nil || rows < 2 {
			t.Fatalf("%d rows, %v", rows, err)
		}
		// (A backend leaves pg_stat_activity shortly after its client
		// closed the connection.)
		before = count()
		if err := other.Close(); err != nil {
			t.Fatal(err)
		}
		var after int64
		for range 100 {
			if err := s.CompactCommitCountForTest(ctx); err != nil {
				t.Fatal(err)
			}
			if err := s.DB().Raw("SELECT count(*) FROM commit_count").Scan(&after).Error; err != nil {
				t.Fatal(err)
			}
			if after < rows {
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
		if after >= rows {
			t.Fatalf("%d rows before folding, %d after", rows, after)
		}
		if n := count(); n != before {
			t.Fatalf("folding moved the count from %d to %d", before, n)
		}
	})
}

// TestEveryTableCountsCommits: on PostgreSQL every table of forge's
// schema, but the count's own, has the trigger that counts commits
// (migration 0125), those of later steps too.
func TestEveryTableCountsCommits(t *testing.T) {
	s := storetest.Open(t, "postgres")
	var missing []string
	if err := s.DB().Raw(`SELECT c.relname FROM pg_class c
		WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind = 'r' AND c.relname <> 'commit_count'
		AND NOT EXISTS (SELECT 1 FROM pg_trigger g WHERE g.tgrelid = c.oid AND g.tgname = 'forge_commit_count')
		ORDER BY 1`).Scan(&missing).Error; err != nil {
		t.Fatal(err)
	}
	if len(missing) > 0 {
		t.Fatalf("tables without the commit count trigger: %v", missing)
	}
}

// TestOneReadPerRequest: on PostgreSQL the commit count and the
// generations a request reads on a WithOneRead context come from one
// round; without it each is a read of its own.
func TestOneReadPerRequest(t *testing.T) {
	s := storeWithConns(t, "postgres", 2)
	ctx := context.Background()
	reads := func(ctx context.Context) int64 {
		t.Helper()
		before := s.GenerationRoundsForTest()
		if _, ok := s.CommitCount(ctx); !ok {
			t.Fatal("no commit count")
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

// TestCountRefMoveInsideATransaction: a git command run while its caller
// holds a transaction (a pull request's head ref set while its row is
// written) counts its ref move while that transaction, and every other
// connection of the pool, waits: the count has a connection of its own
// and takes no lock the transaction holds. It commits at once, whatever
// becomes of the transaction.
func TestCountRefMoveInsideATransaction(t *testing.T) {
	cfg := storetest.Database(t, "postgres")
	cfg.MaxOpenConns = 1
	s := openMigrated(t, cfg)
	ctx := context.Background()
	before, ok := s.CommitCount(ctx)
	if !ok {
		t.Fatal("no commit count")
	}
	err := s.DB().Transaction(func(tx *gorm.DB) error {
		// The pool's one connection is this transaction's, and it has
		// written (its own commit_count row is locked until it ends).
		if err := tx.Exec("UPDATE repositories SET description = 'x'").Error; err != nil {
			return err
		}
		wait, cancel := context.WithTimeout(ctx, 3*time.Second)
		defer cancel()
		if err := s.CountRefMove(wait); err != nil {
			return fmt.Errorf("count inside the transaction: %w", err)
		}
		return errors.New("roll back")
	})
	if err == nil || err.Error() != "roll back" {
		t.Fatal(err)
	}
	if after, _ := s.CommitCount(ctx); after != before+1 {
		t.Fatalf("count %d after the rolled-back transaction, want %d (the ref move only)", after, before+1)
	}
}
