package store_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"forge/services/store"
	"forge/services/store/storetest"
)

func newHook(t *testing.T, s *store.Store, h store.Webhook) *store.Webhook {
	t.Helper()
	if h.Type == "" {
		h.Type = "gitea"
	}
	if h.URL == "" {
		h.URL = "http://example.com/h"
	}
	if err := s.CreateHook(context.Background(), &h); err != nil {
		t.Fatal(err)
	}
	return &h
}

// TestWebhookScopes: each level sees its own hooks only; the instance's
// kinds are listed apart and found together by id; deletes are scoped.
func TestWebhookScopes(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		r := newRepo(t, s, "proj")
		rh := newHook(t, s, store.Webhook{RepoID: r.ID, Active: true})
		oh := newHook(t, s, store.Webhook{OwnerID: r.OwnerID})
		sys := newHook(t, s, store.Webhook{IsSystem: true})
		def := newHook(t, s, store.Webhook{})

		for _, c := range []struct {
			sc   store.HookScope
			want []int64
		}{
			{store.HookScope{RepoID: r.ID}, []int64{rh.ID}},
			{store.HookScope{OwnerID: r.OwnerID}, []int64{oh.ID}},
			{store.HookScope{Instance: true, Kind: store.HookKindSystem}, []int64{sys.ID}},
			{store.HookScope{Instance: true, Kind: store.HookKindDefault}, []int64{def.ID}},
			{store.HookScope{Instance: true, Kind: store.HookKindAll}, []int64{sys.ID, def.ID}},
		} {
			list, total, err := s.Hooks(ctx, c.sc, 0, 10)
			if err != nil || int(total) != len(c.want) || len(list) != len(c.want) {
				t.Fatalf("%+v: %d of %d, %v", c.sc, len(list), total, err)
			}
			for i := range list {
				if list[i].ID != c.want[i] {
					t.Fatalf("%+v: %+v", c.sc, list)
				}
			}
		}
		if _, err := s.HookByID(ctx, store.HookScope{Instance: true, Kind: store.HookKindSystem}, def.ID); err != nil {
			t.Fatalf("the instance finds both kinds by id: %v", err)
		}
		if _, err := s.HookByID(ctx, store.HookScope{OwnerID: r.OwnerID}, rh.ID); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("owner level found the repository's hook: %v", err)
		}
		if err := s.DeleteHook(ctx, store.HookScope{Instance: true}, rh.ID); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("instance level deleted the repository's hook: %v", err)
		}
		rh.Active, rh.BranchFilter = false, "main"
		if err := s.UpdateHook(ctx, rh); err != nil {
			t.Fatal(err)
		}
		if got, _ := s.HookByID(ctx, store.HookScope{RepoID: r.ID}, rh.ID); got.Active || got.BranchFilter != "main" {
			t.Fatalf("after update: %+v", got)
		}
		if err := s.DeleteHook(ctx, store.HookScope{RepoID: r.ID}, rh.ID); err != nil {
			t.Fatal(err)
		}
		if err := s.UpdateHook(ctx, rh); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("update of a deleted hook: %v", err)
		}
	})
}

// TestWebhookDefaultHooksCopied: a repository created after a default hook
// gets its own copy; system hooks are not copied.
func TestWebhookDefaultHooksCopied(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		newHook(t, s, store.Webhook{URL: "http://example.com/default", Events: "push", Active: true, Secret: []byte{1, 2, 3}})
		newHook(t, s, store.Webhook{IsSystem: true, URL: "http://example.com/system"})
		r := newRepo(t, s, "proj")
		list, _, err := s.Hooks(ctx, store.HookScope{RepoID: r.ID}, 0, 10)
		if err != nil || len(list) != 1 || list[0].URL != "http://example.com/default" || !list[0].Active ||
			string(list[0].Secret) != "\x01\x02\x03" || list[0].Events != "push" {
			t.Fatalf("copied hooks: %+v %v", list, err)
		}
	})
}

