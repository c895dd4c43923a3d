package issues

import (
	"context"
	"testing"

	"forge/services/store"
	"forge/services/users"
)

// countingStore answers what rendering reads, counting attachment
// queries; everything else is the nil embedded interface (a call panics).
type countingStore struct {
	Store
	attachmentQueries map[string]int
	files             map[int64][]store.Attachment
}

func (s *countingStore) UsersByID(context.Context, []int64) (map[int64]*store.User, error) {
	return map[int64]*store.User{}, nil
}

func (s *countingStore) IssueAssignees(context.Context, []int64) (map[int64][]int64, error) {
	return map[int64][]int64{}, nil
}

func (s *countingStore) LabelsOfIssues(context.Context, []int64) (map[int64][]store.Label, error) {
	return map[int64][]store.Label{}, nil
}

func (s *countingStore) MilestonesByID(context.Context, []int64) (map[int64]*store.Milestone, error) {
	return map[int64]*store.Milestone{}, nil
}

func (s *countingStore) AttachmentsOf(_ context.Context, _ int64, column string, ids []int64) (map[int64][]store.Attachment, error) {
	s.attachmentQueries[column]++
	out := map[int64][]store.Attachment{}
	for _, id := range ids {
		if f, ok := s.files[id]; ok {
			out[id] = f
		}
	}
	return out, nil
}

// TestAssetsOneQueryPerList: a page of issues or comments loads its files
// in one query, and each object shows its own.
func TestAssetsOneQueryPerList(t *testing.T) {
	st := &countingStore{attachmentQueries: map[string]int{}, files: map[int64][]store.Attachment{
		7: {{ID: 70, UUID: "u70", Name: "a.txt", Size: 3}},
	}}
	v := view{root: "http://forge.test/", users: users.Renderer{RootURL: "http://forge.test/"}, store: st}
	list := make([]store.Issue, 50)
	for i := range list {
		list[i] = store.Issue{ID: int64(i + 1), RepoID: 1, Index: int64(i + 1)}
	}
	out, err := v.issues(context.Background(), nil, list, func(int64) repoRef { return repoRef{id: 1, owner: "o", name: "r"} })
	if err != nil {
		t.Fatal(err)
	}
	if n := st.attachmentQueries["issue_id"]; n != 1 {
		t.Fatalf("%d attachment queries for 50 issues, want 1", n)
	}
	for _, is := range out {
		want := 0
		if is.Id == 7 {
			want = 1
		}
		if is.Assets == nil || len(is.Assets) != want {
			t.Fatalf("issue %d: assets %v", is.Id, is.Assets)
		}
	}
	if a := out[6].Assets[0]; a.Id != 70 || a.Uuid != "u70" || a.BrowserDownloadUrl != "http://forge.test/attachments/u70" {
		t.Fatalf("rendered asset: %+v", a)
	}

	comments := []store.Comment{{ID: 7, IssueID: 1}, {ID: 8, IssueID: 1}, {ID: 9, IssueID: 1}}
	cs, err := v.comments(context.Background(), nil, comments, repoRef{id: 1, owner: "o", name: "r"}, map[int64]*store.Issue{1: &list[0]})
	if err != nil {
		t.Fatal(err)
	}
	if n := st.attachmentQueries["comment_id"]; n != 1 {
		t.Fatalf("%d attachment queries for 3 comments, want 1", n)
	}
	if len(cs[0].Assets) != 1 || cs[1].Assets == nil || len(cs[1].Assets) != 0 {
		t.Fatalf("comment assets: %v / %v", cs[0].Assets, cs[1].Assets)
	}
}
