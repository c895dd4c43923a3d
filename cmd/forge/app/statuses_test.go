package app_test

import (
	"fmt"
	"slices"
	"sort"
	"sync"
	"testing"

	"code.gitea.io/sdk/gitea"
)

// TestCommitStatusesSDK: the Gitea SDK's status calls parse forge's
// answers; the combined state follows Gitea's precedence (error <
// failure < warning < pending < success) over the latest status of each
// context as reports arrive; and 50 reporters of one commit at once, each
// with its own context, are all stored with distinct consecutive ids.
// (Who may call, the 422s and the list's sort, filter and headers are
// cases in testdata/cases/statuses.yaml.)
func TestCommitStatusesSDK(t *testing.T) {
	t.Parallel()
	eachBackend(t, nil, func(t *testing.T, s *testServer) {
		aliceTok := s.seedUser("alice", "alice-password", false)
		alice := s.sdk(gitea.SetToken(aliceTok))
		anon := s.sdk()
		s.createRepo(t, aliceTok, "proj", true, false)
		branch, _, err := anon.GetRepoBranch("alice", "proj", "main")
		if err != nil {
			t.Fatal(err)
		}
		sha := branch.Commit.ID

		// Each report, then the combined state it leaves.
		steps := []statusStep{
			{"ci/build", gitea.StatusPending, gitea.StatusPending},
			{"ci/build", gitea.StatusSuccess, gitea.StatusSuccess},
			{"deploy", gitea.StatusPending, gitea.StatusPending},
			{"lint", gitea.StatusWarning, gitea.StatusWarning},
			{"deploy", gitea.StatusSuccess, gitea.StatusWarning},
			{"lint", gitea.StatusFailure, gitea.StatusFailure},
			{"security", gitea.StatusError, gitea.StatusError},
			{"lint", gitea.StatusSuccess, gitea.StatusError},
			{"security", gitea.StatusSuccess, gitea.StatusSuccess},
		}
		for i, st := range steps {
			created, _, err := alice.CreateStatus("alice", "proj", "main", gitea.CreateStatusOption{
				State: st.state, Context: st.context, TargetURL: "https://ci.example/" + st.context,
				Description: "step " + fmt.Sprint(i+1),
			})
			if err != nil || created.ID != int64(i+1) || created.State != st.state || created.Context != st.context ||
				created.Creator == nil || created.Creator.UserName != "alice" || created.Created.IsZero() ||
				!created.Updated.Equal(created.Created) || created.URL != s.URL+"/api/v1/repos/alice/proj/statuses/"+sha {
				t.Fatalf("step %d: CreateStatus %+v %v", i+1, created, err)
			}
			combined, resp, err := anon.GetCombinedStatus("alice", "proj", sha)
			if err != nil || combined.State != st.want || combined.SHA != sha {
				t.Fatalf("step %d (%s %s): combined %+v %v, want %s", i+1, st.context, st.state, combined, err, st.want)
			}
			if contexts := distinctContexts(steps[:i+1]); combined.TotalCount != contexts || resp.Header.Get("X-Total-Count") != fmt.Sprint(contexts) {
				t.Fatalf("step %d: %d contexts (header %q), want %d", i+1, combined.TotalCount, resp.Header.Get("X-Total-Count"), contexts)
			}
		}

		// The combined status: the latest of each context, newest first.
		combined, _, err := anon.GetCombinedStatus("alice", "proj", "main")
		if err != nil {
			t.Fatal(err)
		}
		var latest []string
		for _, st := range combined.Statuses {
			latest = append(latest, fmt.Sprintf("%d %s %s", st.ID, st.Context, st.State))
		}
		want := []string{"9 security success", "8 lint success", "5 deploy success", "2 ci/build success"}
		if !slices.Equal(latest, want) || combined.Repository == nil || combined.Repository.FullName != "alice/proj" ||
			combined.CommitURL != s.URL+"/api/v1/repos/alice/proj/git/commits/"+sha {
			t.Fatalf("combined: %q %+v, want %q", latest, combined, want)
		}

		// The list: every report, newest first.
		list, resp, err := anon.ListStatuses("alice", "proj", "main", gitea.ListStatusesOption{})
		if err != nil || len(list) != len(steps) || list[0].ID != int64(len(steps)) || list[len(steps)-1].ID != 1 ||
			list[len(steps)-1].TargetURL != "https://ci.example/ci/build" || list[len(steps)-1].Description != "step 1" ||
			resp.Header.Get("X-Total-Count") != fmt.Sprint(len(steps)) {
			t.Fatalf("ListStatuses: %d statuses %v", len(list), err)
		}

		// 50 reporters at once, each with its own context.
		const n = 50
		var wg sync.WaitGroup
		ids := make([]int64, n)
		failures := make([]error, n)
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				st, _, err := alice.CreateStatus("alice", "proj", sha, gitea.CreateStatusOption{
					State: gitea.StatusSuccess, Context: fmt.Sprintf("parallel/%02d", i),
				})
				failures[i] = err
				if err == nil {
					ids[i] = st.ID
				}
			}()
		}
		wg.Wait()
		for i, err := range failures {
			if err != nil {
				t.Fatalf("reporter %d: %v", i, err)
			}
		}
		sort.Slice(ids, func(a, b int) bool { return ids[a] < ids[b] })
		for i, id := range ids {
			if id != int64(len(steps)+1+i) {
				t.Fatalf("ids of the concurrent reports: %v, want %d..%d", ids, len(steps)+1, len(steps)+n)
			}
		}
		stored := map[string]bool{}
		for page := 1; ; page++ {
			got, _, err := anon.ListStatuses("alice", "proj", sha, gitea.ListStatusesOption{ListOptions: gitea.ListOptions{Page: page, PageSize: 50}})
			if err != nil {
				t.Fatal(err)
			}
			if len(got) == 0 {
				break
			}
			for _, st := range got {
				stored[fmt.Sprintf("%d %s", st.ID, st.Context)] = true
			}
		}
		if len(stored) != len(steps)+n {
			t.Fatalf("%d statuses stored, want %d", len(stored), len(steps)+n)
		}
		_, resp, err = anon.GetCombinedStatus("alice", "proj", sha)
		if err != nil || resp.Header.Get("X-Total-Count") != fmt.Sprint(4+n) {
			t.Fatalf("contexts after the concurrent reports: %q %v, want %d", resp.Header.Get("X-Total-Count"), err, 4+n)
		}
	})
}

// statusStep is a report and the combined state it leaves.
type statusStep struct {
	context string
	state   gitea.StatusState
	want    gitea.StatusState
}

// distinctContexts counts the contexts among steps.
func distinctContexts(steps []statusStep) int {
	seen := map[string]bool{}
	for _, st := range steps {
		seen[st.context] = true
	}
	return len(seen)
}
