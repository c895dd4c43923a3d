package store

import (
	"context"
	"database/sql"
	"errors"
	"strconv"
	"strings"
	"sync"
)

// The authentication lookup runs on every token-authenticated request. It
// bypasses gorm's per-call statement building: one join prepared once per
// pool (a server-side prepared statement on PostgreSQL) that reads the
// token and only the owner's id and row version. The full owner row comes
// from userCache while that version is current, so any change to the user,
// by any process, is seen on the next request.
const authQuery = `SELECT t.id, t.uid, t.name, t.token_hash, t.token_last_eight, t.scope,
 t.created_unix, t.updated_unix, t.last_used_unix, u.version
 FROM access_tokens t JOIN users u ON u.id = t.uid WHERE t.token_hash = ?`

// generationQuery reads the authentication generation (migration 0092)
// and the resource generation (0093) in one statement: a short one, as the
// pure-Go SQLite driver parses it on every run.
const generationQuery = `SELECT value, resource_value FROM auth_generation WHERE id = 1`

// countersQuery reads the repository counters the resource generation
// does not follow (migration 0093): the issue, watch, star and fork
// writes move them without invalidating anything; and, in the same
// statement (one read transaction instead of two), the number of
// published releases (CountReleases), which no generation follows either,
// and whether a transfer is pending (so a GET without one needs no
// further statement).
const countersQuery = `SELECT r.num_watches, r.num_stars, r.num_forks, r.num_issues, r.num_closed_issues,
 r.num_pulls, r.num_closed_pulls,
 (SELECT count(*) FROM releases l WHERE l.repo_id = r.id AND l.is_tag = FALSE AND l.is_draft = FALSE),
 (SELECT count(*) FROM repo_transfers t WHERE t.repo_id = r.id)
 FROM repositories r WHERE r.id = ?`

// generationCountersQuery is generationQuery and countersQuery in one
// statement, for the repositories of an array (PostgreSQL, see
// countersPrefetch and genrounds.go): a row per repository found, or one
// row whose r.id is NULL when none is; and, first, the count of committed
// writing transactions (CommitCount) with the number of rows it is the
// sum of (compactCommitCount).
const generationCountersQuery = `SELECT m.total, m.procs, g.value, g.resource_value, r.id,
 COALESCE(r.num_watches, 0), COALESCE(r.num_stars, 0), COALESCE(r.num_forks, 0), COALESCE(r.num_issues, 0),
 COALESCE(r.num_closed_issues, 0), COALESCE(r.num_pulls, 0), COALESCE(r.num_closed_pulls, 0),
 (SELECT count(*) FROM releases l WHERE l.repo_id = r.id AND l.is_tag = FALSE AND l.is_draft = FALSE),
 (SELECT count(*) FROM repo_transfers t WHERE t.repo_id = r.id)
 FROM auth_generation g
 CROSS JOIN (SELECT CAST(COALESCE(sum(n), 0) AS BIGINT) AS total, count(*) AS procs FROM commit_count) m
 LEFT JOIN repositories r ON r.id = ANY(CAST(? AS BIGINT[])) WHERE g.id = 1`

// socialQuery is UserSocialCounts' statement (GET /user, /users/{name}).
const socialQuery = `SELECT (SELECT COUNT(*) FROM follows WHERE follow_id = ?),
 (SELECT COUNT(*) FROM follows WHERE user_id = ?), (SELECT COUNT(*) FROM stars WHERE user_id = ?)`

// pgPlaceholders numbers q's placeholders for PostgreSQL ($1, $2, ...).
func pgPlaceholders(q string) string {
	var b strings.Builder
	n := 0
	for _, c := range q {
		if c == '?' {
			n++
			b.WriteString("$" + strconv.Itoa(n))
			continue
		}
		b.WriteRune(c)
	}
	return b.String()
}

func (s *Store) prepareHot(ctx context.Context) error {
	sqlDB, err := s.db.DB()
	if err != nil {
		return err
	}
	var stmts [5]*sql.Stmt
	for i, q := range []string{authQuery, generationQuery, countersQuery, socialQuery, generationCountersQuery} {
		// PostgreSQL reads the generations with generationCountersQuery
		// (genrounds.go), SQLite with generationQuery.
		if (s.postgres && i == 1) || (!s.postgres && i == 4) {
			continue
		}
		if s.postgres {
			q = pgPlaceholders(q)
		}
		if stmts[i], err = sqlDB.PrepareContext(ctx, q); err != nil {
			closeStatements(stmts[:i])
			return err
		}
	}
	s.hotMu.Lock()
	if s.authStmt == nil {
		s.authStmt, s.genStmt, s.cntStmt, s.socStmt, s.genCntStmt = stmts[0], stmts[1], stmts[2], stmts[3], stmts[4]
		stmts = [5]*sql.Stmt{}
	}
	s.hotMu.Unlock()
	closeStatements(stmts[:]) // another call prepared them first
	return nil
}

