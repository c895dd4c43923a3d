package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// The generation watcher keeps an in-process copy of the generations
// (Generation) so that checking a cache costs a request no database round
// trip, without ever trusting the copy after a change it may not know of.
//
// The copy is an entry tagged with an epoch: a counter bumped on every
// event that means "the generations may have changed". An entry is used
// only while its epoch is the current one, and an entry is stored under
// the epoch read before the database was: so an entry in use was read
// after the last such event, that is after every change whose event has
// happened. What makes it correct is that every committed change that
// bumps a generation raises an event before the next request that must
// see it:
//
//   - Writes of this process (PostgreSQL): the driver (pgHookConnector)
//     bumps the epoch after every commit of a transaction that wrote, and
//     after every autocommit statement that may write, before the writer
//     goes on to answer: the process's next request re-reads.
//
//   - Other processes on PostgreSQL (a second forge, the command line): the
//     triggers that bump a generation also send a NOTIFY (migration 0125),
//     which PostgreSQL delivers when the writing transaction commits. One
//     dedicated connection per process LISTENs; each notification bumps
//     the epoch. While that connection is not confirmed (before the first
//     LISTEN, while reconnecting, when it has not answered for
//     listenStale) the copy is not used at all: every request reads the
//     generations as before (correctness first), and after each
//     (re)connection the epoch is bumped so the copy is read again once.
//     The one window left: a notification is delivered asynchronously, so
//     a request reaching this process within its delivery time after the
//     other process's commit (well under a millisecond on one host) can
//     still be judged on the state before it. docs/scale-out.md says so.
//
//   - SQLite (other processes writing the file: the command line): one
//     dedicated connection asks `PRAGMA data_version` on each request. It
//     changes whenever any other connection, of this process or another,
//     has committed since it last asked, so it is strict, and it also
//     covers this process's own writes (they go through other
//     connections). A change only means "may have changed": the epoch is
//     bumped and the generations read again. The pragma costs less than
//     the generation query (no table to seek), which is why it is asked
//     rather than the generations; measured in docs/perf/README.md.
type genWatcher struct {
	epoch  atomic.Uint64
	cached atomic.Pointer[genEntry]

	// PostgreSQL: the listener.
	pgCfg     *pgx.ConnConfig
	listening atomic.Bool
	aliveAt   atomic.Int64 // unix ns of the listener's last answer
	connects  atomic.Int64 // confirmed (re)connections, for tests
	startOnce sync.Once
	stop      context.CancelFunc
	done      chan struct{}

	// SQLite: the data_version connection.
	dvMu   sync.Mutex
	dvDB   *sql.DB
	dvStmt *sql.Stmt
	dvLast int64
	dvOpen func() (*sql.DB, error)
}

type genEntry struct {
	g     Generation
	epoch uint64
}

// generationChannel is the channel the generation triggers notify.
const generationChannel = "forge_generation"

// listenerAppName names the listener's connection in pg_stat_activity.
const listenerAppName = "forge-generation-listener"

const (
	// listenHeartbeat: the listener pings after this long without a
	// notification, so that a silently lost connection is noticed.
	listenHeartbeat = time.Second
	// listenStale: past this without an answer from the listener, its
	// silence proves nothing and the copy is not used.
	listenStale = 2500 * time.Millisecond
)

// changed records that the generations may have changed.
func (w *genWatcher) changed() { w.epoch.Add(1) }

// trusted reports whether the PostgreSQL listener is confirmed and alive.
func (w *genWatcher) trusted() bool {
	return w.listening.Load() && time.Now().UnixNano()-w.aliveAt.Load() < int64(listenStale)
}

// generation returns the generations, from the copy when it is current.
func (s *Store) generation(ctx context.Context) (Generation, error) {
	w := s.gens
	if s.postgres {
		w.startOnce.Do(func() { w.startListener() })
		if !w.trusted() {
			return s.readGeneration(ctx)
		}
	} else if err := w.checkDataVersion(ctx); err != nil {
		return s.readGeneration(ctx)
	}
	e := w.epoch.Load()
	if c := w.cached.Load(); c != nil && c.epoch == e {
		return c.g, nil
	}
	g, err := s.readGeneration(ctx)
	if err != nil {
		return Generation{}, err
	}
	w.cached.Store(&genEntry{g: g, epoch: e})
	return g, nil
}

