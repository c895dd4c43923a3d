package store_test

import (
	"context"
	"sync"
	"testing"

	"forge/services/store"
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
