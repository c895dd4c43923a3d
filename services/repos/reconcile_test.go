package repos_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"testing"
	"time"

	"forge/services/git"
	"forge/services/repos"
	"forge/services/store"
	"forge/services/store/storetest"
)

// TestReconcileFollowsJournaledRefs: refs moved in git without any record
// (as when the process died after the move) are recorded by Reconcile,
// run by two "processes" at once; a branch deleted in git loses its record
// (no ghost), and the journal is empty afterwards.
func TestReconcileFollowsJournaledRefs(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		g, repo, path := newAliceRepo(t, s)
		commit := func(branch, file string) {
			t.Helper()
			_, err := g.ChangeFiles(ctx, path, git.ChangeFilesOptions{Branch: branch,
				Files:   []git.FileChange{{Op: git.OpCreate, Path: file, Content: []byte(file)}},
				Author:  git.Signature{Name: "A", Email: "a@example.org", When: time.Now()},
				Message: file})
			if err != nil {
				t.Fatal(err)
			}
		}
		commit("main", "a.txt")
		for _, b := range []string{"one", "two", "ghost"} {
			if _, err := g.CreateBranch(ctx, path, b, "refs/heads/main"); err != nil {
				t.Fatal(err)
			}
		}
		a := &repos.Syncer{Store: s, Git: g}
		b := &repos.Syncer{Store: s, Git: g}
		reconcileBoth(t, a, b)
		assertRecords(t, s, g, repo.ID, path)

		// Moves after the records exist: an update and a deletion.
		commit("one", "b.txt")
		if err := g.DeleteBranch(ctx, path, "ghost"); err != nil {
			t.Fatal(err)
		}
		reconcileBoth(t, a, b)
		assertRecords(t, s, g, repo.ID, path)
		if entries, _ := g.RefJournal(); len(entries) != 0 {
			t.Fatalf("journal not emptied: %+v", entries)
		}
		if r, _ := s.RepositoryByID(ctx, repo.ID); r.IsEmpty {
			t.Fatal("repository still marked empty")
		}
	})
}

// reconcileBoth runs Reconcile in a and b at once, past the grace of
// every entry (their writers are taken to have died).
func reconcileBoth(t *testing.T, a, b *repos.Syncer) {
	t.Helper()
	later := time.Now().Add(repos.WriterGrace)
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i, sy := range []*repos.Syncer{a, b} {
		wg.Add(1)
		go func() { defer wg.Done(); errs[i] = sy.ReconcileAt(context.Background(), later) }()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
}

func assertRecords(t *testing.T, s *store.Store, g *git.Store, repoID int64, path string) {
	t.Helper()
	branches, err := g.ListBranches(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	var want, got []string
	for _, b := range branches {
		want = append(want, b.Name+"@"+b.Commit.SHA)
	}
	recs, total, err := s.ListBranches(context.Background(), repoID, 0, 100)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		got = append(got, r.Name+"@"+r.CommitID)
	}
	sort.Strings(want)
	sort.Strings(got)
	if fmt.Sprint(got) != fmt.Sprint(want) || int(total) != len(want) {
		t.Fatalf("records %v (total %d), git %v", got, total, want)
	}
}

// TestReconcileTagEvents: tags moved in git with nothing recorded (as when
// the process died after the move) get their webhook events from
// Reconcile, once, though two "processes" reconcile at once; a tag
// deleted the same way gets its delete and push.
func TestReconcileTagEvents(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		g, err := git.New(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		owner := &store.User{Name: "Bob", Email: "bob@example.org", IsActive: true}
		if err := s.CreateUser(ctx, owner); err != nil {
			t.Fatal(err)
		}
		_, path := newGitRepo(t, s, g, owner, "Tagged", true)
		if _, err := g.ChangeFiles(ctx, path, git.ChangeFilesOptions{Branch: "main",
			Files:   []git.FileChange{{Op: git.OpCreate, Path: "a.txt", Content: []byte("a")}},
			Author:  git.Signature{Name: "B", Email: "b@example.org", When: time.Now()},
			Message: "a"}); err != nil {
			t.Fatal(err)
		}
		a := &repos.Syncer{Store: s, Git: g}
		b := &repos.Syncer{Store: s, Git: g}
		events := func() string {
			t.Helper()
			reconcileBoth(t, a, b)
			es, err := s.ClaimHookEvents(ctx, 100, time.Minute)
			if err != nil {
				t.Fatal(err)
			}
			var out []string
			for _, e := range es {
				out = append(out, fmt.Sprintf("%s %s %s", e.Kind, e.Extra, e.Ref))
			}
			sort.Strings(out)
			return fmt.Sprint(out)
		}
		events() // the branch's
		tag, err := g.CreateTag(ctx, path, "v1", "refs/heads/main", "", git.Signature{Name: "B", Email: "b@example.org", When: time.Now()})
		if err != nil || tag.Name != "v1" {
			t.Fatal(tag, err)
		}
		if got := events(); got != "[create tag v1 push tag v1]" {
			t.Fatalf("tag created: %s", got)
		}
		if err := g.DeleteTag(ctx, path, "v1"); err != nil {
			t.Fatal(err)
		}
		if got := events(); got != "[delete tag v1 push tag v1]" {
			t.Fatalf("tag deleted: %s", got)
		}
		if got := events(); got != "[]" {
			t.Fatalf("again: %s", got)
		}
		if entries, _ := g.RefJournal(); len(entries) != 0 {
			t.Fatalf("journal not emptied: %+v", entries)
		}
	})
}

