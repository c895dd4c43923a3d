package app

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestServicesUseNarrowStores fails when a service package (anything under
// services/ except the store itself and the list of areas) names the
// concrete *store.Store: each declares the narrow interface it needs, so
// its rules can be read, tested and called (the command line) without the
// database. services/area/all is wiring, like cmd: its constructors hand
// the database to each area as that interface, which is where the compiler
// checks that *store.Store implements it.
func TestServicesUseNarrowStores(t *testing.T) {
	root := filepath.Join("..", "..", "..", "services")
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == "store" || d.Name() == "storetest" || path == filepath.Join(root, "area", "all") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		storeName := ""
		for _, imp := range f.Imports {
			if p, _ := strconv.Unquote(imp.Path.Value); p == "forge/services/store" {
				storeName = "store"
				if imp.Name != nil {
					storeName = imp.Name.Name
				}
			}
		}
		if storeName == "" {
			return nil
		}
		ast.Inspect(f, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok || sel.Sel.Name != "Store" {
				return true
			}
			if id, ok := sel.X.(*ast.Ident); ok && id.Name == storeName {
				t.Errorf("%s: depends on the concrete store.Store; declare a narrow interface in the package", fset.Position(sel.Pos()))
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
