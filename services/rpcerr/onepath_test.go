package rpcerr_test

import (
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
			if filepath.Dir(rel) == filepath.Join("services", "rpcerr") {
				return nil
			}
			f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
			if err != nil {
				return err
			}
			scanned++
			for _, imp := range f.Imports {
				p, _ := strconv.Unquote(imp.Path.Value)
				if statusPackages[p] {
					t.Errorf("%s imports %s: return an errs value; rpcerr translates it", rel, p)
				}
			}
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
