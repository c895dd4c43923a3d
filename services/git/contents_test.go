package git

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"testing"
)

// contentsFixture commits, with plumbing, a tree holding every entry type
// and awkward names, and tags it v1 (annotated) and light (lightweight).
func contentsFixture(t *testing.T) (*Store, string, string) {
	ctx := context.Background()
	s := newTestStore(t)
	path := newRepo(t, s, "o", "r")
	big := bytes.Repeat([]byte("0123456789abcdef"), 1<<16) // 1 MiB
	files := map[string][]byte{
		"README.md":            []byte("# hello\n"),
		"dir/sub/file.txt":     []byte("deep\n"),
		"with space.txt":       []byte("spaces\n"),
		"ünïcödé/文件.txt":       []byte("unicode\n"),
		"big.bin":              big,
		"dir/-dash.txt":        []byte("dash\n"),
		"dir/sub/another.json": []byte("{}\n"),
	}
	first, err := s.InitialCommit(ctx, path, "main", files, testAuthor, "init")
	if err != nil {
		t.Fatal(err)
	}
	// Add a symlink, an executable and a submodule with update-index.
	env := []string{"GIT_INDEX_FILE=" + t.TempDir() + "/index"}
	run := func(stdin string, args ...string) string {
		out, err := s.outputIn(ctx, path, strings.NewReader(stdin), env, args...)
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(string(out))
	}
	run("", "read-tree", first)
	target := run("README.md", "hash-object", "-w", "--stdin")
	script := run("#!/bin/sh\n", "hash-object", "-w", "--stdin")
	run("120000 "+target+"\tlink\x00100755 "+script+"\trun.sh\x00160000 "+strings.Repeat("ab", 20)+"\tvendor/mod\x00",
		"update-index", "-z", "--add", "--index-info")
	tree := run("", "write-tree")
	second, err := s.commitTree(ctx, path, tree, first, testAuthor, testAuthor, "second\n")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.casRef(ctx, path, "refs/heads/main", second, first); err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateTag(ctx, path, "v1", first, "version 1", testAuthor); err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateTag(ctx, path, "light", first, "", Signature{}); err != nil {
		t.Fatal(err)
	}
	return s, path, first
}

