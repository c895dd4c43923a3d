package store

import (
	"context"
	"database/sql"
	"path/filepath"
	"sync"
	"sync/atomic"
	"unsafe"
)

// The generation watcher spares a SQLite request the generation query
// (hot.go) without ever trusting a copy after a change it may not know
// of, whichever connection or process made the change.
//
// In WAL mode every commit to the database, by any connection of any
// process, rewrites the WAL-index header at the start of the -shm file,
// which every process maps into memory (https://sqlite.org/walformat.html:
// two copies of a 48-byte header holding the commit counter iChange, the
// last frame mxFrame, the salts and a checksum; SQLite's own readers read
// it without a lock). The writer updates it before its commit returns.
// So: the watcher maps the header read-only, and keeps the generations
// read from the database together with the header as it was just before
// that read. A request whose header snapshot is the same as the copy's
// (both header copies equal, no write half done) knows that nothing has
// committed since the copy was read, and uses it; any difference only
// means "may have changed", and the generations are read again. A commit
// that finished before a request started is therefore always seen: the
// same guarantee the query gave, for two atomic loads instead of a
// statement. It covers this process's own writes (other connections), the
// command line and direct SQL on the file alike.
//
// Measured alternatives (docs/perf/README.md): `PRAGMA data_version` on a
// dedicated connection detects the same commits but costs as much as the
// generation query itself (both start a read transaction, whose file
// locks are most of the cost). On PostgreSQL the generations are still
// read per request: a LISTEN connection fed by NOTIFY from the bumping
// triggers was built and measured, and the notification reached the other
// process 0.2–10 ms after the commit, later than that process's next
// request (a query round trip is ~0.1 ms): stale answers, which the
// cross-process tests catch. docs/scale-out.md says what a strict
// PostgreSQL scheme would need.
//
// The mapping stays valid while the watcher keeps a connection of its own
// open: SQLite truncates and reinitialises the -shm file only when a
// connection opens it while no other connection, in any process, has it
// open. Where the file cannot be mapped (no -shm yet, another platform),
// every request reads the generations as before.
type genWatcher struct {
	path string // the database file; its -shm beside it
	dsn  string

	mu     sync.Mutex
	tried  bool
	keep   *sql.DB
	conn   *sql.Conn
	shm    []byte // the mapped first page of the -shm file
	hdr    unsafe.Pointer
	cached atomic.Pointer[genEntry]
}

// walHdrWords is the two copies of the WAL-index header, in 32-bit words.
const walHdrWords = 2 * 48 / 4

type walHeader [walHdrWords]uint32

type genEntry struct {
	g   Generation
	hdr walHeader
}

// header reads the WAL-index header; ok is false while a writer is
// between its two copies, or when the file is not mapped.
func (w *genWatcher) header(ctx context.Context) (h walHeader, ok bool) {
	p := w.mapped(ctx)
	if p == nil {
		return h, false
	}
	for i := range h {
		h[i] = atomic.LoadUint32((*uint32)(unsafe.Add(p, 4*i)))
	}
	return h, [12]uint32(h[:12]) == [12]uint32(h[12:])
}

// mapped returns the header's address, mapping it on first use.
func (w *genWatcher) mapped(ctx context.Context) unsafe.Pointer {
	if p := atomic.LoadPointer(&w.hdr); p != nil {
		return p
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.hdr != nil || w.tried {
		return w.hdr
	}
	w.tried = true
	// A connection of the watcher's own, which has read once (so it has
	// the -shm file open), held until Close.
	keep, err := sql.Open(sqliteDriverName, w.dsn)
	if err != nil {
		return nil
	}
	conn, err := keep.Conn(ctx)
	if err == nil {
		var v int64
		err = conn.QueryRowContext(ctx, `PRAGMA data_version`).Scan(&v)
	}
	if err != nil {
		if conn != nil {
			conn.Close()
		}
		keep.Close()
		return nil
	}
	// SQLite names the -shm file after the database's resolved path.
	path := w.path
	if p, err := filepath.EvalSymlinks(path); err == nil {
		path = p
	}
	shm, err := mapSHM(path + "-shm")
	if err != nil {
		conn.Close()
		keep.Close()
		return nil
	}
	w.keep, w.conn, w.shm = keep, conn, shm
	atomic.StorePointer(&w.hdr, unsafe.Pointer(&shm[0]))
	return w.hdr
}

// generation returns the generations: the copy while the WAL-index header
// is unchanged since it was read, else read from the database.
func (s *Store) generation(ctx context.Context) (Generation, error) {
	w := s.gens
	if w == nil {
		return s.readGeneration(ctx)
	}
	h, ok := w.header(ctx)
	if !ok {
		return s.readGeneration(ctx)
	}
	if c := w.cached.Load(); c != nil && c.hdr == h {
		return c.g, nil
	}
	g, err := s.readGeneration(ctx)
	if err != nil {
		return Generation{}, err
	}
	w.cached.Store(&genEntry{g: g, hdr: h})
	return g, nil
}

func (w *genWatcher) close() {
	if w == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.shm != nil {
		atomic.StorePointer(&w.hdr, nil)
		unmapSHM(w.shm)
		w.conn.Close()
		w.keep.Close()
		w.shm, w.conn, w.keep = nil, nil, nil
	}
	w.tried = true
}

// CommitMark identifies the database's state between two commits: two
// equal marks read at two moments mean nothing committed in between, by
// any connection or process (the WAL-index header, above). It is what a
// cache of answers computed from the database keys its entries by.
type CommitMark walHeader

// CommitMark returns the current mark; ok is false where there is none to
// trust (PostgreSQL, an unmapped -shm file, a writer half way through the
// header), and then nothing may be replayed.
func (s *Store) CommitMark(ctx context.Context) (m CommitMark, ok bool) {
	if s.gens == nil {
		return m, false
	}
	h, ok := s.gens.header(ctx)
	return CommitMark(h), ok
}
