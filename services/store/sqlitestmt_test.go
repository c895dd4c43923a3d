package store

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// openCaching opens a one-connection pool of the caching driver, and
// returns the connection's statement cache size as the test goes.
func openCaching(t *testing.T) (*sql.DB, func() int) {
	t.Helper()
	db, err := sql.Open(sqliteDriverName, "file:"+filepath.Join(t.TempDir(), "t.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	db.SetMaxOpenConns(1)
	if _, err := db.Exec(`CREATE TABLE n(v INTEGER); INSERT INTO n VALUES (1),(2),(3)`); err != nil {
		t.Fatal(err)
	}
	cached := func() int {
		conn, err := db.Conn(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		n := 0
		conn.Raw(func(c any) error {
			cc := c.(*cachingConn)
			cc.mu.Lock()
			n = cc.lru.Len()
			cc.mu.Unlock()
			return nil
		})
		return n
	}
	return db, cached
}

func sum(t *testing.T, rows *sql.Rows) int {
	t.Helper()
	total := 0
	for rows.Next() {
		var v int
		if err := rows.Scan(&v); err != nil {
			t.Fatal(err)
		}
		total += v
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	rows.Close()
	return total
}

// A query runs on the statement its connection prepared the first time;
// while rows of it are open (a transaction reading two lists at once),
// the same query still answers, uncached, and each rows reads its own.
func TestSQLiteStatementCache(t *testing.T) {
	db, cached := openCaching(t)
	const q = "SELECT v FROM n WHERE v >= ? ORDER BY v"
	before := cached()
	for range 10 {
		rows, err := db.Query(q, 2)
		if err != nil {
			t.Fatal(err)
		}
		if got := sum(t, rows); got != 5 {
			t.Fatalf("sum %d, want 5", got)
		}
	}
	if got := cached() - before; got != 1 {
		t.Fatalf("%d statements cached for one query run 10 times", got)
	}

	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	outer, err := tx.Query(q, 1)
	if err != nil {
		t.Fatal(err)
	}
	if !outer.Next() {
		t.Fatal("no first row")
	}
	inner, err := tx.Query(q, 3)
	if err != nil {
		t.Fatal(err)
	}
	if got := sum(t, inner); got != 3 {
		t.Fatalf("inner sum %d, want 3", got)
	}
	var first int
	if err := outer.Scan(&first); err != nil {
		t.Fatal(err)
	}
	if got := first + sum(t, outer); got != 6 {
		t.Fatalf("outer sum %d, want 6", got)
	}
	if _, err := tx.Exec("INSERT INTO n VALUES (?)", 4); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	rows, err := db.Query(q, 1)
	if err != nil {
		t.Fatal(err)
	}
	if got := sum(t, rows); got != 10 {
		t.Fatalf("after the insert: sum %d, want 10", got)
	}
}

// The cache is bounded: more distinct queries than it holds evict the
// least recently used, and every query still answers.
func TestSQLiteStatementCacheBounded(t *testing.T) {
	db, cached := openCaching(t)
	for i := range stmtCacheSize + 50 {
		var v int
		if err := db.QueryRow(fmt.Sprintf("SELECT v + %d FROM n WHERE v = ?", i), 1).Scan(&v); err != nil || v != i+1 {
			t.Fatalf("query %d: %d %v", i, v, err)
		}
	}
	if n := cached(); n != stmtCacheSize {
		t.Fatalf("%d statements cached, want the bound %d", n, stmtCacheSize)
	}
	// A cached statement sees a schema change.
	var v, w int
	if err := db.QueryRow("SELECT * FROM n WHERE v = ?", 2).Scan(&v); err != nil || v != 2 {
		t.Fatalf("before ALTER: %d %v", v, err)
	}
	if _, err := db.Exec("ALTER TABLE n ADD COLUMN w INTEGER NOT NULL DEFAULT 7"); err != nil {
		t.Fatal(err)
	}
	if err := db.QueryRow("SELECT * FROM n WHERE v = ?", 2).Scan(&v, &w); err != nil || v != 2 || w != 7 {
		t.Fatalf("after ALTER: %d %d %v", v, w, err)
	}
}

// Long queries (batches whose text varies with the batch) run uncached,
// and the cached texts stay within stmtCacheBytes: SQLite's memory for a
// connection's statements grows with their text.
func TestSQLiteStatementCacheBytes(t *testing.T) {
	db, cached := openCaching(t)
	before := cached()
	long := "SELECT v FROM n WHERE v = ?" + strings.Repeat(" AND v = ?", maxCachedQuery/10)
	for range 3 {
		args := make([]any, strings.Count(long, "?"))
		for i := range args {
			args[i] = 2
		}
		var v int
		if err := db.QueryRow(long, args...).Scan(&v); err != nil || v != 2 {
			t.Fatalf("long query: %d %v", v, err)
		}
	}
	if n := cached() - before; n != 0 {
		t.Fatalf("a %d-byte query cached (%d statements)", len(long), n)
	}

	// Queries of 1 KB: the budget holds stmtCacheBytes/1 KB of them.
	pad := strings.Repeat(" ", 1000)
	for i := range 2 * stmtCacheBytes / 1000 {
		q := fmt.Sprintf("SELECT v + %04d FROM n WHERE v = ?", i) + pad
		var v int
		if err := db.QueryRow(q, 1).Scan(&v); err != nil || v != i+1 {
			t.Fatalf("query %d: %d %v", i, v, err)
		}
	}
	if n, max := cached(), stmtCacheBytes/1034; n > max || n < max-2 {
		t.Fatalf("%d statements of 1034 bytes cached, want at most %d (and about that)", n, max)
	}
}
