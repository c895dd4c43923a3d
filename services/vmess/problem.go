package vmess

import (
	"fmt"
	"slices"
	"strings"
)

// Problem is one thing wrong with a configuration.
type Problem struct {
	// Path is where the problem is, in the JSON spelling (clients[2].id),
	// for binary input too. It is empty for a problem with the input as a
	// whole, such as a JSON syntax error.
	Path    string
	Message string
}

// String returns "path: message", or the message alone when Path is empty.
func (p Problem) String() string {
	if p.Path == "" {
		return p.Message
	}
	return p.Path + ": " + p.Message
}

// Problems is the error Compile, Decompile and Validate return: every
// problem found, sorted by path.
type Problems []Problem

// Error lists the problems, one per line.
func (ps Problems) Error() string {
	lines := make([]string, len(ps))
	for i, p := range ps {
		lines[i] = p.String()
	}
	return strings.Join(lines, "\n")
}

func (ps *Problems) add(path, format string, args ...any) {
	*ps = append(*ps, Problem{Path: path, Message: fmt.Sprintf(format, args...)})
}

// sorted sorts the problems by path (clients[10] after clients[9]); problems
// at the same path keep their order.
func (ps Problems) sorted() Problems {
	slices.SortStableFunc(ps, func(a, b Problem) int {
		return strings.Compare(pathSortKey(a.Path), pathSortKey(b.Path))
	})
	return ps
}

// err returns the problems as an error, or nil when there are none.
func (ps Problems) err() error {
	if len(ps) == 0 {
		return nil
	}
	return ps.sorted()
}

// covers reports whether one of the problems is at path or at a path that
// contains it (clients[1] contains clients[1].id).
func (ps Problems) covers(path string) bool {
	for _, p := range ps {
		if within(path, p.Path) {
			return true
		}
	}
	return false
}

// within reports whether path is outer or lies inside it.
func within(path, outer string) bool {
	if !strings.HasPrefix(path, outer) {
		return false
	}
	rest := path[len(outer):]
	return outer == "" || rest == "" || rest[0] == '.' || rest[0] == '['
}

// pathSortKey pads every run of digits so that indexes compare as numbers.
func pathSortKey(path string) string {
	var b strings.Builder
	digits := ""
	flush := func() {
		if digits != "" {
			b.WriteString(strings.Repeat("0", max(0, 20-len(digits))))
			b.WriteString(digits)
			digits = ""
		}
	}
	for _, r := range path {
		if r >= '0' && r <= '9' {
			digits += string(r)
			continue
		}
		flush()
		b.WriteRune(r)
	}
	flush()
	return b.String()
}

// join appends a field name to a path.
func join(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

// index appends an array index to a path.
func index(path string, i int) string {
	return fmt.Sprintf("%s[%d]", path, i)
}
