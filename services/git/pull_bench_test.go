package git

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// What a pull request costs the git layer, in a repository whose main
// has 20 commits and one more after topic forked from it, and whose
// topic branch adds 50 commits (each changing one of 10 files main's
// last commit does not touch):
//
//	go test ./services/git/ -run '^$' -bench 'Pull' -benchmem
//
// "cold" runs each iteration on a Store with an empty cache (what the
// first read after a push pays), "warm" on one that has seen the pair.

type pullRepo struct {
	s                     *Store
	root, path            string
	base, head, forkPoint string
}

func benchPullRepo(b *testing.B) pullRepo {
	b.Helper()
	s := newTestStore(b)
	path := newRepo(b, s, "o", "r")
	var in strings.Builder
	mark := 0
	commit := func(branch string, from int, file, data string) int {
		mark++
		fmt.Fprintf(&in, "commit refs/heads/%s\nmark :%d\ncommitter C <c%d@example.com> %d +0000\ndata <<EOM\ncommit %d\nEOM\n",
			branch, mark, mark%5, 1600000000+mark, mark)
		if from > 0 {
			fmt.Fprintf(&in, "from :%d\n", from)
		}
		fmt.Fprintf(&in, "M 100644 inline %s\ndata <<EOD\n%s\nEOD\n\n", file, data)
		return mark
	}
	last := 0
	for i := 1; i <= 20; i++ {
		last = commit("main", last, fmt.Sprintf("file%d.txt", i%10), fmt.Sprintf("main %d", i))
	}
	fork := last
	topic := fork
	for i := 1; i <= 50; i++ {
		topic = commit("topic", topic, fmt.Sprintf("file%d.txt", i%10), fmt.Sprintf("topic %d\nline two", i))
	}
	commit("main", fork, "other.txt", "after the fork")
	cmd := exec.Command("git", "fast-import", "--quiet", "--export-marks=marks")
	cmd.Dir = path
	cmd.Env = clientEnv(b)
	cmd.Stdin = strings.NewReader(in.String())
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("fast-import: %v\n%s", err, out)
	}
	rev := func(ref string) string { return strings.TrimSpace(gitCmd(b, path, "rev-parse", ref)) }
	return pullRepo{s: s, root: filepath.Dir(filepath.Dir(path)), path: path,
		base: rev("main"), head: rev("topic"), forkPoint: rev("main~1")}
}

// fresh is a Store on the same repositories with an empty cache.
func (p pullRepo) fresh(b *testing.B) *Store {
	b.StopTimer()
	defer b.StartTimer()
	s, err := New(p.root)
	if err != nil {
		b.Fatal(err)
	}
	return s
}

// BenchmarkPullState is what opening a pull request or following a push
// computes: merge base, mergeability and the diff's size.
func BenchmarkPullState(b *testing.B) {
	p := benchPullRepo(b)
	ctx := context.Background()
	state := func(s *Store) {
		mb, err := s.MergeBase(ctx, p.path, p.base, p.head)
		if err != nil || mb != p.forkPoint {
			b.Fatal(mb, err)
		}
		if ok, err := s.Mergeable(ctx, p.path, p.base, p.head); err != nil || !ok {
			b.Fatal(ok, err)
		}
		if st, err := s.DiffStatBetween(ctx, p.path, mb, p.head); err != nil || st.ChangedFiles != 10 {
			b.Fatal(st, err)
		}
	}
	b.Run("cold", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			state(p.fresh(b))
		}
	})
	b.Run("warm", func(b *testing.B) {
		state(p.s)
		b.ReportAllocs()
		for b.Loop() {
			state(p.s)
		}
	})
}

// BenchmarkPullCommits is GET /pulls/{index}/commits: the head's 50
// commits not reachable from the merge base, with stats and files.
func BenchmarkPullCommits(b *testing.B) {
	p := benchPullRepo(b)
	ctx := context.Background()
	page := func(s *Store) {
		cs, total, err := s.Log(ctx, p.path, LogOptions{Ref: p.head, Not: []string{p.forkPoint}, Limit: 50, Stats: true, Files: true})
		if err != nil || len(cs) != 50 || total != 50 {
			b.Fatal(len(cs), total, err)
		}
	}
	b.Run("cold", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			page(p.fresh(b))
		}
	})
	b.Run("warm", func(b *testing.B) {
		page(p.s)
		b.ReportAllocs()
		for b.Loop() {
			page(p.s)
		}
	})
}

// BenchmarkPullMerge builds the commits of each merge style (no ref
// moves): fast-forward-only from the fork point, the others onto main.
func BenchmarkPullMerge(b *testing.B) {
	p := benchPullRepo(b)
	ctx := context.Background()
	who := Signature{Name: "M", Email: "m@example.com", When: time.Unix(1700000000, 0)}
	for _, style := range []MergeStyle{MergeStyleMerge, MergeStyleSquash, MergeStyleFastForwardOnly, MergeStyleRebase, MergeStyleRebaseMerge} {
		b.Run(string(style), func(b *testing.B) {
			o := MergeOptions{Style: style, Base: p.base, Head: p.head, Author: who, Committer: who, Message: "merge"}
			if style == MergeStyleFastForwardOnly {
				o.Base = p.forkPoint
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := p.fresh(b).BuildMerge(ctx, p.path, o); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
