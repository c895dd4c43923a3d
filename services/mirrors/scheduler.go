package mirrors

import (
	"context"
	"errors"
	"sync"
	"time"

	"forge/services/store"
)

// Scheduling: the server's task update_mirrors (services/cron, every
// minute, and on demand through POST /admin/cron/update_mirrors) calls
// SyncDue, which
// syncs the pull mirrors and pushes the push mirrors whose next sync is due
// (those with interval 0 never are). Each due mirror is first claimed in
// the database by moving its next sync one interval ahead with a
// conditional UPDATE, so several forge processes sharing a database never
// sync the same mirror twice; a process that dies mid-sync leaves the
// mirror to be retried one interval later.

const (
	// dueBatch is how many due mirrors of each kind one round looks at.
	dueBatch = 100
	// workers is how many syncs one round runs at once.
	workers = 4
)

// SyncDue runs one scheduling round: it claims every due mirror it can and
// syncs the ones it won, a few at a time, returning when all are done.
// Failed syncs are recorded on the mirrors; the error is about the round
// itself (the database).
func (s *Server) SyncDue(ctx context.Context) error {
	now := time.Now().Unix()
	var wg sync.WaitGroup
	sem := make(chan struct{}, workers)
	spawn := func(fn func()) {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			fn()
		}()
	}
	defer wg.Wait()

	pulls, err := s.store.DueMirrors(ctx, now, dueBatch)
	if err != nil {
		return err
	}
	for i := range pulls {
		m := pulls[i]
		won, err := s.store.ClaimMirror(ctx, m.ID, m.NextUpdateUnix, now+m.IntervalSecs)
		if err != nil {
			return err
		}
		if !won {
			continue
		}
		repo, err := s.store.RepositoryByID(ctx, m.RepoID)
		if errors.Is(err, store.ErrNotFound) {
			continue
		}
		if err != nil {
			return err
		}
		spawn(func() {
			sctx, cancel := context.WithTimeout(ctx, syncTimeout)
			defer cancel()
			s.syncPull(sctx, repo, &m)
		})
	}

	pushes, err := s.store.DuePushMirrors(ctx, now, dueBatch)
	if err != nil {
		return err
	}
	for i := range pushes {
		pm := pushes[i]
		won, err := s.store.ClaimPushMirror(ctx, pm.ID, pm.NextUpdateUnix, now+pm.IntervalSecs)
		if err != nil {
			return err
		}
		if !won {
			continue
		}
		repo, err := s.store.RepositoryByID(ctx, pm.RepoID)
		if errors.Is(err, store.ErrNotFound) {
			continue
		}
		if err != nil {
			return err
		}
		spawn(func() {
			sctx, cancel := context.WithTimeout(ctx, syncTimeout)
			defer cancel()
			s.push(sctx, repo, &pm)
		})
	}
	return nil
}