// closeStatements closes those of stmts that were prepared.
func closeStatements(stmts []*sql.Stmt) {
	for _, st := range stmts {
		if st != nil {
			st.Close()
		}
	}
}

// socialStatement is the prepared socialQuery.
func (s *Store) socialStatement(ctx context.Context) (*sql.Stmt, error) {
	if _, _, _, err := s.hotStatements(ctx); err != nil {
		return nil, err
	}
	s.hotMu.Lock()
	defer s.hotMu.Unlock()
	return s.socStmt, nil
}

func (s *Store) hotStatements(ctx context.Context) (auth, gen, counters *sql.Stmt, err error) {
	s.hotMu.Lock()
	auth, gen, counters = s.authStmt, s.genStmt, s.cntStmt
	s.hotMu.Unlock()
	if auth != nil {
		return auth, gen, counters, nil
	}
	if err := s.prepareHot(ctx); err != nil {
		return nil, nil, nil, err
	}
	s.hotMu.Lock()
	defer s.hotMu.Unlock()
	return s.authStmt, s.genStmt, s.cntStmt, nil
}

// Generation is what caches of database state check before each use: two
// numbers the database itself bumps, by triggers, in the transaction of
// the changes they follow, whichever process makes them.
type Generation struct {
	// Auth moves with any change to a user row and the deletion of a
	// token (migration 0092): what tokens authenticate as, and the
	// owners of repositories.
	Auth int64
	// Resource moves with any change to a repository row but its
	// counters, and its deletion (migration 0093).
	Resource int64
}

// AuthGeneration returns both generations. A cache is valid while the
// generation it follows is unchanged: ask for it before each use, and
// before loading what is cached under it. It is answered from the
// watcher's copy (genwatch.go) while that is known to be current, else
// read from the database.
func (s *Store) AuthGeneration(ctx context.Context) (Generation, error) {
	return s.generation(ctx)
}

// readGeneration reads both generations in one statement; on PostgreSQL
// in a read shared with concurrent requests (genrounds.go), with the
// counters of the repository ctx prefetches, if any.
func (s *Store) readGeneration(ctx context.Context) (Generation, error) {
	_, stmt, _, err := s.hotStatements(ctx)
	if err != nil {
		return Generation{}, err
	}
	if s.postgres {
		p, _ := ctx.Value(countersPrefetchKey{}).(*countersPrefetch)
		return s.readGenerationShared(ctx, p)
	}
	var g Generation
	if err := stmt.QueryRowContext(ctx).Scan(&g.Auth, &g.Resource); err != nil {
		return Generation{}, err
	}
	return g, nil
}

// RepositoryCounters loads r's counters (NumWatches, NumStars, NumForks
// and the issue and pull counts) and its published release count
// (NumReleases, setting ReleasesCounted) and whether a transfer is
// pending (TransferPending) from the database, for a row
// served from a cache that the counters' writes do not invalidate. On
// SQLite they are kept while nothing commits (countersCache).
func (s *Store) RepositoryCounters(ctx context.Context, r *Repository) error {
	if p, _ := ctx.Value(countersPrefetchKey{}).(*countersPrefetch); p != nil {
		if c, ok := p.get(r.ID); ok {
			c.setOn(r)
			return nil
		}
	}
	mark, marked := s.CommitMark(ctx)
	if marked {
		if c, ok := s.counters.get(mark, r.ID); ok {
			c.setOn(r)
			return nil
		}
	}
	_, _, stmt, err := s.hotStatements(ctx)
	if err != nil {
		return err
	}
	var c repoCounters
	var transfers int64
	err = stmt.QueryRowContext(ctx, r.ID).Scan(&c.watches, &c.stars, &c.forks,
		&c.issues, &c.closedIssues, &c.pulls, &c.closedPulls, &c.releases, &transfers)
	if errors.Is(err, sql.ErrNoRows) {
		return ErrNotFound
	}
	if err != nil {
		r.ReleasesCounted = false
		return err
	}
	c.transferPending = transfers > 0
	if marked {
		s.counters.put(mark, r.ID, c)
	}
	c.setOn(r)
	return nil
}

// repoCounters are what RepositoryCounters reads.
type repoCounters struct {
	watches, stars, forks, issues, closedIssues, pulls, closedPulls int
	releases                                                        int64
	transferPending                                                 bool
}

