package auth

import (
	"context"
	"log/slog"
	"sync"
	"time"
)

// usageStore persists token last-use times.
type usageStore interface {
	TouchAccessTokens(ctx context.Context, used map[int64]int64) error
}

// UsageRecorder coalesces token last-use updates: requests only note the
// time in memory, and a background loop writes them in one transaction per
// interval, so authentication adds no database write per request.
type UsageRecorder struct {
	store    usageStore
	mu       sync.Mutex
	pending  map[int64]int64
	stop     chan struct{}
	done     chan struct{}
	interval time.Duration
}

// NewUsageRecorder starts the flush loop; Close stops it after a last flush.
func NewUsageRecorder(s usageStore, interval time.Duration) *UsageRecorder {
	r := &UsageRecorder{store: s, pending: map[int64]int64{}, stop: make(chan struct{}), done: make(chan struct{}), interval: interval}
	go r.loop()
	return r
}

// Record notes that token id was used now.
func (r *UsageRecorder) Record(id int64) {
	now := time.Now().Unix()
	r.mu.Lock()
	r.pending[id] = now
	r.mu.Unlock()
}

// Flush writes what has been recorded.
func (r *UsageRecorder) Flush(ctx context.Context) error {
	r.mu.Lock()
	batch := r.pending
	r.pending = make(map[int64]int64, len(batch))
	r.mu.Unlock()
	return r.store.TouchAccessTokens(ctx, batch)
}

func (r *UsageRecorder) loop() {
	defer close(r.done)
	t := time.NewTicker(r.interval)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			if err := r.Flush(context.Background()); err != nil {
				slog.Warn("flush token usage", "err", err)
			}
		case <-r.stop:
			return
		}
	}
}

// Close stops the loop and flushes the remainder.
func (r *UsageRecorder) Close() error {
	close(r.stop)
	<-r.done
	return r.Flush(context.Background())
}