// TestReconcileLeavesYoungBranchesToTheirWriter: the reconciler leaves a
// branch moved less than repos.WriterGrace ago to whoever moved it, so
// the pusher's own record, coming later, is the one that notices the
// change and its push event names the pusher (the reconciler's name
// nobody). A move whose writer died is recorded once the grace is over,
// with no one's help; so is a branch an older entry shares with a young
// one, and only then.
func TestReconcileLeavesYoungBranchesToTheirWriter(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		root := t.TempDir()
		g, err := git.New(root)
		if err != nil {
			t.Fatal(err)
		}
		owner := &store.User{Name: "Dana", Email: "dana@example.org", IsActive: true}
		pusher := &store.User{Name: "Erin", Email: "erin@example.org", IsActive: true}
		for _, u := range []*store.User{owner, pusher} {
			if err := s.CreateUser(ctx, u); err != nil {
				t.Fatal(err)
			}
		}
		repo, path := newGitRepo(t, s, g, owner, "Busy", true)
		commit := func(file string) string {
			t.Helper()
			sha, err := g.ChangeFiles(ctx, path, git.ChangeFilesOptions{Branch: "main",
				Files:   []git.FileChange{{Op: git.OpCreate, Path: file, Content: []byte(file)}},
				Author:  git.Signature{Name: "E", Email: "e@example.org", When: time.Now()},
				Message: file})
			if err != nil {
				t.Fatal(err)
			}
			return sha
		}
		events := func() string {
			t.Helper()
			es, err := s.ClaimHookEvents(ctx, 100, time.Minute)
			if err != nil {
				t.Fatal(err)
			}
			var out []string
			for _, e := range es {
				out = append(out, fmt.Sprintf("%s %s by %d", e.Kind, e.Ref, e.ActorID))
			}
			sort.Strings(out)
			return fmt.Sprint(out)
		}
		recorded := func(branch string) string {
			t.Helper()
			b, err := s.BranchByName(ctx, repo.ID, branch)
			if errors.Is(err, store.ErrNotFound) {
				return ""
			}
			if err != nil {
				t.Fatal(err)
			}
			return b.CommitID
		}
		rec := &repos.Syncer{Store: s, Git: g}
		later := func() time.Time { return time.Now().Add(repos.WriterGrace) }
		first := commit("a.txt")
		if err := rec.ReconcileAt(ctx, later()); err != nil {
			t.Fatal(err)
		}
		events()
		if got := recorded("main"); got != first {
			t.Fatalf("main recorded at %q, want %s", got, first)
		}

		// A push whose writer is still on its way to record it.
		second := commit("b.txt")
		if err := rec.Reconcile(ctx); err != nil {
			t.Fatal(err)
		}
		if got := recorded("main"); got != first {
			t.Fatalf("the reconciler recorded a young move of main: %s", got)
		}
		if err := rec.Apply(ctx, repo, pusher.ID, []git.RefUpdate{{Name: "refs/heads/main", OldSHA: first, NewSHA: second}}); err != nil {
			t.Fatal(err)
		}
		if got, want := events(), fmt.Sprintf("[push main by %d]", pusher.ID); got != want {
			t.Fatalf("events of the pusher's record: %s, want %s", got, want)
		}

		// A writer that died after moving a branch: left alone while
		// young, recorded after the grace, by nobody.
		if _, err := g.CreateBranch(ctx, path, "side", "refs/heads/main"); err != nil {
			t.Fatal(err)
		}
		if err := rec.Reconcile(ctx); err != nil {
			t.Fatal(err)
		}
		if got := recorded("side"); got != "" {
			t.Fatalf("the reconciler recorded a young branch: %s", got)
		}
		if err := rec.ReconcileAt(ctx, later()); err != nil {
			t.Fatal(err)
		}
		if got := recorded("side"); got != second {
			t.Fatalf("side recorded at %q after the grace, want %s", got, second)
		}
		if got := events(); got != "[create side by 0 push side by 0]" {
			t.Fatalf("events of the reconciler's record: %s", got)
		}

		// An old entry of a dead writer and a young one of a live writer
		// for the same branch: the branch waits for the young one's writer.
		commit("c.txt")
		ageJournal(t, root, repos.WriterGrace)
		fourth := commit("d.txt")
		if err := rec.Reconcile(ctx); err != nil {
			t.Fatal(err)
		}
		if got := recorded("main"); got != second {
			t.Fatalf("main recorded at %s with a young entry for it, want %s", got, second)
		}
		if err := rec.Apply(ctx, repo, pusher.ID, []git.RefUpdate{{Name: "refs/heads/main", NewSHA: fourth}}); err != nil {
			t.Fatal(err)
		}
		if got, want := events(), fmt.Sprintf("[push main by %d]", pusher.ID); got != want {
			t.Fatalf("events after the old and the young move: %s, want %s", got, want)
		}
		if err := rec.ReconcileAt(ctx, later()); err != nil {
			t.Fatal(err)
		}
		if got := events(); got != "[]" {
			t.Fatalf("the reconciler repeated events: %s", got)
		}
		if entries, _ := g.RefJournal(); len(entries) != 0 {
			t.Fatalf("journal not emptied: %+v", entries)
		}
	})
}

