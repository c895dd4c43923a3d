package pulls

import (
	"testing"

	"forge/services/access"
	"forge/services/store"
)

// TestMergedPullIsClosed: an issue row read just before the merge's commit
// (still open) with the pull row read just after it (merged) is answered
// closed at the merge's time, never "merged but open".
func TestMergedPullIsClosed(t *testing.T) {
	base := &access.Repo{Repository: &store.Repository{ID: 1, Name: "r"}, Owner: &store.User{Name: "o"}}
	for _, tc := range []struct {
		name       string
		is         store.Issue
		pr         store.PullRequest
		state      string
		closedUnix int64
	}{
		{"open", store.Issue{Index: 1}, store.PullRequest{}, "open", 0},
		{"closed unmerged", store.Issue{Index: 1, IsClosed: true, ClosedUnix: 50}, store.PullRequest{}, "closed", 50},
		{"merged and closed", store.Issue{Index: 1, IsClosed: true, ClosedUnix: 100}, store.PullRequest{HasMerged: true, MergedUnix: 100}, "closed", 100},
		{"merged, issue read before the merge", store.Issue{Index: 1}, store.PullRequest{HasMerged: true, MergedUnix: 100}, "closed", 100},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := view{root: "http://x/"}.pull(&tc.is, &tc.pr, base, nil, nil, "", nil, nil, nil, nil)
			if out.State != tc.state {
				t.Fatalf("state %q, want %q", out.State, tc.state)
			}
			if got := out.GetClosedAt(); (got == nil) != (tc.closedUnix == 0) || (got != nil && got.GetSeconds() != tc.closedUnix) {
				t.Fatalf("closed_at %v, want unix %d", got, tc.closedUnix)
			}
		})
	}
}
