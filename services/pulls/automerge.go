package pulls

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"forge/services/access"
	"forge/services/auth"
	"forge/services/errs"
	"forge/services/protection"
	"forge/services/store"
)

// AutoMergeStore is what running scheduled merges reads and writes.
type AutoMergeStore interface {
	ScheduledMergesOfRepo(ctx context.Context, repoID int64) ([]store.ScheduledMerge, error)
	ReposWithScheduledMerges(ctx context.Context) ([]int64, error)
	ClaimAutoMerge(ctx context.Context, id, until int64) (bool, error)
	ReleaseAutoMerge(ctx context.Context, id int64) error
	CancelAutoMerge(ctx context.Context, pullID, issueID, doerID int64) error
	UsersByID(ctx context.Context, ids []int64) (map[int64]*store.User, error)
	PullRequestByIndex(ctx context.Context, repoID, index int64) (*store.PullRequest, *store.Issue, error)
}

// RepoResolver tells a user's access to a repository now
// (*access.Checker).
type RepoResolver interface {
	ResolveByID(ctx context.Context, id int64, viewer *auth.Principal) (*access.Repo, error)
}

// AutoMerger runs scheduled merges (Gitea's "merge when checks
// succeed"). It is told which repositories to look at (Changed: a commit
// status was created, a review submitted, the refresher recomputed a pull
// request) and works off the request path, like the Refresher; at
// start-up, and every autoMergeRescan, it looks at every repository with
// scheduled merges (what a crash or another process left).
//
// Each merge runs as the one who scheduled it, with the access that user
// has now: one who may no longer merge (no longer a writer of the code,
// left out of the merge whitelist, gone) loses the schedule, with a
// timeline event. A merge runs once even with several processes: a
// process claims the row for a while before merging (store.
// ClaimAutoMerge), and the merge recorded deletes it in its transaction.
// A merge the checks still refuse, or that cannot run yet (conflicts),
// stays scheduled.
type AutoMerger struct {
	store  AutoMergeStore
	access RepoResolver
	merger *Merger

	mu      sync.Mutex
	pending map[int64]bool
	all     bool
	kick    chan struct{}
}

// NewAutoMerger builds the scheduled merges' runner; Run does its work.
func NewAutoMerger(s AutoMergeStore, a RepoResolver, m *Merger) *AutoMerger {
	return &AutoMerger{store: s, access: a, merger: m, pending: map[int64]bool{}, all: true, kick: make(chan struct{}, 1)}
}

// Changed notes that a scheduled merge into repository repoID may be able
// to run: it is tried soon. It returns at once.
func (a *AutoMerger) Changed(_ context.Context, repoID int64) {
	a.mu.Lock()
	a.pending[repoID] = true
	a.mu.Unlock()
	select {
	case a.kick <- struct{}{}:
	default:
	}
}

const (
	// autoMergeClaim is how long a process holds a scheduled merge it runs.
	autoMergeClaim = 2 * time.Minute
	// autoMergeRescan is how often every repository with scheduled merges
	// is looked at (claims that expired, changes seen by other processes).
	autoMergeRescan = time.Minute
)

// Run runs scheduled merges until ctx is done.
func (a *AutoMerger) Run(ctx context.Context) {
	rescan := time.NewTicker(autoMergeRescan)
	defer rescan.Stop()
	wait := 100 * time.Millisecond
	for {
		if err := a.runPending(ctx); err != nil && ctx.Err() == nil {
			slog.Warn("run scheduled merges", "err", err, "retry_in", wait)
			wait = min(2*wait, maxRefreshBackoff)
		} else {
			wait = 100 * time.Millisecond
		}
		var timer <-chan time.Time
		if a.hasPending() {
			timer = time.After(wait)
		}
		select {
		case <-ctx.Done():
			return
		case <-a.kick:
		case <-timer:
		case <-rescan.C:
			a.mu.Lock()
			a.all = true
			a.mu.Unlock()
		}
	}
}

func (a *AutoMerger) hasPending() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.all || len(a.pending) > 0
}

