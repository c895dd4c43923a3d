package app

import (
	"context"
	"log/slog"
	"time"

	"forge/services/attachments"
	"forge/services/git"
	"forge/services/pulls"
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

// sweepPullRefs removes the refs/pull/<index>/head refs of pull requests
// that do not exist (a creation cut short by a crash after writing its
// ref), once per start, in the background: it reads every repository's
// refs.
func (a *App) sweepPullRefs(ctx context.Context) {
	n, err := pulls.SweepPullHeads(ctx, a.Store, a.Git)
	if err != nil && ctx.Err() == nil {
		slog.Warn("removing refs of pull requests that do not exist", "removed", n, "err", err)
	} else if n > 0 {
		slog.Info("removed refs of pull requests that do not exist", "removed", n)
	}
}

// runSweeper sweeps the pull request refs once, then every sweepEvery
// what sweep does, until ctx is done.
func (a *App) runSweeper(ctx context.Context) {
	a.sweepPullRefs(ctx)
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
