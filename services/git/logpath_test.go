package git

import (
	"context"
	"fmt"
	"math/rand"
	"os/exec"
	"reflect"
	"strings"
	"testing"
)

// pathHistoryRepo makes a history of n commits on a few lines of work
// that merge into each other, with random dates (equal ones, ones older
// than their parents), each commit changing, deleting, re-adding or
// re-moding some of a/, d/b, d/c, x (a file, later a directory x/y), and
// merges taking each file from either parent or changing it. It returns
// the tips of the lines.
func pathHistoryRepo(t testing.TB, path string, n int, seed int64) []string {
	t.Helper()
	rng := rand.New(rand.NewSource(seed))
	paths := []string{"a", "d/b", "d/c", "x", "x/y"}
	type state map[string]string // path -> "mode content"
	states := map[int]state{}
	var in strings.Builder
	lines := []int{} // mark of each line's tip
	for i := 1; i <= n; i++ {
		var parents []int
		li := 0 // the line this commit extends
		switch {
		case len(lines) == 0:
			lines = append(lines, 0)
		case len(lines) < 3 && rng.Intn(4) == 0:
			parents = []int{lines[rng.Intn(len(lines))]} // a new line
			lines = append(lines, 0)
			li = len(lines) - 1
		case len(lines) > 1 && rng.Intn(3) == 0:
			a, b := rng.Intn(len(lines)), rng.Intn(len(lines))
			if a == b {
				b = (a + 1) % len(lines)
			}
			parents = []int{lines[a], lines[b]}
			li = a
		default:
			li = rng.Intn(len(lines))
			parents = []int{lines[li]}
		}
		st := state{}
		if len(parents) > 0 {
			for k, v := range states[parents[0]] {
				st[k] = v
			}
		}
		var ops []string
		set := func(p, v string) {
			if v == "" {
				if _, ok := st[p]; ok {
					ops = append(ops, "D "+p)
					delete(st, p)
				}
				return
			}
			if p == "x/y" {
				if _, ok := st["x"]; ok {
					ops = append(ops, "D x")
					delete(st, "x")
				}
			}
			if p == "x" {
				if _, ok := st["x/y"]; ok {
					ops = append(ops, "D x")
					delete(st, "x/y")
				}
			}
			mode, content, _ := strings.Cut(v, " ")
			ops = append(ops, fmt.Sprintf("M %s inline %s\ndata %d\n%s", mode, p, len(content), content))
			st[p] = v
		}
		for _, p := range paths {
			if len(parents) == 2 {
				switch rng.Intn(4) {
				case 0:
					set(p, states[parents[1]][p])
				case 1:
					set(p, fmt.Sprintf("100644 merge %d\n", i))
				}
				continue
			}
			switch r := rng.Intn(10); {
			case r < 2:
				set(p, fmt.Sprintf("100644 %s at %d\n", p, i))
			case r == 2:
				set(p, "")
			case r == 3 && st[p] != "":
				_, content, _ := strings.Cut(st[p], " ")
				set(p, "100755 "+content)
			}
		}
		date := 1700000000 + rng.Intn(n/2+1)
		fmt.Fprintf(&in, "commit refs/heads/work\nmark :%d\ncommitter C <c@example.com> %d +0000\ndata <<EOM\nc%d\nEOM\n", i, date, i)
		if len(parents) > 0 {
			fmt.Fprintf(&in, "from :%d\n", parents[0])
		}
		if len(parents) == 2 {
			fmt.Fprintf(&in, "merge :%d\n", parents[1])
		}
		for _, op := range ops {
			in.WriteString(op + "\n")
		}
		in.WriteString("\n")
		states[i] = st
		lines[li] = i
	}
	for j, tip := range lines {
		fmt.Fprintf(&in, "reset refs/heads/line%d\nfrom :%d\n\n", j, tip)
	}
	cmd := exec.Command("git", "fast-import", "--quiet")
	cmd.Dir = path
	cmd.Env = clientEnv(t)
	cmd.Stdin = strings.NewReader(in.String())
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("fast-import: %v\n%s", err, out)
	}
	var tips []string
	for j := range lines {
		tips = append(tips, gitCmd(t, path, "rev-parse", fmt.Sprintf("refs/heads/line%d", j)))
	}
	return tips
}

// A path's history, walked over cached objects, is exactly `git log --
// <path>`'s (history simplification at merges, equal and out-of-order
// dates, paths that come, go, change mode and turn from file to
// directory), and its total `git rev-list --count -- <path>`'s, with or
// without stats. (Before, asking for stats ran `git log --diff-merges=...
// -- <path>`, which turns simplification off: the page listed more
// commits than the total counted.)
func TestPathHistoryMatchesGitLog(t *testing.T) {
	ctx := context.Background()
	for seed := int64(1); seed <= 4; seed++ {
		s := newTestStore(t)
		path := newRepo(t, s, "o", fmt.Sprintf("r%d", seed))
		tips := pathHistoryRepo(t, path, 60, seed)
		for _, tip := range tips {
			for _, p := range []string{"a", "d", "d/b", "d/c", "x", "x/y", "x/y/z", "a/b", "none"} {
				count := strings.TrimSpace(gitCmd(t, path, "rev-list", "--count", tip, "--", p))
				for _, page := range []struct{ skip, limit int }{{0, 5}, {0, 0}, {3, 4}, {0, 5}} {
					stats := page.limit == 5
					got, total, err := s.Log(ctx, path, LogOptions{Ref: tip, Path: p, Skip: page.skip, Limit: page.limit, Stats: stats, Files: stats})
					if err != nil {
						t.Fatal(err)
					}
					args := []string{"log", fmt.Sprintf("--skip=%d", page.skip)}
					if page.limit > 0 {
						args = append(args, fmt.Sprintf("--max-count=%d", page.limit))
					}
					// Without diff options: --diff-merges turns simplification off.
					want, err := s.logCommits(ctx, path, args, []string{tip}, p, false, false, false)
					if err != nil {
						t.Fatal(err)
					}
					if stats && len(want) > 0 {
						ids := make([]string, len(want))
						for i, c := range want {
							ids[i] = c.SHA
						}
						diffs, err := s.logCommits(ctx, path, []string{"log", "--no-walk=unsorted"}, ids, "", true, true, false)
						if err != nil || len(diffs) != len(want) {
							t.Fatal(len(diffs), err)
						}
						for i := range want {
							want[i].Files, want[i].Stats = diffs[i].Files, diffs[i].Stats
						}
					}
					if fmt.Sprint(total) != count {
						t.Errorf("seed %d tip %.7s path %s: total %d, want %s", seed, tip, p, total, count)
					}
					if !reflect.DeepEqual(got, want) {
						t.Errorf("seed %d tip %.7s path %s page %+v:\n got %v\nwant %v", seed, tip, p, page, shas(got), shas(want))
					}
				}
			}
		}
	}
}
