package app_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"code.gitea.io/sdk/gitea"

	"forge/services/config"
	"forge/services/store"
)

// TestContentsConcurrentWritesOneBranch: 100 clients each create a
// different file on main at once; all get 201 and main gets 100 commits.
// Before, 95-98 of them got 422 `ref "refs/heads/main" moved concurrently`.
func TestContentsConcurrentWritesOneBranch(t *testing.T) {
	t.Parallel()
	eachBackend(t, nil, func(t *testing.T, s *testServer) {
		tok := s.seedUser("alice", "alice-password", false)
		s.createRepo(t, tok, "busy", true, false)
		alice := s.sdk(gitea.SetToken(tok))
		const n = 100
		statuses := make([]int, n)
		errs := make([]error, n)
		start := time.Now()
		var wg sync.WaitGroup
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, resp, err := alice.CreateFile("alice", "busy", fmt.Sprintf("dir/file-%03d.txt", i),
					gitea.CreateFileOptions{FileOptions: gitea.FileOptions{BranchName: "main"}, Content: b64(fmt.Sprintf("writer %d\n", i))})
				errs[i] = err
				if resp != nil {
					statuses[i] = resp.StatusCode
				}
			}()
		}
		wg.Wait()
		t.Logf("%d concurrent creates on one branch: %v", n, time.Since(start))
		for i := range n {
			if statuses[i] != 201 {
				t.Fatalf("writer %d: %d %v", i, statuses[i], errs[i])
			}
		}
		dir := s.repoDir("alice", "busy")
		if got := strings.TrimSpace(gitCmd(t, dir, "rev-list", "--count", "main")); got != fmt.Sprint(n+1) {
			t.Fatalf("%s commits on main, want %d (initial + %d)", got, n+1, n)
		}
		if got := strings.Count(gitCmd(t, dir, "ls-tree", "--name-only", "main", "dir/"), "\n"); got != n {
			t.Fatalf("%d files in dir/, want %d", got, n)
		}
		head := strings.TrimSpace(gitCmd(t, dir, "rev-parse", "main"))
		if got := s.branchRecords(t, "alice", "busy"); len(got) != 1 || got[0] != "main@"+head[:7] {
			t.Fatalf("branch records %v, head %s", got, head)
		}
	})
}

// TestContentsRealConflicts: only real conflicts are refused, with Gitea's
// status and message: concurrent creates of one path (one wins), and an
// update or delete with a sha that is no longer the file's.
func TestContentsRealConflicts(t *testing.T) {
	t.Parallel()
	eachBackend(t, nil, func(t *testing.T, s *testServer) {
		tok := s.seedUser("alice", "alice-password", false)
		s.createRepo(t, tok, "r", true, false)
		alice := s.sdk(gitea.SetToken(tok))
		const n = 8
		statuses := make([]int, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, resp, _ := alice.CreateFile("alice", "r", "same.txt", gitea.CreateFileOptions{Content: b64(fmt.Sprint(i))})
				if resp != nil {
					statuses[i] = resp.StatusCode
				}
			}()
		}
		wg.Wait()
		won := 0
		for i, st := range statuses {
			switch st {
			case 201:
				won++
			case 422:
			default:
				t.Fatalf("writer %d: %d", i, st)
			}
		}
		if won != 1 {
			t.Fatalf("%d creates of one path won: %v", won, statuses)
		}
		h := []string{"Authorization", "token " + tok, "Content-Type", jsonCT}
		r := s.do("POST", "/api/v1/repos/alice/r/contents/same.txt", `{"content":"eA=="}`, h...)
		expectStatus(t, r, 422)
		if m := r.message(t); m != "repository file already exists [path: same.txt]" {
			t.Fatalf("create existing: %q", m)
		}

		first, _, err := alice.GetContents("alice", "r", "", "README.md")
		if err != nil {
			t.Fatal(err)
		}
		upd, _, err := alice.UpdateFile("alice", "r", "README.md", gitea.UpdateFileOptions{SHA: first.SHA, Content: b64("v2\n")})
		if err != nil {
			t.Fatal(err)
		}
		body := `{"sha":"` + first.SHA + `","content":"djM="}`
		r = s.do("PUT", "/api/v1/repos/alice/r/contents/README.md", body, h...)
		expectStatus(t, r, 422)
		want := "sha does not match [given: " + first.SHA + ", expected: " + upd.Content.SHA + "]"
		if m := r.message(t); m != want {
			t.Fatalf("stale update: %q, want %q", m, want)
		}
		r = s.do("DELETE", "/api/v1/repos/alice/r/contents/README.md", `{"sha":"`+first.SHA+`"}`, h...)
		expectStatus(t, r, 400)
		if m := r.message(t); m != want {
			t.Fatalf("stale delete: %q, want %q", m, want)
		}
	})
}

