package store

import (
	"context"
	"database/sql"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// On PostgreSQL every request reads the generations (hot.go): nothing in
// the process can tell that another process committed. That read was a
// sixth of forge's CPU per issue creation at 32 writers, most of it the
// round trip, and a tenth of PostgreSQL's (issue 16). Concurrent requests
// share it instead.
//
// A request needs a read that starts after it asks: such a read sees every
// commit that finished before the request, whatever process made it, which
// is all that the caches following the generations promise ("refused on
// the very next request"). Any read that starts after it asks will do. So
// requests gather into rounds: the first to ask while no read is in flight
// reads at once; whoever asks while a read is in flight joins the next
// round, which reads as soon as the one in flight ends, one statement for
// all its requests, with the counters of every repository they prefetch
// (countersPrefetch). A request waits at most for the read in flight and
// its own; with one request at a time nothing changes.
type genRounds struct {
	mu      sync.Mutex
	running bool      // a round's read is in flight
	next    *genRound // gathering; reads when the read in flight ends
	reads   atomic.Int64
}

// genRound is one shared read.
type genRound struct {
	repos []int64       // whose counters to read, at most roundRepos
	start chan struct{} // closed when the round may read
	done  chan struct{} // closed when g, counters and err are set
	g     Generation
	count int64 // see CommitCount
	found map[int64]repoCounters
	err   error
}

// roundRepos bounds the repositories a round reads the counters of; a
// request whose repository does not fit reads its counters itself.
const roundRepos = 64

// roundTimeout bounds a round's read, which runs for all its requests and
// so on none of their contexts.
const roundTimeout = 30 * time.Second

// join adds a request (prefetching repo's counters unless 0) to the next
// round; lead is true for the request that runs it.
func (rs *genRounds) join(repo int64) (r *genRound, lead bool) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if rs.next == nil {
		rs.next = &genRound{start: make(chan struct{}), done: make(chan struct{})}
		lead = true
	}
	r = rs.next
	if repo != 0 && len(r.repos) < roundRepos && !slices.Contains(r.repos, repo) {
		r.repos = append(r.repos, repo)
	}
	if lead && !rs.running {
		rs.running, rs.next = true, nil
		close(r.start)
	}
	return r, lead
}

// finished lets the next round read, if any request is waiting for one.
func (rs *genRounds) finished() {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if n := rs.next; n != nil {
		rs.next = nil
		close(n.start)
		return
	}
	rs.running = false
}

// oneReadKey carries a request's round (WithOneRead).
type oneReadKey struct{}

type oneRead struct {
	mu sync.Mutex
	r  *genRound
}

// WithOneRead lets the generation and commit count reads made on ctx
// share one round (PostgreSQL): the answer cache reads the commit count
// and then identifies the caller, whose token check reads the generations.
// Any round this request joined started after it asked, so every later
// use within the request may take it.
func WithOneRead(ctx context.Context) context.Context {
	return context.WithValue(ctx, oneReadKey{}, &oneRead{})
}

// round returns a round this request joined, once it has read,
// prefetching repo's counters unless 0.
func (s *Store) round(ctx context.Context, repo int64) (*genRound, error) {
	one, _ := ctx.Value(oneReadKey{}).(*oneRead)
	if one != nil {
		one.mu.Lock()
		defer one.mu.Unlock()
		if r := one.r; r != nil && (repo == 0 || slices.Contains(r.repos, repo)) {
			return r, nil
		}
	}
	r, lead := s.rounds.join(repo)
	if lead {
		<-r.start // bounded: the read in flight has a timeout
		s.readRound(ctx, r)
		close(r.done)
		s.rounds.finished()
	}
	select {
	case <-r.done:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if one != nil && r.err == nil {
		one.r = r
	}
	return r, r.err
}

// readGenerationShared is readGeneration on PostgreSQL: the generations of
// a round this request joined, and the counters p prefetches when the
// round read them.
func (s *Store) readGenerationShared(ctx context.Context, p *countersPrefetch) (Generation, error) {
	var repo int64
	if p != nil && p.wanted() {
		repo = p.repoID
	}
	r, err := s.round(ctx, repo)
	if err != nil {
		return Generation{}, err
	}
	if c, ok := r.found[repo]; ok && repo != 0 {
		p.mu.Lock()
		if p.state == prefetchWanted {
			p.c, p.state = c, prefetchRead
		}
		p.mu.Unlock()
	}
	return r.g, nil
}

// readRound reads r's generations and counters. It runs on none of its
// requests' contexts, so that one request giving up fails no other.
func (s *Store) readRound(ctx context.Context, r *genRound) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), roundTimeout)
	defer cancel()
	s.hotMu.Lock()
	stmt := s.genCntStmt
	s.hotMu.Unlock()
	s.rounds.reads.Add(1)
	rows, err := stmt.QueryContext(ctx, pgIDs(r.repos))
	if err != nil {
		r.err = err
		return
	}
	defer rows.Close()
	read := false
	var procs int64
	for rows.Next() {
		var id sql.NullInt64
		var c repoCounters
		var transfers int64
		if err := rows.Scan(&r.count, &procs, &r.g.Auth, &r.g.Resource, &id, &c.watches, &c.stars, &c.forks,
			&c.issues, &c.closedIssues, &c.pulls, &c.closedPulls, &c.releases, &transfers); err != nil {
			r.err = err
			return
		}
		read = true
		if id.Valid {
			c.transferPending = transfers > 0
			if r.found == nil {
				r.found = make(map[int64]repoCounters, len(r.repos))
			}
			r.found[id.Int64] = c
		}
	}
	if r.err = rows.Err(); r.err == nil && !read {
		r.err = sql.ErrNoRows
	}
	if procs > compactAbove {
		s.compactCommitCount()
	}
}

