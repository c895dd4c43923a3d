package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"gorm.io/gorm"

	"forge/services/store/migrations"
)

// Portable dumps and loads (forge dump / forge restore): every table as
// rows of plain values, read in one snapshot and written back on either
// backend. Values are int64, float64, bool, string, []byte or nil; Load
// converts them to the target column's type (SQLite keeps booleans as
// integers and may hand back text where PostgreSQL has bytea).

// PortableTable describes one dumped table.
type PortableTable struct {
	Name    string   `json:"name"`
	Columns []string `json:"columns"`
	Rows    int64    `json:"rows"`
	// NextID is the next value of the table's id sequence (PostgreSQL) or
	// AUTOINCREMENT counter (SQLite); 0 when the table has none. Restoring
	// it keeps ids of deleted rows from being handed out again.
	NextID int64 `json:"next_id,omitempty"`
}

// PortableSchema is what a dump's rows need to be loaded: the migration
// steps applied to the source (the schema the rows fit) and its tables.
type PortableSchema struct {
	Migrations []string        `json:"migrations"`
	Tables     []PortableTable `json:"tables"`
}

// internalTables are the backend's, the migrator's or PostgreSQL's commit
// count (rows per backend process; migration 0125): never dumped
// (restore's migrations write schema_migrations).
func internalTable(name string) bool {
	return strings.HasPrefix(name, "sqlite_") || name == "schema_migrations" || name == "commit_count"
}

// Export reads every table in one read-only snapshot (REPEATABLE READ on
// PostgreSQL, a deferred read transaction on SQLite's WAL), so the rows
// are one consistent state however many writers run meanwhile. For each
// table it calls table, then row for each row (vals is reused).
func (s *Store) Export(ctx context.Context, table func(PortableTable) error, row func(vals []any) error) (PortableSchema, error) {
	var schema PortableSchema
	sqlDB, err := s.db.DB()
	if err != nil {
		return schema, err
	}
	opts := &sql.TxOptions{ReadOnly: true}
	if s.postgres {
		opts.Isolation = sql.LevelRepeatableRead
	}
	tx, err := sqlDB.BeginTx(ctx, opts)
	if err != nil {
		return schema, fmt.Errorf("begin the dump's read transaction: %w", err)
	}
	defer tx.Rollback()
	names, err := s.tableNames(ctx, tx)
	if err != nil {
		return schema, err
	}
	if err := queryStrings(ctx, tx, &schema.Migrations, "SELECT id FROM schema_migrations ORDER BY id"); err != nil {
		return schema, fmt.Errorf("read the applied migrations: %w", err)
	}
	seqs, err := s.nextIDs(ctx, tx, names)
	if err != nil {
		return schema, err
	}
	for _, name := range names {
		t := PortableTable{Name: name, NextID: seqs[name]}
		if err := exportTable(ctx, tx, &t, table, row); err != nil {
			return schema, fmt.Errorf("dump table %s: %w", name, err)
		}
		schema.Tables = append(schema.Tables, t)
	}
	return schema, tx.Commit()
}

func exportTable(ctx context.Context, tx *sql.Tx, t *PortableTable, table func(PortableTable) error, row func([]any) error) error {
	rows, err := tx.QueryContext(ctx, "SELECT * FROM "+quoteIdent(t.Name))
	if err != nil {
		return err
	}
	defer rows.Close()
	if t.Columns, err = rows.Columns(); err != nil {
		return err
	}
	if err := table(*t); err != nil {
		return err
	}
	vals := make([]any, len(t.Columns))
	ptrs := make([]any, len(vals))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return err
		}
		for i, v := range vals {
			vals[i] = plainValue(v)
		}
		if err := row(vals); err != nil {
			return err
		}
		t.Rows++
	}
	return rows.Err()
}

// plainValue maps driver values to the portable set.
func plainValue(v any) any {
	switch x := v.(type) {
	case int32:
		return int64(x)
	case int:
		return int64(x)
	case int16:
		return int64(x)
	case float32:
		return float64(x)
	case []byte:
		return append([]byte(nil), x...)
	}
	return v
}

func (s *Store) tableNames(ctx context.Context, q querier) ([]string, error) {
	query := "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name"
	if s.postgres {
		query = "SELECT tablename FROM pg_tables WHERE schemaname = current_schema() ORDER BY tablename"
	}
	var all, names []string
	if err := queryStrings(ctx, q, &all, query); err != nil {
		return nil, fmt.Errorf("list tables: %w", err)
	}
	for _, n := range all {
		if !internalTable(n) {
			names = append(names, n)
		}
	}
	return names, nil
}

type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

func queryStrings(ctx context.Context, q querier, out *[]string, query string, args ...any) error {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var v string
		if err := rows.Scan(&v); err != nil {
			return err
		}
		*out = append(*out, v)
	}
	return rows.Err()
}