// TestRepoCreateAndDeleteLeftovers: what crashed creates of older versions
// left behind no longer blocks anything. A directory that is not a
// repository does not block its name (it was 409 "The repository files
// already exist"), and DELETE of a record whose directory is not a
// repository, or is missing, removes what exists and answers 204.
func TestRepoCreateAndDeleteLeftovers(t *testing.T) {
	t.Parallel()
	eachBackend(t, nil, func(t *testing.T, s *testServer) {
		tok := s.seedUser("alice", "alice-password", false)
		h := []string{"Authorization", "token " + tok, "Content-Type", jsonCT}

		// Files without a record: create replaces them.
		dir := s.repoDir("alice", "blocked")
		if err := os.MkdirAll(filepath.Join(dir, "objects"), 0o750); err != nil {
			t.Fatal(err)
		}
		s.createRepo(t, tok, "blocked", true, false)
		if out := gitCmd(t, dir, "log", "--format=%s", "main"); out != "Initial commit\n" {
			t.Fatalf("log: %q", out)
		}

		// A record with a directory that is not a repository, and one with no
		// directory at all.
		ctx := context.Background()
		alice, err := s.App.Store.UserByName(ctx, "alice")
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range []string{"hollow", "missing"} {
			rec := &store.Repository{OwnerID: alice.ID, OwnerName: "alice", Name: name, DefaultBranch: "main", IsEmpty: true}
			if err := s.App.Store.CreateRepository(ctx, rec, alice.ID); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.MkdirAll(s.repoDir("alice", "hollow"), 0o750); err != nil {
			t.Fatal(err)
		}
		for _, name := range []string{"hollow", "missing"} {
			expectStatus(t, s.do("DELETE", "/api/v1/repos/alice/"+name, "", h...), 204)
			if _, err := os.Lstat(s.repoDir("alice", name)); !os.IsNotExist(err) {
				t.Fatalf("%s: directory left: %v", name, err)
			}
			expectStatus(t, s.do("GET", "/api/v1/repos/alice/"+name, "", h...), 404)
			s.createRepo(t, tok, name, false, false)
		}
		left, _ := os.ReadDir(filepath.Join(s.Cfg.Repository.Root, "@forge", "tmp"))
		if len(left) != 0 {
			t.Fatalf("scratch left behind: %v", left)
		}
	})
}

// TestStartupSweepsLeftovers: killed pushes and API writes leave push
// quarantines, push logs and temporary indexes; starting forge removes
// those older than an hour and keeps younger ones (a live operation's).
func TestStartupSweepsLeftovers(t *testing.T) {
	t.Parallel()
	var gone, kept []string
	plant := func(p string, age time.Duration) string {
		if err := os.MkdirAll(filepath.Dir(p), 0o750); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, make([]byte, 1024), 0o640); err != nil {
			t.Fatal(err)
		}
		// Everything from the file up to the scratch entry is that old.
		then := time.Now().Add(-age)
		for q := p; !strings.HasSuffix(q, "objects") && !strings.HasSuffix(q, "tmp"); q = filepath.Dir(q) {
			os.Chtimes(q, then, then)
		}
		return p
	}
	tweak := func(cfg *config.Config) {
		root := cfg.Repository.Root
		tmp := filepath.Join(root, "@forge", "tmp")
		objects := filepath.Join(root, "alice", "r.git", "objects")
		gone = []string{
			plant(filepath.Join(objects, "tmp_objdir-incoming-AbC123", "pack", "tmp_pack_x"), 3*time.Hour),
			plant(filepath.Join(tmp, "push-123.log"), 2*time.Hour),
			plant(filepath.Join(tmp, "index-456", "index"), 2*time.Hour),
			plant(filepath.Join(tmp, "create-789", "HEAD"), 2*time.Hour),
		}
		kept = []string{
			plant(filepath.Join(objects, "tmp_objdir-incoming-live", "pack", "tmp_pack_y"), time.Minute),
			plant(filepath.Join(tmp, "push-live.log"), time.Minute),
			plant(filepath.Join(tmp, "index-live", "index"), time.Minute),
			plant(filepath.Join(objects, "pack", "pack-1.pack"), 30*24*time.Hour), // live state, however old
		}
	}
	eachBackend(t, tweak, func(t *testing.T, s *testServer) {
		for _, p := range gone {
			if _, err := os.Stat(p); !os.IsNotExist(err) {
				t.Errorf("stale %s kept: %v", p, err)
			}
		}
		for _, p := range kept {
			if _, err := os.Stat(p); err != nil {
				t.Errorf("%s removed: %v", p, err)
			}
		}
	})
}
