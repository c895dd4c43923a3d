package git

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// mergeRepo is a repository whose main and topic diverged: topic adds
// a.txt (two commits), main adds b.txt after topic was made.
func mergeRepo(t *testing.T) (*Store, string, string, string) {
	t.Helper()
	s := newTestStore(t)
	path := newRepo(t, s, "o", "r")
	ctx := context.Background()
	if _, err := s.InitialCommit(ctx, path, "main", map[string][]byte{"README.md": []byte("hello\n")}, testAuthor, "init"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateBranch(ctx, path, "topic", "main"); err != nil {
		t.Fatal(err)
	}
	commitFiles(t, s, path, "topic", "add a", create("a.txt", "a\n"))
	topic := commitFiles(t, s, path, "topic", "add a2", create("a2.txt", "a2\n"))
	main := commitFiles(t, s, path, "main", "add b", create("b.txt", "b\n"))
	return s, path, main, topic
}

var mergeCommitter = Signature{Name: "Merger", Email: "merger@example.com"}

func TestBuildMergeStyles(t *testing.T) {
	s, path, main, topic := mergeRepo(t)
	ctx := context.Background()
	build := func(style MergeStyle) Commit {
		t.Helper()
		sha, err := s.BuildMerge(ctx, path, MergeOptions{Style: style, Base: main, Head: topic, Committer: mergeCommitter, Message: "landed"})
		if err != nil {
			t.Fatalf("%s: %v", style, err)
		}
		c, err := s.GetCommit(ctx, path, sha)
		if err != nil {
			t.Fatal(err)
		}
		if files := gitCmd(t, path, "ls-tree", "--name-only", sha); files != "README.md\na.txt\na2.txt\nb.txt" {
			t.Fatalf("%s: tree %q", style, files)
		}
		return c
	}
	if c := build(MergeStyleMerge); strings.Join(c.Parents, " ") != main+" "+topic || c.Message != "landed\n" || c.Committer.Name != "Merger" {
		t.Fatalf("merge commit %+v", c)
	}
	if c := build(MergeStyleSquash); strings.Join(c.Parents, " ") != main {
		t.Fatalf("squash commit %+v", c)
	}
	rebased := build(MergeStyleRebase)
	first, err := s.GetCommit(ctx, path, rebased.Parents[0])
	if err != nil {
		t.Fatal(err)
	}
	if rebased.Message != "add a2\n" || rebased.Author.Email != testAuthor.Email || rebased.Committer.Email != "merger@example.com" ||
		first.Message != "add a\n" || strings.Join(first.Parents, " ") != main {
		t.Fatalf("rebased %+v on %+v", rebased, first)
	}
	if c := build(MergeStyleRebaseMerge); len(c.Parents) != 2 || c.Parents[0] != main {
		t.Fatalf("rebase-merge commit %+v", c)
	}
	if _, err := s.BuildMerge(ctx, path, MergeOptions{Style: MergeStyleFastForwardOnly, Base: main, Head: topic, Committer: mergeCommitter}); !errors.Is(err, ErrNotFastForward) {
		t.Fatalf("fast-forward of a diverged head: %v", err)
	}
	// Once main contains topic's base only, fast-forward is the head and
	// rebase leaves the commits as they are.
	base := gitCmd(t, path, "merge-base", main, topic)
	for _, style := range []MergeStyle{MergeStyleFastForwardOnly, MergeStyleRebase} {
		if sha, err := s.BuildMerge(ctx, path, MergeOptions{Style: style, Base: base, Head: topic, Committer: mergeCommitter}); err != nil || sha != topic {
			t.Fatalf("%s on the head's own base: %s %v, want %s", style, sha, err, topic)
		}
	}
}

func TestBuildMergeConflicts(t *testing.T) {
	s, path, _, _ := mergeRepo(t)
	ctx := context.Background()
	topic := commitFiles(t, s, path, "topic", "topic readme", FileChange{Op: OpUpdate, Path: "README.md", Content: []byte("topic\n")})
	main := commitFiles(t, s, path, "main", "main readme", FileChange{Op: OpUpdate, Path: "README.md", Content: []byte("main\n")})
	for _, style := range []MergeStyle{MergeStyleMerge, MergeStyleSquash, MergeStyleRebase, MergeStyleRebaseMerge} {
		_, err := s.BuildMerge(ctx, path, MergeOptions{Style: style, Base: main, Head: topic, Committer: mergeCommitter})
		var conflict *MergeConflictError
		if !errors.As(err, &conflict) || !errors.Is(err, ErrConflict) || conflict.Rebase != strings.HasPrefix(string(style), "rebase") {
			t.Fatalf("%s: %v, want a merge conflict", style, err)
		}
		if !conflict.Rebase && strings.Join(conflict.Files, ",") != "README.md" {
			t.Fatalf("%s: conflicting files %v", style, conflict.Files)
		}
	}
}

// MoveBranch is a compare-and-swap: a branch that moved since the merge
// was computed stays where the other writer put it.
func TestMoveBranchLosesToAConcurrentWrite(t *testing.T) {
	s, path, main, topic := mergeRepo(t)
	ctx := context.Background()
	merged, err := s.BuildMerge(ctx, path, MergeOptions{Style: MergeStyleMerge, Base: main, Head: topic, Committer: mergeCommitter, Message: "m"})
	if err != nil {
		t.Fatal(err)
	}
	pushed := commitFiles(t, s, path, "main", "pushed meanwhile", create("p.txt", "p\n"))
	mustIs(t, s.MoveBranch(ctx, path, "main", merged, main), ErrConflict)
	if b, _ := s.GetBranch(ctx, path, "main"); b.Commit.SHA != pushed {
		t.Fatalf("main is %s, want the concurrent write %s", b.Commit.SHA, pushed)
	}
}
