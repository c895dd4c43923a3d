package app_test

import (
	"strings"
	"testing"

	"code.gitea.io/sdk/gitea"
)

func TestTagsCreateDelete(t *testing.T) {
	t.Parallel()
	eachBackend(t, nil, func(t *testing.T, s *testServer) {
		aliceTok := s.seedUser("alice", "alice-password", false)
		s.createRepo(t, aliceTok, "proj", true, false)
		alice := s.sdk(gitea.SetToken(aliceTok))
		head := s.remoteRef(t, "alice", "proj", "heads/main")

		// Lightweight at the default branch.
		tg, resp, err := alice.CreateTag("alice", "proj", gitea.CreateTagOption{TagName: "light"})
		if err != nil || resp.StatusCode != 201 || tg.Name != "light" || tg.ID != head || tg.Commit == nil || tg.Commit.SHA != head ||
			tg.ZipballURL != s.URL+"/alice/proj/archive/light.zip" {
			t.Fatalf("create lightweight: %v %+v", err, tg)
		}
		if got := s.remoteRef(t, "alice", "proj", "tags/light"); got != head {
			t.Fatalf("refs/tags/light = %q", got)
		}
		// Annotated, tagger the caller.
		tg, resp, err = alice.CreateTag("alice", "proj", gitea.CreateTagOption{TagName: "v1", Target: "main", Message: "one"})
		if err != nil || resp.StatusCode != 201 || tg.ID == head || tg.Commit.SHA != head || !strings.HasPrefix(tg.Message, "one") {
			t.Fatalf("create annotated: %v %+v", err, tg)
		}
		at, _, err := alice.GetAnnotatedTag("alice", "proj", tg.ID)
		if err != nil || at.Tagger == nil || at.Tagger.Name != "alice" || at.Object.SHA != head {
			t.Fatalf("annotated tag object: %v %+v", err, at)
		}
		if got, _, err := alice.GetTag("alice", "proj", "v1"); err != nil || got.ID != tg.ID {
			t.Fatalf("get v1: %v %+v", err, got)
		}
		tags, _, err := alice.ListRepoTags("alice", "proj", gitea.ListRepoTagsOptions{})
		if err != nil || len(tags) != 2 {
			t.Fatalf("list tags: %v %d", err, len(tags))
		}

		// Existing, unknown target, bad name.
		_, resp, _ = alice.CreateTag("alice", "proj", gitea.CreateTagOption{TagName: "v1"})
		if resp == nil || resp.StatusCode != 409 {
			t.Fatalf("existing tag: %v", resp)
		}
		r := s.do("POST", "/api/v1/repos/alice/proj/tags", `{"tag_name":"v1"}`, "Authorization", "token "+aliceTok, "Content-Type", "application/json")
		if r.Status != 409 || r.message(t) != "tag already exists [name: v1]" {
			t.Fatalf("existing tag: %d %s", r.Status, r.Body)
		}
		r = s.do("POST", "/api/v1/repos/alice/proj/tags", `{"tag_name":"x","target":"nope"}`, "Authorization", "token "+aliceTok, "Content-Type", "application/json")
		if r.Status != 404 {
			t.Fatalf("unknown target: %d %s", r.Status, r.Body)
		}
		r = s.do("POST", "/api/v1/repos/alice/proj/tags", `{"tag_name":"a..b"}`, "Authorization", "token "+aliceTok, "Content-Type", "application/json")
		if r.Status != 422 {
			t.Fatalf("bad name: %d %s", r.Status, r.Body)
		}

		// Delete.
		if resp, err := alice.DeleteTag("alice", "proj", "light"); err != nil || resp.StatusCode != 204 {
			t.Fatalf("delete: %v %v", err, resp)
		}
		if got := s.remoteRef(t, "alice", "proj", "tags/light"); got != "" {
			t.Fatalf("refs/tags/light still %q", got)
		}
		if resp, _ := alice.DeleteTag("alice", "proj", "light"); resp == nil || resp.StatusCode != 404 {
			t.Fatalf("delete again: %v", resp)
		}
	})
}
