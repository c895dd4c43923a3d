package mirrors

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"forge/services/git"
	"forge/services/repos"
	"forge/services/store"
	"forge/services/store/storetest"
)

// fixture is a mirror service on a real database and git store, with
// repositories made directly (no API).
type fixture struct {
	t     *testing.T
	ctx   context.Context
	st    *store.Store
	git   *git.Store
	srv   *Server
	owner *store.User
}

func newFixture(t *testing.T, allowLocal bool) *fixture {
	t.Helper()
	gs, err := git.New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	st := storetest.Open(t, "sqlite3")
	ctx := context.Background()
	owner := &store.User{Name: "alice", Email: "alice@example.org", IsActive: true}
	if err := st.CreateUser(ctx, owner); err != nil {
		t.Fatal(err)
	}
	syncer := &repos.Syncer{Store: st, Git: gs}
	srv, err := NewServer(Options{
		Store: st, Git: gs, Syncer: syncer, SecretKey: "test-secret", AllowLocalNetworks: allowLocal,
		Resolver: fakeResolver{"public.example": {"93.184.216.34"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	syncer.OnChange = append(syncer.OnChange, srv.AfterPush) // as the app wires it
	t.Cleanup(srv.Close)
	return &fixture{t: t, ctx: ctx, st: st, git: gs, srv: srv, owner: owner}
}

// repo makes a repository record and an empty bare repository.
func (f *fixture) repo(name string, mirror bool) (*store.Repository, string) {
	f.t.Helper()
	rec := repos.NewRecord(f.owner, name, "", "main", false)
	rec.IsMirror = mirror
	if err := f.st.CreateRepository(f.ctx, rec, 0); err != nil {
		f.t.Fatal(err)
	}
	path, _ := f.git.RepoPath(f.owner.Name, name)
	return rec, path
}

// commit adds a commit changing file on main.
func (f *fixture) commit(path, file, content string) string {
	f.t.Helper()
	sha, err := f.git.ChangeFiles(f.ctx, path, git.ChangeFilesOptions{
		Branch:  "main",
		Files:   []git.FileChange{{Op: git.OpCreate, Path: file, Content: []byte(content)}},
		Author:  git.Signature{Name: "A", Email: "a@example.org", When: time.Now()},
		Message: "add " + file,
	})
	if err != nil {
		f.t.Fatal(err)
	}
	return sha
}

func (f *fixture) head(path string) string {
	f.t.Helper()
	b, err := f.git.GetBranch(f.ctx, path, "main")
	if err != nil {
		f.t.Fatal(err)
	}
	return b.Commit.SHA
}

// source makes a repository with one commit on main.
func (f *fixture) source(name string) (*store.Repository, string) {
	f.t.Helper()
	rec, path := f.repo(name, false)
	if err := f.git.Init(f.ctx, path, "main"); err != nil {
		f.t.Fatal(err)
	}
	f.commit(path, "README.md", "hello")
	return rec, path
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestSchedulerSyncsDueMirrors(t *testing.T) {
	f := newFixture(t, true)
	srcRec, src := f.source("src")

	// A pull mirror of src, due now, and one without interval.
	mirror, mpath := f.repo("mirror", true)
	if err := f.git.CloneMirror(f.ctx, git.Remote{URL: src}, mpath); err != nil {
		t.Fatal(err)
	}
	now := time.Now().Unix()
	if err := f.st.CreateMirror(f.ctx, &store.Mirror{RepoID: mirror.ID, IntervalSecs: 600, RemoteSealed: f.srv.box.Seal([]byte(src)), NextUpdateUnix: now - 1}); err != nil {
		t.Fatal(err)
	}
	manual, manualPath := f.repo("manual", true)
	if err := f.git.CloneMirror(f.ctx, git.Remote{URL: src}, manualPath); err != nil {
		t.Fatal(err)
	}
	if err := f.st.CreateMirror(f.ctx, &store.Mirror{RepoID: manual.ID, IntervalSecs: 0, RemoteSealed: f.srv.box.Seal([]byte(src))}); err != nil {
		t.Fatal(err)
	}
	// A push mirror of src, due (created an hour ago, interval 10m).
	_, target := f.repo("target", false)
	if err := f.git.Init(f.ctx, target, "main"); err != nil {
		t.Fatal(err)
	}
	pm := &store.PushMirror{RepoID: srcRec.ID, RemoteName: "remote_mirror_t", IntervalSecs: 600, RemoteSealed: f.srv.box.Seal([]byte(target)), CreatedUnix: now - 3600}
	if err := f.st.CreatePushMirror(f.ctx, pm); err != nil {
		t.Fatal(err)
	}

	// A sync_on_commit push mirror of the pull mirror follows its syncs.
	_, chained := f.repo("chained", false)
	if err := f.git.Init(f.ctx, chained, "main"); err != nil {
		t.Fatal(err)
	}
	chain := &store.PushMirror{RepoID: mirror.ID, RemoteName: "remote_mirror_c", SyncOnCommit: true, RemoteSealed: f.srv.box.Seal([]byte(chained))}
	if err := f.st.CreatePushMirror(f.ctx, chain); err != nil {
		t.Fatal(err)
	}

	want := f.commit(src, "new.txt", "new")
	ctx, cancel := context.WithCancel(f.ctx)
	done := make(chan struct{})
	go func() { // the server's update_mirrors task, faster
		defer close(done)
		for ctx.Err() == nil {
			if err := f.srv.SyncDue(ctx); err != nil && ctx.Err() == nil {
				t.Error(err)
			}
			select {
			case <-ctx.Done():
			case <-time.After(10 * time.Millisecond):
			}
		}
	}()
	waitFor(t, "pull mirror sync", func() bool {
		m, _ := f.st.MirrorByRepoID(f.ctx, mirror.ID)
		return m.UpdatedUnix > 0
	})
	waitFor(t, "push mirror push", func() bool {
		p, _ := f.st.PushMirrorByID(f.ctx, pm.ID)
		return p.LastUpdateUnix > 0
	})
	waitFor(t, "chained push mirror push", func() bool {
		p, _ := f.st.PushMirrorByID(f.ctx, chain.ID)
		return p.LastUpdateUnix > 0
	})
	cancel()
	<-done
	if got := f.head(chained); got != want {
		t.Fatalf("chained push mirror main at %s, want %s", got, want)
	}

	if got := f.head(mpath); got != want {
		t.Fatalf("mirror main at %s, want %s", got, want)
	}
	b, err := f.st.BranchByName(f.ctx, mirror.ID, "main")
	if err != nil || b.CommitID != want {
		t.Fatalf("mirror branch record: %+v %v", b, err)
	}
	if got := f.head(target); got != want {
		t.Fatalf("push mirror target main at %s, want %s", got, want)
	}
	m, _ := f.st.MirrorByRepoID(f.ctx, mirror.ID)
	if m.LastError != "" || m.NextUpdateUnix < now+600 {
		t.Fatalf("mirror after sync: %+v", m)
	}
	p, _ := f.st.PushMirrorByID(f.ctx, pm.ID)
	if p.LastError != "" || p.NextUpdateUnix < now+600 {
		t.Fatalf("push mirror after push: %+v", p)
	}
	// Interval 0: never synced by the scheduler.
	if m, _ := f.st.MirrorByRepoID(f.ctx, manual.ID); m.UpdatedUnix != 0 || f.head(manualPath) == want {
		t.Fatalf("interval-0 mirror was synced: %+v", m)
	}
}

// TestSyncDueClaimsOnce: two servers (two forge processes) sharing a
// database run rounds at the same time; each due mirror is synced once.
func TestSyncDueClaimsOnce(t *testing.T) {
	f := newFixture(t, true)
	other, err := NewServer(Options{Store: f.st, Git: f.git, Syncer: &repos.Syncer{Store: f.st, Git: f.git}, SecretKey: "test-secret", AllowLocalNetworks: true})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	_, src := f.source("src")
	var count atomic.Int64
	counting := &countingStore{Store: f.st, finished: &count}
	f.srv.store, other.store = counting, counting
	const n = 6
	for i := range n {
		rec, path := f.repo("m"+string(rune('a'+i)), true)
		if err := f.git.CloneMirror(f.ctx, git.Remote{URL: src}, path); err != nil {
			t.Fatal(err)
		}
		if err := f.st.CreateMirror(f.ctx, &store.Mirror{RepoID: rec.ID, IntervalSecs: 600, RemoteSealed: f.srv.box.Seal([]byte(src)), NextUpdateUnix: 1}); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	for _, s := range []*Server{f.srv, other, f.srv, other} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := s.SyncDue(f.ctx); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if got := count.Load(); got != n {
		t.Fatalf("%d syncs for %d due mirrors", got, n)
	}
}

type countingStore struct {
	*store.Store
	finished *atomic.Int64
}

func (c *countingStore) FinishMirrorSync(ctx context.Context, repoID, now int64, syncErr string) error {
	c.finished.Add(1)
	return c.Store.FinishMirrorSync(ctx, repoID, now, syncErr)
}

func TestAfterPushOnlySyncOnCommit(t *testing.T) {
	f := newFixture(t, true)
	srcRec, src := f.source("src")
	_, onCommit := f.repo("oncommit", false)
	_, manual := f.repo("manual", false)
	for _, p := range []string{onCommit, manual} {
		if err := f.git.Init(f.ctx, p, "main"); err != nil {
			t.Fatal(err)
		}
	}
	a := &store.PushMirror{RepoID: srcRec.ID, RemoteName: "remote_mirror_a", SyncOnCommit: true, RemoteSealed: f.srv.box.Seal([]byte(onCommit))}
	b := &store.PushMirror{RepoID: srcRec.ID, RemoteName: "remote_mirror_b", RemoteSealed: f.srv.box.Seal([]byte(manual))}
	for _, pm := range []*store.PushMirror{a, b} {
		if err := f.st.CreatePushMirror(f.ctx, pm); err != nil {
			t.Fatal(err)
		}
	}
	want := f.commit(src, "x.txt", "x")
	for range 5 { // a burst of pushes collapses into at most two runs
		f.srv.AfterPush(f.ctx, srcRec.ID)
	}
	waitFor(t, "sync_on_commit push", func() bool {
		p, _ := f.st.PushMirrorByID(f.ctx, a.ID)
		return p.LastUpdateUnix > 0
	})
	f.srv.Close() // waits for background pushes
	if got := f.head(onCommit); got != want {
		t.Fatalf("sync_on_commit mirror at %s, want %s", got, want)
	}
	if _, err := f.git.GetBranch(f.ctx, manual, "main"); err == nil {
		t.Fatal("mirror without sync_on_commit was pushed")
	}
	if p, _ := f.st.PushMirrorByID(f.ctx, b.ID); p.LastUpdateUnix != 0 {
		t.Fatalf("mirror without sync_on_commit recorded a push: %+v", p)
	}
	f.srv.AfterPush(f.ctx, srcRec.ID) // after Close: ignored, no panic
}

func TestPushFailureIsRedacted(t *testing.T) {
	for _, allowLocal := range []bool{true, false} {
		f := newFixture(t, allowLocal)
		srcRec, _ := f.source("src")
		secret := "hunter2-very-secret"
		pm := &store.PushMirror{RepoID: srcRec.ID, RemoteName: "remote_mirror_x",
			RemoteSealed: f.srv.box.Seal([]byte("http://bob:" + secret + "@127.0.0.1:1/x.git"))}
		if err := f.st.CreatePushMirror(f.ctx, pm); err != nil {
			t.Fatal(err)
		}
		err := f.srv.push(f.ctx, srcRec, pm)
		got, _ := f.st.PushMirrorByID(f.ctx, pm.ID)
		if err == nil || got.LastError == "" || got.LastUpdateUnix != 0 {
			t.Fatalf("allowLocal=%v: failed push recorded as %+v (err %v)", allowLocal, got, err)
		}
		if strings.Contains(got.LastError, secret) || strings.Contains(err.Error(), secret) || strings.Contains(got.LastError, "bob:") {
			t.Fatalf("credentials in last_error: %s", got.LastError)
		}
		if !allowLocal && !strings.Contains(got.LastError, "disallowed host") {
			t.Fatalf("local push target not refused: %s", got.LastError)
		}
	}
}

func TestCoalescer(t *testing.T) {
	var c coalescer
	var runs atomic.Int64
	release := make(chan struct{})
	started := make(chan struct{})
	go c.run(1, func() {
		if runs.Add(1) == 1 {
			close(started)
			<-release
		}
	})
	<-started
	for range 10 {
		c.run(1, func() { runs.Add(1) }) // returns at once: run in progress
	}
	close(release)
	waitFor(t, "coalesced run", func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		return !c.running[1]
	})
	if got := runs.Load(); got != 2 {
		t.Fatalf("%d runs, want 2 (one running, one coalesced)", got)
	}
}

func TestKeyedMutex(t *testing.T) {
	var k keyedMutex
	var inside, maxInside atomic.Int64
	var wg sync.WaitGroup
	for range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			unlock := k.lock("push", 7)
			if n := inside.Add(1); n > maxInside.Load() {
				maxInside.Store(n)
			}
			time.Sleep(time.Millisecond)
			inside.Add(-1)
			unlock()
		}()
	}
	wg.Wait()
	if maxInside.Load() != 1 || len(k.locks) != 0 {
		t.Fatalf("max %d holders, %d locks left", maxInside.Load(), len(k.locks))
	}
}
