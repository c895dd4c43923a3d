package git

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"
)

// housekeeping runs Housekeep in the background after pushes, at most one
// run per repository at a time.
type housekeeping struct {
	mu      sync.Mutex
	again   map[string]bool // running, by path; true: run once more after
	wg      sync.WaitGroup
	ctx     context.Context
	stop    context.CancelFunc
	stopped bool
}

// housekeepTimeout bounds one background run (gc of a large repository).
const housekeepTimeout = 10 * time.Minute

// HousekeepLater runs Housekeep on path in the background: packs the
// loose refs a push leaves (git's connectivity check on the next push
// reads every loose ref file: with 10,000 branches pushed loose it costs
// several times what it costs with them packed) and lets `git gc --auto`
// collect loose objects, which receive-pack does not (receive.autogc is
// off). Runs for one repository never overlap: a call while one runs asks
// for one more run after it. A failure is logged; the next push retries.
func (s *Store) HousekeepLater(path string) {
	h := &s.housekeep
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.stopped {
		return
	}
	if h.again == nil {
		h.again = map[string]bool{}
		h.ctx, h.stop = context.WithCancel(context.Background())
	}
	if _, running := h.again[path]; running {
		h.again[path] = true
		return
	}
	h.again[path] = false
	h.wg.Add(1)
	go func() {
		defer h.wg.Done()
		for {
			ctx, cancel := context.WithTimeout(h.ctx, housekeepTimeout)
			err := s.Housekeep(ctx, path)
			cancel()
			if err != nil && !errors.Is(err, ErrNotFound) && !errors.Is(err, ErrBusy) && h.ctx.Err() == nil {
				slog.Warn("housekeeping after a push", "path", path, "err", err)
			}
			h.mu.Lock()
			if !h.again[path] || h.stopped {
				delete(h.again, path)
				h.mu.Unlock()
				return
			}
			h.again[path] = false
			h.mu.Unlock()
		}
	}()
}

// StopHousekeeping stops background housekeeping (a running git is
// killed; packing and gc are safe to interrupt) and waits for it.
func (s *Store) StopHousekeeping() {
	h := &s.housekeep
	h.mu.Lock()
	h.stopped = true
	if h.stop != nil {
		h.stop()
	}
	h.mu.Unlock()
	h.wg.Wait()
}
