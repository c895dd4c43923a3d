package app_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// After a push, forge packs the refs it left loose (in the background):
// git's connectivity check on every later push reads each loose ref file,
// so 10,000 branches pushed once would otherwise cost every push after.
// The branch records and a fresh clone see the same refs.
func TestPushPacksLooseRefs(t *testing.T) {
	s := startServer(t, "sqlite3", nil)
	s.createRepo(t, s.AdminToken, "many", true, false)
	work := t.TempDir()
	remote := fmt.Sprintf("http://root:%s@%s/root/many.git", s.AdminToken, strings.TrimPrefix(s.URL, "http://"))
	gitCmd(t, work, "clone", "-q", remote, ".")
	for i := range 30 {
		gitCmd(t, work, "branch", fmt.Sprintf("b%02d", i))
	}
	gitCmd(t, work, "push", "-q", "origin", "--all")

	heads := filepath.Join(s.Cfg.Repository.Root, "root", "many.git", "refs", "heads")
	waitFor(t, 30*time.Second, "the pushed refs to be packed", func() bool {
		loose, err := os.ReadDir(heads)
		return err == nil && len(loose) == 0
	})
	packed, err := os.ReadFile(filepath.Join(heads, "..", "..", "packed-refs"))
	if err != nil || !strings.Contains(string(packed), "refs/heads/b29") {
		t.Fatalf("packed-refs: %v\n%s", err, packed)
	}
	r := s.do("GET", "/api/v1/repos/root/many/branches?limit=50", "", "Authorization", "token "+s.AdminToken)
	expectStatus(t, r, 200)
	if n := strings.Count(string(r.Body), `"name":"b`); n != 30 {
		t.Fatalf("%d pushed branches listed, want 30: %s", n, r.Body)
	}
	// A push after packing still moves the packed branch.
	os.WriteFile(filepath.Join(work, "n.txt"), []byte("n"), 0o644)
	gitCmd(t, work, "add", "n.txt")
	gitCmd(t, work, "commit", "-q", "-m", "n")
	gitCmd(t, work, "push", "-q", "origin", "HEAD:b29")
	sha := strings.TrimSpace(gitCmd(t, work, "rev-parse", "HEAD"))
	r = s.do("GET", "/api/v1/repos/root/many/branches/b29", "", "Authorization", "token "+s.AdminToken)
	if !strings.Contains(string(r.Body), sha) {
		t.Fatalf("b29 after a push: %d %s", r.Status, r.Body)
	}
}
