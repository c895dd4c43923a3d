package notify

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"
)

// queue is an in-memory QueueStore: n queued activities, fan-out fails
// while failing is set.
type queue struct {
	mu        sync.Mutex
	n         int
	delivered int
	batches   int // calls that claimed
	failing   bool
}

func (q *queue) FanOutActivities(_ context.Context, max int) (int, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.failing {
		return 0, errors.New("database down")
	}
	n := min(q.n, max)
	q.n -= n
	q.delivered += n
	q.batches++
	return n, nil
}

func (q *queue) add(n int) {
	q.mu.Lock()
	q.n += n
	q.mu.Unlock()
}

func (q *queue) state() (queued, delivered int) {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.n, q.delivered
}

func eventually(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out: %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

// What was queued before the worker started (a previous run's) is
// delivered at once; a kick delivers without waiting for the poll; the
// poll finds what another process queued; a failing store is retried.
func TestWorker(t *testing.T) {
	q := &queue{n: 3}
	w := NewWorker(q, time.Hour) // no poll unless asked
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { w.Run(ctx); close(done) }()
	eventually(t, time.Second, "the backlog", func() bool { _, d := q.state(); return d == 3 })

	q.add(2)
	w.Kick()
	eventually(t, time.Second, "the kicked activity", func() bool { _, d := q.state(); return d == 5 })

	// A kick that arrives before the insert is visible (its transaction
	// commits later) is retried briefly.
	w.Kick()
	time.Sleep(2 * time.Millisecond)
	q.add(1)
	eventually(t, time.Second, "the late commit", func() bool { _, d := q.state(); return d == 6 })
	cancel()
	<-done

	polled := &queue{}
	pw := NewWorker(polled, 10*time.Millisecond)
	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	go pw.Run(ctx)
	polled.mu.Lock()
	polled.failing = true
	polled.n = 1
	polled.mu.Unlock()
	time.Sleep(30 * time.Millisecond)
	polled.mu.Lock()
	polled.failing = false
	polled.mu.Unlock()
	eventually(t, time.Second, "the poll after a failure", func() bool { n, d := polled.state(); return n == 0 && d == 1 })
}

// Drain claims Batch activities per transaction and stops at the first
// short batch: a backlog costs one store call per Batch activities, not
// one per activity.
func TestDrainBatches(t *testing.T) {
	q := &queue{n: 2*Batch + 50}
	w := NewWorker(q, time.Hour)
	if got := w.Drain(context.Background()); got != 2*Batch+50 {
		t.Fatalf("drained %d", got)
	}
	if n, d := q.state(); n != 0 || d != 2*Batch+50 || q.batches != 3 {
		t.Fatalf("queued %d, delivered %d in %d batches; want 0, %d in 3", n, d, q.batches, 2*Batch+50)
	}
}

// While activity streams in, kicks gather into batches: 40 activities
// kicked one by one over ~40 ms, just after a delivery, take a few fan-out
// batches (one per gather interval), not one each.
func TestWorkerGathersStreamedActivity(t *testing.T) {
	q := &queue{n: 1}
	w := NewWorker(q, time.Hour)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go w.Run(ctx)
	eventually(t, time.Second, "the first activity", func() bool { _, d := q.state(); return d == 1 })
	q.mu.Lock()
	q.batches = 0
	q.mu.Unlock()
	for range 40 {
		q.add(1)
		w.Kick()
		time.Sleep(time.Millisecond)
	}
	eventually(t, time.Second, "the streamed activities", func() bool { _, d := q.state(); return d == 41 })
	q.mu.Lock()
	batches := q.batches
	q.mu.Unlock()
	if batches > 10 {
		t.Fatalf("%d fan-out batches for 40 streamed activities, want them gathered", batches)
	}
}
