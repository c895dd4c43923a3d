package reviews

import "testing"

// TestHunkAt: a comment's hunk ends at its line, on the side it names,
// with at most hunkLines lines of the hunk.
func TestHunkAt(t *testing.T) {
	diff := "diff --git a/a.txt b/a.txt\nindex 1..2 100644\n--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,4 @@\n one\n-two\n+TWO\n+2b\n three\n" +
		"diff --git a/b.txt b/b.txt\nnew file mode 100644\n--- /dev/null\n+++ b/b.txt\n@@ -0,0 +1,6 @@\n+1\n+2\n+3\n+4\n+5\n+6\n"
	head := "diff --git a/a.txt b/a.txt\nindex 1..2 100644\n--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,4 @@\n"
	for _, tc := range []struct {
		path string
		line int64
		want string
	}{
		{"a.txt", 3, head + " one\n-two\n+TWO\n+2b"},
		{"a.txt", -2, head + " one\n-two"},
		{"a.txt", 4, head + "-two\n+TWO\n+2b\n three"},
		{"b.txt", 6, "diff --git a/b.txt b/b.txt\nnew file mode 100644\n--- /dev/null\n+++ b/b.txt\n@@ -0,0 +1,6 @@\n+3\n+4\n+5\n+6"},
		{"b.txt", 9, ""},
		{"c.txt", 1, ""},
	} {
		if got := hunkAt(diff, tc.path, tc.line); got != tc.want {
			t.Errorf("%s:%d: got\n%q\nwant\n%q", tc.path, tc.line, got, tc.want)
		}
	}
}