// ageJournal makes every ref journal entry under root older by d.
func ageJournal(t *testing.T, root string, d time.Duration) {
	t.Helper()
	dir := filepath.Join(root, "@forge", "journal")
	files, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		info, err := f.Info()
		if err != nil {
			t.Fatal(err)
		}
		at := info.ModTime().Add(-d)
		if err := os.Chtimes(filepath.Join(dir, f.Name()), at, at); err != nil {
			t.Fatal(err)
		}
	}
}

// TestReconcileWakesWhenTheGraceIsOver: a pass that left an entry to its
// writer wakes the reconciler as the entry comes of age, so a dead
// writer's refs are recorded then, not up to a ReconcileInterval later.
func TestReconcileWakesWhenTheGraceIsOver(t *testing.T) {
	ctx := context.Background()
	g, err := git.New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	path, _ := g.RepoPath("frank", "woken")
	if err := g.Init(ctx, path, "main"); err != nil {
		t.Fatal(err)
	}
	if _, err := g.ChangeFiles(ctx, path, git.ChangeFilesOptions{Branch: "main",
		Files:   []git.FileChange{{Op: git.OpCreate, Path: "a.txt", Content: []byte("a")}},
		Author:  git.Signature{Name: "F", Email: "f@example.org", When: time.Now()},
		Message: "a"}); err != nil {
		t.Fatal(err)
	}
	entries, err := g.RefJournal()
	if err != nil || len(entries) == 0 {
		t.Fatalf("journal: %v %v", entries, err)
	}
	at := entries[len(entries)-1].At
	// Nothing is read from the store: the only entry is young.
	rec := &repos.Syncer{Git: g}
	if err := rec.ReconcileAt(ctx, at.Add(repos.WriterGrace-100*time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	select {
	case <-rec.Woken():
	case <-time.After(repos.ReconcileInterval):
		t.Fatal("not woken when the entry came of age")
	}
}

// newGitRepo records an empty repository of owner and initialises its git
// directory on main, with a Gitea webhook when hooked (so that changes
// queue events); it returns the record and the directory.
// newAliceRepo makes a git store and, in it, alice's unhooked repository
// Proj with its record.
func newAliceRepo(t *testing.T, s *store.Store) (*git.Store, *store.Repository, string) {
	t.Helper()
	g, err := git.New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	owner := &store.User{Name: "Alice", Email: "alice@example.org", IsActive: true}
	if err := s.CreateUser(context.Background(), owner); err != nil {
		t.Fatal(err)
	}
	repo, path := newGitRepo(t, s, g, owner, "Proj", false)
	return g, repo, path
}

func newGitRepo(t *testing.T, s *store.Store, g *git.Store, owner *store.User, name string, hooked bool) (*store.Repository, string) {
	t.Helper()
	ctx := context.Background()
	repo := &store.Repository{OwnerID: owner.ID, OwnerName: owner.Name, Name: name, IsEmpty: true, DefaultBranch: "main"}
	if err := s.CreateRepository(ctx, repo, 0); err != nil {
		t.Fatal(err)
	}
	if hooked {
		if err := s.CreateHook(ctx, &store.Webhook{RepoID: repo.ID, Type: "gitea", URL: "http://example.com/h", Active: true}); err != nil {
			t.Fatal(err)
		}
	}
	path, _ := g.RepoPath(repo.OwnerName, repo.Name)
	if err := g.Init(ctx, path, "main"); err != nil {
		t.Fatal(err)
	}
	return repo, path
}

// TestReconcileCountsUnreportedRefMoves: a ref moved by a writer that died
// before it reported the move (a Store that reports nothing, moving a ref
// no record follows) moves PostgreSQL's commit count once the reconciler
// settles its journal entry, so forge processes on other machines stop
// replaying what git answered before the move.
func TestReconcileCountsUnreportedRefMoves(t *testing.T) {
	s := storetest.Open(t, "postgres")
	ctx := context.Background()
	g, _, path := newAliceRepo(t, s)
	sha, err := g.ChangeFiles(ctx, path, git.ChangeFilesOptions{Branch: "main",
		Files:   []git.FileChange{{Op: git.OpCreate, Path: "a.txt", Content: []byte("a")}},
		Author:  git.Signature{Name: "A", Email: "a@example.org", When: time.Now()},
		Message: "a"})
	if err != nil {
		t.Fatal(err)
	}
	sy := &repos.Syncer{Store: s, Git: g}
	reconcileBoth(t, sy, sy)
	count := func() int64 {
		t.Helper()
		n, ok := s.CommitCount(ctx)
		if !ok {
			t.Fatal("no commit count")
		}
		return n
	}

	before := count()
	if err := g.SetPullHead(ctx, path, 1, sha); err != nil {
		t.Fatal(err)
	}
	if after := count(); after != before {
		t.Fatalf("count moved from %d to %d without a report or a record", before, after)
	}
	reconcileBoth(t, sy, sy)
	if after := count(); after == before {
		t.Fatal("the reconciler settled the entry without moving the count")
	}
	if entries, _ := g.RefJournal(); len(entries) != 0 {
		t.Fatalf("journal not emptied: %+v", entries)
	}
	// Nothing journaled: a pass moves nothing.
	before = count()
	reconcileBoth(t, sy, sy)
	if after := count(); after != before {
		t.Fatalf("an empty pass moved the count from %d to %d", before, after)
	}
}