// nextIDs reads each table's id counter: PostgreSQL's serial sequence of
// column id, SQLite's sqlite_sequence.
func (s *Store) nextIDs(ctx context.Context, tx *sql.Tx, names []string) (map[string]int64, error) {
	out := map[string]int64{}
	if !s.postgres {
		var has int
		if err := tx.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_master WHERE name = 'sqlite_sequence'").Scan(&has); err != nil || has == 0 {
			return out, err
		}
		rows, err := tx.QueryContext(ctx, "SELECT name, seq FROM sqlite_sequence")
		if err != nil {
			return nil, err
		}
		defer rows.Close()
		for rows.Next() {
			var n string
			var seq int64
			if err := rows.Scan(&n, &seq); err != nil {
				return nil, err
			}
			out[n] = seq + 1
		}
		return out, rows.Err()
	}
	for _, n := range names {
		seq, err := pgSerial(ctx, tx, n)
		if err != nil || seq == "" {
			if err != nil {
				return nil, err
			}
			continue
		}
		var last int64
		var called bool
		if err := tx.QueryRowContext(ctx, "SELECT last_value, is_called FROM "+seq).Scan(&last, &called); err != nil {
			return nil, err
		}
		if called {
			last++
		}
		out[n] = last
	}
	return out, nil
}

// pgSerial names table's sequence of column id ("" when none).
func pgSerial(ctx context.Context, q interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}, table string) (string, error) {
	var seq sql.NullString
	err := q.QueryRowContext(ctx, `SELECT pg_get_serial_sequence($1, 'id')
		WHERE EXISTS (SELECT 1 FROM information_schema.columns
			WHERE table_schema = current_schema() AND table_name = $1 AND column_name = 'id')`, table).Scan(&seq)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	return seq.String, err
}

// Tables lists the database's tables (none: an empty database).
func (s *Store) Tables(ctx context.Context) ([]string, error) {
	sqlDB, err := s.db.DB()
	if err != nil {
		return nil, err
	}
	var names []string
	query := "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name"
	if s.postgres {
		query = "SELECT tablename FROM pg_tables WHERE schemaname = current_schema() ORDER BY tablename"
	}
	return names, queryStrings(ctx, sqlDB, &names, query)
}

// MigrateTo applies the migration steps up to and including id (a step
// this forge knows); Migrate applies the rest later.
func (s *Store) MigrateTo(ctx context.Context, id string) error {
	return s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if s.postgres {
			if err := tx.Exec("SELECT pg_advisory_xact_lock(4242001)").Error; err != nil {
				return err
			}
		}
		return migrations.ApplyTo(tx, id)
	})
}

// loadBatch is how many rows one INSERT carries (PostgreSQL binds at most
// 65535 parameters).
const loadBatch = 100

// Load writes the dumped tables into this database, migrated to the
// dump's schema, in one transaction: rows the migrations seeded (the
// singleton counters) are replaced by the dumped ones, and each id counter
// is set past the dumped ids and the source's counter. rows calls emit for
// each row of the named table, in any order (the schema has no foreign
// keys, so no order between tables is needed).
func (s *Store) Load(ctx context.Context, tables []PortableTable, rows func(table string, emit func(vals []any) error) error) error {
	sqlDB, err := s.db.DB()
	if err != nil {
		return err
	}
	tx, err := sqlDB.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	for _, t := range tables {
		if internalTable(t.Name) {
			continue
		}
		if err := s.loadTable(ctx, tx, t, rows); err != nil {
			return fmt.Errorf("restore table %s: %w", t.Name, err)
		}
	}
	return tx.Commit()
}

