// Package storetest gives tests a fresh, migrated database on each backend:
// a temporary SQLite file, or a PostgreSQL database cloned from a migrated
// template. PostgreSQL is reached through FORGE_TEST_POSTGRES (libpq
// key/value form; default the local trust-auth server) and a test fails,
// never skips, when it is unreachable.
package storetest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"

	"forge/services/config"
	"forge/services/store"
)

// Backends lists the database types every store test runs on.
var Backends = []string{"sqlite3", "postgres"}

// Each runs fn as a subtest per backend, each with its own fresh store.
func Each(t *testing.T, fn func(t *testing.T, s *store.Store)) {
	t.Helper()
	for _, kind := range Backends {
		t.Run(kind, func(t *testing.T) {
			fn(t, Open(t, kind))
		})
	}
}

// Open returns a migrated store on a fresh database of the given kind,
// closed and dropped when the test ends.
func Open(t testing.TB, kind string) *store.Store {
	t.Helper()
	cfg := Database(t, kind)
	s, err := store.Open(cfg)
	if err != nil {
		t.Fatalf("open %s store: %v", kind, err)
	}
	t.Cleanup(func() { s.Close() })
	if err := s.Migrate(context.Background()); err != nil {
		t.Fatalf("migrate %s store: %v", kind, err)
	}
	if Owned != nil {
		if err := s.Own(context.Background(), *Owned); err != nil {
			t.Fatalf("own %s store: %v", kind, err)
		}
	}
	return s
}

// Owned, when set, is declared on every store Open returns (store.Own),
// so their repository and user deletes clear what the areas own. It is the
// areas' declaration, services/area/all.Owned, which storetest cannot
// import (the areas' own tests import storetest): a test package that
// deletes repositories or users sets it in TestMain, as services/store
// does. Unset, such deletes refuse instead of leaving orphans.
var Owned *store.Owned

// Database creates a fresh database of the given kind and returns its
// configuration. The PostgreSQL one is already migrated (cloned from the
// template); migrating again is a no-op.
func Database(t testing.TB, kind string) config.Database {
	t.Helper()
	cfg := config.Default().Database
	switch kind {
	case "sqlite3":
		cfg.Type = "sqlite3"
		cfg.Path = filepath.Join(t.TempDir(), "forge.db")
		sqliteTemplateOnce.Do(func() { sqliteTemplate, sqliteTemplateErr = ensureSQLiteTemplate() })
		if sqliteTemplateErr != nil {
			t.Fatalf("sqlite template: %v", sqliteTemplateErr)
		}
		if err := copyFile(sqliteTemplate, cfg.Path); err != nil {
			t.Fatalf("sqlite template: %v", err)
		}
		return cfg
	case "postgres":
		return newPostgresDatabase(t, true)
	default:
		t.Fatalf("unknown backend %q", kind)
		return cfg
	}
}

// Empty creates a fresh database of the given kind with nothing in it (not
// migrated) and returns its configuration; it is dropped when the test
// ends. For tests of the migrations themselves.
func Empty(t testing.TB, kind string) config.Database {
	t.Helper()
	switch kind {
	case "sqlite3":
		cfg := config.Default().Database
		cfg.Type = "sqlite3"
		cfg.Path = filepath.Join(t.TempDir(), "forge.db") // a new file is empty
		return cfg
	case "postgres":
		return newPostgresDatabase(t, false)
	default:
		t.Fatalf("unknown backend %q", kind)
		return config.Database{}
	}
}

// AdminDSN is the maintenance connection used to create test databases.
func AdminDSN() string {
	if dsn := os.Getenv("FORGE_TEST_POSTGRES"); dsn != "" {
		return dsn
	}
	return "host=127.0.0.1 port=5432 user=postgres dbname=postgres sslmode=disable"
}

var (
	templateOnce sync.Once
	templateName string
	templateErr  error
)

