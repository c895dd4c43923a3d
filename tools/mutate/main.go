// Command mutate is a small mutation tester for the access rules: it
// inverts or drops one condition at a time in the given Go files (a
// comparison flipped, && and || swapped, a ! removed), runs the given test
// command against each mutant, and reports which mutants no test caught.
// The file is restored after each run, also on interrupt.
//
//	go run ./tools/mutate -files services/access/rules.go \
//	    -- go test -count=1 ./services/access/
//
// A mutant is caught when the command exits non-zero (a failing or
// non-compiling test). Mutants that do not compile are reported apart:
// they say nothing about the tests.
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"os/signal"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"
)

// mutant is one edit of a file: the bytes [off, off+len(from)) become to.
type mutant struct {
	file     string
	line     int
	off      int
	from, to string
}

var flips = map[token.Token]string{
	token.EQL: "!=", token.NEQ: "==",
	token.LSS: ">=", token.GEQ: "<",
	token.GTR: "<=", token.LEQ: ">",
	token.LAND: "||", token.LOR: "&&",
}

func main() {
	files := flag.String("files", "", "comma-separated Go files to mutate")
	timeout := flag.Duration("timeout", 10*time.Minute, "per-mutant limit of the test command")
	flag.Parse()
	cmd := flag.Args()
	if *files == "" || len(cmd) == 0 {
		fmt.Fprintln(os.Stderr, "usage: mutate -files a.go,b.go -- test command...")
		os.Exit(2)
	}
	restoreOnInterrupt()
	var all []mutant
	for _, f := range strings.Split(*files, ",") {
		ms, err := mutants(f)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		all = append(all, ms...)
	}
	caught, survived, broken := 0, 0, 0
	var survivors []mutant
	for i, m := range all {
		res := run(m, cmd, *timeout)
		fmt.Printf("[%d/%d] %s:%d %q -> %q: %s\n", i+1, len(all), m.file, m.line, m.from, m.to, res)
		switch res {
		case "caught":
			caught++
		case "survived":
			survived++
			survivors = append(survivors, m)
		default:
			broken++
		}
	}
	fmt.Printf("\nmutants: %d, caught: %d, survived: %d, not compiling: %d\n", len(all), caught, survived, broken)
	for _, m := range survivors {
		fmt.Printf("SURVIVED %s:%d %q -> %q\n", m.file, m.line, m.from, m.to)
	}
	if survived > 0 {
		os.Exit(1)
	}
}

// mutants lists the conditions of file's functions that can be flipped.
func mutants(file string) ([]mutant, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, file, nil, 0)
	if err != nil {
		return nil, err
	}
	var out []mutant
	ast.Inspect(f, func(n ast.Node) bool {
		switch e := n.(type) {
		case *ast.BinaryExpr:
			if to, ok := flips[e.Op]; ok {
				p := fset.Position(e.OpPos)
				out = append(out, mutant{file: file, line: p.Line, off: p.Offset, from: e.Op.String(), to: to})
			}
		case *ast.UnaryExpr:
			if e.Op == token.NOT {
				p := fset.Position(e.OpPos)
				out = append(out, mutant{file: file, line: p.Line, off: p.Offset, from: "!", to: ""})
			}
		}
		return true
	})
	sort.Slice(out, func(i, j int) bool { return out[i].off < out[j].off })
	return out, nil
}

// pending is the file and content to restore when the run is
// interrupted; the handler is installed before the first write, so an
// interrupt at any moment leaves the tree as it was.
var (
	pendingMu   sync.Mutex
	pendingFile string
	pendingOrig []byte
)

func restoreOnInterrupt() {
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, os.Interrupt, syscall.SIGTERM)
	go func() {
		<-stop
		pendingMu.Lock() // held until exit: no new write starts
		if pendingFile != "" {
			os.WriteFile(pendingFile, pendingOrig, 0o644)
		}
		os.Exit(130)
	}()
}

// run applies m, runs the command and restores the file.
func run(m mutant, cmd []string, timeout time.Duration) string {
	orig, err := os.ReadFile(m.file)
	if err != nil {
		return "error: " + err.Error()
	}
	if !bytes.HasPrefix(orig[m.off:], []byte(m.from)) {
		return "error: source moved"
	}
	mutated := append(append(append([]byte{}, orig[:m.off]...), m.to...), orig[m.off+len(m.from):]...)
	pendingMu.Lock()
	pendingFile, pendingOrig = m.file, orig
	err = os.WriteFile(m.file, mutated, 0o644)
	pendingMu.Unlock()
	defer func() {
		pendingMu.Lock()
		os.WriteFile(m.file, orig, 0o644)
		pendingFile, pendingOrig = "", nil
		pendingMu.Unlock()
	}()
	if err != nil {
		return "error: " + err.Error()
	}

	vet := exec.Command("go", "vet", "./"+dirOf(m.file))
	if out, err := vet.CombinedOutput(); err != nil && bytes.Contains(out, []byte(m.file)) {
		return "not compiling"
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	c := exec.CommandContext(ctx, cmd[0], cmd[1:]...)
	c.Stdout, c.Stderr = nil, nil
	if err := c.Run(); err != nil {
		return "caught"
	}
	return "survived"
}

func dirOf(file string) string {
	if i := strings.LastIndex(file, "/"); i >= 0 {
		return file[:i]
	}
	return "."
}