// checkDataVersion asks SQLite's data_version on the watcher's own
// connection and bumps the epoch when it moved.
func (w *genWatcher) checkDataVersion(ctx context.Context) error {
	w.dvMu.Lock()
	defer w.dvMu.Unlock()
	if w.dvStmt == nil {
		if w.dvOpen == nil {
			return errors.New("store: no data_version connection")
		}
		db, err := w.dvOpen()
		if err != nil {
			return err
		}
		st, err := db.PrepareContext(ctx, `PRAGMA data_version`)
		if err != nil {
			db.Close()
			return err
		}
		w.dvDB, w.dvStmt = db, st
		// The first answer is a baseline: bump so the copy is read
		// after it.
		var v int64
		if err := st.QueryRowContext(ctx).Scan(&v); err != nil {
			return err
		}
		w.dvLast = v
		w.changed()
		return nil
	}
	var v int64
	if err := w.dvStmt.QueryRowContext(ctx).Scan(&v); err != nil {
		return err
	}
	if v != w.dvLast {
		w.dvLast = v
		w.changed()
	}
	return nil
}

// startListener starts the PostgreSQL listener (on the first generation
// read: command-line runs never start it).
func (w *genWatcher) startListener() {
	if w.pgCfg == nil {
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	w.stop, w.done = cancel, make(chan struct{})
	go func() {
		defer close(w.done)
		backoff := 50 * time.Millisecond
		for ctx.Err() == nil {
			confirmed, _ := w.listenOnce(ctx)
			w.listening.Store(false)
			if confirmed {
				backoff = 50 * time.Millisecond
			}
			select {
			case <-ctx.Done():
			case <-time.After(backoff):
			}
			if backoff < 5*time.Second {
				backoff *= 2
			}
		}
	}()
}

// notifyingTriggers is true when both generation functions notify
// (migration 0125 applied): before it, silence would prove nothing.
const notifyingTriggers = `SELECT count(*) = 2 FROM pg_proc
 WHERE proname IN ('bump_auth_generation', 'bump_resource_generation') AND prosrc LIKE '%pg_notify%'`

// listenOnce connects, listens, confirms and then waits for
// notifications until the connection fails or ctx ends.
func (w *genWatcher) listenOnce(ctx context.Context) (confirmed bool, err error) {
	conn, err := pgx.ConnectConfig(ctx, w.pgCfg)
	if err != nil {
		return false, err
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(ctx, `LISTEN `+generationChannel); err != nil {
		return false, err
	}
	var ok bool
	if err := conn.QueryRow(ctx, notifyingTriggers).Scan(&ok); err != nil {
		return false, err
	}
	if !ok {
		return false, errors.New("store: generation triggers do not notify")
	}
	// Listening from here: what committed before is read afresh once.
	w.changed()
	w.aliveAt.Store(time.Now().UnixNano())
	w.listening.Store(true)
	w.connects.Add(1)
	for {
		wctx, cancel := context.WithTimeout(ctx, listenHeartbeat)
		_, err := conn.WaitForNotification(wctx)
		cancel()
		if err == nil {
			w.changed()
			w.aliveAt.Store(time.Now().UnixNano())
			continue
		}
		if ctx.Err() != nil || !pgconn.Timeout(err) || conn.IsClosed() {
			return true, err
		}
		pctx, cancel := context.WithTimeout(ctx, listenHeartbeat)
		err = conn.Ping(pctx)
		cancel()
		if err != nil {
			return true, err
		}
		w.aliveAt.Store(time.Now().UnixNano())
	}
}

func (w *genWatcher) close() {
	if w.stop != nil {
		w.stop()
		<-w.done
	}
	w.dvMu.Lock()
	if w.dvStmt != nil {
		w.dvStmt.Close()
		w.dvDB.Close()
		w.dvStmt, w.dvDB = nil, nil
	}
	w.dvOpen = nil
	w.dvMu.Unlock()
}

// pgHookConnector wraps pgx's connector so that this process's writes
// raise the watcher's event after they commit (see genWatcher).
type pgHookConnector struct {
	driver.Connector
	changed func()
}

func (c pgHookConnector) Connect(ctx context.Context) (driver.Conn, error) {
	conn, err := c.Connector.Connect(ctx)
	if err != nil {
		return nil, err
	}
	pc, ok := conn.(pgDriverConn)
	if !ok {
		conn.Close()
		return nil, errors.New("store: unexpected PostgreSQL driver connection")
	}
	return &pgHookConn{pgDriverConn: pc, changed: c.changed}, nil
}

// The interfaces of pgx's stdlib connection that database/sql uses.
type pgDriverConn interface {
	driver.Conn
	driver.ConnBeginTx
	driver.ConnPrepareContext
	driver.ExecerContext
	driver.QueryerContext
	driver.Pinger
	driver.SessionResetter
	driver.NamedValueChecker
}

// pgHookConn is one connection; database/sql uses it from one goroutine
// at a time.
type pgHookConn struct {
	pgDriverConn
	changed func()
	inTx    bool
	wrote   bool
}

// mayWrite: any statement but a plain SELECT (WITH may hold a write).
func mayWrite(query string) bool {
	q := strings.TrimLeft(query, " \t\r\n(")
	return len(q) < 6 || !strings.EqualFold(q[:6], "SELECT")
}

func (c *pgHookConn) wrote1(query string) {
	if !mayWrite(query) {
		return
	}
	if c.inTx {
		c.wrote = true
	} else {
		c.changed()
	}
}

func (c *pgHookConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	r, err := c.pgDriverConn.ExecContext(ctx, query, args)
	c.wrote1(query)
	return r, err
}

func (c *pgHookConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	r, err := c.pgDriverConn.QueryContext(ctx, query, args)
	// An autocommit INSERT ... RETURNING has surely committed once its
	// rows are closed: the event is raised then (pgHookRows).
	if err == nil && mayWrite(query) && !c.inTx {
		return &pgHookRows{Rows: r, changed: c.changed}, nil
	}
	c.wrote1(query)
	return r, err
}

func (c *pgHookConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	st, err := c.pgDriverConn.PrepareContext(ctx, query)
	if err != nil || !mayWrite(query) {
		return st, err
	}
	return &pgHookStmt{Stmt: st, conn: c, query: query}, nil
}

func (c *pgHookConn) Prepare(query string) (driver.Stmt, error) {
	return c.PrepareContext(context.Background(), query)
}

func (c *pgHookConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	tx, err := c.pgDriverConn.BeginTx(ctx, opts)
	if err != nil {
		return nil, err
	}
	c.inTx, c.wrote = true, false
	return &pgHookTx{Tx: tx, conn: c}, nil
}

func (c *pgHookConn) Begin() (driver.Tx, error) {
	return c.BeginTx(context.Background(), driver.TxOptions{})
}

type pgHookTx struct {
	driver.Tx
	conn *pgHookConn
}

func (t *pgHookTx) Commit() error {
	err := t.Tx.Commit()
	wrote := t.conn.wrote
	t.conn.inTx, t.conn.wrote = false, false
	if wrote {
		t.conn.changed() // even on error: the commit may have happened
	}
	return err
}

func (t *pgHookTx) Rollback() error {
	t.conn.inTx, t.conn.wrote = false, false
	return t.Tx.Rollback()
}

// pgHookRows raises the event again when an autocommit write's rows are
// closed (its commit is then certain to be done).
type pgHookRows struct {
	driver.Rows
	changed func()
}

func (r *pgHookRows) Close() error {
	err := r.Rows.Close()
	r.changed()
	return err
}

// pgHookStmt is a prepared statement that may write.
type pgHookStmt struct {
	driver.Stmt
	conn  *pgHookConn
	query string
}

func (s *pgHookStmt) ExecContext(ctx context.Context, args []driver.NamedValue) (driver.Result, error) {
	r, err := s.Stmt.(driver.StmtExecContext).ExecContext(ctx, args)
	s.conn.wrote1(s.query)
	return r, err
}

func (s *pgHookStmt) QueryContext(ctx context.Context, args []driver.NamedValue) (driver.Rows, error) {
	r, err := s.Stmt.(driver.StmtQueryContext).QueryContext(ctx, args)
	if err == nil && !s.conn.inTx {
		return &pgHookRows{Rows: r, changed: s.conn.changed}, nil
	}
	s.conn.wrote1(s.query)
	return r, err
}
