package migrations

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"gorm.io/gorm"
)

func stepIDs(t *testing.T) []string {
	t.Helper()
	steps, err := Steps()
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, s := range steps {
		ids = append(ids, s.ID)
	}
	return ids
}

// TestStepsRunInIDOrder: the numbers are unique and the steps run in
// their order.
func TestStepsRunInIDOrder(t *testing.T) {
	ids := stepIDs(t)
	if len(ids) == 0 {
		t.Fatal("no steps")
	}
	last := -1
	for _, id := range ids {
		n, err := strconv.Atoi(id[:4])
		if err != nil || n <= last {
			t.Errorf("step %s runs after number %04d: numbers must be unique and ascending", id, last)
		}
		last = n
	}
}

// TestOneStepPerFile: each step file <id>.go declares the one method
// Step<id> of History and nothing else; no other file declares a step.
func TestOneStepPerFile(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	isStepFile := regexp.MustCompile(`^[0-9]{4}_.*\.go$`)
	var declared []string
	for _, file := range files {
		if strings.HasSuffix(file, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		var steps, others []string
		for _, decl := range f.Decls {
			switch d := decl.(type) {
			case *ast.FuncDecl:
				if d.Recv != nil && receiverName(d.Recv) == "History" {
					steps = append(steps, d.Name.Name)
				} else {
					others = append(others, d.Name.Name)
				}
			case *ast.GenDecl:
				if d.Tok != token.IMPORT {
					others = append(others, d.Tok.String())
				}
			}
		}
		if !isStepFile.MatchString(file) {
			if len(steps) > 0 {
				t.Errorf("%s declares steps %v: each goes in a file of its own, named by its id", file, steps)
			}
			continue
		}
		want := "Step" + strings.TrimSuffix(file, ".go")
		if len(steps) != 1 || steps[0] != want || len(others) > 0 {
			t.Errorf("%s declares steps %v and %v, want the one method History.%s", file, steps, others, want)
		}
		declared = append(declared, strings.TrimSuffix(file, ".go"))
	}
	if got := strings.Join(stepIDs(t), " "); got != strings.Join(declared, " ") {
		t.Errorf("Steps runs %s; the step files are %s", got, strings.Join(declared, " "))
	}
}

func receiverName(recv *ast.FieldList) string {
	if id, ok := recv.List[0].Type.(*ast.Ident); ok {
		return id.Name
	}
	return ""
}

// TestRenamed: every renamed id names a step under its new number and is
// no step's id any more, so a database that recorded it runs the step
// once.
func TestRenamed(t *testing.T) {
	ids := map[string]bool{}
	for _, id := range stepIDs(t) {
		ids[id] = true
	}
	for old, id := range renamed {
		if !ids[id] || ids[old] {
			t.Errorf("renamed %s → %s: the new id must be a step and the old one not", old, id)
		}
		if old[4:] != id[4:] {
			t.Errorf("renamed %s → %s: only the number changes", old, id)
		}
	}
}

type duplicateNumber struct{}

func (duplicateNumber) Step0001_one(*gorm.DB) error { return nil }
func (duplicateNumber) Step0001_two(*gorm.DB) error { return nil }

type badName struct{}

func (badName) Step1_Users(*gorm.DB) error { return nil }

type badSignature struct{}

func (badSignature) Step0001_users() error { return nil }

// TestStepsRefusesMalformedHistory: Migrate fails, rather than run steps
// in a wrong order, when History breaks the rules.
func TestStepsRefusesMalformedHistory(t *testing.T) {
	for name, h := range map[string]any{"duplicate number": duplicateNumber{}, "name": badName{}, "signature": badSignature{}} {
		if steps, err := stepsOf(h); err == nil {
			t.Errorf("%s: accepted %d steps", name, len(steps))
		}
	}
}

// TestVersion: the last step's number and the count lead the digest,
// and the whole is a valid PostgreSQL database name part.
func TestVersion(t *testing.T) {
	ids := stepIDs(t)
	v := Version()
	prefix := ids[len(ids)-1][:4] + "_" + strconv.Itoa(len(ids)) + "_"
	if !strings.HasPrefix(v, prefix) || !regexp.MustCompile(`^[0-9a-z_]{1,40}$`).MatchString(v) {
		t.Errorf("Version() = %q, want %s<digest> in lower case", v, prefix)
	}
}
