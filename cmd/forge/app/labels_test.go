package app_test

import (
	"net/http"
	"strings"
	"testing"

	"code.gitea.io/sdk/gitea"
)

func sdkLabelNames(ls []*gitea.Label) string {
	var out []string
	for _, l := range ls {
		out = append(out, l.Name)
	}
	return strings.Join(out, ",")
}

// TestLabelsSDK drives repository labels and issue labels through the
// official SDK on both databases: colours with and without "#", the
// archive state kept by an edit that does not carry it, paging, labels on
// create, add/replace/delete/clear, the exclusive 422 and replace-on-add.
func TestLabelsSDK(t *testing.T) {
	t.Parallel()
	eachBackend(t, nil, func(t *testing.T, s *testServer) {
		aliceTok := s.seedUser("alice", "alice-password", false)
		bobTok := s.seedUser("bob", "bob-password", false)
		alice := s.sdk(gitea.SetToken(aliceTok))
		bob := s.sdk(gitea.SetToken(bobTok))
		anon := s.sdk()
		s.createRepo(t, aliceTok, "proj", false, false)

		mk := func(name, color string, exclusive, archived bool) *gitea.Label {
			t.Helper()
			l, resp, err := alice.CreateLabel("alice", "proj", gitea.CreateLabelOption{Name: name, Color: color, Exclusive: exclusive, IsArchived: archived})
			if err != nil || resp.StatusCode != http.StatusCreated {
				t.Fatalf("CreateLabel %s: %v", name, err)
			}
			return l
		}
		bug := mk("bug", "#00AABB", false, false)
		if bug.Color != "00aabb" || bug.URL != s.URL+"/api/v1/repos/alice/proj/labels/"+fmtInt(bug.ID) {
			t.Fatalf("bug: %+v", bug)
		}
		if red := mk("red", "FF0000", false, false); red.Color != "ff0000" {
			t.Fatalf("colour without #: %q", red.Color)
		}
		high := mk("priority/high", "#aa0000", true, false)
		low := mk("priority/low", "#00aa00", true, false)
		old := mk("old", "#cccccc", false, true)
		if !old.IsArchived || !high.Exclusive {
			t.Fatalf("create flags: %+v %+v", old, high)
		}
		if _, _, err := bob.CreateLabel("alice", "proj", gitea.CreateLabelOption{Name: "x", Color: "#000000"}); err == nil {
			t.Fatal("a stranger created a label")
		}

		// The SDK sends every unset field as null: the archive state stays.
		desc := "kept"
		got, _, err := alice.EditLabel("alice", "proj", old.ID, gitea.EditLabelOption{Description: &desc})
		if err != nil || !got.IsArchived || got.Description != "kept" || got.Name != "old" || got.Color != "cccccc" {
			t.Fatalf("edit without is_archived: %+v %v", got, err)
		}
		no := false
		if got, _, err = alice.EditLabel("alice", "proj", old.ID, gitea.EditLabelOption{IsArchived: &no}); err != nil || got.IsArchived {
			t.Fatalf("unarchive: %+v %v", got, err)
		}
		if got, _, err := anon.GetRepoLabel("alice", "proj", bug.ID); err != nil || got.Name != "bug" {
			t.Fatalf("GetRepoLabel: %+v %v", got, err)
		}

		page, resp, err := anon.ListRepoLabels("alice", "proj", gitea.ListLabelsOptions{ListOptions: gitea.ListOptions{Page: 2, PageSize: 2}})
		if err != nil || sdkLabelNames(page) != "priority/high,priority/low" || resp.Header.Get("X-Total-Count") != "5" {
			t.Fatalf("page 2: %s %v", sdkLabelNames(page), err)
		}

		// Labels on create: writers only, with the exclusive rule.
		issue, _, err := alice.CreateIssue("alice", "proj", gitea.CreateIssueOption{Title: "one", Labels: []int64{bug.ID, high.ID}})
		if err != nil || sdkLabelNames(issue.Labels) != "bug,priority/high" {
			t.Fatalf("create with labels: %+v %v", issue, err)
		}
		if _, resp, err := alice.CreateIssue("alice", "proj", gitea.CreateIssueOption{Title: "two", Labels: []int64{high.ID, low.ID}}); err == nil || resp.StatusCode != http.StatusUnprocessableEntity {
			t.Fatalf("create with two of a scope: %v", err)
		}
		n := issue.Index

		// Adding the other label of the scope replaces the first.
		ls, _, err := alice.AddIssueLabels("alice", "proj", n, gitea.IssueLabelsOption{Labels: []int64{low.ID}})
		if err != nil || sdkLabelNames(ls) != "bug,priority/low" {
			t.Fatalf("replace on add: %s %v", sdkLabelNames(ls), err)
		}
		// Two of one scope in one request: 422 naming the scope, nothing changes.
		for name, call := range map[string]func() (*gitea.Response, error){
			"add": func() (*gitea.Response, error) {
				_, r, err := alice.AddIssueLabels("alice", "proj", n, gitea.IssueLabelsOption{Labels: []int64{high.ID, low.ID}})
				return r, err
			},
			"replace": func() (*gitea.Response, error) {
				_, r, err := alice.ReplaceIssueLabels("alice", "proj", n, gitea.IssueLabelsOption{Labels: []int64{high.ID, low.ID}})
				return r, err
			},
		} {
			resp, err := call()
			if err == nil || resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(err.Error(), `"priority"`) {
				t.Fatalf("%s two of a scope: %v", name, err)
			}
		}
		if ls, _, err = anon.GetIssueLabels("alice", "proj", n, gitea.ListLabelsOptions{}); err != nil || sdkLabelNames(ls) != "bug,priority/low" {
			t.Fatalf("after refusal: %s %v", sdkLabelNames(ls), err)
		}
		if ls, _, err = alice.ReplaceIssueLabels("alice", "proj", n, gitea.IssueLabelsOption{Labels: []int64{old.ID, high.ID}}); err != nil || sdkLabelNames(ls) != "old,priority/high" {
			t.Fatalf("replace: %s %v", sdkLabelNames(ls), err)
		}
		if _, err := bob.DeleteIssueLabel("alice", "proj", n, old.ID); err == nil {
			t.Fatal("a stranger removed a label")
		}
		if _, err := alice.DeleteIssueLabel("alice", "proj", n, old.ID); err != nil {
			t.Fatal(err)
		}
		if got, _, err := alice.GetIssue("alice", "proj", n); err != nil || sdkLabelNames(got.Labels) != "priority/high" {
			t.Fatalf("issue JSON labels: %+v %v", got, err)
		}
		if _, err := alice.ClearIssueLabels("alice", "proj", n); err != nil {
			t.Fatal(err)
		}
		if ls, _, err = anon.GetIssueLabels("alice", "proj", n, gitea.ListLabelsOptions{}); err != nil || len(ls) != 0 {
			t.Fatalf("after clear: %s %v", sdkLabelNames(ls), err)
		}

		if _, err := alice.DeleteLabel("alice", "proj", bug.ID); err != nil {
			t.Fatal(err)
		}
		if _, resp, err := anon.GetRepoLabel("alice", "proj", bug.ID); err == nil || resp.StatusCode != http.StatusNotFound {
			t.Fatalf("deleted label: %v", err)
		}
	})
}

