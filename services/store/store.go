// Package store keeps forge's data in SQLite or PostgreSQL through gorm.
// Every method returns the sentinel errors below (or wraps them), never
// driver errors, so callers can map them without knowing the backend.
package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/libtnb/sqlite"
	"gorm.io/driver/postgres"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"
	"gorm.io/gorm/logger"

	"forge/services/config"
	"forge/services/errs"
)

// The store's sentinels are domain errors (errs.Error): each carries the
// kind and Gitea's message. Where Gitea answers another HTTP status than
// the kind's default, rpcerr says so (the store knows no HTTP). Every
// sentinel is listed in Sentinels (a test keeps the list whole).
var (
	// ErrNotFound: the object does not exist.
	ErrNotFound = errs.New(errs.NotFound, "not found")
	// ErrUserExists: the user name is taken (case-insensitively).
	ErrUserExists = errs.New(errs.AlreadyExists, "user already exists")
	// ErrEmailUsed: another account uses the e-mail address.
	ErrEmailUsed = errs.New(errs.AlreadyExists, "e-mail already in use")
	// ErrTokenNameUsed: the user already has a token with that name (Gitea
	// answers 400, see rpcerr).
	ErrTokenNameUsed = errs.New(errs.AlreadyExists, "access token name has been used already")
	// ErrLastAdmin: the change would leave no active site administrator.
	ErrLastAdmin = errs.New(errs.PermissionDenied, "can not remove the last active admin user")
)

// Sentinels are every error value the store returns for an outcome callers
// act on.
func Sentinels() []error {
	return []error{ErrNotFound, ErrUserExists, ErrEmailUsed, ErrTokenNameUsed, ErrLastAdmin,
		ErrRepoExists, ErrForkExists, ErrRepoLimit, ErrReleaseExists, ErrPushMirrorExists,
		ErrDependencyExists, ErrDependencySelf, ErrDependencyCycle, ErrDependencyNotFound, ErrDependenciesOpen,
		ErrTeamExists, ErrLastOrgOwner, ErrOwnersTeam, ErrOrgOwnsRepos, ErrRepoNotInOrg,
		ErrPullRequestExists, ErrPullRequestMerged, ErrPullRequestMoved, ErrPullRequestClosed, ErrRetargetMerged,
		ErrReviewNotPending, ErrBranchProtectionExists, ErrVariableExists, ErrAutoMergeScheduled,
		ErrLoginSourceExists, ErrLoginSourceInUse, ErrMilestoneNotFound,
		ErrKeyUsed, ErrKeyTitleUsed, ErrDeployKeyAdded, ErrDeployKeyNameUsed,
		ErrTagProtectionExists, ErrPinLimit, ErrStopwatchRunning, ErrStopwatchMissing, ErrTransferPending}
}

// Store is the database. It is safe for concurrent use.
type Store struct {
	db          *gorm.DB
	postgres    bool
	hotMu       sync.Mutex
	authStmt    *sql.Stmt // see hot.go
	genStmt     *sql.Stmt
	cntStmt     *sql.Stmt
	genCntStmt  *sql.Stmt
	socStmt     *sql.Stmt
	users       userCache
	owned       *Owned // see Own
	activity    activityHooks
	hooks       hookKicks     // see OnHookEvent
	queries     *atomic.Int64 // see querycount.go
	gens        *genWatcher   // see genwatch.go; nil on PostgreSQL
	rounds      genRounds     // PostgreSQL's shared generation reads (genrounds.go)
	compactedAt atomic.Int64  // when compactCommitCount last started (Unix ns)
	counters    countersCache // RepositoryCounters' between two commits (SQLite)
	writer      *sql.DB       // SQLite's writer connection (sqlitewriter.go); nil on PostgreSQL
	refCounter  *sql.DB       // PostgreSQL's connection for CountRefMove (genrounds.go); nil on SQLite
	issueBatch  issueBatch    // SQLite's queue of issue creations (issue_batch.go)
}

// sqliteURIPath escapes what a file: URI's path must not hold as is.
var sqliteURIPath = strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23")

