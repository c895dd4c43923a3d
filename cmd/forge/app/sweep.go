package app

import (
	"context"
	"log/slog"
	"time"

	"forge/services/attachments"
	"forge/services/git"
	"forge/services/pulls"
	"forge/services/repos"
)

// sweepEvery is how often debris of killed operations is looked for while
// serving (it is also removed at start-up).
const sweepEvery = time.Hour

// sweep removes the debris of killed operations, scratch files and
// orphaned attachment files; failures are logged, never fatal.
func (a *App) sweep(ctx context.Context) {
	if err := a.sweepScratch(ctx); err != nil {
		slog.Warn("removing leftovers of interrupted operations", "err", err)
	}
	if err := a.sweepAttachments(ctx); err != nil {
		slog.Warn("removing orphaned attachment files", "err", err)
	}
}

// sweepPullRefs removes the refs/pull/<index>/head refs of pull requests
// that do not exist (a creation cut short by a crash after writing its
// ref). It reads every repository's refs.
func (a *App) sweepPullRefs(ctx context.Context) error {
	n, err := pulls.SweepPullHeads(ctx, a.Store, a.Git)
	if n > 0 {
		slog.Info("removed refs of pull requests that do not exist", "removed", n)
	}
	return err
}

// sweepScratch removes scratch files and push quarantines left by killed
// operations (see git.Store.Sweep).
func (a *App) sweepScratch(ctx context.Context) error {
	// Directory moves a crash cut short (a repository transfer) settle
	// where the record says, before anything serves the repository.
	if n, err := repos.SettleMoves(ctx, a.Store, a.Git); err != nil {
		slog.Warn("settling interrupted repository moves", "err", err)
	} else if n > 0 {
		slog.Info("settled interrupted repository moves", "settled", n)
	}
	n, err := a.Git.Sweep(ctx, git.DefaultScratchAge)
	if err == nil && n > 0 {
		slog.Info("removed leftovers of interrupted operations", "removed", n)
	}
	return err
}

// sweepAttachments removes attachment files without a row (an upload or
// delete cut short, a parent deleted with its rows) and unfinished
// uploads.
func (a *App) sweepAttachments(ctx context.Context) error {
	n, err := a.Attachments.Sweep(ctx, attachments.SweepAge)
	if err == nil && n > 0 {
		slog.Info("removed orphaned attachment files", "removed", n)
	}
	return err
}
