package store_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"testing"

	"forge/services/store"
	"forge/services/store/storetest"
)

// TestPortableExportLoad: every table exported from one backend loads
// into an empty database of either backend, migrated to the source's
// schema, with equal rows (booleans, bytes and text fitted to the target's
// types) and id counters past the source's: a user created after the load
// never takes the id of one deleted before the export.
func TestPortableExportLoad(t *testing.T) {
	for _, from := range storetest.Backends {
		for _, to := range storetest.Backends {
			t.Run(from+"_to_"+to, func(t *testing.T) {
				ctx := context.Background()
				src := storetest.Open(t, from)
				newRepo(t, src, "moved")
				bob := newUser("bob", "bob@x.org", true)
				bob.TOTPSecret = []byte{0, 1, 2, 0xff}
				if err := src.CreateUser(ctx, bob); err != nil {
					t.Fatal(err)
				}
				gone := newUser("gone", "gone@x.org", false)
				if err := src.CreateUser(ctx, gone); err != nil {
					t.Fatal(err)
				}
				if err := src.DeleteUser(ctx, "gone", nil); err != nil {
					t.Fatal(err)
				}

				type table struct {
					meta store.PortableTable
					rows [][]any
				}
				var tables []*table
				schema, err := src.Export(ctx, func(pt store.PortableTable) error {
					tables = append(tables, &table{meta: pt})
					return nil
				}, func(vals []any) error {
					cur := tables[len(tables)-1]
					cur.rows = append(cur.rows, append([]any(nil), vals...))
					return nil
				})
				if err != nil {
					t.Fatal(err)
				}
				byName := map[string]*table{}
				for _, tb := range tables {
					byName[tb.meta.Name] = tb
				}

				dst, err := store.Open(storetest.Empty(t, to))
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { dst.Close() })
				if names, err := dst.Tables(ctx); err != nil || len(names) != 0 {
					t.Fatalf("target not empty: %v %v", names, err)
				}
				if err := dst.MigrateTo(ctx, schema.Migrations[len(schema.Migrations)-1]); err != nil {
					t.Fatal(err)
				}
				err = dst.Load(ctx, schema.Tables, func(name string, emit func([]any) error) error {
					for _, r := range byName[name].rows {
						if err := emit(r); err != nil {
							return err
						}
					}
					return nil
				})
				if err != nil {
					t.Fatal(err)
				}
				if err := dst.Migrate(ctx); err != nil {
					t.Fatal(err)
				}
				a, b := allRows(t, src), allRows(t, dst)
				if fmt.Sprint(a) != fmt.Sprint(b) {
					t.Fatalf("rows differ:\nsource: %v\nloaded: %v", a, b)
				}
				got, err := dst.UserByName(ctx, "bob")
				if err != nil || string(got.TOTPSecret) != string(bob.TOTPSecret) || !got.IsAdmin {
					t.Fatalf("bob after load: %+v %v", got, err)
				}
				next := newUser("next", "next@x.org", false)
				if err := dst.CreateUser(ctx, next); err != nil {
					t.Fatal(err)
				}
				if next.ID <= gone.ID {
					t.Fatalf("a new user took id %d, not past the deleted user's %d", next.ID, gone.ID)
				}
			})
		}
	}
}

// allRows reads every table as sorted JSON rows of normalised values.
func allRows(t *testing.T, s *store.Store) map[string][]string {
	t.Helper()
	ctx := context.Background()
	names, err := s.Tables(ctx)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	for _, n := range names {
		if n == "commit_count" {
			continue // PostgreSQL's count of commits, per backend process: not data
		}
		rows, err := s.DB().WithContext(ctx).Raw(`SELECT * FROM "` + n + `"`).Rows()
		if err != nil {
			t.Fatal(err)
		}
		cols, _ := rows.Columns()
		var list []string
		for rows.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			m := map[string]any{}
			for i, v := range vals {
				switch x := v.(type) {
				case bool:
					v = map[bool]int64{false: 0, true: 1}[x]
				case []byte:
					v = string(x)
				case int32:
					v = int64(x)
				}
				m[cols[i]] = v
			}
			b, _ := json.Marshal(m)
			list = append(list, string(b))
		}
		rows.Close()
		sort.Strings(list)
		out[n] = list
	}
	return out
}
