package store_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"forge/services/store"
	"forge/services/store/storetest"
)

func TestMirrorState(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		r := newRepo(t, s, "mirror")
		if _, err := s.MirrorByRepoID(ctx, r.ID); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("MirrorByRepoID of a plain repository: %v", err)
		}
		before := time.Now().Unix()
		m := &store.Mirror{RepoID: r.ID, IntervalSecs: 3600, RemoteAddress: "https://example.org/x.git", RemoteSealed: []byte{1, 2, 3}}
		if err := s.CreateMirror(ctx, m); err != nil {
			t.Fatal(err)
		}
		got, err := s.MirrorByRepoID(ctx, r.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.NextUpdateUnix < before+3600 || got.NextUpdateUnix > time.Now().Unix()+3600 || string(got.RemoteSealed) != "\x01\x02\x03" {
			t.Fatalf("created mirror: %+v", got)
		}

		// A failed sync records the error and keeps the last success time.
		if err := s.FinishMirrorSync(ctx, r.ID, 1000, ""); err != nil {
			t.Fatal(err)
		}
		if err := s.FinishMirrorSync(ctx, r.ID, 2000, "fetch failed"); err != nil {
			t.Fatal(err)
		}
		got, _ = s.MirrorByRepoID(ctx, r.ID)
		if got.UpdatedUnix != 1000 || got.LastError != "fetch failed" || got.NextUpdateUnix != 2000+3600 {
			t.Fatalf("after failed sync: %+v", got)
		}
		if err := s.FinishMirrorSync(ctx, r.ID, 3000, ""); err != nil {
			t.Fatal(err)
		}
		got, _ = s.MirrorByRepoID(ctx, r.ID)
		if got.UpdatedUnix != 3000 || got.LastError != "" || got.NextUpdateUnix != 3000+3600 {
			t.Fatalf("after successful sync: %+v", got)
		}

		// Interval 0: never scheduled.
		if err := s.SetMirrorInterval(ctx, r.ID, 0); err != nil {
			t.Fatal(err)
		}
		if err := s.FinishMirrorSync(ctx, r.ID, 4000, ""); err != nil {
			t.Fatal(err)
		}
		got, _ = s.MirrorByRepoID(ctx, r.ID)
		if got.IntervalSecs != 0 || got.NextUpdateUnix != 0 {
			t.Fatalf("interval 0: %+v", got)
		}
		if err := s.SetMirrorInterval(ctx, r.ID+1000, time.Hour); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("SetMirrorInterval of a missing mirror: %v", err)
		}
		if err := s.FinishMirrorSync(ctx, r.ID+1000, 1, ""); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("FinishMirrorSync of a missing mirror: %v", err)
		}

		// Deleting the repository deletes its mirror state.
		if err := s.DeleteRepository(ctx, r.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := s.MirrorByRepoID(ctx, r.ID); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("mirror survived its repository: %v", err)
		}
	})
}

func TestDueMirrorsAndClaim(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		var ids []int64
		for i, next := range []int64{500, 100, 0, 900} {
			r := newRepo(t, s, fmt.Sprintf("m%d", i))
			interval := int64(600)
			if next == 0 {
				interval = 0 // never synced automatically
			}
			m := &store.Mirror{RepoID: r.ID, IntervalSecs: interval, NextUpdateUnix: next}
			if err := s.CreateMirror(ctx, m); err != nil {
				t.Fatal(err)
			}
			ids = append(ids, m.ID)
		}
		due, err := s.DueMirrors(ctx, 600, 10)
		if err != nil {
			t.Fatal(err)
		}
		if len(due) != 2 || due[0].ID != ids[1] || due[1].ID != ids[0] {
			t.Fatalf("due at 600: %+v", due)
		}
		if due, _ := s.DueMirrors(ctx, 600, 1); len(due) != 1 || due[0].ID != ids[1] {
			t.Fatalf("limit 1: %+v", due)
		}

		// The first claim wins; a claim with a stale value loses.
		won, err := s.ClaimMirror(ctx, due[0].ID, due[0].NextUpdateUnix, 1200)
		if err != nil || !won {
			t.Fatalf("first claim: %v %v", won, err)
		}
		won, err = s.ClaimMirror(ctx, due[0].ID, due[0].NextUpdateUnix, 1200)
		if err != nil || won {
			t.Fatalf("second claim: %v %v", won, err)
		}
		if due, _ := s.DueMirrors(ctx, 600, 10); len(due) != 1 || due[0].ID != ids[0] {
			t.Fatalf("claimed mirror still due: %+v", due)
		}
		// A mirror without interval is never claimed.
		if won, err := s.ClaimMirror(ctx, ids[2], 0, 1200); err != nil || won {
			t.Fatalf("claim of interval-0 mirror: %v %v", won, err)
		}
	})
}

