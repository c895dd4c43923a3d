package blob

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestLocal(t *testing.T) {
	dir := t.TempDir()
	l, err := NewLocal(dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	n, err := l.Put(ctx, "abc-123", strings.NewReader("hello"), 5)
	if err != nil || n != 5 {
		t.Fatalf("put: %d %v", n, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "a", "b", "abc-123")); err != nil {
		t.Fatalf("layout: %v", err)
	}
	f, err := l.Open("abc-123")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(f)
	f.Close()
	if string(b) != "hello" || f.Size() != 5 {
		t.Fatalf("read %q size %d", b, f.Size())
	}

	// Over the limit: nothing stored, no temp file left.
	if _, err := l.Put(ctx, "too-big", strings.NewReader("hello!"), 5); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("too large: %v", err)
	}
	if _, err := l.Open("too-big"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("a refused file is stored: %v", err)
	}
	// A failing reader: nothing stored either.
	if _, err := l.Put(ctx, "broken", io.MultiReader(strings.NewReader("x"), errReader{}), 100); err == nil {
		t.Fatal("a broken upload was stored")
	}
	if tmp, _ := os.ReadDir(filepath.Join(dir, "tmp")); len(tmp) != 0 {
		t.Fatalf("temp files left: %v", tmp)
	}
	// Keys cannot name paths.
	for _, k := range []string{"../x", "a/b", "..", "", "x.y"} {
		if _, err := l.Put(ctx, k, strings.NewReader("x"), 10); err == nil {
			t.Errorf("key %q accepted", k)
		}
		if _, err := l.Open(k); !errors.Is(err, ErrNotFound) {
			t.Errorf("open %q: %v", k, err)
		}
	}

	// Walk sees stored files and unfinished uploads.
	os.WriteFile(filepath.Join(dir, "tmp", "abandoned.1"), []byte("x"), 0o600)
	var files, temps []string
	err = l.Walk(ctx, func(key string, _ time.Time, temp bool) error {
		if temp {
			temps = append(temps, key)
		} else {
			files = append(files, key)
		}
		return nil
	})
	if err != nil || len(files) != 1 || files[0] != "abc-123" || len(temps) != 1 || temps[0] != "abandoned.1" {
		t.Fatalf("walk: %v %v %v", err, files, temps)
	}
	if err := l.RemoveTemp("abandoned.1"); err != nil {
		t.Fatal(err)
	}
	if err := l.Delete("abc-123"); err != nil {
		t.Fatal(err)
	}
	if err := l.Delete("abc-123"); err != nil {
		t.Fatalf("deleting a missing file: %v", err)
	}
}

type errReader struct{}

func (errReader) Read([]byte) (int, error) { return 0, errors.New("connection reset") }