// Open connects to the configured database and sizes its connection pool.
// It does not migrate; call Migrate.
func Open(cfg config.Database) (*Store, error) {
	gcfg := &gorm.Config{
		Logger: logger.Discard,
		// No PrepareStmt: gorm's statement cache can deadlock the pool
		// (go-gorm/gorm#7465; TestPoolExhaustionDoesNotStall). pgx keeps
		// its own per-connection cache of prepared statements, and so does
		// forge's SQLite driver (sqlitestmt.go).
		PrepareStmt:            false,
		SkipDefaultTransaction: true, // single statements need no transaction
		TranslateError:         true,
		NowFunc:                func() time.Time { return time.Now().UTC() },
	}
	var (
		db         *gorm.DB
		err        error
		gens       *genWatcher
		writer     *sql.DB
		refCounter *sql.DB
	)
	switch cfg.Type {
	case "postgres":
		db, err = gorm.Open(postgres.Open(PostgresDSN(cfg)), gcfg)
		if err == nil {
			err = translateBadText(db)
		}
		if err == nil {
			refCounter, err = openRefCounter(PostgresDSN(cfg))
		}
	case "sqlite3":
		if dir := filepath.Dir(cfg.Path); dir != "" {
			if err := os.MkdirAll(dir, 0o700); err != nil {
				return nil, err
			}
		}
		// WAL lets readers run beside the writer; immediate transactions take
		// the write lock up front so concurrent writers queue on busy_timeout
		// instead of failing to upgrade a read lock.
		// The path goes into a file: URI, where "?" starts the query and
		// "#" a fragment: escaped, a directory named "a#b" is not cut to
		// "a" (a database file beside the one configured).
		dsn := "file:" + sqliteURIPath.Replace(cfg.Path) + "?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=foreign_keys(1)&_pragma=synchronous(NORMAL)&_txlock=immediate"
		db, err = gorm.Open(sqlite.New(sqlite.Config{DriverName: sqliteDriverName, DSN: dsn}), gcfg)
		gens = &genWatcher{path: cfg.Path, dsn: dsn}
		if err == nil {
			writer, err = useWriterPool(db, dsn)
		}
	default:
		return nil, fmt.Errorf("unsupported database type %q", cfg.Type)
	}
	if err != nil {
		return nil, fmt.Errorf("open %s database: %w", cfg.Type, err)
	}
	sqlDB, err := db.DB()
	if err != nil {
		return nil, err
	}
	open, idle := cfg.MaxOpenConns, cfg.MaxIdleConns
	if open == 0 {
		open = 4 * runtime.GOMAXPROCS(0)
		if open < 8 {
			open = 8
		}
	}
	if idle == 0 {
		idle = open
	}
	sqlDB.SetMaxOpenConns(open)
	sqlDB.SetMaxIdleConns(idle)
	sqlDB.SetConnMaxIdleTime(5 * time.Minute)
	queries := new(atomic.Int64)
	if err := countQueries(db, queries); err != nil {
		return nil, err
	}
	return &Store{db: db, postgres: cfg.Type == "postgres", queries: queries, gens: gens, writer: writer, refCounter: refCounter}, nil
}

// PostgresDSN builds a libpq key/value connection string from Gitea's keys.
func PostgresDSN(cfg config.Database) string {
	host, port := cfg.Host, "5432"
	if h, p, err := splitHostPort(cfg.Host); err == nil {
		host, port = h, p
	}
	return fmt.Sprintf("host=%s port=%s user=%s password=%s dbname=%s sslmode=%s",
		quote(host), quote(port), quote(cfg.User), quote(cfg.Passwd), quote(cfg.Name), quote(cfg.SSLMode))
}

// Close releases the connections.
func (s *Store) Close() error {
	sqlDB, err := s.db.DB()
	if err != nil {
		return err
	}
	s.gens.close()
	closeStatements([]*sql.Stmt{s.authStmt, s.genStmt, s.cntStmt, s.genCntStmt, s.socStmt})
	if s.writer != nil {
		s.writer.Close()
	}
	if s.refCounter != nil {
		s.refCounter.Close()
	}
	return sqlDB.Close()
}

// DB exposes the gorm handle to tests in this module.
func (s *Store) DB() *gorm.DB { return s.db }

// Ping checks the connection.
func (s *Store) Ping(ctx context.Context) error {
	sqlDB, err := s.db.DB()
	if err != nil {
		return err
	}
	return sqlDB.PingContext(ctx)
}

// forUpdate locks the selected rows until the transaction ends on
// PostgreSQL; SQLite's immediate transactions already serialise writers.
func (s *Store) forUpdate(tx *gorm.DB) *gorm.DB {
	if s.postgres {
		return tx.Clauses(clause.Locking{Strength: "UPDATE"})
	}
	return tx
}

func notFound(err error) error {
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return ErrNotFound
	}
	return err
}