// CommitCount is PostgreSQL's counterpart of CommitMark, for the answer
// cache: the number of forge's writing transactions that committed
// (migration 0125: every writing statement on any of forge's tables
// counts its transaction once, in that transaction), read in a shared
// round, so, like the generations, by a read that started after the
// caller asked. Two equal counts mean that nothing committed to forge's
// database between their reads, from any process; reads and the writes
// of other databases on the server leave it. ok is false on SQLite, or
// when the read failed.
func (s *Store) CommitCount(ctx context.Context) (count int64, ok bool) {
	if !s.postgres {
		return 0, false
	}
	if _, _, _, err := s.hotStatements(ctx); err != nil {
		return 0, false
	}
	r, err := s.round(ctx, 0)
	if err != nil {
		return 0, false
	}
	return r.count, true
}

// CountRefMove moves the commit count (PostgreSQL) as a writing
// transaction would, for a ref move the database may record nothing of:
// forge processes on other machines, which do not see this machine's ref
// moves, then stop replaying answers read from git (git.Store's
// ReportRefMoves, docs/scale-out.md). It commits on its own, on a
// connection of its own: its caller may hold a transaction, and the
// pool's other connections may all be waiting for that transaction's
// locks, so it must not wait for one of them. It takes no lock another
// transaction holds (its backend's own row). A no-op on SQLite, whose
// processes share one machine and see its ref moves.
func (s *Store) CountRefMove(ctx context.Context) error {
	if s.refCounter == nil {
		return nil
	}
	_, err := s.refCounter.ExecContext(ctx, countRefMoveQuery)
	return err
}

// openRefCounter opens CountRefMove's connection: one, kept while it is
// used, so counts from several commands queue for it.
func openRefCounter(dsn string) (*sql.DB, error) {
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	db.SetMaxIdleConns(1)
	db.SetConnMaxIdleTime(5 * time.Minute)
	return db, nil
}

// countRefMoveQuery adds one to the backend's own row, as
// forge_commit_count() does (so no row is shared with other writers).
const countRefMoveQuery = `INSERT INTO commit_count (pid, n) VALUES (pg_backend_pid(), 1)
	ON CONFLICT (pid) DO UPDATE SET n = commit_count.n + 1`

// compactAbove is the number of commit_count rows (one per PostgreSQL
// backend process that ever wrote) above which a round's reader folds
// those of ended processes into row 0.
const compactAbove = 64

// compactEvery spaces compactCommitCount's runs: with more processes
// running than compactAbove (several forge processes' pools), folding
// would otherwise start again after every round.
const compactEvery = time.Minute

// compactCommitCount folds the commit_count rows of backend processes
// that ended into row 0, in one statement, so the sum, and every mark
// read from it, stays what it was. It runs in the background, at most once
// per compactEvery (and so one at a time: it gives up after
// roundTimeout); a failure is only a later retry.
func (s *Store) compactCommitCount() {
	now := time.Now().UnixNano()
	last := s.compactedAt.Load()
	if now-last < int64(compactEvery) || !s.compactedAt.CompareAndSwap(last, now) {
		return
	}
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), roundTimeout)
		defer cancel()
		if err := s.db.WithContext(ctx).Exec(compactCommitCountQuery).Error; err != nil {
			slog.Warn("store: compact commit_count", "err", err)
		}
	}()
}

// compactCommitCountQuery moves the rows of processes no longer running
// into row 0. A row whose process is running is never deleted (pg_stat_activity
// lists every backend of the server), and one deleted while its process
// was writing would only be recreated by its next increment.
const compactCommitCountQuery = `WITH gone AS (
 DELETE FROM commit_count WHERE pid <> 0 AND pid NOT IN (SELECT pid FROM pg_stat_activity WHERE pid IS NOT NULL)
 RETURNING n)
 UPDATE commit_count SET n = n + (SELECT COALESCE(sum(n), 0) FROM gone) WHERE pid = 0`
