package store

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"time"

	"gorm.io/gorm"
)

// SQLite lets one connection write at a time. With writers spread over the
// pool, each BEGIN IMMEDIATE that finds the lock taken waits in SQLite's
// busy handler, which sleeps 1, 2, 5, 10 … 100 ms between tries, so under
// concurrent writes the lock sat idle while the next writer slept (issue
// creation at 32 connections: p99 ~100 ms, a quarter of the CPU idle), and
// every commit by one pooled connection emptied the page cache of the
// next writer, which read its pages again.
//
// So on SQLite the store writes through one connection of its own
// (writerPool): every transaction, every statement outside a transaction
// that is not a SELECT. Writers queue for it in arrival order on a Go
// channel instead of sleeping in SQLite, and the writer's page cache
// stays valid from one write to the next (no other connection of the
// process writes). Reads outside transactions keep the shared pool and
// run beside the writer as before (WAL). Other processes on the same file
// still meet this one through busy_timeout.

// writerWait bounds the wait for the writer connection, as busy_timeout
// bounded the wait for SQLite's lock: a caller that never gets it (a write
// through the store from inside a transaction of its own goroutine) fails
// instead of hanging.
const writerWait = 10 * time.Second

// errWriterBusy is the failure after writerWait, as SQLite's "database is
// locked" was.
var errWriterBusy = errors.New("sqlite: database is locked (waited for the writer connection)")

// writerPool is gorm's connection pool on SQLite: reads go to the shared
// pool, writes and transactions to the writer connection.
type writerPool struct {
	read  *sql.DB
	write *sql.DB       // MaxOpenConns 1
	turn  chan struct{} // one token: whoever holds it may use write
}

func newWriterPool(read, write *sql.DB) *writerPool {
	write.SetMaxOpenConns(1)
	write.SetMaxIdleConns(1)
	write.SetConnMaxIdleTime(0)
	p := &writerPool{read: read, write: write, turn: make(chan struct{}, 1)}
	p.turn <- struct{}{}
	return p
}

// acquire waits for the writer's turn (channel receivers are served in
// arrival order).
func (p *writerPool) acquire(ctx context.Context) error {
	select {
	case <-p.turn:
		return nil
	default:
	}
	t := time.NewTimer(writerWait)
	defer t.Stop()
	select {
	case <-p.turn:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return errWriterBusy
	}
}

func (p *writerPool) release() { p.turn <- struct{}{} }

// reads reports whether a statement run outside a transaction only reads:
// a SELECT. Anything else (INSERT … RETURNING, WITH … INSERT, PRAGMA) is
// taken for a write.
func reads(query string) bool {
	q := strings.TrimLeft(query, " \t\r\n(")
	return len(q) >= 6 && strings.EqualFold(q[:6], "SELECT")
}

func (p *writerPool) PrepareContext(ctx context.Context, query string) (*sql.Stmt, error) {
	return p.read.PrepareContext(ctx, query)
}

func (p *writerPool) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	if err := p.acquire(ctx); err != nil {
		return nil, err
	}
	defer p.release()
	return p.write.ExecContext(ctx, query, args...)
}

// QueryContext and QueryRowContext hand the turn back when the statement
// has run; a write's rows keep the writer connection until they are
// closed, so the next writer waits for them in database/sql's pool, still
// not in SQLite's busy handler.
func (p *writerPool) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if reads(query) {
		return p.read.QueryContext(ctx, query, args...)
	}
	if err := p.acquire(ctx); err != nil {
		return nil, err
	}
	defer p.release()
	return p.write.QueryContext(ctx, query, args...)
}

func (p *writerPool) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	if reads(query) {
		return p.read.QueryRowContext(ctx, query, args...)
	}
	if err := p.acquire(ctx); err != nil {
		// A Row cannot carry an error of ours; a cancelled context makes
		// database/sql's own Row fail with it, and so does the wait's end.
		c, cancel := context.WithCancelCause(ctx)
		cancel(err)
		return p.write.QueryRowContext(c, query, args...)
	}
	defer p.release()
	return p.write.QueryRowContext(ctx, query, args...)
}

// BeginTx starts a transaction on the writer connection (BEGIN IMMEDIATE:
// _txlock in the DSN) once it is this caller's turn; the turn is handed on
// at Commit or Rollback.
func (p *writerPool) BeginTx(ctx context.Context, opts *sql.TxOptions) (gorm.ConnPool, error) {
	if err := p.acquire(ctx); err != nil {
		return nil, err
	}
	tx, err := p.write.BeginTx(ctx, opts)
	if err != nil {
		p.release()
		return nil, err
	}
	return &writerTx{Tx: tx, pool: p}, nil
}

// GetDBConn is the shared pool (gorm's DB()): its settings, statistics and
// the store's prepared reads.
func (p *writerPool) GetDBConn() (*sql.DB, error) { return p.read, nil }

// useWriterPool makes db (SQLite, opened on dsn) write through a
// connection of its own; it returns that connection's pool for Close.
func useWriterPool(db *gorm.DB, dsn string) (*sql.DB, error) {
	read, err := db.DB()
	if err != nil {
		return nil, err
	}
	// The writer keeps its temporary files in memory: the sub-journal of
	// each savepoint (issue_batch.go runs one per issue) was a temporary
	// file written page by page. It only serves rolling back to a
	// savepoint inside a transaction; crash recovery is the WAL's.
	write, err := sql.Open(sqliteDriverName, dsn+"&_pragma=temp_store(MEMORY)")
	if err != nil {
		return nil, err
	}
	p := newWriterPool(read, write)
	db.ConnPool = p
	db.Statement.ConnPool = p
	return write, nil
}

// writerTx is a transaction on the writer connection.
type writerTx struct {
	*sql.Tx
	pool *writerPool
	done bool
}

func (t *writerTx) Commit() error {
	err := t.Tx.Commit()
	t.end()
	return err
}

func (t *writerTx) Rollback() error {
	err := t.Tx.Rollback()
	t.end()
	return err
}

// end hands the turn on once, however the transaction ended (gorm may
// roll back after a failed commit).
func (t *writerTx) end() {
	if !t.done {
		t.done = true
		t.pool.release()
	}
}

func (t *writerTx) GetDBConn() (*sql.DB, error) { return t.pool.read, nil }
