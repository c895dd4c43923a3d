package store_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gorm.io/gorm"

	"forge/services/config"
	"forge/services/store"
	"forge/services/store/migrations"
)

var updateFreshSchema = flag.Bool("update-fresh-schema", false, "write migrations/fresh_sqlite.json from the migration steps")

const freshSchemaFile = "migrations/fresh_sqlite.json"

// TestFreshSchemaIsTheSteps: an empty SQLite database built from
// migrations/fresh_sqlite.json holds exactly what running every migration
// step builds (the schema's text, every row, the recorded step ids), and
// the file is the one made from the current steps. Regenerate it after
// adding a step:
//
//	go test ./services/store/ -run TestFreshSchemaIsTheSteps -args -update-fresh-schema
func TestFreshSchemaIsTheSteps(t *testing.T) {
	ctx := context.Background()
	stepped, err := store.Open(emptySQLite(t))
	if err != nil {
		t.Fatal(err)
	}
	defer stepped.Close()
	if err := stepped.DB().Transaction(migrations.ApplySteps); err != nil {
		t.Fatal(err)
	}
	want := sqliteDump(t, stepped.DB())
	if *updateFreshSchema {
		writeFreshSchema(t, migrations.FreshSchema{Version: migrations.Version(), Statements: want})
	}
	raw, err := os.ReadFile(freshSchemaFile)
	if err != nil {
		t.Fatal(err)
	}
	var file migrations.FreshSchema
	if err := json.Unmarshal(raw, &file); err != nil {
		t.Fatal(err)
	}
	if file.Version != migrations.Version() || !slices.Equal(file.Statements, want) {
		t.Fatalf("%s was not made from these steps (version %s, the steps' %s): run\n\tgo test ./services/store/ -run TestFreshSchemaIsTheSteps -args -update-fresh-schema",
			freshSchemaFile, file.Version, migrations.Version())
	}

	fresh, err := store.Open(emptySQLite(t))
	if err != nil {
		t.Fatal(err)
	}
	defer fresh.Close()
	before := fresh.QueryCount()
	if err := fresh.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	// The steps run hundreds of statements through gorm; the file's are
	// sent past it.
	if n := fresh.QueryCount() - before; n > 20 {
		t.Fatalf("the fresh database ran %d statements through gorm: the steps ran, not the file", n)
	}
	if got := sqliteDump(t, fresh.DB()); !slices.Equal(got, want) {
		for i := range min(len(got), len(want)) {
			if got[i] != want[i] {
				t.Fatalf("statement %d differs:\nfresh: %s\nsteps: %s", i, got[i], want[i])
			}
		}
		t.Fatalf("fresh database: %d statements, the steps' %d", len(got), len(want))
	}
	// And the steps find nothing left to do on it.
	if err := fresh.DB().Transaction(migrations.ApplySteps); err != nil {
		t.Fatal(err)
	}
	if got := sqliteDump(t, fresh.DB()); !slices.Equal(got, want) {
		t.Fatal("the steps changed a fresh database")
	}
}

// emptySQLite is a new SQLite database file (storetest's come migrated).
func emptySQLite(t *testing.T) config.Database {
	cfg := config.Default().Database
	cfg.Type = "sqlite3"
	cfg.Path = filepath.Join(t.TempDir(), "forge.db")
	return cfg
}

// sqliteDump is the statements that rebuild db: its tables, their rows
// (sqlite_sequence's last), then its indexes, views and triggers, each in
// the order they were made.
func sqliteDump(t *testing.T, db *gorm.DB) []string {
	t.Helper()
	type object struct{ Type, Name, SQL string }
	var objects []object
	if err := db.Raw(`SELECT type, name, sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite\_%' ESCAPE '\'
		ORDER BY CASE type WHEN 'table' THEN 0 WHEN 'index' THEN 1 WHEN 'view' THEN 2 ELSE 3 END, rowid`).Scan(&objects).Error; err != nil {
		t.Fatal(err)
	}
	var out, later []string
	tables := []string{}
	for _, o := range objects {
		if o.Type == "table" {
			out = append(out, o.SQL)
			tables = append(tables, o.Name)
		} else {
			later = append(later, o.SQL)
		}
	}
	var sequences int64
	if err := db.Raw("SELECT count(*) FROM sqlite_master WHERE name = 'sqlite_sequence'").Scan(&sequences).Error; err != nil {
		t.Fatal(err)
	}
	if sequences > 0 {
		tables = append(tables, "sqlite_sequence")
	}
	for _, table := range tables {
		if table == "sqlite_sequence" {
			// Rows inserted with their ids moved it already.
			out = append(out, "DELETE FROM sqlite_sequence")
		}
		var cols []string
		if err := db.Raw("SELECT name FROM pragma_table_info(?) ORDER BY cid", table).Scan(&cols).Error; err != nil {
			t.Fatal(err)
		}
		quoted := make([]string, len(cols))
		values := make([]string, len(cols))
		for i, c := range cols {
			quoted[i] = `"` + c + `"`
			values[i] = `quote("` + c + `")`
		}
		var rows []string
		q := `SELECT 'INSERT INTO "` + table + `" (` + strings.Join(quoted, ", ") + `) VALUES (' || ` +
			strings.Join(values, " || ', ' || ") + ` || ')' FROM "` + table + `" ORDER BY rowid`
		if err := db.Raw(q).Scan(&rows).Error; err != nil {
			t.Fatalf("dump %s: %v", table, err)
		}
		out = append(out, rows...)
	}
	return append(out, later...)
}

func writeFreshSchema(t *testing.T, f migrations.FreshSchema) {
	t.Helper()
	// One statement per line, so a new step's change reads as a diff.
	var b bytes.Buffer
	version, _ := json.Marshal(f.Version)
	b.WriteString("{\n  \"version\": " + string(version) + ",\n  \"statements\": [\n")
	for i, s := range f.Statements {
		q, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		b.WriteString("    " + string(q))
		if i < len(f.Statements)-1 {
			b.WriteString(",")
		}
		b.WriteString("\n")
	}
	b.WriteString("  ]\n}\n")
	if err := os.WriteFile(freshSchemaFile, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}