// TestWebhookOutbox: a branch change records its events only when a hook
// may hear them (the repository's, its owner's or a system hook, active);
// a claimed event is claimed once among concurrent workers; resolving it
// queues its deliveries, which are claimed once and retried when asked.
func TestWebhookOutbox(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		r := newRepo(t, s, "proj")
		sync1 := func(name, sha string) {
			t.Helper()
			if err := s.SyncBranches(ctx, r.ID, r.OwnerID, []store.BranchUpdate{{Name: name, CommitID: sha}}, nil); err != nil {
				t.Fatal(err)
			}
		}
		claimAll := func() []store.HookEvent {
			t.Helper()
			es, err := s.ClaimHookEvents(ctx, 100, time.Minute)
			if err != nil {
				t.Fatal(err)
			}
			return es
		}
		sync1("main", "1111111111111111111111111111111111111111")
		newHook(t, s, store.Webhook{RepoID: r.ID}) // inactive: still nothing
		sync1("main", "2222222222222222222222222222222222222222")
		if es := claimAll(); len(es) != 0 {
			t.Fatalf("events without a listening hook: %+v", es)
		}
		h := newHook(t, s, store.Webhook{OwnerID: r.OwnerID, Active: true})
		sync1("dev", "3333333333333333333333333333333333333333")
		sync1("main", "4444444444444444444444444444444444444444")
		es := claimAll()
		if len(es) != 3 || es[0].Kind != store.HookKindCreate || es[1].Kind != store.HookKindPush || es[1].OldSHA != "" ||
			es[2].Kind != store.HookKindPush || es[2].Ref != "main" || es[2].OldSHA != "2222222222222222222222222222222222222222" ||
			es[2].NewSHA != "4444444444444444444444444444444444444444" {
			t.Fatalf("events: %+v", es)
		}
		if again := claimAll(); len(again) != 0 {
			t.Fatalf("claimed twice: %+v", again)
		}
		for i, e := range es {
			var tasks []store.HookTask
			if i == 2 {
				tasks = []store.HookTask{{HookID: h.ID, RepoID: r.ID, UUID: "00000000-0000-4000-8000-000000000001",
					Event: "push", EventType: "push", Payload: "{}"}}
			}
			if err := s.ResolveHookEvent(ctx, e.ID, tasks); err != nil {
				t.Fatal(err)
			}
		}

		// Concurrent claims of the one delivery: one wins.
		var mu sync.Mutex
		won := 0
		var wg sync.WaitGroup
		for i := 0; i < 8; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				ts, err := s.ClaimHookTasks(ctx, 10, time.Minute)
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				won += len(ts)
				mu.Unlock()
			}()
		}
		wg.Wait()
		if won != 1 {
			t.Fatalf("the delivery was claimed %d times", won)
		}
		var task store.HookTask
		if err := s.DB().Take(&task).Error; err != nil {
			t.Fatal(err)
		}
		// A failed attempt with a retry in the past is due again.
		if err := s.FinishHookTaskAttempt(ctx, task.ID, store.HookTaskResult{RequestInfo: "{}", ResponseInfo: "{}",
			RetryAt: time.Now().Add(-time.Second).Unix()}); err != nil {
			t.Fatal(err)
		}
		ts, err := s.ClaimHookTasks(ctx, 10, time.Minute)
		if err != nil || len(ts) != 1 || ts[0].Attempts != 1 || ts[0].Done {
			t.Fatalf("retry: %+v %v", ts, err)
		}
		if err := s.FinishHookTaskAttempt(ctx, task.ID, store.HookTaskResult{Succeeded: true}); err != nil {
			t.Fatal(err)
		}
		if ts, _ := s.ClaimHookTasks(ctx, 10, time.Minute); len(ts) != 0 {
			t.Fatalf("a done delivery is claimed: %+v", ts)
		}
		hist, err := s.HookTasks(ctx, h.ID, 0, 10)
		if err != nil || len(hist) != 1 || !hist[0].Done || !hist[0].Succeeded || hist[0].Attempts != 2 {
			t.Fatalf("history: %+v %v", hist, err)
		}
		// Deleting the hook takes its deliveries.
		if err := s.DeleteHook(ctx, store.HookScope{OwnerID: r.OwnerID}, h.ID); err != nil {
			t.Fatal(err)
		}
		if hist, _ := s.HookTasks(ctx, h.ID, 0, 10); len(hist) != 0 {
			t.Fatalf("deliveries outlived their hook: %+v", hist)
		}
	})
}

