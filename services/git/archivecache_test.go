package git

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func cachedFiles(t *testing.T, dir string) (n int, total int64) {
	t.Helper()
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if strings.HasPrefix(d.Name(), ".tmp-") {
				t.Fatalf("temporary file left: %s", p)
			}
			info, _ := d.Info()
			n++
			total += info.Size()
		}
		return nil
	})
	return n, total
}

// A produced archive is kept: the next request for the same commit,
// format and prefix is served from the file without starting git, with
// the same bytes; the repository's delete removes its entries, and the
// cache stays within its bound.
func TestArchiveCache(t *testing.T) {
	ctx := context.Background()
	s := newTestStore(t)
	dir := t.TempDir()
	s.SetArchiveCache(dir, 0)
	path := newRepo(t, s, "o", "r")
	if _, err := s.InitialCommit(ctx, path, "main", map[string][]byte{"a.txt": []byte("a\n")}, testAuthor, "init"); err != nil {
		t.Fatal(err)
	}
	rev, err := s.Resolve(ctx, path, "main")
	if err != nil {
		t.Fatal(err)
	}
	for _, format := range []ArchiveFormat{ArchiveZip, ArchiveTarGz, ArchiveBundle} {
		var first, second bytes.Buffer
		if err := s.Archive(ctx, path, rev, format, "r/", &first); err != nil {
			t.Fatal(format, err)
		}
		before := s.ProcessesStarted()
		if err := s.Archive(ctx, path, rev, format, "r/", &second); err != nil {
			t.Fatal(format, err)
		}
		if s.ProcessesStarted() != before {
			t.Fatalf("%s: a cached archive started git", format)
		}
		if first.Len() == 0 || !bytes.Equal(first.Bytes(), second.Bytes()) {
			t.Fatalf("%s: cached bytes differ (%d, %d)", format, first.Len(), second.Len())
		}
	}
	if n, _ := cachedFiles(t, dir); n != 3 {
		t.Fatalf("%d entries, want 3", n)
	}
	// Another prefix is another archive.
	before := s.ProcessesStarted()
	if err := s.Archive(ctx, path, rev, ArchiveZip, "other/", &bytes.Buffer{}); err != nil || s.ProcessesStarted() == before {
		t.Fatalf("other prefix: %v (no git started)", err)
	}
	if err := s.Delete(path); err != nil {
		t.Fatal(err)
	}
	if n, _ := cachedFiles(t, dir); n != 0 {
		t.Fatalf("%d entries after the repository's delete", n)
	}

	// The bound: archives of many commits stay within it.
	small := t.TempDir()
	s.SetArchiveCache(small, 3000)
	path = newRepo(t, s, "o", "many")
	for i := range 12 {
		files := map[string][]byte{"f.txt": bytes.Repeat([]byte{byte('a' + i)}, 100+i)}
		if i == 0 {
			if _, err := s.InitialCommit(ctx, path, "main", files, testAuthor, "c"); err != nil {
				t.Fatal(err)
			}
		} else {
			e, _ := s.Stat(ctx, path, "main", "f.txt")
			commitFiles(t, s, path, "main", "c", FileChange{Op: OpUpdate, Path: "f.txt", SHA: e.SHA, Content: files["f.txt"]})
		}
		rev, _ := s.Resolve(ctx, path, "main")
		if err := s.Archive(ctx, path, rev, ArchiveZip, "many/", &bytes.Buffer{}); err != nil {
			t.Fatal(err)
		}
	}
	if n, total := cachedFiles(t, small); total > 3000 || n == 0 {
		t.Fatalf("%d entries of %d bytes past a 3000-byte bound", n, total)
	}
	os.RemoveAll(small)
}