func (c repoCounters) setOn(r *Repository) {
	r.NumWatches, r.NumStars, r.NumForks = c.watches, c.stars, c.forks
	r.NumIssues, r.NumClosedIssues, r.NumPulls, r.NumClosedPulls = c.issues, c.closedIssues, c.pulls, c.closedPulls
	r.NumReleases, r.ReleasesCounted, r.TransferPending = c.releases, true, c.transferPending
}

// countersCache keeps the counters read since the last commit (a
// CommitMark), so requests that resolve one repository between two
// commits read them once: under concurrent issue creation the read was a
// tenth of each request's CPU (issue 16). Counters read under a mark may
// be newer than the mark (the read starts after it was taken), never
// older; the first request under a new mark empties the cache.
type countersCache struct {
	mu     sync.Mutex
	mark   CommitMark
	byRepo map[int64]repoCounters
}

// countersMax bounds the cache between two commits.
const countersMax = 10000

func (c *countersCache) get(mark CommitMark, repo int64) (repoCounters, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.mark != mark {
		c.mark, c.byRepo = mark, nil
		return repoCounters{}, false
	}
	v, ok := c.byRepo[repo]
	return v, ok
}

func (c *countersCache) put(mark CommitMark, repo int64, v repoCounters) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.mark != mark || len(c.byRepo) >= countersMax {
		return
	}
	if c.byRepo == nil {
		c.byRepo = map[int64]repoCounters{}
	}
	c.byRepo[repo] = v
}

// AccessTokenByHash finds a token by the SHA-256 of its value, with its
// owner. Returns ErrNotFound for unknown tokens.
func (s *Store) AccessTokenByHash(ctx context.Context, hash string) (*AccessToken, *User, error) {
	stmt, _, _, err := s.hotStatements(ctx)
	if err != nil {
		return nil, nil, err
	}
	var t AccessToken
	var version int64
	err = stmt.QueryRowContext(ctx, hash).Scan(&t.ID, &t.UID, &t.Name, &t.TokenHash, &t.TokenLastEight,
		&t.Scope, &t.CreatedUnix, &t.UpdatedUnix, &t.LastUsedUnix, &version)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil, ErrNotFound
	}
	if err != nil {
		return nil, nil, err
	}
	if u, ok := s.users.get(t.UID, version); ok {
		return &t, u, nil
	}
	u, err := s.UserByID(ctx, t.UID)
	if err != nil {
		return nil, nil, err
	}
	s.users.put(u)
	return &t, u, nil
}

// userCache holds user rows by id, each valid only for its Version.
type userCache struct {
	mu sync.RWMutex
	m  map[int64]User
}

const userCacheMax = 10000

func (c *userCache) get(id, version int64) (*User, bool) {
	c.mu.RLock()
	u, ok := c.m[id]
	c.mu.RUnlock()
	if !ok || u.Version != version {
		return nil, false
	}
	return &u, true // a copy: callers may not change the cached row
}

func (c *userCache) put(u *User) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= userCacheMax {
		c.m = make(map[int64]User) // crude bound: start over rather than track age
	}
	c.m[u.ID] = *u
}

// countersPrefetch lets the generation read of a request's authorization
// bring the counters of the repository the request names (on PostgreSQL,
// where nothing keeps them between commits): one round trip and one
// statement instead of two on every repository request (issue 16). The
// counters are those of the generation's snapshot, as fresh as a read of
// their own at the request's start. They serve the authorization only:
// once it ends (the done func of WithCountersPrefetch) RepositoryCounters
// reads afresh, so a handler that changed them sees its change.
type countersPrefetch struct {
	mu     sync.Mutex
	repoID int64
	state  int // prefetchWanted, prefetchRead (c holds them) or prefetchSpent
	c      repoCounters
}

const (
	prefetchWanted = iota
	prefetchRead
	prefetchSpent
)

type countersPrefetchKey struct{}

// WithCountersPrefetch asks the next generation read on ctx (on
// PostgreSQL) to read repoID's counters as well, for RepositoryCounters
// on ctx until done is called.
func WithCountersPrefetch(ctx context.Context, repoID int64) (_ context.Context, done func()) {
	p := &countersPrefetch{repoID: repoID}
	return context.WithValue(ctx, countersPrefetchKey{}, p), func() {
		p.mu.Lock()
		p.state = prefetchSpent
		p.mu.Unlock()
	}
}

func (p *countersPrefetch) wanted() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.state == prefetchWanted
}

func (p *countersPrefetch) get(repoID int64) (repoCounters, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.c, p.state == prefetchRead && p.repoID == repoID
}
