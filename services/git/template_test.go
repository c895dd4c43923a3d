package git

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
)

// TestCommitTreeOfTemplateRules: with rules, the generated commit's tree
// has the matched files rewritten (content and path), the others and the
// modes kept, the rules file left out; the git processes started do not
// grow with the number of files expanded.
func TestCommitTreeOfTemplateRules(t *testing.T) {
	ctx := context.Background()
	s := newTestStore(t)
	rules := &TemplateRules{
		File: ".gitea/template",
		Parse: func(b []byte) func(string) bool {
			return func(p string) bool { return strings.HasPrefix(p, string(bytes.TrimSpace(b))) }
		},
		Content: func(b []byte) []byte { return bytes.ReplaceAll(b, []byte("NAME"), []byte("app")) },
		Path:    func(p string) string { return strings.ReplaceAll(p, "NAME", "app") },
	}
	generate := func(files int) (string, int64) {
		src := newRepo(t, s, "alice", fmt.Sprintf("tmpl%d", files))
		changes := []FileChange{create(".gitea/template", "x/\n"), create("keep.txt", "NAME\n")}
		for i := range files {
			changes = append(changes, create(fmt.Sprintf("x/NAME-%03d.txt", i), fmt.Sprintf("NAME %d\n", i)))
		}
		commitFiles(t, s, src, "main", "files", changes...)
		staged, err := s.InitStaged(ctx, "main")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Discard(staged) })
		s.cache.reset()
		before := s.ProcessesStarted()
		if _, err := s.CommitTreeOf(ctx, staged, src, "main", "main", testAuthor, "Initial commit", rules); err != nil {
			t.Fatal(err)
		}
		return staged, s.ProcessesStarted() - before
	}
	staged, few := generate(2)
	if got := gitCmd(t, staged, "ls-tree", "-r", "--name-only", "main"); got != "keep.txt\nx/app-000.txt\nx/app-001.txt" {
		t.Errorf("tree: %q", got)
	}
	if got := gitCmd(t, staged, "show", "main:x/app-001.txt"); got != "app 1" {
		t.Errorf("expanded: %q", got)
	}
	if got := gitCmd(t, staged, "show", "main:keep.txt"); got != "NAME" {
		t.Errorf("unmatched: %q", got)
	}
	gitCmd(t, staged, "fsck", "--strict", "--no-dangling")
	t.Logf("processes: %d", few)
	if _, many := generate(60); many != few {
		t.Errorf("expanding 2 files started %d processes, 60 files %d", few, many)
	}
}