// TestClaimMirrorConcurrent: several processes (separate stores on one
// database) and goroutines race for the same due mirrors; each due mirror
// is won exactly once per round.
func TestClaimMirrorConcurrent(t *testing.T) {
	for _, kind := range storetest.Backends {
		t.Run(kind, func(t *testing.T) {
			ctx := context.Background()
			stores := storesOnOneDatabase(t, kind, 2)
			const n = 8
			for i := range n {
				r := newRepo(t, stores[0], fmt.Sprintf("c%d", i))
				if err := stores[0].CreateMirror(ctx, &store.Mirror{RepoID: r.ID, IntervalSecs: 600, NextUpdateUnix: 50}); err != nil {
					t.Fatal(err)
				}
				pm := &store.PushMirror{RepoID: r.ID, RemoteName: "remote_mirror_x", IntervalSecs: 600, CreatedUnix: 1}
				if err := stores[0].CreatePushMirror(ctx, pm); err != nil {
					t.Fatal(err)
				}
			}
			var mu sync.Mutex
			wins := map[string]int{}
			var wg sync.WaitGroup
			for w := range 6 {
				s := stores[w%2]
				wg.Add(1)
				go func() {
					defer wg.Done()
					ms, err := s.DueMirrors(ctx, 1000, 100)
					if err != nil {
						t.Error(err)
						return
					}
					for _, m := range ms {
						won, err := s.ClaimMirror(ctx, m.ID, m.NextUpdateUnix, 1000+600)
						if err != nil {
							t.Error(err)
						}
						if won {
							mu.Lock()
							wins[fmt.Sprint("pull", m.ID)]++
							mu.Unlock()
						}
					}
					pms, err := s.DuePushMirrors(ctx, 1000, 100)
					if err != nil {
						t.Error(err)
						return
					}
					for _, pm := range pms {
						won, err := s.ClaimPushMirror(ctx, pm.ID, pm.NextUpdateUnix, 1000+600)
						if err != nil {
							t.Error(err)
						}
						if won {
							mu.Lock()
							wins[fmt.Sprint("push", pm.ID)]++
							mu.Unlock()
						}
					}
				}()
			}
			wg.Wait()
			if len(wins) != 2*n {
				t.Fatalf("%d mirrors claimed, want %d: %v", len(wins), 2*n, wins)
			}
			for k, c := range wins {
				if c != 1 {
					t.Fatalf("%s claimed %d times", k, c)
				}
			}
		})
	}
}

