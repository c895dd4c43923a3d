package store_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"forge/services/store"
	"forge/services/store/storetest"
)

// TestSyncTagRefs: tag changes get their webhook events with the record
// that notices them, once whoever (and however many at once) looks; the
// first change of a repository whose tags were never recorded records the
// others silently.
func TestSyncTagRefs(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		r := newRepo(t, s, "tags")
		newHook(t, s, store.Webhook{RepoID: r.ID, Active: true})
		var mu sync.Mutex
		git := map[string]string{"v0.9": sha('9'), "v1.0": sha('1')} // tags present before the records
		read := func(_ context.Context, names []string) (map[string]string, error) {
			mu.Lock()
			defer mu.Unlock()
			out := map[string]string{}
			for _, n := range names {
				if v, ok := git[n]; ok {
					out[n] = v
				}
			}
			return out, nil
		}
		all := func(context.Context) (map[string]string, error) {
			mu.Lock()
			defer mu.Unlock()
			out := map[string]string{}
			for n, v := range git {
				out[n] = v
			}
			return out, nil
		}
		events := func() string {
			t.Helper()
			es, err := s.ClaimHookEvents(ctx, 100, time.Minute)
			if err != nil {
				t.Fatal(err)
			}
			var out []string
			for _, e := range es {
				out = append(out, fmt.Sprintf("%s %s %s %.1s>%.1s", e.Kind, e.Extra, e.Ref, e.OldSHA, e.NewSHA))
			}
			return strings.Join(out, "; ")
		}
		syncTags := func(names ...string) {
			t.Helper()
			if _, err := s.SyncTagRefs(ctx, r.ID, r.OwnerID, names, read, all, nil); err != nil {
				t.Fatal(err)
			}
		}

		// First change: v2.0 pushed. v0.9 and v1.0 are recorded silently.
		git["v2.0"] = sha('2')
		syncTags("v2.0")
		if got := events(); got != "push tag v2.0 >2; create tag v2.0 >2" {
			t.Fatalf("first change: %s", got)
		}
		// Two writers at once (a pusher and a reconciler, maybe in two
		// processes) for a move and a deletion: the events come once.
		git["v1.0"] = sha('3')
		delete(git, "v0.9")
		var wg sync.WaitGroup
		for range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if _, err := s.SyncTagRefs(ctx, r.ID, r.OwnerID, []string{"v0.9", "v1.0"}, read, all, nil); err != nil {
					t.Error(err)
				}
			}()
		}
		wg.Wait()
		if got := events(); got != "push tag v0.9 9>; delete tag v0.9 9>; push tag v1.0 1>3" {
			t.Fatalf("move and delete: %s", got)
		}
		// Nothing changed: nothing written.
		syncTags("v1.0", "v2.0", "never")
		if got := events(); got != "" {
			t.Fatalf("no change: %s", got)
		}
	})
}

func sha(c byte) string { return strings.Repeat(string(c), 40) }

// TestTagProtections: rules are kept per repository in creation order; a
// pattern is taken once; updates and deletes name the repository.
func TestTagProtections(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		r := newRepo(t, s, "guarded")
		other := newRepo(t, s, "other")
		a := &store.TagProtection{RepoID: r.ID, NamePattern: "v*", WhitelistUserIDs: store.MakeIDList([]int64{1})}
		if err := s.CreateTagProtection(ctx, a); err != nil || a.ID == 0 {
			t.Fatal(a, err)
		}
		if err := s.CreateTagProtection(ctx, &store.TagProtection{RepoID: r.ID, NamePattern: "v*"}); err != store.ErrTagProtectionExists {
			t.Fatalf("duplicate: %v", err)
		}
		b := &store.TagProtection{RepoID: r.ID, NamePattern: "/^rel/"}
		if err := s.CreateTagProtection(ctx, b); err != nil {
			t.Fatal(err)
		}
		if _, err := s.TagProtectionByID(ctx, other.ID, a.ID); err != store.ErrNotFound {
			t.Fatalf("another repository's rule: %v", err)
		}
		a.NamePattern, a.WhitelistTeamIDs = "w*", store.MakeIDList([]int64{7})
		if err := s.UpdateTagProtection(ctx, a); err != nil {
			t.Fatal(err)
		}
		list, err := s.TagProtections(ctx, r.ID)
		if err != nil || len(list) != 2 || list[0].NamePattern != "w*" || list[0].WhitelistTeamIDs != "[7]" ||
			list[1].NamePattern != "/^rel/" || list[1].WhitelistUserIDs != "[]" {
			t.Fatalf("list: %+v %v", list, err)
		}
		if err := s.DeleteTagProtection(ctx, other.ID, a.ID); err != store.ErrNotFound {
			t.Fatalf("delete through another repository: %v", err)
		}
		if err := s.DeleteTagProtection(ctx, r.ID, a.ID); err != nil {
			t.Fatal(err)
		}
		if err := s.UpdateTagProtection(ctx, a); err != store.ErrNotFound {
			t.Fatalf("update deleted: %v", err)
		}
	})
}
