package rpcerr_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// statusPackages build gRPC statuses (status.Error, Errorf, New,
// FromError(...).Err(), ...) and name their codes.
var statusPackages = map[string]bool{
	"google.golang.org/grpc/status": true,
	"google.golang.org/grpc/codes":  true,
}

// retiredHelpers are rpcerr's translators for code that still builds
// statuses; nothing new may call them.
var retiredHelpers = map[string]bool{"FromStore": true, "Internal": true, "WithHTTPStatus": true}

// bareStatusAllowed: services/access still returns statuses (it is being
// converted to errs values). ALLOWANCE TO REMOVE, together with
// allowBareStatus in rpcerr.go and the retired helpers, once it is.
func bareStatusAllowed(rel string) bool {
	return filepath.Dir(rel) == filepath.Join("services", "access")
}

// TestOneErrorPath: outside services/rpcerr, no non-test source under
// services/, gateway/ or cmd/ imports grpc's status or codes package, so
// none builds a status: services, store and git return errs values, and
// rpcerr alone turns them into statuses and HTTP statuses (Status,
// HTTPStatusOf, RetryAfter, KindOf, Message).
func TestOneErrorPath(t *testing.T) {
	root := filepath.Join("..", "..")
	fset := token.NewFileSet()
	scanned := 0
	for _, dir := range []string{"services", "gateway", "cmd"} {
		err := filepath.WalkDir(filepath.Join(root, dir), func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return nil
			}
			rel, _ := filepath.Rel(root, path)
			if filepath.Dir(rel) == filepath.Join("services", "rpcerr") || bareStatusAllowed(rel) {
				return nil
			}
			f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
			if err != nil {
				return err
			}
			scanned++
			rpcerrName := ""
			for _, imp := range f.Imports {
				p, _ := strconv.Unquote(imp.Path.Value)
				if statusPackages[p] {
					t.Errorf("%s imports %s: return an errs value; rpcerr translates it", rel, p)
				}
				if p == "forge/services/rpcerr" {
					rpcerrName = "rpcerr"
					if imp.Name != nil {
						rpcerrName = imp.Name.Name
					}
				}
			}
			if rpcerrName == "" {
				return nil
			}
			ast.Inspect(f, func(n ast.Node) bool {
				sel, ok := n.(*ast.SelectorExpr)
				if !ok {
					return true
				}
				if x, ok := sel.X.(*ast.Ident); ok && x.Name == rpcerrName && retiredHelpers[sel.Sel.Name] {
					t.Errorf("%s: rpcerr.%s builds a status: return an errs value (errs.Wrap, errs.Replace, errs.New)", fset.Position(sel.Pos()), sel.Sel.Name)
				}
				return true
			})
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if scanned < 50 {
		t.Fatalf("scanned only %d files: is the root %s right?", scanned, root)
	}
}
