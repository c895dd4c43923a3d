package notify

import (
	"context"
	"log/slog"
	"sync/atomic"
	"time"

	"forge/services/cron"
)

// QueueStore is what the notifier needs: FanOutActivities claims up to
// max queued activities, writes their threads and deletes them in one
// transaction, and returns how many it claimed, 0 when the queue is empty
// (store.Store.FanOutActivities).
type QueueStore interface {
	FanOutActivities(ctx context.Context, max int) (int, error)
}

// Worker is the notifier: it drains the activity queue (table activities,
// filled by the issue writes in their own transactions) into notification
// threads. The queue is durable, so activity recorded before a crash or a
// restart is delivered by the next run; several forge processes may run a
// Worker each on one database, the store claims each activity once.
//
// It wakes when Kick is called (the store calls it after an activity
// insert in this process), and polls every poll interval for activity
// other processes recorded.
type Worker struct {
	store QueueStore
	poll  time.Duration
	kick  chan struct{}
	log   *slog.Logger
	// delivered is when a round last delivered something (Unix
	// nanoseconds; 0: never), which tells a kicked round that activity is
	// streaming in (gather).
	delivered atomic.Int64
}

// Batch is how many activities one fan-out transaction claims. A
// transaction per activity could not keep up with 50 concurrent writers
// (issue 16): a batch's cost is mostly fixed (its commit, its statements'
// planning), so larger batches keep pace under load; this one still
// holds the threads it revives for well under a second.
const Batch = 500

// PollInterval is how often the notifier looks for activity recorded by
// other processes.
const PollInterval = time.Second

// settle are the retries after a kick that found the queue empty: the
// kick comes from inside the inserting transaction, which commits a
// moment later.
var settle = []time.Duration{5 * time.Millisecond, 20 * time.Millisecond, 100 * time.Millisecond}

// gather is how long a kicked round waits before draining while activity
// streams in (a round delivered less than busy ago): every write kicks the
// worker, and a batch's cost is mostly fixed, so draining at each kick
// under 32 concurrent issue creators claimed a few activities per batch
// and the fan-out took ~15% of the process's CPU (issue 16). Waiting lets
// the activities of the next milliseconds join the batch; a kick after a
// quiet period is served at once. The activities are in the database
// meanwhile, so a crash loses nothing.
const (
	gather = 20 * time.Millisecond
	busy   = time.Second
)

// NewWorker builds a notifier on s that polls every poll.
func NewWorker(s QueueStore, poll time.Duration) *Worker {
	return &Worker{store: s, poll: poll, kick: make(chan struct{}, 1), log: slog.Default()}
}

// Kick wakes the worker; it never blocks.
func (w *Worker) Kick() {
	select {
	case w.kick <- struct{}{}:
	default:
	}
}

// Run drains the queue until ctx is done: at once, then every poll
// interval and on each Kick. The server runs the same schedule from its
// registry of scheduled tasks (the task deliver_notifications: Round,
// Poll, Woken).
func (w *Worker) Run(ctx context.Context) {
	t := time.NewTicker(w.poll)
	defer t.Stop()
	woken := false
	for {
		w.round(ctx, woken)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			woken = false
		case <-w.kick:
			woken = true
		}
	}
}

// Round is one round of the schedule, for a scheduler that runs it every
// Poll and whenever Woken receives (cron.Woken tells the round it was
// kicked).
func (w *Worker) Round(ctx context.Context) error {
	w.round(ctx, cron.Woken(ctx))
	return nil
}

// Poll is the worker's poll interval.
func (w *Worker) Poll() time.Duration { return w.poll }

// Woken receives after each Kick.
func (w *Worker) Woken() <-chan struct{} { return w.kick }

// round drains the queue; after a kick that found it empty it looks again
// a few times (settle).
func (w *Worker) round(ctx context.Context, woken bool) {
	if woken && time.Since(time.Unix(0, w.delivered.Load())) < busy {
		select {
		case <-ctx.Done():
			return
		case <-time.After(gather):
		}
	}
	if w.drainNoting(ctx) > 0 || !woken {
		return
	}
	for _, d := range settle {
		select {
		case <-ctx.Done():
			return
		case <-time.After(d):
		}
		if w.drainNoting(ctx) > 0 {
			return
		}
	}
}

// drainNoting is Drain, noting when it delivered.
func (w *Worker) drainNoting(ctx context.Context) int {
	n := w.Drain(ctx)
	if n > 0 {
		w.delivered.Store(time.Now().UnixNano())
	}
	return n
}

// Drain fans out queued activities, Batch at a time, until a batch comes
// back short (the queue is empty, or the rest is claimed by another
// process), ctx is done or the store fails (logged; the batch stays queued
// for the next round), and returns how many it delivered.
func (w *Worker) Drain(ctx context.Context) int {
	n := 0
	for ctx.Err() == nil {
		got, err := w.store.FanOutActivities(ctx, Batch)
		if err != nil {
			if ctx.Err() == nil {
				w.log.Error("notifications: fan-out failed", "err", err)
			}
			return n
		}
		n += got
		if got < Batch {
			return n
		}
	}
	return n
}
