package store

import (
	"context"
	"database/sql"
	"reflect"
	"strings"
	"sync"

	"gorm.io/gorm"
	"gorm.io/gorm/schema"
)

// Issue creation's statements run on the transaction's connection without
// gorm's statement building (issue 16): at 32 concurrent creators gorm's
// per-call work (cloning the statement, running the callback chain,
// building clauses, reflecting over the row and over each argument) was
// about as much CPU as SQLite's own execution of the statements. The
// statements are the same texts, counted as gorm's are (QueryCount), and
// their errors translated as gorm translates them. Rows are inserted with
// statements built from gorm's parsed schema (rowInserter), so their
// columns are still declared only by the model.

// rawTx runs statements on a gorm transaction's connection.
type rawTx struct {
	s     *Store
	ctx   context.Context
	conn  gorm.ConnPool
	trans gorm.ErrorTranslator
	count bool
}

// raw is the connection of tx (a transaction of s's gorm handle).
func (s *Store) raw(tx *gorm.DB) rawTx {
	ctx := tx.Statement.Context
	if ctx == nil {
		ctx = context.Background()
	}
	r := rawTx{s: s, ctx: ctx, conn: tx.Statement.ConnPool, count: ctx.Value(backgroundKey{}) == nil}
	if tx.Config.TranslateError {
		r.trans, _ = tx.Dialector.(gorm.ErrorTranslator)
	}
	return r
}

// sqlText is a statement written with ? placeholders, with its
// PostgreSQL spelling ($1, $2, …) made once.
type sqlText struct{ sqlite, pg string }

func newSQLText(q string) sqlText { return sqlText{sqlite: q, pg: pgPlaceholders(q)} }

func (r rawTx) text(q sqlText) string {
	if r.s.postgres {
		return q.pg
	}
	return q.sqlite
}

// fail is err as gorm's callbacks leave it: translated by the dialector
// (TranslateError), then badText.
func (r rawTx) fail(err error) error {
	if err == nil {
		return nil
	}
	if r.trans != nil {
		err = r.trans.Translate(err)
	}
	return badText(err)
}

func (r rawTx) counted() {
	if r.count {
		r.s.queries.Add(1)
	}
}

// exec runs a statement that returns no rows.
func (r rawTx) exec(q sqlText, args ...any) (sql.Result, error) {
	r.counted()
	res, err := r.conn.ExecContext(r.ctx, r.text(q), args...)
	return res, r.fail(err)
}

// queryRow runs a statement that returns one row into dest;
// sql.ErrNoRows when it returns none.
func (r rawTx) queryRow(q sqlText, args []any, dest ...any) error {
	r.counted()
	return r.fail(r.conn.QueryRowContext(r.ctx, r.text(q), args...).Scan(dest...))
}

// rowInserter is what an insert of rows of one model needs: every column
// gorm would write, and the auto-increment key to return (issue_rows.go
// builds the statements).
type rowInserter struct {
	fields []*schema.Field // the columns, in the statement's order
	// into, cols and returning are the statement's parts, quoted: the
	// table, the column list and the key.
	into, cols, returning string
}

// rowInserters caches the inserters by model and dialect (inserterKey):
// *rowInserter, or nil when gorm's Create must do it. Identifiers are
// quoted as the dialect quotes them.
var rowInserters sync.Map

type inserterKey struct {
	model    reflect.Type
	postgres bool
}

// inserterFor builds (once per model) the insert of rows like row (a
// pointer to a struct), or returns nil when the model needs what only
// gorm's Create does: hooks, default values, automatic times,
// serializers, associations.
func (r rawTx) inserterFor(tx *gorm.DB, row any) *rowInserter {
	k := inserterKey{reflect.TypeOf(row), r.s.postgres}
	if v, ok := rowInserters.Load(k); ok {
		return v.(*rowInserter)
	}
	ins := buildInserter(tx, row)
	rowInserters.Store(k, ins)
	return ins
}

func buildInserter(tx *gorm.DB, row any) *rowInserter {
	stmt := &gorm.Statement{DB: tx}
	if err := stmt.Parse(row); err != nil {
		return nil
	}
	sch := stmt.Schema
	key := sch.PrioritizedPrimaryField
	if key == nil || !key.AutoIncrement || len(sch.PrimaryFields) != 1 ||
		sch.BeforeCreate || sch.AfterCreate || sch.BeforeSave || sch.AfterSave || len(sch.Relationships.Relations) > 0 {
		return nil
	}
	ins := &rowInserter{}
	var cols strings.Builder
	for _, f := range sch.Fields {
		if f == key || f.DBName == "" || !f.Creatable {
			continue
		}
		if f.HasDefaultValue || f.AutoCreateTime != 0 || f.AutoUpdateTime != 0 || f.Serializer != nil {
			return nil
		}
		if len(ins.fields) > 0 {
			cols.WriteString(", ")
		}
		tx.Dialector.QuoteTo(&cols, f.DBName)
		ins.fields = append(ins.fields, f)
	}
	ins.cols = cols.String()
	ins.into = dialectQuote(tx, sch.Table)
	ins.returning = dialectQuote(tx, key.DBName)
	return ins
}

func dialectQuote(tx *gorm.DB, name string) string {
	var b strings.Builder
	tx.Dialector.QuoteTo(&b, name)
	return b.String()
}

// args are row's values of the inserter's columns.
func (ins *rowInserter) args(ctx context.Context, row any) []any {
	v := reflect.ValueOf(row).Elem()
	args := make([]any, len(ins.fields))
	for i, f := range ins.fields {
		args[i], _ = f.ValueOf(ctx, v)
	}
	return args
}