// TestWebhookRepositoryDeletedEvent: deleting a repository drops its own
// queue and hooks and records one repository_deleted event holding the
// row as it was; the event's hooks are its owner's and the system ones.
func TestWebhookRepositoryDeletedEvent(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		r := newRepo(t, s, "doomed")
		other := newRepo(t, s, "other")
		newHook(t, s, store.Webhook{RepoID: r.ID, Active: true})
		oh := newHook(t, s, store.Webhook{OwnerID: r.OwnerID, Active: true})
		newHook(t, s, store.Webhook{OwnerID: other.OwnerID, Active: true})
		sys := newHook(t, s, store.Webhook{IsSystem: true, Active: true})
		if err := s.EnqueueHookEvent(ctx, store.HookEvent{Kind: store.HookKindPush, RepoID: r.ID}); err != nil {
			t.Fatal(err)
		}
		if err := s.DeleteRepositoryBy(ctx, r.ID, r.OwnerID); err != nil {
			t.Fatal(err)
		}
		events, err := s.ClaimHookEvents(ctx, 10, time.Minute)
		if err != nil || len(events) != 1 {
			t.Fatalf("events after the delete: %+v %v", events, err)
		}
		e := events[0]
		if e.Kind != store.HookKindRepoDeleted || e.RepoID != r.ID || e.ActorID != r.OwnerID ||
			!strings.Contains(e.Extra, `"Name":"doomed"`) {
			t.Fatalf("event: %+v", e)
		}
		hooks, err := s.HooksForOwner(ctx, r.OwnerID)
		if err != nil || len(hooks) != 2 || hooks[0].ID != oh.ID || hooks[1].ID != sys.ID {
			t.Fatalf("HooksForOwner: %+v %v", hooks, err)
		}
	})
}

// TestWebhookRetryNow: a delivery waiting for its retry is not claimed
// until due; RetryHookTasksNow makes it due at once.
func TestWebhookRetryNow(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		r := newRepo(t, s, "proj")
		h := newHook(t, s, store.Webhook{RepoID: r.ID, Active: true})
		if err := s.EnqueueHookEvent(ctx, store.HookEvent{Kind: store.HookKindPush, RepoID: r.ID}); err != nil {
			t.Fatal(err)
		}
		events, err := s.ClaimHookEvents(ctx, 1, time.Minute)
		if err != nil || len(events) != 1 {
			t.Fatal(events, err)
		}
		later := time.Now().Add(time.Hour).Unix()
		if err := s.ResolveHookEvent(ctx, events[0].ID, []store.HookTask{{HookID: h.ID, RepoID: r.ID, UUID: "u", NextUnix: later}}); err != nil {
			t.Fatal(err)
		}
		if tasks, err := s.ClaimHookTasks(ctx, 10, time.Minute); err != nil || len(tasks) != 0 {
			t.Fatalf("a delivery claimed before its retry: %+v %v", tasks, err)
		}
		if n, err := s.RetryHookTasksNow(ctx); err != nil || n != 1 {
			t.Fatalf("RetryHookTasksNow = %d, %v", n, err)
		}
		if tasks, err := s.ClaimHookTasks(ctx, 10, time.Minute); err != nil || len(tasks) != 1 {
			t.Fatalf("after RetryHookTasksNow: %+v %v", tasks, err)
		}
	})
}

// TestHookEventsWakeTheWebhookWorker: issue creation (alone and in a
// batch) and comments wake the webhook worker (OnHookEvent) when they
// queue a webhook event, and only then: a repository nobody's hook hears
// of costs the worker no round.
func TestHookEventsWakeTheWebhookWorker(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		var kicks atomic.Int32
		s.OnHookEvent(func() { kicks.Add(1) })
		hooked, quiet := newRepo(t, s, "hooked"), newRepo(t, s, "quiet")
		newHook(t, s, store.Webhook{RepoID: hooked.ID, Active: true})
		for _, tc := range []struct {
			repo  *store.Repository
			wakes bool
		}{{quiet, false}, {hooked, true}} {
			kicks.Store(0)
			is := newIssue(t, s, tc.repo, "alone", false)
			if err := s.CreateComment(ctx, &store.Comment{RepoID: tc.repo.ID, IssueID: is.ID, PosterID: tc.repo.OwnerID, Content: "hi"}); err != nil {
				t.Fatal(err)
			}
			var wg sync.WaitGroup
			for i := range 8 {
				wg.Go(func() {
					n := &store.NewIssue{Issue: store.Issue{RepoID: tc.repo.ID, PosterID: tc.repo.OwnerID, Title: fmt.Sprint("together ", i)}}
					if err := s.CreateIssue(ctx, n); err != nil {
						t.Error(err)
					}
				})
			}
			wg.Wait()
			var events int64
			s.DB().Model(&store.HookEvent{}).Where("repo_id = ?", tc.repo.ID).Count(&events)
			if got := kicks.Load(); (got > 0) != tc.wakes || (events > 0) != tc.wakes {
				t.Errorf("%s: %d webhook events queued, %d wake-ups; want some of both: %v", tc.repo.Name, events, got, tc.wakes)
			}
		}
	})
}
