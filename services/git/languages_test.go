package git

import (
	"context"
	"reflect"
	"strings"
	"testing"
)

// Languages counts what Gitea counts (vendored, documentation, dotfiles
// and data left out, .gitattributes overrides honoured), and a second
// call on the same commit starts no process and reads nothing (cached
// per commit id).
func TestLanguages(t *testing.T) {
	ctx := context.Background()
	s := newTestStore(t)
	path := newRepo(t, s, "o", "r")
	goSrc := "package main\n\nfunc main() {}\n"
	pySrc := "print('hello')\n"
	files := map[string][]byte{
		"main.go":           []byte(goSrc),
		"cmd/tool/tool.go":  []byte(goSrc + "// more\n"),
		"app.py":            []byte(pySrc),
		"web/site.css":      []byte("body { color: red; }\n"),
		"README.md":         []byte("# readme\n"),
		"docs/conf.py":      []byte(pySrc),
		"vendor/lib/lib.go": []byte(goSrc),
		".hidden.py":        []byte(pySrc),
		"data.json":         []byte("{}\n"),
		"legacy/old.inc":    []byte("<?php echo 1; ?>\n"),
		"gen/out.go":        []byte(goSrc),
		".gitattributes":    []byte("*.inc linguist-language=PHP\ngen/** linguist-generated\n"),
		"empty.go":          nil,
	}
	commit, err := s.InitialCommit(ctx, path, "main", files, testAuthor, "init")
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.Languages(ctx, path, commit)
	if err != nil {
		t.Fatal(err)
	}
	size := func(names ...string) int64 {
		n := 0
		for _, f := range names {
			n += len(files[f])
		}
		return int64(n)
	}
	want := map[string]int64{
		"Go":     size("main.go", "cmd/tool/tool.go"),
		"Python": size("app.py"),
		"CSS":    size("web/site.css"),
		"PHP":    size("legacy/old.inc"),
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("languages %v, want %v", got, want)
	}
	starts := countGit(t)
	readers := s.readers.started.Load()
	again, err := s.Languages(ctx, path, commit)
	if err != nil || !reflect.DeepEqual(again, want) {
		t.Fatal(again, err)
	}
	if n := starts(); n != 0 || s.readers.started.Load() != readers {
		t.Fatalf("cached languages started %d processes", n)
	}
	if _, err := s.Languages(ctx, path, strings.Repeat("0", 40)); !isErr(err, ErrNotFound) {
		t.Fatalf("missing commit: %v", err)
	}
}

func TestAttributeMatcher(t *testing.T) {
	for _, c := range []struct {
		pattern, path string
		want          bool
	}{
		{"*.inc", "a/b/x.inc", true},
		{"gen/**", "gen/a/b.go", true},
		{"gen/**", "x/gen/a.go", false},
		{"**/gen/*.go", "x/gen/a.go", true},
		{"/top.go", "top.go", true},
		{"/top.go", "a/top.go", false},
	} {
		if got := attrMatcher(c.pattern)(c.path); got != c.want {
			t.Errorf("%s ~ %s = %v", c.pattern, c.path, got)
		}
	}
}
