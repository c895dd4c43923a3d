package failpoint

import "testing"

func TestParse(t *testing.T) {
	for _, c := range []struct {
		in   string
		name string
		n    int64
	}{
		{"x", "x", 1}, {"x@3", "x", 3}, {"x@0", "x", 1}, {"a@b", "a@b", 1}, {"x@", "x", 1},
	} {
		if name, n := parse(c.in); name != c.name || n != c.n {
			t.Errorf("parse(%q) = %q, %d; want %q, %d", c.in, name, n, c.name, c.n)
		}
	}
	Hit("anything") // not armed in tests: returns
}