func TestPushMirrors(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		r := newRepo(t, s, "pushed")
		other := newRepo(t, s, "other")
		mk := func(repoID int64, name string, interval int64, onCommit bool) *store.PushMirror {
			t.Helper()
			pm := &store.PushMirror{RepoID: repoID, RemoteName: name, RemoteAddress: "https://example.org/" + name, IntervalSecs: interval, SyncOnCommit: onCommit, CreatedUnix: 100}
			if err := s.CreatePushMirror(ctx, pm); err != nil {
				t.Fatal(err)
			}
			return pm
		}
		a := mk(r.ID, "remote_mirror_a", 600, false)
		mk(r.ID, "remote_mirror_b", 0, true)
		mk(r.ID, "remote_mirror_c", 0, false)
		mk(other.ID, "remote_mirror_a", 0, true) // names are per repository
		if a.NextUpdateUnix != 700 {
			t.Fatalf("first push scheduled at %d, want 700", a.NextUpdateUnix)
		}
		if err := s.CreatePushMirror(ctx, &store.PushMirror{RepoID: r.ID, RemoteName: "remote_mirror_a"}); !errors.Is(err, store.ErrPushMirrorExists) {
			t.Fatalf("duplicate remote name: %v", err)
		}

		list, total, err := s.ListPushMirrors(ctx, r.ID, 1, 1)
		if err != nil || total != 3 || len(list) != 1 || list[0].RemoteName != "remote_mirror_b" {
			t.Fatalf("page 2 of 1: %+v total %d err %v", list, total, err)
		}
		if list, total, _ := s.ListPushMirrors(ctx, r.ID+other.ID+10, 0, 10); total != 0 || list == nil || len(list) != 0 {
			t.Fatalf("empty list: %#v %d", list, total)
		}
		onCommit, err := s.PushMirrorsOfRepo(ctx, r.ID, true)
		if err != nil || len(onCommit) != 1 || onCommit[0].RemoteName != "remote_mirror_b" {
			t.Fatalf("sync_on_commit mirrors: %+v %v", onCommit, err)
		}
		if all, _ := s.PushMirrorsOfRepo(ctx, r.ID, false); len(all) != 3 {
			t.Fatalf("all mirrors: %+v", all)
		}

		got, err := s.PushMirrorByName(ctx, r.ID, "remote_mirror_a")
		if err != nil || got.ID != a.ID {
			t.Fatalf("by name: %+v %v", got, err)
		}
		if _, err := s.PushMirrorByName(ctx, r.ID, "nope"); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("unknown name: %v", err)
		}
		if got, err := s.PushMirrorByID(ctx, a.ID); err != nil || got.RemoteName != "remote_mirror_a" {
			t.Fatalf("by id: %+v %v", got, err)
		}

		// Only mirrors with an interval are due; a claim moves them on.
		due, err := s.DuePushMirrors(ctx, 700, 10)
		if err != nil || len(due) != 1 || due[0].ID != a.ID {
			t.Fatalf("due: %+v %v", due, err)
		}
		if won, err := s.ClaimPushMirror(ctx, a.ID, 700, 1300); err != nil || !won {
			t.Fatalf("claim: %v %v", won, err)
		}
		if won, _ := s.ClaimPushMirror(ctx, a.ID, 700, 1300); won {
			t.Fatal("stale claim won")
		}

		if err := s.FinishPushMirrorSync(ctx, a.ID, 800, ""); err != nil {
			t.Fatal(err)
		}
		if err := s.FinishPushMirrorSync(ctx, a.ID, 900, "remote rejected"); err != nil {
			t.Fatal(err)
		}
		got, _ = s.PushMirrorByID(ctx, a.ID)
		if got.LastUpdateUnix != 800 || got.LastError != "remote rejected" || got.NextUpdateUnix != 1500 {
			t.Fatalf("after pushes: %+v", got)
		}

		if err := s.DeletePushMirror(ctx, r.ID, "remote_mirror_a"); err != nil {
			t.Fatal(err)
		}
		if err := s.DeletePushMirror(ctx, r.ID, "remote_mirror_a"); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("second delete: %v", err)
		}
		if err := s.FinishPushMirrorSync(ctx, a.ID, 1000, ""); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("finish of a deleted push mirror: %v", err)
		}
		if got, _ := s.PushMirrorByName(ctx, other.ID, "remote_mirror_a"); got == nil {
			t.Fatal("deleting one repository's push mirror removed another's")
		}
	})
}
