package git

import (
	"context"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"testing"
)

// Reads behind the code endpoints, in repositories of growing size:
//
//	go test ./services/git/ -run '^$' -bench 'Read' -benchmem
//
// The repositories are made with git fast-import: n commits on main, each
// changing one of 10 files, and b extra branches (packed refs).

func benchReadRepo(b *testing.B, commits, branches int) (*Store, string) {
	b.Helper()
	s := newTestStore(b)
	path := newRepo(b, s, "o", "r")
	var in strings.Builder
	for i := 1; i <= commits; i++ {
		fmt.Fprintf(&in, "commit refs/heads/main\nmark :%d\ncommitter C <c@example.com> %d +0000\ndata <<EOM\ncommit %d\nEOM\n", i, 1600000000+i, i)
		if i > 1 {
			fmt.Fprintf(&in, "from :%d\n", i-1)
		}
		fmt.Fprintf(&in, "M 100644 inline file%d.txt\ndata <<EOD\nline %d\nEOD\n\n", i%10, i)
	}
	for i := 0; i < branches; i++ {
		fmt.Fprintf(&in, "reset refs/heads/branch-%05d\nfrom :%d\n\n", i, 1+i%commits)
	}
	cmd := exec.Command("git", "fast-import", "--quiet")
	cmd.Dir = path
	cmd.Env = clientEnv(b)
	cmd.Stdin = strings.NewReader(in.String())
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("fast-import: %v\n%s", err, out)
	}
	gitCmd(b, path, "pack-refs", "--all", "--prune")
	return s, path
}

func BenchmarkReadBranch(b *testing.B) {
	for _, n := range []int{10, 10000} {
		b.Run(fmt.Sprintf("branches=%d", n), func(b *testing.B) {
			s, path := benchReadRepo(b, 20, n)
			ctx := context.Background()
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				bs, err := s.BranchesByName(ctx, path, []string{"main", "branch-00003"})
				if err != nil || len(bs) != 2 {
					b.Fatal(len(bs), err)
				}
			}
		})
	}
}

// BenchmarkReadContents is what GET contents/{file} asks of git.
func BenchmarkReadContents(b *testing.B) {
	s, path := benchReadRepo(b, 100, 0)
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		rev, err := s.Resolve(ctx, path, "main")
		if err != nil {
			b.Fatal(err)
		}
		e, err := s.Stat(ctx, path, rev.SHA, "file3.txt")
		if err != nil {
			b.Fatal(err)
		}
		if _, err := s.LastCommitForPath(ctx, path, rev.SHA, e.Path); err != nil {
			b.Fatal(err)
		}
		rc, _, err := s.OpenBlobBySHA(ctx, path, e.SHA)
		if err != nil {
			b.Fatal(err)
		}
		io.Copy(io.Discard, rc)
		rc.Close()
	}
}

// BenchmarkReadRaw is what GET raw/{file} asks of git.
func BenchmarkReadRaw(b *testing.B) {
	s, path := benchReadRepo(b, 100, 0)
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		rc, _, err := s.OpenBlob(ctx, path, "main", "file3.txt")
		if err != nil {
			b.Fatal(err)
		}
		io.Copy(io.Discard, rc)
		rc.Close()
	}
}

// BenchmarkReadLog10 is what GET commits?limit=10 (stats and files) asks of
// git, in histories of growing length.
func BenchmarkReadLog10(b *testing.B) {
	for _, n := range []int{100, 100000} {
		b.Run(fmt.Sprintf("commits=%d", n), func(b *testing.B) {
			s, path := benchReadRepo(b, n, 0)
			ctx := context.Background()
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				cs, total, err := s.Log(ctx, path, LogOptions{Ref: "main", Limit: 10, Stats: true, Files: true})
				if err != nil || len(cs) != 10 || total != n {
					b.Fatal(len(cs), total, err)
				}
			}
		})
	}
}

// BenchmarkReadTags is what GET tags asks of git: 50 tags, half annotated,
// half of them packed.
func BenchmarkReadTags(b *testing.B) {
	s, path := benchReadRepo(b, 100, 0)
	for i := range 50 {
		args := []string{"tag", fmt.Sprintf("v%d", i), fmt.Sprintf("main~%d", i)}
		if i%2 == 0 {
			args = append(args, "-a", "-m", "release")
		}
		gitCmd(b, path, args...)
		if i == 25 {
			gitCmd(b, path, "pack-refs", "--all", "--prune")
		}
	}
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if tags, err := s.ListTags(ctx, path); err != nil || len(tags) != 50 {
			b.Fatal(len(tags), err)
		}
	}
}

// BenchmarkReadPathLog10 is what GET commits?path=file3.txt&limit=10 asks
// of git: a file changed by every tenth of 1000 commits.
func BenchmarkReadPathLog10(b *testing.B) {
	s, path := benchReadRepo(b, 1000, 0)
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		cs, total, err := s.Log(ctx, path, LogOptions{Ref: "main", Path: "file3.txt", Limit: 10, Stats: true, Files: true})
		if err != nil || len(cs) != 10 || total != 100 {
			b.Fatal(len(cs), total, err)
		}
	}
}
