package store

import (
	"context"
	"errors"
	"fmt"
	"sort"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// Owned declares the tables whose rows belong to a repository or a user
// and are deleted with it. The server derives it from its areas'
// declarations (package area) and gives it to the store once, with Own, so
// the deletes need no list of their own to keep in step.
type Owned struct {
	// Repository: tables cleared by repo_id when a repository is deleted.
	Repository []string
	// User: tables and the column holding the user's id, cleared when a
	// user is deleted.
	User []OwnedColumn
}

// OwnedColumn is a table and the column holding its owner's id.
type OwnedColumn struct {
	Table  string
	Column string
}

// errUndeclared: DeleteRepository or DeleteUser ran before Own; deleting
// only the parent row would leave orphans, so they refuse instead.
var errUndeclared = errors.New("store: the tables owned by repositories and users are not declared (Own)")

// Own declares the owned tables. It checks that each exists with its
// column, so a misspelt declaration stops start-up. Call it after Migrate,
// before the store is used.
func (s *Store) Own(ctx context.Context, o Owned) error {
	m := s.db.WithContext(ctx).Migrator()
	check := func(table, column string) error {
		if !m.HasTable(table) {
			return fmt.Errorf("store: owned table %q does not exist", table)
		}
		if !m.HasColumn(table, column) {
			return fmt.Errorf("store: owned table %q has no column %q", table, column)
		}
		return nil
	}
	for _, t := range o.Repository {
		if err := check(t, "repo_id"); err != nil {
			return err
		}
	}
	for _, c := range o.User {
		if err := check(c.Table, c.Column); err != nil {
			return err
		}
	}
	s.owned = &o
	return nil
}

// TablesWithColumn lists the tables of the migrated schema that have the
// column, sorted (for the test that every table referencing a repository
// or a user is declared as owned).
func (s *Store) TablesWithColumn(ctx context.Context, column string) ([]string, error) {
	m := s.db.WithContext(ctx).Migrator()
	tables, err := m.GetTables()
	if err != nil {
		return nil, err
	}
	var out []string
	for _, t := range tables {
		if m.HasColumn(t, column) {
			out = append(out, t)
		}
	}
	sort.Strings(out)
	return out, nil
}

// deleteOwned deletes the rows of tables whose column holds id.
func deleteOwned(tx *gorm.DB, cols []OwnedColumn, id int64) error {
	for _, c := range cols {
		err := tx.Exec("DELETE FROM ? WHERE ? = ?", clause.Table{Name: c.Table}, clause.Column{Name: c.Column}, id).Error
		if err != nil {
			return fmt.Errorf("delete from %s: %w", c.Table, err)
		}
	}
	return nil
}

// repoColumns is the repository's owned tables as columns.
func (o *Owned) repoColumns() []OwnedColumn {
	out := make([]OwnedColumn, len(o.Repository))
	for i, t := range o.Repository {
		out[i] = OwnedColumn{Table: t, Column: "repo_id"}
	}
	return out
}

// CountOwned counts the rows of table whose column holds id (for tests
// that a delete left no orphans).
func (s *Store) CountOwned(ctx context.Context, table, column string, id int64) (int64, error) {
	var n int64
	err := s.db.WithContext(ctx).Table(table).Where(clause.Eq{Column: clause.Column{Name: column}, Value: id}).Count(&n).Error
	return n, err
}