// newPostgresDatabase creates a database: a clone of the migrated template,
// or an empty one.
func newPostgresDatabase(t testing.TB, migrated bool) config.Database {
	t.Helper()
	admin, err := sql.Open("pgx", AdminDSN())
	if err != nil {
		t.Fatalf("postgres: %v", err)
	}
	defer admin.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := admin.PingContext(ctx); err != nil {
		t.Fatalf("postgres is not reachable at %q (start it, or set FORGE_TEST_POSTGRES): %v", AdminDSN(), err)
	}
	create := "CREATE DATABASE %s"
	if migrated {
		templateOnce.Do(func() { templateName, templateErr = ensureTemplate(ctx, admin) })
		if templateErr != nil {
			t.Fatalf("postgres template: %v", templateErr)
		}
		create += " TEMPLATE " + templateName
	}
	name := "forge_test_" + randomHex(8)
	var lastErr error
	for attempt := 0; attempt < 20; attempt++ {
		_, lastErr = admin.ExecContext(ctx, fmt.Sprintf(create, name))
		if lastErr == nil || !strings.Contains(lastErr.Error(), "being accessed by other users") {
			break
		}
		time.Sleep(100 * time.Millisecond) // another package is cloning the template right now
	}
	if lastErr != nil {
		t.Fatalf("create database %s: %v", name, lastErr)
	}
	t.Cleanup(func() {
		admin, err := sql.Open("pgx", AdminDSN())
		if err != nil {
			return
		}
		defer admin.Close()
		admin.Exec(fmt.Sprintf("DROP DATABASE IF EXISTS %s WITH (FORCE)", name))
	})
	cfg := config.Default().Database
	cfg.Type = "postgres"
	cfg.Name = name
	applyDSN(&cfg, AdminDSN())
	return cfg
}

// ensureTemplate makes (once per schema version, shared by all test
// processes) a migrated database to clone. It is built under a private name
// and renamed into place, so a half-built template is never used.
func ensureTemplate(ctx context.Context, admin *sql.DB) (string, error) {
	name := "forge_tmpl_" + store.SchemaVersion()
	if exists(ctx, admin, name) {
		return name, nil
	}
	building := name + "_" + randomHex(4)
	if _, err := admin.ExecContext(ctx, "CREATE DATABASE "+building); err != nil {
		return "", err
	}
	cfg := config.Default().Database
	cfg.Type, cfg.Name = "postgres", building
	applyDSN(&cfg, AdminDSN())
	s, err := store.Open(cfg)
	if err == nil {
		err = s.Migrate(ctx)
		s.Close()
	}
	if err == nil {
		_, err = admin.ExecContext(ctx, fmt.Sprintf("ALTER DATABASE %s RENAME TO %s", building, name))
	}
	if err != nil {
		admin.ExecContext(ctx, fmt.Sprintf("DROP DATABASE IF EXISTS %s WITH (FORCE)", building))
		if exists(ctx, admin, name) { // another process finished first
			return name, nil
		}
		return "", err
	}
	return name, nil
}

func exists(ctx context.Context, admin *sql.DB, name string) bool {
	var one int
	return admin.QueryRowContext(ctx, "SELECT 1 FROM pg_database WHERE datname = $1", name).Scan(&one) == nil
}

var (
	sqliteTemplateOnce sync.Once
	sqliteTemplate     string
	sqliteTemplateErr  error
)

// ensureSQLiteTemplate makes (once per schema version, shared by all test
// processes, as the PostgreSQL template) a migrated SQLite file that each
// fresh database copies: migrating from nothing costs over a second under
// the race detector, a copy a few milliseconds. It is built in a private
// directory and renamed into place, so a half-built one is never used.
func ensureSQLiteTemplate() (string, error) {
	path := filepath.Join(os.TempDir(), "forge-test-sqlite-"+store.SchemaVersion()+".db")
	if _, err := os.Stat(path); err == nil {
		return path, nil
	}
	dir, err := os.MkdirTemp(os.TempDir(), "forge-sqlite-template-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(dir)
	cfg := config.Default().Database
	cfg.Type, cfg.Path = "sqlite3", filepath.Join(dir, "forge.db")
	s, err := store.Open(cfg)
	if err != nil {
		return "", err
	}
	err = s.Migrate(context.Background())
	if cerr := s.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", err
	}
	// Closing the last connection checkpoints the write-ahead log into
	// the file and removes it; a log left behind would hold part of the
	// schema.
	if fi, err := os.Stat(cfg.Path + "-wal"); err == nil && fi.Size() > 0 {
		return "", fmt.Errorf("write-ahead log of %s not checkpointed", cfg.Path)
	}
	if err := os.Rename(cfg.Path, path); err != nil {
		return "", err
	}
	return path, nil
}

func copyFile(from, to string) error {
	data, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	return os.WriteFile(to, data, 0o600)
}

// applyDSN copies host, port, user and password from a libpq key/value DSN.
func applyDSN(cfg *config.Database, dsn string) {
	host, port := "127.0.0.1", "5432"
	for _, field := range strings.Fields(dsn) {
		k, v, _ := strings.Cut(field, "=")
		switch k {
		case "host":
			host = v
		case "port":
			port = v
		case "user":
			cfg.User = v
		case "password":
			cfg.Passwd = v
		case "sslmode":
			cfg.SSLMode = v
		}
	}
	cfg.Host = host + ":" + port
}

func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}
