// Package migrations is forge's schema history, embedded in the binary.
//
// Each migration is one method of History in a file of its own, named by
// the migration's id: Step0070_notifications in 0070_notifications.go. The
// id is four digits and a name; the digits are unique and give the order
// the steps run in. Adding a migration adds one file and nothing else:
// Steps finds the methods of History (Go lists them sorted by name, so by
// id), with no list to extend and no init-time registration. Each step
// declares its own snapshot of the tables it touches, so later changes to
// the store's models never rewrite history. Never edit a released step.
package migrations

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"io/fs"
	"reflect"
	"regexp"
	"strings"

	"github.com/go-gormigrate/gormigrate/v2"
	"gorm.io/gorm"
)

// History carries the steps as methods; it holds no state.
type History struct{}

// table records the ids of the applied steps (gormigrate keeps it).
const table = "schema_migrations"

// stepName is a step method's name: "Step", then the id.
var stepName = regexp.MustCompile(`^Step([0-9]{4})_[a-z0-9]+(_[a-z0-9]+)*$`)

// renamed maps ids recorded by databases created before the ids were put
// in the order the steps run in (two steps shared 0060; 0020 and 0050 ran
// after them) to the ids those steps have now. Apply rewrites them before
// it looks for pending steps, so such a database runs nothing again. The
// order the steps run in did not change. This list is closed: a new step
// gets a new id, never an entry here.
var renamed = map[string]string{
	"0060_issue_dependencies": "0061_issue_dependencies",
	"0020_orgs_and_teams":     "0062_orgs_and_teams",
	"0050_attachments":        "0063_attachments",
}

// Steps returns every step of History in the order they run. It fails
// when a method of History is not a well-formed step (name or signature)
// or when two steps share a number.
func Steps() ([]*gormigrate.Migration, error) { return stepsOf(History{}) }

// stepsOf reads the steps off the methods of history (History, or a
// malformed one in the tests).
func stepsOf(history any) ([]*gormigrate.Migration, error) {
	var (
		steps []*gormigrate.Migration
		last  string
	)
	h := reflect.ValueOf(history)
	for i := 0; i < h.NumMethod(); i++ { // sorted by name, so by id
		name := h.Type().Method(i).Name
		m := stepName.FindStringSubmatch(name)
		if m == nil {
			return nil, fmt.Errorf("migrations: History.%s: not a step name (Step, four digits, _name in lower case)", name)
		}
		fn, ok := h.Method(i).Interface().(func(*gorm.DB) error)
		if !ok {
			return nil, fmt.Errorf("migrations: History.%s: want func(*gorm.DB) error", name)
		}
		if m[1] == last {
			return nil, fmt.Errorf("migrations: History.%s: number %s is taken by %s", name, m[1], steps[len(steps)-1].ID)
		}
		last = m[1]
		steps = append(steps, &gormigrate.Migration{ID: strings.TrimPrefix(name, "Step"), Migrate: fn})
	}
	return steps, nil
}

// Apply runs the pending steps on tx and records their ids; an empty
// SQLite database gets what they build in one go (fresh.go). The caller
// serialises concurrent callers (the store holds a lock).
func Apply(tx *gorm.DB) error {
	if done, err := applyFresh(tx); err != nil || done {
		return err
	}
	if err := ApplySteps(tx); err != nil {
		return err
	}
	return commitCountTriggers(tx)
}

// commitCountTriggers gives every table of forge's schema on PostgreSQL,
// those of later steps too, the trigger that counts the commits of
// writing transactions (Step0125_commit_count), once that step has run.
func commitCountTriggers(tx *gorm.DB) error {
	if tx.Dialector.Name() != "postgres" {
		return nil
	}
	return tx.Exec(`DO $$
	DECLARE t text;
	BEGIN
		IF to_regprocedure('forge_commit_count()') IS NULL THEN RETURN; END IF;
		FOR t IN SELECT c.relname FROM pg_class c
			WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind IN ('r', 'p')
			AND c.relname <> 'commit_count'
			AND NOT EXISTS (SELECT 1 FROM pg_trigger g WHERE g.tgrelid = c.oid AND g.tgname = 'forge_commit_count')
		LOOP
			EXECUTE format('CREATE TRIGGER forge_commit_count AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON %I
				FOR EACH STATEMENT EXECUTE FUNCTION forge_commit_count()', t);
		END LOOP;
	END $$`).Error
}

// ApplySteps is Apply running every pending step, whatever the database.
func ApplySteps(tx *gorm.DB) error {
	steps, err := Steps()
	if err != nil {
		return err
	}
	if tx.Migrator().HasTable(table) {
		for old, id := range renamed {
			if err := tx.Exec("UPDATE "+table+" SET id = ? WHERE id = ?", id, old).Error; err != nil {
				return fmt.Errorf("migrations: rename recorded %s: %w", old, err)
			}
		}
	}
	opts := *gormigrate.DefaultOptions
	opts.TableName = table
	return gormigrate.New(tx, &opts, steps).Migrate()
}

// sources are the step files, for Version.
//
//go:embed [0-9]*.go
var sources embed.FS

// Version names the schema the steps build, for caches of a migrated
// database (the tests' PostgreSQL template): the last step's number, the
// number of steps, and a digest of the steps' files, so it changes with
// any step added, renamed or edited (an unreleased one, while it is being
// written) and two branches that each add a different step never share a
// name. Lower-case letters, digits and _, short enough for a PostgreSQL
// database name.
func Version() string {
	files, err := fs.Glob(sources, "[0-9]*.go") // sorted, so in id order
	if err != nil || len(files) == 0 {
		panic(fmt.Sprintf("migrations: no embedded steps: %v", err))
	}
	digest := sha256.New()
	for _, f := range files {
		b, err := sources.ReadFile(f)
		if err != nil {
			panic(err)
		}
		fmt.Fprintf(digest, "%s %d\n", f, len(b))
		digest.Write(b)
	}
	return fmt.Sprintf("%s_%d_%s", files[len(files)-1][:4], len(files), hex.EncodeToString(digest.Sum(nil))[:8])
}

// ApplyTo runs the pending steps up to and including id, which must be a
// step of History (restore loads a dump's rows into the schema they were
// dumped from, then Apply runs the later steps).
func ApplyTo(tx *gorm.DB, id string) error {
	steps, err := Steps()
	if err != nil {
		return err
	}
	found := false
	for _, s := range steps {
		found = found || s.ID == id
	}
	if !found {
		return fmt.Errorf("migrations: this forge has no step %s (the data comes from a newer forge)", id)
	}
	opts := *gormigrate.DefaultOptions
	opts.TableName = table
	return gormigrate.New(tx, &opts, steps).MigrateTo(id)
}
