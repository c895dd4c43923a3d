package store_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"

	"gorm.io/gorm"

	"forge/services/store"
	"forge/services/store/storetest"
)

// TestUpgradeFromSnapshots loads each snapshot in testdata/upgrade (a
// database made by an earlier version: its schema, its recorded
// migrations and a few rows; see TestWriteUpgradeSnapshot) into an empty
// database and migrates it with this code. It must end with the schema
// and the recorded migrations of a freshly migrated database, every row
// it had, and a store that works on it.
func TestUpgradeFromSnapshots(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "upgrade", "*.sql"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no snapshots in testdata/upgrade: %v", err)
	}
	snapshots := map[string]bool{}
	for _, f := range files {
		name, _, _ := strings.Cut(filepath.Base(f), ".")
		snapshots[name] = true
	}
	for name := range snapshots {
		for _, kind := range storetest.Backends {
			t.Run(name+"/"+kind, func(t *testing.T) {
				dump, err := os.ReadFile(filepath.Join("testdata", "upgrade", name+"."+kind+".sql"))
				if err != nil {
					t.Fatalf("every snapshot has a dump per backend: %v", err)
				}
				testUpgrade(t, kind, string(dump))
			})
		}
	}
}

func testUpgrade(t *testing.T, kind, dump string) {
	ctx := context.Background()
	cfg := storetest.Empty(t, kind)
	s, err := store.Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if err := s.DB().Exec(dump).Error; err != nil {
		t.Fatalf("load the snapshot: %v", err)
	}
	before := tableRows(t, s.DB())
	if len(before["users"]) == 0 {
		t.Fatal("the snapshot has no users: not loaded")
	}
	if err := s.Migrate(ctx); err != nil {
		t.Fatalf("migrate the snapshot: %v", err)
	}
	// PostgreSQL refuses a statement a connection cached before a step
	// added columns to its table ("cached plan must not change result
	// type" for the SELECT * above): read the upgraded database through
	// new connections, as a server started after the upgrade does.
	// (The cleanup above closes the new store: it reads the variable.)
	s.Close()
	if s, err = store.Open(cfg); err != nil {
		t.Fatal(err)
	}
	after := tableRows(t, s.DB())
	for table, rows := range before {
		if table == "schema_migrations" {
			continue // ids of renamed steps are rewritten; compared with a fresh database below
		}
		if len(after[table]) != len(rows) {
			t.Errorf("%s: %d rows before the upgrade, %d after", table, len(rows), len(after[table]))
			continue
		}
		for i, row := range rows {
			kept := map[string]any{} // the columns the row had; later steps may add others
			for col := range row {
				kept[col] = after[table][i][col]
			}
			if !reflect.DeepEqual(kept, row) {
				t.Errorf("%s: row changed by the upgrade:\nbefore %v\nafter  %v", table, row, after[table][i])
			}
		}
	}

	fresh := storetest.Open(t, kind)
	if got, want := describeSchema(t, kind, s.DB()), describeSchema(t, kind, fresh.DB()); !reflect.DeepEqual(got, want) {
		t.Errorf("upgraded schema differs from a fresh one:\n%s", lineDiff(got, want))
	}
	if got, want := tableRows(t, s.DB())["schema_migrations"], tableRows(t, fresh.DB())["schema_migrations"]; !reflect.DeepEqual(got, want) {
		t.Errorf("recorded migrations: upgraded %v, fresh %v", got, want)
	}
	if err := s.Migrate(ctx); err != nil {
		t.Fatalf("second migrate: %v", err)
	}

	// The store reads the old rows and writes new ones beside them
	// (sequences and AUTOINCREMENT counters came along).
	hash := sha256.Sum256([]byte(sampleToken))
	tok, owner, err := s.AccessTokenByHash(ctx, hex.EncodeToString(hash[:]))
	if err != nil || tok.Name != "ci" || owner.Name != "alice" || !owner.IsAdmin {
		t.Fatalf("the snapshot's token: %+v %+v %v", tok, owner, err)
	}
	carol := &store.User{Name: "carol", Email: "carol@example.org", IsActive: true}
	if err := s.CreateUser(ctx, carol); err != nil {
		t.Fatalf("new user beside the old ones: %v", err)
	}
	if int(carol.ID) <= len(before["users"]) {
		t.Fatalf("new user got id %d, taken by the snapshot's %d users", carol.ID, len(before["users"]))
	}
}

// tableRows reads every row of every table, ordered, keyed by table.
func tableRows(t *testing.T, db *gorm.DB) map[string][]map[string]any {
	t.Helper()
	tables, err := db.Migrator().GetTables()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]map[string]any{}
	for _, table := range tables {
		var rows []map[string]any
		if err := db.Table(table).Order("1").Find(&rows).Error; err != nil {
			t.Fatalf("read %s: %v", table, err)
		}
		out[table] = rows
	}
	return out
}

// describeSchema lists the schema, one line per table, column and index,
// sorted: on SQLite the statements that define it (the dump recreates
// them verbatim); on PostgreSQL each column's type, nullability and
// default, and each index's definition, from the catalog.
var doubleQuotedDefault = regexp.MustCompile(`DEFAULT "([^"]*)"`)

func describeSchema(t *testing.T, kind string, db *gorm.DB) []string {
	t.Helper()
	var queries []string
	switch kind {
	case "sqlite3":
		queries = []string{`SELECT type || ' ' || name || ': ' || sql FROM sqlite_master
			WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%'`}
	case "postgres":
		queries = []string{
			`SELECT format('column %s.%s #%s %s(%s) null=%s default=%s', table_name, column_name, ordinal_position,
				data_type, character_maximum_length, is_nullable, column_default)
			FROM information_schema.columns WHERE table_schema = current_schema()`,
			`SELECT 'index ' || indexdef FROM pg_indexes WHERE schemaname = current_schema()`,
		}
	}
	var lines []string
	for _, q := range queries {
		var part []string
		if err := db.Raw(q).Scan(&part).Error; err != nil {
			t.Fatalf("describe the schema: %v", err)
		}
		lines = append(lines, part...)
	}
	if kind == "sqlite3" {
		// Tables created before forge moved from glebarez/sqlite to
		// libtnb/sqlite quote a text default in double quotes (the same
		// value to SQLite); fresh ones in single quotes.
		for i, l := range lines {
			lines[i] = doubleQuotedDefault.ReplaceAllString(l, "DEFAULT '$1'")
		}
	}
	if len(lines) == 0 {
		t.Fatal("describe the schema: nothing found")
	}
	sort.Strings(lines)
	return lines
}

// lineDiff shows the lines only one side has.
func lineDiff(got, want []string) string {
	in := func(lines []string) map[string]bool {
		m := map[string]bool{}
		for _, l := range lines {
			m[l] = true
		}
		return m
	}
	g, w := in(got), in(want)
	var b strings.Builder
	for _, l := range got {
		if !w[l] {
			fmt.Fprintf(&b, "+ %s\n", l)
		}
	}
	for _, l := range want {
		if !g[l] {
			fmt.Fprintf(&b, "- %s\n", l)
		}
	}
	return b.String()
}
