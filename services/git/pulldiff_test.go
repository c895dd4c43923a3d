package git

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// TestDiffFilesBetweenManyFiles: a diff of 10,000 added files lists them
// all, in path order, with their line counts (and a binary one 0/0),
// from names and counts alone; the diff text is bounded by MaxBytes, and
// a writer that fails stops git with its own error.
func TestDiffFilesBetweenManyFiles(t *testing.T) {
	s := newTestStore(t)
	path := newRepo(t, s, "alice", "big")
	base := commitFiles(t, s, path, "main", "init", create("README.md", "hi\n"))
	const n = 10000
	var in strings.Builder
	fmt.Fprintf(&in, "commit refs/heads/big\ncommitter C <c@example.com> 0 +0000\ndata 3\nbig\nfrom %s\n", base)
	for i := range n {
		fmt.Fprintf(&in, "M 100644 inline f/%05d.txt\ndata 4\nx\ny\n", i)
	}
	in.WriteString("M 100644 inline f/bin.dat\ndata 3\n\x00\x01\x02\n")
	if _, err := gitCmdErr(t, path, strings.NewReader(in.String()), "--git-dir=.", "fast-import", "--quiet"); err != nil {
		t.Fatal(err)
	}
	head := gitCmd(t, path, "--git-dir=.", "rev-parse", "big")

	files, err := s.DiffFilesBetween(context.Background(), path, base, head)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != n+1 {
		t.Fatalf("%d files, want %d", len(files), n+1)
	}
	for i := range n {
		f := files[i]
		if f.Filename != fmt.Sprintf("f/%05d.txt", i) || f.Status != FileAdded || f.Additions != 2 || f.Deletions != 0 || f.Binary {
			t.Fatalf("file %d: %+v", i, f)
		}
	}
	if f := files[n]; f.Filename != "f/bin.dat" || !f.Binary || f.Additions != 0 || f.Deletions != 0 {
		t.Fatalf("the binary file: %+v", f)
	}

	var out bytes.Buffer
	err = s.WriteDiff(context.Background(), path, DiffText{From: base, To: head, MaxBytes: 4096}, &out)
	if !errors.Is(err, ErrTooLarge) || out.Len() > 4096 {
		t.Fatalf("bounded diff: %d bytes, %v", out.Len(), err)
	}
	gone := errors.New("client gone")
	err = s.WriteDiff(context.Background(), path, DiffText{From: base, To: head, Patch: true}, failingWriter{gone})
	if !errors.Is(err, gone) {
		t.Fatalf("failing writer: %v", err)
	}
}

type failingWriter struct{ err error }

func (w failingWriter) Write([]byte) (int, error) { return 0, w.err }
