package app

import (
	"context"
	"log/slog"
	"time"

	"forge/services/attachments"
	"forge/services/git"
)

// sweepEvery is how often debris of killed operations is looked for while
// serving (it is also removed at start-up).
const sweepEvery = time.Hour

// sweep removes scratch files and push quarantines left by killed
// operations (see git.Store.Sweep); failures are logged, never fatal.
func (a *App) sweep(ctx context.Context) {
	n, err := a.Git.Sweep(ctx, git.DefaultScratchAge)
	if err != nil {
		slog.Warn("removing leftovers of interrupted operations", "removed", n, "err", err)
	} else if n > 0 {
		slog.Info("removed leftovers of interrupted operations", "removed", n)
	}
	// Attachment files without a row (an upload or delete cut short, a
	// parent deleted with its rows) and unfinished uploads.
	n, err = a.Attachments.Sweep(ctx, attachments.SweepAge)
	if err != nil {
		slog.Warn("removing orphaned attachment files", "removed", n, "err", err)
	} else if n > 0 {
		slog.Info("removed orphaned attachment files", "removed", n)
	}
}

// runSweeper sweeps every sweepEvery until ctx is done.
func (a *App) runSweeper(ctx context.Context) {
	t := time.NewTicker(sweepEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			a.sweep(ctx)
		}
	}
}