func (s *Store) loadTable(ctx context.Context, tx *sql.Tx, t PortableTable, rows func(string, func([]any) error) error) error {
	kinds, err := columnKinds(ctx, tx, t.Name)
	if err != nil {
		return fmt.Errorf("this forge's schema has no such table (%w)", err)
	}
	colKinds := make([]string, len(t.Columns))
	quoted := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		k, ok := kinds[c]
		if !ok {
			return fmt.Errorf("this forge's schema has no column %s", c)
		}
		colKinds[i], quoted[i] = k, quoteIdent(c)
	}
	// Only the singleton counters the migrations seed have rows; a DELETE
	// elsewhere would still fire PostgreSQL's statement triggers (which
	// bump those counters).
	var seeded int
	if err := tx.QueryRowContext(ctx, "SELECT count(*) FROM (SELECT 1 FROM "+quoteIdent(t.Name)+" LIMIT 1) x").Scan(&seeded); err != nil {
		return err
	}
	if seeded > 0 {
		if _, err := tx.ExecContext(ctx, "DELETE FROM "+quoteIdent(t.Name)); err != nil {
			return err
		}
	}
	prefix := "INSERT INTO " + quoteIdent(t.Name) + " (" + strings.Join(quoted, ", ") + ") VALUES "
	var (
		args []any
		n    int
	)
	flush := func() error {
		if n == 0 {
			return nil
		}
		var b strings.Builder
		b.WriteString(prefix)
		p := 0
		for r := 0; r < n; r++ {
			if r > 0 {
				b.WriteString(", ")
			}
			b.WriteByte('(')
			for c := range t.Columns {
				if c > 0 {
					b.WriteString(", ")
				}
				p++
				if s.postgres {
					b.WriteString("$" + strconv.Itoa(p))
				} else {
					b.WriteByte('?')
				}
			}
			b.WriteByte(')')
		}
		_, err := tx.ExecContext(ctx, b.String(), args...)
		args, n = args[:0], 0
		return err
	}
	var maxID int64
	idCol := -1
	for i, c := range t.Columns {
		if c == "id" {
			idCol = i
		}
	}
	err = rows(t.Name, func(vals []any) error {
		if len(vals) != len(t.Columns) {
			return fmt.Errorf("a row has %d values for %d columns", len(vals), len(t.Columns))
		}
		for i, v := range vals {
			cv, err := convertValue(v, colKinds[i], s.postgres)
			if err != nil {
				return fmt.Errorf("column %s: %w", t.Columns[i], err)
			}
			if i == idCol {
				if id, ok := cv.(int64); ok && id > maxID {
					maxID = id
				}
			}
			args = append(args, cv)
		}
		if n++; n == loadBatch {
			return flush()
		}
		return nil
	})
	if err == nil {
		err = flush()
	}
	if err != nil {
		return err
	}
	next := max(t.NextID, maxID+1)
	return s.setNextID(ctx, tx, t.Name, next)
}

// setNextID makes the table's next generated id at least next.
func (s *Store) setNextID(ctx context.Context, tx *sql.Tx, table string, next int64) error {
	if s.postgres {
		seq, err := pgSerial(ctx, tx, table)
		if err != nil || seq == "" {
			return err
		}
		_, err = tx.ExecContext(ctx, "SELECT setval($1, $2, false)", seq, next)
		return err
	}
	var autoinc int
	if err := tx.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ? AND upper(sql) LIKE '%AUTOINCREMENT%'", table).Scan(&autoinc); err != nil || autoinc == 0 {
		return err
	}
	res, err := tx.ExecContext(ctx, "UPDATE sqlite_sequence SET seq = ? WHERE name = ?", next-1, table)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 && next > 1 {
		_, err = tx.ExecContext(ctx, "INSERT INTO sqlite_sequence (name, seq) VALUES (?, ?)", table, next-1)
	}
	return err
}

// columnKinds maps the table's columns to bool, int, float, bytes or text.
func columnKinds(ctx context.Context, tx *sql.Tx, table string) (map[string]string, error) {
	rows, err := tx.QueryContext(ctx, "SELECT * FROM "+quoteIdent(table)+" WHERE 1 = 0")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	types, err := rows.ColumnTypes()
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, ct := range types {
		out[ct.Name()] = kindOf(ct.DatabaseTypeName())
	}
	return out, rows.Err()
}

func kindOf(dbType string) string {
	t := strings.ToUpper(dbType)
	switch {
	case t == "BOOL" || t == "BOOLEAN" || t == "NUMERIC":
		// gorm declares booleans numeric on SQLite.
		return "bool"
	case strings.Contains(t, "INT"):
		return "int"
	case strings.HasPrefix(t, "FLOAT") || t == "REAL" || strings.HasPrefix(t, "DOUBLE"):
		return "float"
	case t == "BYTEA" || t == "BLOB":
		return "bytes"
	}
	return "text"
}

// convertValue fits a dumped value to the target column's kind.
func convertValue(v any, kind string, postgres bool) (any, error) {
	if v == nil {
		return nil, nil
	}
	switch kind {
	case "bool":
		switch x := v.(type) {
		case bool:
			return x, nil
		case int64:
			return x != 0, nil
		case float64:
			return x != 0, nil
		case string:
			return strconv.ParseBool(x)
		}
	case "int":
		switch x := v.(type) {
		case int64:
			return x, nil
		case bool:
			if x {
				return int64(1), nil
			}
			return int64(0), nil
		case float64:
			return int64(x), nil
		case string:
			return strconv.ParseInt(x, 10, 64)
		}
	case "float":
		switch x := v.(type) {
		case int64:
			return float64(x), nil
		case float64:
			return x, nil
		}
	case "bytes":
		switch x := v.(type) {
		case []byte:
			return x, nil
		case string:
			return []byte(x), nil
		}
	default:
		switch x := v.(type) {
		case string:
			return x, nil
		case []byte:
			return string(x), nil
		case int64, float64, bool:
			return x, nil
		}
	}
	return nil, fmt.Errorf("a %T value does not fit a %s column", v, kind)
}

// quoteIdent quotes a table or column name (read from the database
// catalog or checked against it) for both backends.
func quoteIdent(name string) string {
	return `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
}
