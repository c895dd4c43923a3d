package git

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"
	"testing"
)

// BenchmarkReceivePackRefUpdates pushes one branch update (a new commit,
// then back) into repositories with 10 and 10,000 branches. The ref
// updates come from the post-receive hook's own list, so the cost of
// computing them does not depend on the number of refs.
func BenchmarkReceivePackRefUpdates(b *testing.B) {
	for _, bc := range []struct {
		branches int
		packed   bool
	}{{10, false}, {10000, false}, {10000, true}} {
		name := fmt.Sprintf("branches=%d", bc.branches)
		if bc.packed {
			name += "/packed-refs"
		}
		b.Run(name, func(b *testing.B) {
			ctx := context.Background()
			s := newTestStore(b)
			path := newRepo(b, s, "o", "r")
			a, err := s.InitialCommit(ctx, path, "main", map[string][]byte{"f": []byte("a\n")}, testAuthor, "a")
			if err != nil {
				b.Fatal(err)
			}
			f, _ := s.Stat(ctx, path, "main", "f")
			c, err := s.ChangeFiles(ctx, path, ChangeFilesOptions{NewBranch: "side", Author: testAuthor, Message: "b",
				Files: []FileChange{{Op: OpUpdate, Path: "f", SHA: f.SHA, Content: []byte("b\n")}}})
			if err != nil {
				b.Fatal(err)
			}
			var in strings.Builder
			for i := 0; i < bc.branches-2; i++ { // main and side exist
				tip := a
				if i%2 == 1 {
					tip = c
				}
				fmt.Fprintf(&in, "create refs/heads/branch-%05d %s\n", i, tip)
			}
			fmt.Fprintf(&in, "create refs/heads/target %s\n", a)
			if _, err := s.outputIn(ctx, path, strings.NewReader(in.String()), nil, "update-ref", "--stdin"); err != nil {
				b.Fatal(err)
			}
			if bc.packed {
				if err := s.Housekeep(ctx, path); err != nil {
					b.Fatal(err)
				}
			}
			forward := receivePackRequest(b, s, path, a, c, "refs/heads/target")
			back := receivePackRequest(b, s, path, c, a, "refs/heads/target")

			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				body, old, nw := forward, a, c
				if i%2 == 1 {
					body, old, nw = back, c, a
				}
				ups, err := s.ReceivePack(ctx, path, bytes.NewReader(body), io.Discard, "")
				if err != nil {
					b.Fatal(err)
				}
				if len(ups) != 1 || ups[0] != (RefUpdate{"refs/heads/target", old, nw}) {
					b.Fatalf("updates %v", ups)
				}
			}
		})
	}
}

// receivePackRequest builds what `git push` POSTs: the command pkt-line,
// a flush, and a pack with the objects of new that old lacks.
func receivePackRequest(tb testing.TB, s *Store, path, old, nw, ref string) []byte {
	tb.Helper()
	var body bytes.Buffer
	body.WriteString(pktLine(fmt.Sprintf("%s %s %s\x00report-status quiet object-format=sha1 agent=forge-bench\n", old, nw, ref)))
	body.WriteString("0000")
	pack, err := s.outputIn(context.Background(), path, strings.NewReader(nw+"\n^"+old+"\n"), nil,
		"pack-objects", "--stdout", "--revs", "--thin", "-q")
	if err != nil {
		tb.Fatal(err)
	}
	body.Write(pack)
	return body.Bytes()
}

// BenchmarkRefSnapshot is for comparison: what listing every ref costs,
// i.e. the extra work per push of diffing for-each-ref before and after.
func BenchmarkRefSnapshot(b *testing.B) {
	for _, n := range []int{10, 10000} {
		b.Run(fmt.Sprintf("branches=%d/packed-refs", n), func(b *testing.B) {
			ctx := context.Background()
			s := newTestStore(b)
			path := newRepo(b, s, "o", "r")
			a, err := s.InitialCommit(ctx, path, "main", map[string][]byte{"f": []byte("a\n")}, testAuthor, "a")
			if err != nil {
				b.Fatal(err)
			}
			var in strings.Builder
			for i := 1; i < n; i++ {
				fmt.Fprintf(&in, "create refs/heads/branch-%05d %s\n", i, a)
			}
			if _, err := s.outputIn(ctx, path, strings.NewReader(in.String()), nil, "update-ref", "--stdin"); err != nil {
				b.Fatal(err)
			}
			if err := s.Housekeep(ctx, path); err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				refs, err := s.refSnapshot(ctx, path)
				if err != nil || len(refs) != n {
					b.Fatal(len(refs), err)
				}
			}
		})
	}
}
