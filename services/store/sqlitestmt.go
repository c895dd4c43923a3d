package store

import (
	"container/list"
	"context"
	"database/sql"
	"database/sql/driver"
	"sync"

	moderncsqlite "modernc.org/sqlite"
)

// sqliteDriverName is the SQLite driver forge opens: modernc.org/sqlite
// with a cache of prepared statements on each connection.
//
// SQLite parses and plans a statement on every sqlite3_prepare, which for
// forge's short queries costs about as much as running them. database/sql
// prepares a statement for each query run without one, and gorm's own
// statement cache (PrepareStmt) can deadlock the pool (go-gorm/gorm#7465:
// it prepares on a connection other than the one that will run it). Here
// each connection keeps its own statements, so a query is prepared once
// per connection and the pool is never asked for a second connection.
const sqliteDriverName = "sqlite-forge"

// stmtCacheSize bounds the statements a connection keeps, and
// stmtCacheBytes their query texts' total length (a statement's program
// grows with its text: SQLite's memory for a connection's statements is
// about proportional to it); a query beyond either (say, an IN list of a
// new length) evicts the least recently used.
//
// A query longer than maxCachedQuery is prepared for its run and closed:
// a text that long is likely a batch whose length varies with the batch,
// which the next run seldom repeats; kept on every connection of the
// pool, such texts (the notification fan-out's VALUES rows, 2.7 to 25 KB,
// before it passed its rows as JSON) held ~20 MB of SQLite's memory after
// forge bench's issue creation. The fan-out's thread statement is now one
// text of ~2.9 KB per batch of one repository's issues (~1 KB more per
// other repository), which is worth keeping; forge's other queries are
// under 1 KB (forge bench's reads use 49 statements, 6.6 KB of text in
// all; its issue creation 161 more).
const (
	stmtCacheSize  = 256
	stmtCacheBytes = 64 << 10
	maxCachedQuery = 4 << 10
)

func init() {
	sql.Register(sqliteDriverName, stmtCachingDriver{&moderncsqlite.Driver{}})
}

type stmtCachingDriver struct{ driver.Driver }

func (d stmtCachingDriver) Open(name string) (driver.Conn, error) {
	c, err := d.Driver.Open(name)
	if err != nil {
		return nil, err
	}
	return &cachingConn{Conn: c, byQuery: map[string]*list.Element{}, lru: list.New()}, nil
}

// The interfaces of modernc's connection that forge's callers use.
type sqliteConn interface {
	driver.Conn
	driver.ConnBeginTx
	driver.ConnPrepareContext
	driver.ExecerContext
	driver.QueryerContext
	driver.Pinger
	driver.SessionResetter
	driver.Validator
}

// cachingConn is one connection with its statements. database/sql uses a
// connection from one goroutine at a time, but a transaction may run a
// query while the rows of another are still open, so a statement in use
// is not handed out twice: the second use runs uncached.
type cachingConn struct {
	driver.Conn
	mu      sync.Mutex
	byQuery map[string]*list.Element // of *cachedStmt
	lru     *list.List
	bytes   int // the cached queries' length
}

type cachedStmt struct {
	query  string
	stmt   driver.Stmt
	busy   bool // rows of it are open
	closed bool // evicted while busy: close it when the rows close
}

func (c *cachingConn) inner() sqliteConn { return c.Conn.(sqliteConn) }

// take returns the connection's statement for query, prepared now if it
// has none, marked busy; nil when that statement is busy already or the
// query is not to be cached (the caller runs it uncached).
func (c *cachingConn) take(ctx context.Context, query string) (*cachedStmt, error) {
	if len(query) > maxCachedQuery {
		return nil, nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.byQuery[query]; ok {
		cs := e.Value.(*cachedStmt)
		if cs.busy {
			return nil, nil
		}
		c.lru.MoveToFront(e)
		cs.busy = true
		return cs, nil
	}
	st, err := c.inner().PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	cs := &cachedStmt{query: query, stmt: st, busy: true}
	c.byQuery[query] = c.lru.PushFront(cs)
	c.bytes += len(query)
	for c.lru.Len() > stmtCacheSize || c.bytes > stmtCacheBytes {
		old := c.lru.Back()
		c.lru.Remove(old)
		ocs := old.Value.(*cachedStmt)
		delete(c.byQuery, ocs.query)
		c.bytes -= len(ocs.query)
		if ocs.busy {
			ocs.closed = true
		} else {
			ocs.stmt.Close()
		}
	}
	return cs, nil
}

// release marks cs free again, closing it if it was evicted meanwhile.
func (c *cachingConn) release(cs *cachedStmt) {
	c.mu.Lock()
	defer c.mu.Unlock()
	cs.busy = false
	if cs.closed {
		cs.stmt.Close()
	}
}

func (c *cachingConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	cs, err := c.take(ctx, query)
	if err != nil {
		return nil, err
	}
	if cs == nil {
		return c.inner().ExecContext(ctx, query, args)
	}
	defer c.release(cs)
	return cs.stmt.(driver.StmtExecContext).ExecContext(ctx, args)
}

func (c *cachingConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	cs, err := c.take(ctx, query)
	if err != nil {
		return nil, err
	}
	if cs == nil {
		return c.inner().QueryContext(ctx, query, args)
	}
	rows, err := cs.stmt.(driver.StmtQueryContext).QueryContext(ctx, args)
	if err != nil {
		c.release(cs)
		return nil, err
	}
	return &cachedRows{sqliteRows: rows.(sqliteRows), release: func() { c.release(cs) }}, nil
}

// Close closes the connection's statements, then the connection.
func (c *cachingConn) Close() error {
	c.mu.Lock()
	for _, e := range c.byQuery {
		e.Value.(*cachedStmt).stmt.Close()
	}
	c.byQuery, c.lru, c.bytes = map[string]*list.Element{}, list.New(), 0
	c.mu.Unlock()
	return c.Conn.Close()
}

func (c *cachingConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	return c.inner().BeginTx(ctx, opts)
}

func (c *cachingConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	return c.inner().PrepareContext(ctx, query)
}

func (c *cachingConn) Ping(ctx context.Context) error { return c.inner().Ping(ctx) }

func (c *cachingConn) ResetSession(ctx context.Context) error { return c.inner().ResetSession(ctx) }

func (c *cachingConn) IsValid() bool { return c.inner().IsValid() }

// The interfaces of modernc's rows that database/sql's ColumnTypes reads.
type sqliteRows interface {
	driver.Rows
	driver.RowsColumnTypeDatabaseTypeName
	driver.RowsColumnTypeLength
	driver.RowsColumnTypeNullable
	driver.RowsColumnTypePrecisionScale
	driver.RowsColumnTypeScanType
}

// cachedRows frees its statement when closed.
type cachedRows struct {
	sqliteRows
	release func()
}

func (r *cachedRows) Close() error {
	err := r.sqliteRows.Close()
	if r.release != nil {
		r.release()
		r.release = nil
	}
	return err
}