// TestOrgLabelsSDK drives organization labels through the SDK: create
// (owners only), get, list, edit, delete, and their use on an issue of
// the organization's repository.
func TestOrgLabelsSDK(t *testing.T) {
	t.Parallel()
	eachBackend(t, nil, func(t *testing.T, s *testServer) {
		aliceTok := s.seedUser("alice", "alice-password", false)
		bobTok := s.seedUser("bob", "bob-password", false)
		alice := s.sdk(gitea.SetToken(aliceTok))
		bob := s.sdk(gitea.SetToken(bobTok))
		if _, _, err := alice.CreateOrg(gitea.CreateOrgOption{Name: "acme"}); err != nil {
			t.Fatal(err)
		}
		if _, _, err := alice.CreateOrgRepo("acme", gitea.CreateRepoOption{Name: "app"}); err != nil {
			t.Fatal(err)
		}
		if _, _, err := bob.CreateOrgLabel("acme", gitea.CreateOrgLabelOption{Name: "x", Color: "#000000"}); err == nil {
			t.Fatal("a stranger created an organization label")
		}
		mk := func(name string, exclusive bool) *gitea.Label {
			t.Helper()
			l, resp, err := alice.CreateOrgLabel("acme", gitea.CreateOrgLabelOption{Name: name, Color: "#0000FF", Exclusive: exclusive})
			if err != nil || resp.StatusCode != http.StatusCreated || l.Color != "0000ff" ||
				l.URL != s.URL+"/api/v1/orgs/acme/labels/"+fmtInt(l.ID) {
				t.Fatalf("CreateOrgLabel %s: %+v %v", name, l, err)
			}
			return l
		}
		bug := mk("bug", false)
		small := mk("size/s", true)
		large := mk("size/l", true)
		if got, _, err := bob.GetOrgLabel("acme", bug.ID); err != nil || got.Name != "bug" {
			t.Fatalf("GetOrgLabel: %+v %v", got, err)
		}
		list, resp, err := s.sdk().ListOrgLabels("acme", gitea.ListOrgLabelsOptions{ListOptions: gitea.ListOptions{Page: 1, PageSize: 2}})
		if err != nil || sdkLabelNames(list) != "bug,size/l" || resp.Header.Get("X-Total-Count") != "3" {
			t.Fatalf("ListOrgLabels: %s %v", sdkLabelNames(list), err)
		}
		name := "defect"
		if got, _, err := alice.EditOrgLabel("acme", bug.ID, gitea.EditOrgLabelOption{Name: &name}); err != nil || got.Name != "defect" {
			t.Fatalf("EditOrgLabel: %+v %v", got, err)
		}

		issue, _, err := alice.CreateIssue("acme", "app", gitea.CreateIssueOption{Title: "t", Labels: []int64{bug.ID, small.ID}})
		if err != nil || sdkLabelNames(issue.Labels) != "defect,size/s" {
			t.Fatalf("issue with organization labels: %+v %v", issue, err)
		}
		ls, _, err := alice.AddIssueLabels("acme", "app", issue.Index, gitea.IssueLabelsOption{Labels: []int64{large.ID}})
		if err != nil || sdkLabelNames(ls) != "defect,size/l" {
			t.Fatalf("replace on add: %s %v", sdkLabelNames(ls), err)
		}
		if _, err := alice.DeleteOrgLabel("acme", large.ID); err != nil {
			t.Fatal(err)
		}
		if ls, _, err = alice.GetIssueLabels("acme", "app", issue.Index, gitea.ListLabelsOptions{}); err != nil || sdkLabelNames(ls) != "defect" {
			t.Fatalf("after deleting the label: %s %v", sdkLabelNames(ls), err)
		}
	})
}
