package repos

import (
	"context"
	"errors"
	"strings"
	"time"

	"forge/services/git"
	"forge/services/store"
)

// ReconcileInterval is how often the reconciler looks at the ref journal
// when nothing wakes it.
const ReconcileInterval = 2 * time.Second

// MaxReconcileBackoff bounds the wait between attempts while the database
// keeps failing (locked, unreachable): entries wait, they are never dropped.
const MaxReconcileBackoff = 5 * time.Second

// WriterGrace is how long the reconciler leaves the refs (branches and
// tags) of a journal entry to whoever moved them: the writer's own record
// then notices the change, so its webhook events name the pusher and a
// pull request merged by the push names its merger, neither of whom the
// journal knows (the reconciler's records name nobody). A writer that
// died has its refs recorded once the grace is over.
const WriterGrace = 3 * time.Second

// Kick wakes the reconciler (after a failed record write, and when the
// grace of an entry it left to its writer is over).
func (s *Syncer) Kick() {
	select {
	case s.kickChan() <- struct{}{}:
	default: // a wake-up is already pending
	}
}

func (s *Syncer) kickChan() chan struct{} {
	s.kickOnce.Do(func() { s.kick = make(chan struct{}, 1) })
	return s.kick
}

// Woken receives after each Kick: the reconciler's schedule (a task of
// the server's cron registry: Reconcile at start-up, every
// ReconcileInterval and on each Kick, backing off up to
// MaxReconcileBackoff while attempts fail) also runs on it.
func (s *Syncer) Woken() <-chan struct{} { return s.kickChan() }

// Reconcile brings the branch and tag records of every journaled ref in
// step with git and forgets the entries that are settled (their refs can
// no longer move). It leaves the refs of entries younger than
// WriterGrace to their writers (and wakes itself when the first of them
// comes of age). Its cost is proportional to the journaled refs.
// Running it in several processes at once is safe: each record is written
// from git's value read under the repository's row lock, so duplicate
// work writes the same thing (a change's webhook events go with the first
// write that records it, and only with it), and removing an entry twice is
// harmless.
func (s *Syncer) Reconcile(ctx context.Context) error {
	return s.reconcile(ctx, time.Now())
}

// reconcile is Reconcile as it runs at now.
func (s *Syncer) reconcile(ctx context.Context, now time.Time) error {
	entries, err := s.Git.RefJournal()
	if err != nil {
		return err
	}
	type batch struct {
		owner, name string
		refs        map[string]bool
		tags        map[string]string // tag → its value before the oldest journaled change
		entries     []git.JournalEntry
	}
	var order []*batch
	byRepo := map[string]*batch{}
	left, until := youngRefs(entries, now)
	for _, e := range entries {
		if e.Owner == "" { // not a repository (a scratch clone)
			if e.Settled() {
				s.Git.ForgetJournalEntry(e)
			}
			continue
		}
		if young(e, now) {
			continue // its refs are its writer's to record, for now
		}
		key := e.Owner + "/" + e.Name
		b := byRepo[key]
		if b == nil {
			b = &batch{owner: e.Owner, name: e.Name, refs: map[string]bool{}, tags: map[string]string{}}
			byRepo[key] = b
			order = append(order, b)
		}
		kept := false // a ref of e is left to a young entry's writer
		for i, r := range e.Refs {
			if left[key+" "+r] {
				kept = true
				continue
			}
			if n, ok := strings.CutPrefix(r, "refs/heads/"); ok {
				b.refs[n] = true
			}
			if n, ok := strings.CutPrefix(r, "refs/tags/"); ok {
				if _, seen := b.tags[n]; !seen {
					b.tags[n] = e.Olds[i]
				}
			}
		}
		if !kept { // else a later pass, with the young entry, settles it
			b.entries = append(b.entries, e)
		}
	}
	if !until.IsZero() {
		s.wakeAfter(until.Sub(now))
	}
	var errs []error
	var settled []git.JournalEntry
	for _, b := range order {
		names := make([]string, 0, len(b.refs))
		for n := range b.refs {
			names = append(names, n)
		}
		if err := s.reconcileRepo(ctx, b.owner, b.name, names, b.tags); err != nil {
			errs = append(errs, err)
			continue
		}
		for _, e := range b.entries {
			if e.Settled() {
				settled = append(settled, e)
			}
		}
	}
	if len(settled) == 0 {
		return errors.Join(errs...)
	}
	// A writer killed after its refs moved did not report them
	// (git.Store.ReportRefMoves): the count moves here, before its entries
	// are forgotten, so no process keeps replaying what git answered
	// before the move.
	if err := s.Store.CountRefMove(ctx); err != nil {
		return errors.Join(append(errs, err)...)
	}
	for _, e := range settled {
		if err := s.Git.ForgetJournalEntry(e); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// youngRefs returns the refs ("owner/name ref") of the entries younger
// than WriterGrace at now, which the reconciler leaves to their writers,
// and when the first of those entries comes of age (zero: none is young).
func youngRefs(entries []git.JournalEntry, now time.Time) (map[string]bool, time.Time) {
	refs := map[string]bool{}
	var until time.Time
	for _, e := range entries {
		if e.Owner == "" || !young(e, now) {
			continue
		}
		for _, r := range e.Refs {
			refs[e.Owner+"/"+e.Name+" "+r] = true
		}
		if due := e.At.Add(WriterGrace); until.IsZero() || due.Before(until) {
			until = due
		}
	}
	return refs, until
}

// young reports whether e was written less than WriterGrace before now.
func young(e git.JournalEntry, now time.Time) bool { return now.Sub(e.At) < WriterGrace }

// wakeAfter arranges a Kick after d, unless one is due sooner: the
// reconciler then records the refs it left to a writer that never did
// (it died) as soon as their grace is over, not up to a
// ReconcileInterval later.
func (s *Syncer) wakeAfter(d time.Duration) {
	at := time.Now().Add(d)
	s.wakeMu.Lock()
	defer s.wakeMu.Unlock()
	if s.wake != nil && s.wakeAt.After(time.Now()) && !s.wakeAt.After(at) {
		return // an earlier wake-up is pending
	}
	if s.wake == nil {
		s.wake = time.AfterFunc(d, s.Kick)
	} else {
		s.wake.Reset(d)
	}
	s.wakeAt = at
}

// reconcileRepo records the named branches and tags of owner/name, with
// the webhook events of the changes no one recorded yet (by nobody in
// particular: the pusher is not journaled). A repository without a record
// or without its directory (deleted, or being created: creation records
// all its branches) has nothing to reconcile.
func (s *Syncer) reconcileRepo(ctx context.Context, owner, name string, names []string, tags map[string]string) error {
	repo, err := s.repository(ctx, owner, name)
	if errors.Is(err, store.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	if path, err := s.Git.RepoPath(repo.OwnerName, repo.Name); err != nil || !s.Git.Exists(path) {
		return nil
	}
	tagNames := make([]string, 0, len(tags))
	for n := range tags {
		tagNames = append(tagNames, n)
	}
	return errors.Join(s.record(ctx, repo, 0, names, false), s.recordTags(ctx, repo, 0, tagNames, tags))
}

func (s *Syncer) repository(ctx context.Context, owner, name string) (*store.Repository, error) {
	u, err := s.Store.UserByName(ctx, owner)
	if err != nil {
		return nil, err
	}
	return s.Store.RepositoryByName(ctx, u.ID, name)
}