func (a *AutoMerger) runPending(ctx context.Context) error {
	a.mu.Lock()
	all := a.all
	a.mu.Unlock()
	if all {
		ids, err := a.store.ReposWithScheduledMerges(ctx)
		if err != nil {
			return err
		}
		a.mu.Lock()
		a.all = false
		for _, id := range ids {
			a.pending[id] = true
		}
		a.mu.Unlock()
	}
	a.mu.Lock()
	ids := make([]int64, 0, len(a.pending))
	for id := range a.pending {
		ids = append(ids, id)
	}
	clear(a.pending)
	a.mu.Unlock()
	var failed []error
	for _, id := range ids {
		if err := a.RunRepo(ctx, id); err != nil {
			failed = append(failed, err)
			a.mu.Lock()
			a.pending[id] = true
			a.mu.Unlock()
		}
	}
	return errors.Join(failed...)
}

// RunRepo tries every scheduled merge into repository repoID that no
// process holds.
func (a *AutoMerger) RunRepo(ctx context.Context, repoID int64) error {
	list, err := a.store.ScheduledMergesOfRepo(ctx, repoID)
	if err != nil {
		return err
	}
	var failed []error
	for _, sm := range list {
		if err := a.run(ctx, sm); err != nil {
			failed = append(failed, err)
		}
	}
	return errors.Join(failed...)
}

// run claims one scheduled merge and tries it as its doer.
func (a *AutoMerger) run(ctx context.Context, sm store.ScheduledMerge) error {
	ok, err := a.store.ClaimAutoMerge(ctx, sm.ID, time.Now().Add(autoMergeClaim).Unix())
	if err != nil || !ok {
		return err
	}
	done, err := a.try(ctx, sm)
	if !done {
		// Not yet: the claim goes, the next change tries again.
		if rerr := a.store.ReleaseAutoMerge(ctx, sm.ID); rerr != nil {
			err = errors.Join(err, rerr)
		}
	}
	return err
}

// try merges sm as its doer; done when the schedule is used up (merged,
// or dropped because the doer may no longer merge).
func (a *AutoMerger) try(ctx context.Context, sm store.ScheduledMerge) (done bool, err error) {
	drop := func(why string) (bool, error) {
		slog.Info("scheduled merge dropped", "repo", sm.RepoID, "pull", sm.Index, "doer", sm.DoerID, "why", why)
		err := a.store.CancelAutoMerge(ctx, sm.PullID, sm.IssueID, sm.DoerID)
		if errors.Is(err, store.ErrNotFound) {
			err = nil
		}
		return err == nil, err
	}
	people, err := a.store.UsersByID(ctx, []int64{sm.DoerID})
	if err != nil {
		return false, err
	}
	doer := people[sm.DoerID]
	if doer == nil || doer.ProhibitLogin {
		return drop("the doer is gone or may not sign in")
	}
	repo, err := a.access.ResolveByID(ctx, sm.RepoID, &auth.Principal{User: doer})
	if errs.KindOf(err) == errs.NotFound || errs.KindOf(err) == errs.PermissionDenied {
		return drop("the doer no longer reads the repository")
	}
	if err != nil {
		return false, err
	}
	if repo.UnitMode(auth.UnitCode) < store.AccessWrite || repo.UnitMode(auth.UnitPulls) < store.AccessRead {
		return drop("the doer no longer writes the code")
	}
	if repo.IsArchived || repo.IsMirror {
		return false, nil
	}
	pr, is, err := a.store.PullRequestByIndex(ctx, sm.RepoID, sm.Index)
	if err != nil {
		return false, errs.Replace(err, store.ErrNotFound, nil)
	}
	if pr.HasMerged {
		return true, nil // the merge deleted the schedule already
	}
	if is.IsClosed {
		return false, nil // kept for a reopening
	}
	_, err = a.merger.Merge(ctx, repo, doer, MergeRequest{Index: sm.Index, Style: sm.MergeStyle, Title: sm.Title,
		Body: sm.Message, DeleteBranch: sm.DeleteBranchAfterMerge})
	switch {
	case err == nil, errors.Is(err, store.ErrPullRequestMerged):
		return true, nil
	case errors.Is(err, protection.ErrNotAllowedToMerge):
		return drop("the merge whitelist leaves the doer out")
	case errs.KindOf(err) == errs.Internal:
		return false, err
	}
	// Checks not passed yet, conflicts, a style no longer allowed: kept.
	slog.Debug("scheduled merge not ready", "repo", sm.RepoID, "pull", sm.Index, "err", err)
	return false, nil
}
