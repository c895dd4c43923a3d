package store_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"forge/services/store"
	"forge/services/store/storetest"
)

// report stores a status of sha in repository 1.
func report(t *testing.T, s *store.Store, sha, name, state string) *store.CommitStatus {
	t.Helper()
	st := &store.CommitStatus{RepoID: 1, SHA: sha, Context: name, State: state}
	if err := s.CreateCommitStatus(context.Background(), st); err != nil {
		t.Fatalf("report %s %s on %s: %v", name, state, sha, err)
	}
	return st
}

// shown is "index context state" for each status.
func shown(list []store.CommitStatus) []string {
	out := []string{}
	for _, st := range list {
		out = append(out, fmt.Sprintf("%d %s %s", st.Index, st.Context, st.State))
	}
	return out
}

// TestCommitStatuses: statuses are numbered per commit; the list sorts
// and filters by state with its total; the latest status of each context
// pages newest first with the number of contexts; and the combined
// states of several commits come from one call, worst state first in
// Gitea's order, a commit without statuses absent.
func TestCommitStatuses(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		a, b, c, none := strings.Repeat("a", 40), strings.Repeat("b", 40), strings.Repeat("c", 40), strings.Repeat("d", 40)
		report(t, s, a, "build", store.StatusPending)
		report(t, s, a, "lint", store.StatusWarning)
		report(t, s, b, "build", store.StatusSuccess) // b's own numbering
		report(t, s, a, "build", store.StatusSuccess)
		report(t, s, c, "build", store.StatusFailure)
		report(t, s, c, "deploy", store.StatusError)
		report(t, s, c, "lint", store.StatusPending)
		if st := report(t, s, b, "lint", store.StatusSuccess); st.Index != 2 || st.ContextHash == "" || st.CreatedUnix == 0 {
			t.Fatalf("b's second status: %+v", st)
		}
		// The same context in another repository is another commit.
		if err := s.CreateCommitStatus(ctx, &store.CommitStatus{RepoID: 2, SHA: a, Context: "build", State: store.StatusError}); err != nil {
			t.Fatal(err)
		}

		list, total, err := s.ListCommitStatuses(ctx, store.CommitStatusListOptions{RepoID: 1, SHA: a, Limit: 10})
		if want := []string{"3 build success", "2 lint warning", "1 build pending"}; err != nil || total != 3 || !slices.Equal(shown(list), want) {
			t.Fatalf("list of a: %q (%d) %v, want %q", shown(list), total, err, want)
		}
		list, total, err = s.ListCommitStatuses(ctx, store.CommitStatusListOptions{RepoID: 1, SHA: a, Sort: "oldest", Offset: 1, Limit: 1})
		if want := []string{"2 lint warning"}; err != nil || total != 3 || !slices.Equal(shown(list), want) {
			t.Fatalf("second oldest of a: %q (%d) %v, want %q", shown(list), total, err, want)
		}
		list, total, err = s.ListCommitStatuses(ctx, store.CommitStatusListOptions{RepoID: 1, SHA: a, State: store.StatusPending, Limit: 10})
		if want := []string{"1 build pending"}; err != nil || total != 1 || !slices.Equal(shown(list), want) {
			t.Fatalf("pending of a: %q (%d) %v, want %q", shown(list), total, err, want)
		}
		list, total, err = s.ListCommitStatuses(ctx, store.CommitStatusListOptions{RepoID: 1, SHA: none, Limit: 10})
		if err != nil || total != 0 || list == nil || len(list) != 0 {
			t.Fatalf("list of a commit without statuses: %v (%d) %v", list, total, err)
		}

		latest, contexts, err := s.LatestCommitStatuses(ctx, 1, a, 0, 10)
		if want := []string{"3 build success", "2 lint warning"}; err != nil || contexts != 2 || !slices.Equal(shown(latest), want) {
			t.Fatalf("latest of a: %q (%d) %v, want %q", shown(latest), contexts, err, want)
		}
		latest, contexts, err = s.LatestCommitStatuses(ctx, 1, c, 1, 1)
		if want := []string{"2 deploy error"}; err != nil || contexts != 3 || !slices.Equal(shown(latest), want) {
			t.Fatalf("second page of c's latest: %q (%d) %v, want %q", shown(latest), contexts, err, want)
		}

		states, err := s.CombinedCommitStates(ctx, 1, []string{a, b, c, none})
		want := map[string]string{a: store.StatusWarning, b: store.StatusSuccess, c: store.StatusError}
		if err != nil || len(states) != len(want) {
			t.Fatalf("combined states: %v %v, want %v", states, err, want)
		}
		for sha, state := range want {
			if states[sha] != state {
				t.Errorf("combined state of %s: %q, want %q", sha[:1], states[sha], state)
			}
		}
	})
}

// TestCommitStatusesConcurrent: 50 reporters of one commit at once, in
// one context, get the indexes 1..50 each once, and the context's latest
// status is the one with the highest.
func TestCommitStatusesConcurrent(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		sha := strings.Repeat("e", 40)
		const n = 50
		indexes := make([]int64, n)
		errs := make([]error, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				state := store.StatusPending
				if i%2 == 1 {
					state = store.StatusFailure
				}
				st := &store.CommitStatus{RepoID: 1, SHA: sha, Context: "build", State: state}
				errs[i] = s.CreateCommitStatus(ctx, st)
				indexes[i] = st.Index
			}()
		}
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				t.Fatalf("reporter %d: %v", i, err)
			}
		}
		slices.Sort(indexes)
		for i, idx := range indexes {
			if idx != int64(i+1) {
				t.Fatalf("indexes: %v", indexes)
			}
		}
		all, total, err := s.ListCommitStatuses(ctx, store.CommitStatusListOptions{RepoID: 1, SHA: sha, Limit: n})
		if err != nil || total != n || all[0].Index != n {
			t.Fatalf("%d statuses stored, %v", total, err)
		}
		latest, contexts, err := s.LatestCommitStatuses(ctx, 1, sha, 0, 10)
		if err != nil || contexts != 1 || len(latest) != 1 || latest[0].Index != n || latest[0].State != all[0].State {
			t.Fatalf("latest: %+v (%d) %v, want index %d", latest, contexts, err, n)
		}
		states, err := s.CombinedCommitStates(ctx, 1, []string{sha})
		if err != nil || states[sha] != all[0].State {
			t.Fatalf("combined: %v %v, want %s", states, err, all[0].State)
		}
	})
}
