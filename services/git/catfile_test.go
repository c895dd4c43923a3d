package git

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// poolFixture makes a repository whose main has n files f000.. with
// distinct contents and returns the store, path and commit.
func poolFixture(t testing.TB, n int) (*Store, string, string) {
	t.Helper()
	s := newTestStore(t)
	path := newRepo(t, s, "o", "r")
	files := map[string][]byte{}
	for i := range n {
		files[fmt.Sprintf("f%03d", i)] = []byte(fmt.Sprintf("content %d\n", i))
	}
	sha, err := s.InitialCommit(context.Background(), path, "main", files, testAuthor, "init")
	if err != nil {
		t.Fatal(err)
	}
	return s, path, sha
}

// readAll reads and closes what OpenBlob returns: readAll(t)(s.OpenBlob(...)).
func readAll(t testing.TB) func(io.ReadCloser, int64, error) string {
	return func(rc io.ReadCloser, _ int64, err error) string {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(rc)
		if err != nil {
			t.Fatal(err)
		}
		if err := rc.Close(); err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
}

func (p *readerPool) counts() (open, idle int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, l := range p.idle {
		idle += len(l)
	}
	return p.open, idle
}

// Fifty goroutines read fifty different blobs through a pool of at most
// four processes: every read is right and the cap holds.
func TestReaderPoolConcurrent(t *testing.T) {
	s, path, _ := poolFixture(t, 50)
	s.LimitReaders(4, time.Minute)
	var wg sync.WaitGroup
	errc := make(chan error, 50)
	for i := range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 5 {
				rc, _, err := s.OpenBlob(context.Background(), path, "main", fmt.Sprintf("f%03d", i))
				if err != nil {
					errc <- err
					return
				}
				b, err := io.ReadAll(rc)
				rc.Close()
				if err != nil || string(b) != fmt.Sprintf("content %d\n", i) {
					errc <- fmt.Errorf("f%03d: %q %v", i, b, err)
					return
				}
				if open, _ := s.readers.counts(); open > 4 {
					errc <- fmt.Errorf("%d readers open, cap 4", open)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errc)
	for err := range errc {
		t.Error(err)
	}
	if n := s.readers.started.Load(); n > 4 {
		t.Errorf("%d cat-file processes started for 250 reads, want at most 4", n)
	}
}

// A pooled reader whose process died while idle is replaced: the next
// read succeeds.
func TestReaderPoolKilledProcessReplaced(t *testing.T) {
	s, path, commit := poolFixture(t, 2)
	ctx := context.Background()
	if got := readAll(t)(s.OpenBlobBySHA(ctx, path, blobSHA(t, s, path, commit, "f000"))); got != "content 0\n" {
		t.Fatal(got)
	}
	s.readers.mu.Lock()
	var victims []*catFile
	for _, l := range s.readers.idle {
		victims = append(victims, l...)
	}
	s.readers.mu.Unlock()
	if len(victims) != 1 {
		t.Fatalf("%d idle readers, want 1", len(victims))
	}
	victims[0].cmd.Process.Kill()
	victims[0].cmd.Process.Wait()
	if got := readAll(t)(s.OpenBlob(ctx, path, "main", "f001")); got != "content 1\n" {
		t.Fatalf("after kill: %q", got)
	}
	if _, err := s.Resolve(ctx, path, "main"); err != nil {
		t.Fatal(err)
	}
	if n := s.readers.started.Load(); n != 2 {
		t.Fatalf("%d readers started, want 2 (the killed one replaced once)", n)
	}
}

func blobSHA(t testing.TB, s *Store, path, commit, file string) string {
	t.Helper()
	e, err := s.Stat(context.Background(), path, commit, file)
	if err != nil {
		t.Fatal(err)
	}
	return e.SHA
}

// Idle readers are stopped after the idle timeout.
func TestReaderPoolIdleReaped(t *testing.T) {
	s, path, _ := poolFixture(t, 1)
	s.LimitReaders(4, 50*time.Millisecond)
	readAll(t)(s.OpenBlob(context.Background(), path, "main", "f000"))
	s.readers.mu.Lock()
	var proc *os.Process
	for _, l := range s.readers.idle {
		proc = l[0].cmd.Process
	}
	s.readers.mu.Unlock()
	if proc == nil {
		t.Fatal("no idle reader after a read")
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		if open, idle := s.readers.counts(); open == 0 && idle == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("idle reader not reaped")
		}
		time.Sleep(20 * time.Millisecond)
	}
	// The process is gone (signal 0 fails once it has been waited for).
	deadline = time.Now().Add(5 * time.Second)
	for proc.Signal(syscall.Signal(0)) == nil {
		if time.Now().After(deadline) {
			t.Fatal("reaped reader's process still running")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// A streamed object read partially, or a read whose context is cancelled,
// discards its reader; the pool keeps working.
func TestReaderDiscardedOnPartialOrCancelledRead(t *testing.T) {
	s := newTestStore(t)
	path := newRepo(t, s, "o", "r")
	big := bytes.Repeat([]byte("0123456789abcdef"), 64<<10) // 1 MiB: streamed
	if _, err := s.InitialCommit(context.Background(), path, "main", map[string][]byte{"big": big, "small": []byte("s\n")}, testAuthor, "init"); err != nil {
		t.Fatal(err)
	}
	rc, size, err := s.OpenBlob(context.Background(), path, "main", "big")
	if err != nil || size != int64(len(big)) {
		t.Fatal(size, err)
	}
	if _, ok := rc.(*blobReader); !ok {
		t.Fatalf("a %d-byte blob is not streamed: %T", size, rc)
	}
	buf := make([]byte, 100)
	if _, err := io.ReadFull(rc, buf); err != nil {
		t.Fatal(err)
	}
	rc.Close()
	if open, idle := s.readers.counts(); open != 0 || idle != 0 {
		t.Fatalf("after a partial read: %d open, %d idle readers; want the reader discarded", open, idle)
	}

	ctx, cancel := context.WithCancel(context.Background())
	rc, _, err = s.OpenBlob(ctx, path, "main", "big")
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	if _, err := io.ReadAll(rc); err == nil {
		// The whole object may already have been buffered; the reader
		// must still not go back to the pool.
		t.Log("read completed before the cancellation took effect")
	}
	rc.Close()
	if open, idle := s.readers.counts(); open != 0 || idle != 0 {
		t.Fatalf("after a cancelled read: %d open, %d idle readers; want the reader discarded", open, idle)
	}

	// A complete read returns the reader; the next read reuses it.
	if got := readAll(t)(s.OpenBlob(context.Background(), path, "main", "big")); got != string(big) {
		t.Fatal("big blob mismatch")
	}
	if got := readAll(t)(s.OpenBlob(context.Background(), path, "main", "small")); got != "s\n" {
		t.Fatal(got)
	}
	if open, idle := s.readers.counts(); open != 1 || idle != 1 {
		t.Fatalf("after complete reads: %d open, %d idle readers; want 1 and 1", open, idle)
	}
}

// A repository deleted and recreated at the same path is not read through
// its predecessor's reader or cache.
func TestReaderRepositoryRecreated(t *testing.T) {
	s, path, _ := poolFixture(t, 1)
	ctx := context.Background()
	readAll(t)(s.OpenBlob(ctx, path, "main", "f000"))
	if err := s.Delete(path); err != nil {
		t.Fatal(err)
	}
	if err := s.Init(ctx, path, "main"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.InitialCommit(ctx, path, "main", map[string][]byte{"g": []byte("new\n")}, testAuthor, "again"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.OpenBlob(ctx, path, "main", "f000"); !isErr(err, ErrNotFound) {
		t.Fatalf("old file in recreated repository: %v", err)
	}
	if got := readAll(t)(s.OpenBlob(ctx, path, "main", "g")); got != "new\n" {
		t.Fatal(got)
	}
}

// Reading contents and a page of commits starts no git process per object:
// warm reads start none at all, and a cold commit page costs the same
// number of processes whatever the page size.
func TestReadsStartNoProcessPerObject(t *testing.T) {
	ctx := context.Background()
	s, path, _ := poolFixture(t, 20)
	for i := range 12 {
		commitFiles(t, s, path, "main", fmt.Sprintf("c%d", i), FileChange{Op: OpUpdate, Path: "f000",
			SHA: blobSHA(t, s, path, "main", "f000"), Content: []byte(fmt.Sprint(i))})
	}
	cold := func(limit int) int64 {
		s.cache.reset()
		before := s.ProcessesStarted()
		if _, _, err := s.Log(ctx, path, LogOptions{Ref: "main", Limit: limit, Stats: true, Files: true}); err != nil {
			t.Fatal(err)
		}
		return s.ProcessesStarted() - before
	}
	if one, ten := cold(1), cold(10); one != ten {
		t.Fatalf("a cold page of 1 commit started %d processes, of 10: %d", one, ten)
	}
	warm := func() {
		if _, _, err := s.Log(ctx, path, LogOptions{Ref: "main", Limit: 10, Stats: true, Files: true}); err != nil {
			t.Fatal(err)
		}
		entries, err := s.ReadDir(ctx, path, "main", "")
		if err != nil || len(entries) != 20 {
			t.Fatal(len(entries), err)
		}
		names := make([]string, len(entries))
		for i, e := range entries {
			names[i] = e.Name
		}
		if last, err := s.LastCommitsForEntries(ctx, path, "main", "", names); err != nil || len(last) != 20 {
			t.Fatal(len(last), err)
		}
		for _, e := range entries {
			if _, err := s.Stat(ctx, path, "main", e.Path); err != nil {
				t.Fatal(err)
			}
			if _, err := s.LastCommitForPath(ctx, path, "main", e.Path); err != nil {
				t.Fatal(err)
			}
			readAll(t)(s.OpenBlob(ctx, path, "main", e.Path))
		}
		if _, err := s.BranchesByName(ctx, path, []string{"main"}); err != nil {
			t.Fatal(err)
		}
		if _, err := s.GetCommit(ctx, path, "main"); err != nil {
			t.Fatal(err)
		}
	}
	warm()
	before := s.ProcessesStarted()
	warm()
	warm()
	// Only the pooled reader (started before) may have been used.
	if n := s.ProcessesStarted() - before; n != 0 {
		t.Fatalf("warm reads of 20 files and 10 commits started %d git processes, want 0", n)
	}
}

// The walked log page is exactly `git log`'s, with merges, commits of
// equal dates and skips.
func TestLogWalkMatchesGitLog(t *testing.T) {
	ctx := context.Background()
	s := newTestStore(t)
	path := newRepo(t, s, "o", "r")
	root, err := s.InitialCommit(ctx, path, "main", map[string][]byte{"a": []byte("a\n")}, testAuthor, "root")
	if err != nil {
		t.Fatal(err)
	}
	tree := gitCmd(t, path, "rev-parse", root+"^{tree}")
	mk := func(date int, msg string, parents ...string) string {
		args := []string{"commit-tree", tree, "-m", msg}
		for _, p := range parents {
			args = append(args, "-p", p)
		}
		cmd := exec.Command("git", args...)
		cmd.Dir = path
		cmd.Env = append(clientEnv(t), fmt.Sprintf("GIT_COMMITTER_DATE=%d +0000", 1700000000+date),
			fmt.Sprintf("GIT_AUTHOR_DATE=%d +0100", 1700000000+date))
		out, err := cmd.Output()
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(string(out))
	}
	// Two lines of history from root with clashing dates, merged, twice.
	a1, b1 := mk(10, "a1", root), mk(10, "b1", root)
	a2, b2 := mk(20, "a2", a1), mk(15, "b2\n\nbody", b1)
	m1 := mk(20, "m1", a2, b2)
	c1, c2 := mk(5, "c1 (older than its parent)", m1), mk(30, "c2", b2)
	head := mk(31, "m2", c1, c2)
	if err := s.casRef(ctx, path, "refs/heads/main", head, root); err != nil {
		t.Fatal(err)
	}
	for _, page := range []struct{ skip, limit int }{{0, 1}, {0, 3}, {0, 50}, {2, 3}, {5, 10}} {
		for _, stats := range []bool{false, true} {
			opts := LogOptions{Ref: "main", Skip: page.skip, Limit: page.limit, Stats: stats, Files: stats}
			got, total, err := s.Log(ctx, path, opts)
			if err != nil {
				t.Fatal(err)
			}
			args := []string{"log", fmt.Sprintf("--skip=%d", page.skip), fmt.Sprintf("--max-count=%d", page.limit)}
			want, err := s.logCommits(ctx, path, args, []string{head}, "", stats, stats, false)
			if err != nil {
				t.Fatal(err)
			}
			if total != 9 {
				t.Errorf("total %d, want 9", total)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("page %+v stats %v:\n got %v\nwant %v", page, stats, shas(got), shas(want))
			}
		}
	}
}

func shas(cs []Commit) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.Message)
	}
	return out
}

// Refs come from loose files and packed-refs without a process.
func TestReadRefFiles(t *testing.T) {
	ctx := context.Background()
	s, path, first := poolFixture(t, 1)
	second := commitFiles(t, s, path, "main", "second", create("x", "x\n"))
	gitCmd(t, path, "tag", "-a", "-m", "annotated", "v1", first)
	gitCmd(t, path, "branch", "packed-only", first)
	gitCmd(t, path, "branch", "moved", first)
	gitCmd(t, path, "pack-refs", "--all", "--prune")
	gitCmd(t, path, "update-ref", "refs/heads/moved", second) // loose now, stale in packed-refs
	tagObj := gitCmd(t, path, "rev-parse", "refs/tags/v1")

	before := s.ProcessesStarted()
	for _, tc := range []struct{ name, want string }{
		{"refs/heads/main", second},       // packed only
		{"refs/heads/packed-only", first}, // packed only
		{"refs/heads/moved", second},      // loose wins over packed
		{"refs/tags/v1", tagObj},          // a tag object, not peeled
		{"HEAD", second},                  // symbolic
		{"refs/heads/missing", ""},
		{"refs/heads/../HEAD", ""},
	} {
		got, err := s.readRef(path, tc.name)
		if err != nil || got != tc.want {
			t.Errorf("readRef(%s) = %q, %v; want %q", tc.name, got, err, tc.want)
		}
	}
	if head, _ := symbolicHead(path); head != "refs/heads/main" {
		t.Errorf("symbolic HEAD %q", head)
	}
	if n := s.ProcessesStarted() - before; n != 0 {
		t.Errorf("reading refs started %d processes", n)
	}
	// An annotated tag resolves (peeled) to its commit.
	rev, err := s.Resolve(ctx, path, "v1")
	if err != nil || rev.SHA != first || rev.Kind != RefTag {
		t.Fatalf("Resolve(v1) = %+v, %v", rev, err)
	}
	// Deleting the loose ref of a packed one leaves the packed value; git
	// deletes both, and then it is gone.
	os.Remove(filepath.Join(path, "refs", "heads", "moved"))
	if got, _ := s.readRef(path, "refs/heads/moved"); got != first {
		t.Errorf("moved after its loose file went: %q, want the packed %s", got, first)
	}
	gitCmd(t, path, "branch", "-D", "packed-only")
	if got, _ := s.readRef(path, "refs/heads/packed-only"); got != "" {
		t.Errorf("deleted packed ref still reads %q", got)
	}
	if _, err := s.Resolve(ctx, path, "packed-only"); !isErr(err, ErrNotFound) {
		t.Errorf("Resolve(deleted) = %v", err)
	}
}

func (c *lruCache) reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.items, c.ll, c.used = nil, nil, 0
}

// GetTag (refs from disk, objects through the pool) answers exactly what
// for-each-ref does: annotated, signed, lightweight, nested and non-commit
// tags.
func TestGetTagMatchesForEachRef(t *testing.T) {
	ctx := context.Background()
	s, path, first := poolFixture(t, 1)
	tree := gitCmd(t, path, "rev-parse", first+"^{tree}")
	gitCmd(t, path, "tag", "light", first)
	gitCmd(t, path, "tag", "-a", "-m", "annotated\n\nbody", "ann", first)
	gitCmd(t, path, "tag", "-a", "-m", "nested", "nested", "ann")
	gitCmd(t, path, "tag", "treetag", tree)
	body := "object " + first + "\ntype commit\ntag signed\ntagger T <t@x> 1700000000 +0100\n\nsigned message\n" +
		"-----BEGIN PGP SIGNATURE-----\n\nabc\n-----END PGP SIGNATURE-----\n"
	obj, err := gitCmdErr(t, path, strings.NewReader(body), "mktag")
	if err != nil {
		t.Fatal(err)
	}
	gitCmd(t, path, "update-ref", "refs/tags/signed", obj)
	all, err := forEachRefTags(ctx, s, path)
	if err != nil || len(all) != 5 {
		t.Fatal(len(all), err)
	}
	for _, want := range all {
		got, err := s.GetTag(ctx, path, want.Name)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("GetTag(%s):\n got %+v %v\nwant %+v", want.Name, got, err, want)
		}
	}
}

// A repository deleted and recreated at the same path by another process
// (no Delete in this Store) does not show its predecessor's cached objects.
func TestCacheRepositoryRecreatedElsewhere(t *testing.T) {
	defer func(d time.Duration) { identityCheck = d }(identityCheck)
	identityCheck = 0
	s, path, first := poolFixture(t, 1)
	ctx := context.Background()
	old := blobSHA(t, s, path, first, "f000")
	if got := readAll(t)(s.OpenBlobBySHA(ctx, path, old)); got != "content 0\n" {
		t.Fatal(got)
	}
	if err := os.RemoveAll(path); err != nil {
		t.Fatal(err)
	}
	gitCmd(t, filepath.Dir(path), "init", "--bare", "-q", "-b", "main", path)
	if _, err := s.InitialCommit(ctx, path, "main", map[string][]byte{"g": []byte("new\n")}, testAuthor, "again"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.OpenBlobBySHA(ctx, path, old); !isErr(err, ErrNotFound) {
		t.Fatalf("blob of the deleted repository: %v", err)
	}
	if _, err := s.Resolve(ctx, path, first); !isErr(err, ErrNotFound) {
		t.Fatalf("commit of the deleted repository: %v", err)
	}
}

// The same, inside identityCheck and whatever inode the new directory
// gets: the request layer names the database id of the repository it
// resolved (Identify), and a new id leaves the old results unused.
func TestCacheRepositoryRecreatedElsewhereIdentified(t *testing.T) {
	defer func(d time.Duration) { identityCheck = d }(identityCheck)
	identityCheck = time.Hour
	s, path, first := poolFixture(t, 1)
	ctx := context.Background()
	s.Identify(path, 1)
	old := blobSHA(t, s, path, first, "f000")
	if got := readAll(t)(s.OpenBlobBySHA(ctx, path, old)); got != "content 0\n" {
		t.Fatal(got)
	}
	if err := os.RemoveAll(path); err != nil {
		t.Fatal(err)
	}
	gitCmd(t, filepath.Dir(path), "init", "--bare", "-q", "-b", "main", path)
	if _, err := s.InitialCommit(ctx, path, "main", map[string][]byte{"g": []byte("new\n")}, testAuthor, "again"); err != nil {
		t.Fatal(err)
	}
	s.Identify(path, 2)
	if _, _, err := s.OpenBlobBySHA(ctx, path, old); !isErr(err, ErrNotFound) {
		t.Fatalf("blob of the deleted repository: %v", err)
	}
	if _, err := s.Resolve(ctx, path, first); !isErr(err, ErrNotFound) {
		t.Fatalf("commit of the deleted repository: %v", err)
	}
	// The same id again keeps the generation (and what is cached).
	dir, _ := filepath.Abs(path)
	gen := s.repoIDs.generation(dir)
	s.Identify(path, 2)
	if again := s.repoIDs.generation(dir); again != gen {
		t.Fatalf("generation %d, then %d for the same repository", gen, again)
	}
}

// A pooled cat-file reader keeps the packs of the repository it started
// in open: when another process recreated the repository and the new
// directory reused the old one's inode (simulated here), only the new
// database id tells, and the reader is not used again.
func TestReadersOfRepositoryRecreatedElsewhere(t *testing.T) {
	defer func(d time.Duration) { identityCheck = d }(identityCheck)
	identityCheck = time.Hour
	s, path, first := poolFixture(t, 1)
	ctx := context.Background()
	gitCmd(t, path, "repack", "-a", "-d", "-q")
	s.Identify(path, 1)
	old := blobSHA(t, s, path, first, "f000")
	if got := readAll(t)(s.OpenBlobBySHA(ctx, path, old)); got != "content 0\n" {
		t.Fatal(got)
	}
	// Two readers that have opened the packs: one idle in the pool, one
	// in use while the repository is replaced (returned afterwards).
	busy, err := s.getReader(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	idle, err := s.getReader(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if infos, err := idle.infos([]string{old}); err != nil || infos[0].Type != "blob" {
		t.Fatal(infos, err)
	}
	s.putReader(idle)
	if err := os.RemoveAll(path); err != nil {
		t.Fatal(err)
	}
	gitCmd(t, filepath.Dir(path), "init", "--bare", "-q", "-b", "main", path)
	dir, _ := filepath.Abs(path)
	fi, err := os.Stat(dir)
	if err != nil {
		t.Fatal(err)
	}
	s.readers.mu.Lock()
	pooled := len(s.readers.idle[dir])
	for _, c := range append(s.readers.idle[dir], busy) {
		c.dirID = fi // as if the new directory had the old inode
	}
	s.readers.mu.Unlock()
	if pooled == 0 {
		t.Fatal("no pooled reader")
	}
	s.Identify(path, 2)
	s.putReader(busy)
	if _, _, err := s.OpenBlobBySHA(ctx, path, old); !isErr(err, ErrNotFound) {
		t.Fatalf("blob of the deleted repository: %v", err)
	}
}