func TestStat(t *testing.T) {
	ctx := context.Background()
	s, path, first := contentsFixture(t)
	tests := []struct {
		ref, path string
		want      Entry // SHA checked separately when empty
		wantErr   error
	}{
		{"main", "README.md", Entry{Name: "README.md", Path: "README.md", Type: EntryFile, Mode: "100644", Size: 8}, nil},
		{"main", "/README.md", Entry{Name: "README.md", Path: "README.md", Type: EntryFile, Mode: "100644", Size: 8}, nil},
		{"main", "dir/sub/file.txt", Entry{Name: "file.txt", Path: "dir/sub/file.txt", Type: EntryFile, Mode: "100644", Size: 5}, nil},
		{"main", "dir/sub/", Entry{Name: "sub", Path: "dir/sub", Type: EntryDir, Mode: "040000"}, nil},
		{"main", "with space.txt", Entry{Name: "with space.txt", Path: "with space.txt", Type: EntryFile, Mode: "100644", Size: 7}, nil},
		{"main", "ünïcödé/文件.txt", Entry{Name: "文件.txt", Path: "ünïcödé/文件.txt", Type: EntryFile, Mode: "100644", Size: 8}, nil},
		{"main", "dir/-dash.txt", Entry{Name: "-dash.txt", Path: "dir/-dash.txt", Type: EntryFile, Mode: "100644", Size: 5}, nil},
		{"main", "link", Entry{Name: "link", Path: "link", Type: EntrySymlink, Mode: "120000", Size: 9}, nil},
		{"main", "run.sh", Entry{Name: "run.sh", Path: "run.sh", Type: EntryFile, Mode: "100755", Size: 10}, nil},
		{"main", "vendor/mod", Entry{Name: "mod", Path: "vendor/mod", Type: EntrySubmodule, Mode: "160000", SHA: strings.Repeat("ab", 20)}, nil},
		{"main", "", Entry{Type: EntryDir, Mode: "040000"}, nil},
		{"v1", "README.md", Entry{Name: "README.md", Path: "README.md", Type: EntryFile, Mode: "100644", Size: 8}, nil},
		{"light", "README.md", Entry{Name: "README.md", Path: "README.md", Type: EntryFile, Mode: "100644", Size: 8}, nil},
		{first, "README.md", Entry{Name: "README.md", Path: "README.md", Type: EntryFile, Mode: "100644", Size: 8}, nil},
		{first[:8], "README.md", Entry{Name: "README.md", Path: "README.md", Type: EntryFile, Mode: "100644", Size: 8}, nil},
		{"v1", "link", Entry{}, ErrNotFound},
		{"main", "nope.txt", Entry{}, ErrNotFound},
		{"main", "README.md/x", Entry{}, ErrNotFound},
		{"main", "dir/../README.md", Entry{}, ErrNotFound},
		{"main", "with", Entry{}, ErrNotFound},
		{"main", "*.md", Entry{}, ErrNotFound},
		{"nope", "README.md", Entry{}, ErrNotFound},
		{"deadbeef", "README.md", Entry{}, ErrNotFound},
	}
	for _, tc := range tests {
		got, err := s.Stat(ctx, path, tc.ref, tc.path)
		if tc.wantErr != nil {
			if !errors.Is(err, tc.wantErr) {
				t.Errorf("Stat(%s, %q): err %v, want %v", tc.ref, tc.path, err, tc.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("Stat(%s, %q): %v", tc.ref, tc.path, err)
			continue
		}
		if !isObjectID(got.SHA) {
			t.Errorf("Stat(%s, %q): sha %q", tc.ref, tc.path, got.SHA)
		}
		if tc.want.SHA == "" {
			tc.want.SHA = got.SHA
		}
		if got != tc.want {
			t.Errorf("Stat(%s, %q)\n got %+v\nwant %+v", tc.ref, tc.path, got, tc.want)
		}
	}
}

func TestReadDir(t *testing.T) {
	ctx := context.Background()
	s, path, first := contentsFixture(t)
	names := func(es []Entry) string {
		var n []string
		for _, e := range es {
			n = append(n, e.Path+":"+string(e.Type))
		}
		return strings.Join(n, ",")
	}
	tests := []struct {
		ref, dir string
		want     string
		wantErr  error
	}{
		{"main", "", "README.md:file,big.bin:file,dir:dir,link:symlink,run.sh:file,vendor:dir,with space.txt:file,ünïcödé:dir", nil},
		{"main", "dir", "dir/-dash.txt:file,dir/sub:dir", nil},
		{"main", "/dir/sub/", "dir/sub/another.json:file,dir/sub/file.txt:file", nil},
		{"main", "ünïcödé", "ünïcödé/文件.txt:file", nil},
		{first, "", "README.md:file,big.bin:file,dir:dir,with space.txt:file,ünïcödé:dir", nil},
		{"main", "README.md", "", ErrInvalid},
		{"main", "vendor/mod", "", ErrInvalid},
		{"main", "nope", "", ErrNotFound},
		{"nope", "", "", ErrNotFound},
	}
	for _, tc := range tests {
		got, err := s.ReadDir(ctx, path, tc.ref, tc.dir)
		if tc.wantErr != nil {
			if !errors.Is(err, tc.wantErr) {
				t.Errorf("ReadDir(%s, %q): err %v, want %v", tc.ref, tc.dir, err, tc.wantErr)
			}
			continue
		}
		if err != nil || names(got) != tc.want {
			t.Errorf("ReadDir(%s, %q) = %s, %v\nwant %s", tc.ref, tc.dir, names(got), err, tc.want)
		}
	}
	// Entries agree with Stat.
	entries, _ := s.ReadDir(ctx, path, "main", "dir/sub")
	for _, e := range entries {
		if st, err := s.Stat(ctx, path, "main", e.Path); err != nil || st != e {
			t.Errorf("Stat(%s) = %+v, %v; ReadDir gave %+v", e.Path, st, err, e)
		}
	}
}

func TestOpenBlob(t *testing.T) {
	ctx := context.Background()
	s, path, _ := contentsFixture(t)
	big := bytes.Repeat([]byte("0123456789abcdef"), 1<<16)
	tests := []struct {
		ref, path string
		want      string
		wantErr   error
	}{
		{"main", "README.md", "# hello\n", nil},
		{"main", "with space.txt", "spaces\n", nil},
		{"v1", "ünïcödé/文件.txt", "unicode\n", nil},
		{"main", "link", "README.md", nil},
		{"main", "big.bin", string(big), nil},
		{"main", "dir", "", ErrInvalid},
		{"main", "", "", ErrNotFound},
		{"main", "nope", "", ErrNotFound},
		{"main", "vendor/mod", "", ErrNotFound},
		{"nope", "README.md", "", ErrNotFound},
	}
	for _, tc := range tests {
		rc, size, err := s.OpenBlob(ctx, path, tc.ref, tc.path)
		if tc.wantErr != nil {
			if !errors.Is(err, tc.wantErr) {
				t.Errorf("OpenBlob(%s, %q): err %v, want %v", tc.ref, tc.path, err, tc.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("OpenBlob(%s, %q): %v", tc.ref, tc.path, err)
			continue
		}
		got, err := io.ReadAll(rc)
		if cerr := rc.Close(); err == nil {
			err = cerr
		}
		if err != nil || string(got) != tc.want || size != int64(len(tc.want)) {
			t.Errorf("OpenBlob(%s, %q) = %d bytes (size %d), %v", tc.ref, tc.path, len(got), size, err)
		}
	}

	// Closing after a partial read of a large blob stops git promptly.
	rc, size, err := s.OpenBlob(ctx, path, "main", "big.bin")
	if err != nil || size != int64(len(big)) {
		t.Fatal(size, err)
	}
	buf := make([]byte, 100)
	if _, err := io.ReadFull(rc, buf); err != nil || !bytes.Equal(buf, big[:100]) {
		t.Fatal(err)
	}
	if err := rc.Close(); err != nil {
		t.Fatalf("early close: %v", err)
	}

	// By blob sha.
	e, _ := s.Stat(ctx, path, "main", "README.md")
	rc, _, err = s.OpenBlobBySHA(ctx, path, e.SHA)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(rc)
	rc.Close()
	if string(got) != "# hello\n" {
		t.Fatalf("OpenBlobBySHA = %q", got)
	}
	tree, _ := s.Stat(ctx, path, "main", "dir")
	for _, sha := range []string{tree.SHA, strings.Repeat("0", 40), "README.md"} {
		if _, _, err := s.OpenBlobBySHA(ctx, path, sha); err == nil {
			t.Errorf("OpenBlobBySHA(%s) succeeded", sha)
		}
	}
}

func TestLastCommit(t *testing.T) {
	ctx := context.Background()
	s := newTestStore(t)
	path := newRepo(t, s, "o", "r")
	c1 := commitFiles(t, s, path, "main", "c1", create("a.txt", "a"), create("d/x.txt", "x"), create("d/y.txt", "y"), create("z.txt", "z"))
	c2 := commitFiles(t, s, path, "main", "c2", create("d/w.txt", "w"))
	x, _ := s.Stat(ctx, path, "main", "d/x.txt")
	c3 := commitFiles(t, s, path, "main", "c3", FileChange{Op: OpUpdate, Path: "d/x.txt", SHA: x.SHA, Content: []byte("x2")}, create("b.txt", "b"))
	a, _ := s.Stat(ctx, path, "main", "a.txt")
	c4 := commitFiles(t, s, path, "main", "c4", FileChange{Op: OpUpdate, Path: "a.txt", SHA: a.SHA, Content: []byte("a2")})

	tests := []struct {
		ref, path, want string
		wantErr         error
	}{
		{"main", "a.txt", c4, nil},
		{"main", "d", c3, nil},
		{"main", "d/y.txt", c1, nil},
		{"main", "d/w.txt", c2, nil},
		{"main", "", c4, nil},
		{c3, "a.txt", c1, nil},
		{"main", "nope", "", ErrNotFound},
		{"nope", "a.txt", "", ErrNotFound},
	}
	for _, tc := range tests {
		got, err := s.LastCommitForPath(ctx, path, tc.ref, tc.path)
		if tc.wantErr != nil && !errors.Is(err, tc.wantErr) || tc.wantErr == nil && (err != nil || got != tc.want) {
			t.Errorf("LastCommitForPath(%s, %q) = %s, %v; want %s, %v", tc.ref, tc.path, got, err, tc.want, tc.wantErr)
		}
	}

	for _, dir := range []string{"", "d"} {
		entries, err := s.ReadDir(ctx, path, "main", dir)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, e := range entries {
			names = append(names, e.Name)
		}
		got, err := s.LastCommitsForEntries(ctx, path, "main", dir, append(names, "missing"))
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(entries) {
			t.Errorf("LastCommitsForEntries(%q) = %v", dir, got)
		}
		for _, e := range entries {
			want, _ := s.LastCommitForPath(ctx, path, "main", e.Path)
			if got[e.Name] != want {
				t.Errorf("LastCommitsForEntries(%q)[%s] = %s, want %s", dir, e.Name, got[e.Name], want)
			}
		}
	}
}
