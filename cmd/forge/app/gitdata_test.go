package app_test

import (
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"

	"code.gitea.io/sdk/gitea"
)

func TestGitDataAPI(t *testing.T) {
	t.Parallel()
	eachBackend(t, nil, func(t *testing.T, s *testServer) {
		const pw = "alice-password"
		aliceTok := s.seedUser("alice", pw, false)
		auth := []string{"Authorization", "token " + aliceTok}
		s.createRepo(t, aliceTok, "proj", false, false)
		work := s.clone(t, "alice", pw, "alice", "proj")
		gitCmd(t, work, "checkout", "-q", "-b", "main")
		commitAs(t, work, "alice@example.org", 1_700_000_000, "a.txt", "hello\n", "first")
		c2 := commitAs(t, work, "alice@example.org", 1_700_000_010, "docs/x.md", "x\n", "docs")
		gitCmd(t, work, "tag", "-a", "-m", "release one", "v1")
		gitCmd(t, work, "tag", "light")
		gitCmd(t, work, "push", "-q", "origin", "main", "v1", "light")
		rev := func(r string) string { return strings.TrimSpace(gitCmd(t, work, "rev-parse", r)) }
		api := s.URL + "/api/v1/repos/alice/proj"
		alice := s.sdk(gitea.SetToken(aliceTok))

		// Trees: by branch, flat and recursive, and paged.
		tr, _, err := alice.GetTrees("alice", "proj", gitea.ListTreeOptions{Ref: "main"})
		if err != nil || tr.SHA != rev(c2+"^{tree}") || tr.URL != api+"/git/trees/"+tr.SHA || tr.TotalCount != 2 || tr.Truncated ||
			len(tr.Entries) != 2 || tr.Entries[0].Path != "a.txt" || tr.Entries[0].Type != "blob" || tr.Entries[0].Mode != "100644" ||
			tr.Entries[0].Size != 6 || tr.Entries[0].SHA != rev(c2+":a.txt") || tr.Entries[0].URL != api+"/git/blobs/"+tr.Entries[0].SHA ||
			tr.Entries[1].Path != "docs" || tr.Entries[1].Type != "tree" || tr.Entries[1].Mode != "040000" || tr.Entries[1].URL != api+"/git/trees/"+rev(c2+":docs") {
			t.Fatalf("tree: %v %+v", err, tr)
		}
		tr, _, err = alice.GetTrees("alice", "proj", gitea.ListTreeOptions{Ref: c2, Recursive: true})
		if err != nil || tr.TotalCount != 3 || len(tr.Entries) != 3 || tr.Entries[2].Path != "docs/x.md" || tr.Entries[2].Size != 2 {
			t.Fatalf("recursive tree: %v %+v", err, tr)
		}
		r := s.do("GET", "/api/v1/repos/alice/proj/git/trees/"+tr.SHA+"?recursive=true&per_page=2&page=2", "", auth...)
		var page gitea.GitTreeResponse
		if r.Status != 200 || json.Unmarshal(r.Body, &page) != nil || !page.Truncated || page.Page != 2 || page.TotalCount != 3 ||
			len(page.Entries) != 1 || page.Entries[0].Path != "docs/x.md" {
			t.Fatalf("tree page 2: %d %s", r.Status, r.Body)
		}
		r = s.do("GET", "/api/v1/repos/alice/proj/git/trees/main?page=5", "", auth...)
		if r.Status != 200 || !strings.Contains(string(r.Body), `"tree":null`) {
			t.Fatalf("tree past the end: %d %s", r.Status, r.Body)
		}
		r = s.do("GET", "/api/v1/repos/alice/proj/git/trees/nope", "", auth...)
		if r.Status != 400 || r.message(t) != "sha not found [nope]" {
			t.Fatalf("missing tree: %d %s", r.Status, r.Body)
		}

		// Blobs.
		blobSHA := rev(c2 + ":a.txt")
		b, _, err := alice.GetBlob("alice", "proj", blobSHA)
		if err != nil || b.SHA != blobSHA || b.Size != 6 || b.Encoding != "base64" || b.URL != api+"/git/blobs/"+blobSHA {
			t.Fatalf("blob: %v %+v", err, b)
		}
		if got, _ := base64.StdEncoding.DecodeString(b.Content); string(got) != "hello\n" {
			t.Fatalf("blob content %q", b.Content)
		}
		expectStatus(t, s.do("GET", "/api/v1/repos/alice/proj/git/blobs/"+rev(c2+"^{tree}"), "", auth...), 400)
		expectStatus(t, s.do("GET", "/api/v1/repos/alice/proj/git/blobs/0123456789012345678901234567890123456789", "", auth...), 400)

		// Refs: all, one exactly (an object), a prefix (a list).
		refs, _, err := alice.GetRepoRefs("alice", "proj", "")
		if err != nil || len(refs) != 3 || refs[0].Ref != "refs/heads/main" || refs[1].Ref != "refs/tags/light" || refs[2].Ref != "refs/tags/v1" ||
			refs[2].Object.Type != "tag" || refs[2].Object.SHA != rev("v1") || refs[2].Object.URL != api+"/git/tags/"+rev("v1") ||
			refs[0].Object.Type != "commit" || refs[0].URL != api+"/git/refs/heads/main" {
			t.Fatalf("refs: %v %+v", err, refs)
		}
		r = s.do("GET", "/api/v1/repos/alice/proj/git/refs/heads/main", "", auth...)
		if r.Status != 200 || !strings.HasPrefix(string(r.Body), `{`) || !strings.Contains(string(r.Body), `"ref":"refs/heads/main"`) {
			t.Fatalf("one ref: %d %s", r.Status, r.Body)
		}
		r = s.do("GET", "/api/v1/repos/alice/proj/git/refs/tags", "", auth...)
		if r.Status != 200 || !strings.HasPrefix(string(r.Body), `[`) || strings.Count(string(r.Body), `"ref":`) != 2 {
			t.Fatalf("tag refs: %d %s", r.Status, r.Body)
		}
		if ref, _, err := alice.GetRepoRef("alice", "proj", "tags/v1"); err != nil || ref.Object.SHA != rev("v1") {
			t.Fatalf("ref tags/v1: %v %+v", err, ref)
		}
		expectStatus(t, s.do("GET", "/api/v1/repos/alice/proj/git/refs/heads/nope", "", auth...), 404)

		// Annotated tags.
		at, _, err := alice.GetAnnotatedTag("alice", "proj", rev("v1"))
		if err != nil || at.Tag != "v1" || at.SHA != rev("v1") || at.Message != "release one\n" || at.Object == nil ||
			at.Object.SHA != c2 || at.Object.Type != "commit" || at.Object.URL != api+"/git/commits/"+c2 ||
			at.URL != api+"/git/tags/"+rev("v1") || at.Tagger == nil || at.Tagger.Name == "" {
			t.Fatalf("annotated tag: %v %+v", err, at)
		}
		expectStatus(t, s.do("GET", "/api/v1/repos/alice/proj/git/tags/"+c2, "", auth...), 400)
	})
}
