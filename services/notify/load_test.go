package notify_test

import (
	"context"
	"flag"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"forge/services/notify"
	"forge/services/store"
	"forge/services/store/storetest"
)

var (
	loadWriters  = flag.Int("load.writers", 50, "concurrent writers of BenchmarkFanOutLoad")
	loadWorkers  = flag.Int("load.notifiers", 1, "notifiers of BenchmarkFanOutLoad (processes sharing the queue on PostgreSQL)")
	loadDuration = flag.Duration("load.duration", 5*time.Second, "how long BenchmarkFanOutLoad's writers write")
)

// BenchmarkFanOutLoad is the issue-16 load on one process: concurrent
// writers create issues and comment on them (each write enqueues an
// activity in its transaction) for a fixed time while the notifier runs,
// woken by the writes as in the server. It reports the queue's backlog
// when the writers stop, how long the notifier then takes to empty it, and
// the rates. Run by hand (it takes load.duration per backend):
//
//	go test ./services/notify/ -run '^$' -bench FanOutLoad -benchtime 1x -args -load.duration 5s
func BenchmarkFanOutLoad(b *testing.B) {
	for _, kind := range storetest.Backends {
		b.Run(kind, func(b *testing.B) {
			for range b.N {
				r := runLoad(b, storetest.Open(b, kind), *loadWriters, 20, *loadDuration)
				b.ReportMetric(float64(r.backlog), "backlog")
				b.ReportMetric(r.drain.Seconds(), "drain-s")
				b.ReportMetric(float64(r.writes)/r.wrote.Seconds(), "writes/s")
				b.ReportMetric(float64(r.threads), "threads")
				b.ReportMetric(float64(r.writes)/float64(r.batches), "activities/batch")
				b.ReportMetric(float64(r.batchTime.Milliseconds())/float64(r.batches), "ms/batch")
			}
		})
	}
}

type loadResult struct {
	writes    int64         // activities written
	wrote     time.Duration // how long the writers wrote
	backlog   int64         // activities queued when they stopped
	drain     time.Duration // from then until the queue was empty
	threads   int64         // notification threads at the end
	batches   int64         // fan-out transactions that claimed activities
	batchTime time.Duration // their total time
}

// timedQueue counts and times the fan-out transactions.
type timedQueue struct {
	s       *store.Store
	mu      sync.Mutex
	batches int64
	spent   time.Duration
}

func (q *timedQueue) FanOutActivities(ctx context.Context, max int) (int, error) {
	start := time.Now()
	n, err := q.s.FanOutActivities(ctx, max)
	if n > 0 {
		q.mu.Lock()
		q.batches++
		q.spent += time.Since(start)
		q.mu.Unlock()
	}
	return n, err
}

func (q *timedQueue) stats() (int64, time.Duration) {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.batches, q.spent
}

// runLoad runs writers for d on s, on a repository that watchers users
// watch, with a notifier running, and waits for the queue to drain.
func runLoad(tb testing.TB, s *store.Store, writers, watchers int, d time.Duration) loadResult {
	tb.Helper()
	ctx := context.Background()
	owner := loadUser(tb, s, "owner")
	repo := &store.Repository{OwnerID: owner.ID, OwnerName: owner.Name, Name: "busy", IsEmpty: true, HasIssues: true, HasPullRequests: true}
	if err := s.CreateRepository(ctx, repo, 0); err != nil {
		tb.Fatal(err)
	}
	for i := range watchers {
		if _, err := s.Watch(ctx, loadUser(tb, s, fmt.Sprintf("watcher%d", i)).ID, repo.ID); err != nil {
			tb.Fatal(err)
		}
	}
	posters := make([]*store.User, writers)
	for i := range posters {
		posters[i] = loadUser(tb, s, fmt.Sprintf("writer%d", i))
	}

	timed := &timedQueue{s: s}
	wctx, stop := context.WithCancel(ctx)
	var running sync.WaitGroup
	defer func() { stop(); running.Wait() }()
	for range *loadWorkers {
		w := notify.NewWorker(timed, notify.PollInterval)
		s.OnActivity(w.Kick)
		running.Add(1)
		go func() { defer running.Done(); w.Run(wctx) }()
	}

	var writes atomic.Int64
	var failed atomic.Value
	start := time.Now()
	until := start.Add(d)
	var wg sync.WaitGroup
	for i := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Each writer opens an issue, comments on it four times, and
			// starts again: a comment on an issue others commented on
			// concerns them all.
			var issue *store.NewIssue
			for n := 0; time.Now().Before(until); n++ {
				var err error
				if n%5 == 0 {
					issue = &store.NewIssue{Issue: store.Issue{RepoID: repo.ID, PosterID: posters[i].ID, Title: "load", Content: "load"}}
					err = s.CreateIssue(ctx, issue)
				} else {
					err = s.CreateComment(ctx, &store.Comment{RepoID: repo.ID, IssueID: issue.ID, PosterID: posters[(i+n)%writers].ID, Content: "load"})
				}
				if err != nil {
					failed.Store(err)
					return
				}
				writes.Add(1)
			}
		}()
	}
	wg.Wait()
	r := loadResult{writes: writes.Load(), wrote: time.Since(start)}
	if err, _ := failed.Load().(error); err != nil {
		tb.Fatalf("write: %v", err)
	}
	r.backlog = queued(tb, s)
	stopped := time.Now()
	for n := r.backlog; n > 0; n = queued(tb, s) {
		time.Sleep(10 * time.Millisecond)
		if time.Since(stopped) > 5*time.Minute {
			tb.Fatalf("queue not drained: %d left", n)
		}
	}
	r.drain = time.Since(stopped)
	r.batches, r.batchTime = timed.stats()
	if err := s.DB().Model(&store.Notification{}).Count(&r.threads).Error; err != nil {
		tb.Fatal(err)
	}
	return r
}

func queued(tb testing.TB, s *store.Store) int64 {
	tb.Helper()
	var n int64
	if err := s.DB().Model(&store.Activity{}).Count(&n).Error; err != nil {
		tb.Fatal(err)
	}
	return n
}

func loadUser(tb testing.TB, s *store.Store, name string) *store.User {
	tb.Helper()
	u := &store.User{Name: name, Email: name + "@x.org", IsActive: true}
	if err := s.CreateUser(context.Background(), u); err != nil {
		tb.Fatal(err)
	}
	return u
}
