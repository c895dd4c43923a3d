package app_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"code.gitea.io/sdk/gitea"
)

// remoteRef is the sha refs/<ref> has on the server (ls-remote over smart
// HTTP), or "" when it does not exist.
func (s *testServer) remoteRef(t *testing.T, owner, repo, ref string) string {
	t.Helper()
	out := gitCmd(t, t.TempDir(), "ls-remote", s.gitURL("", "", owner, repo), "refs/"+ref)
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if sha, name, ok := strings.Cut(line, "\t"); ok && name == "refs/"+ref {
			return sha
		}
	}
	return ""
}

func releaseTags(rs []*gitea.Release) string {
	var out []string
	for _, r := range rs {
		out = append(out, r.TagName)
	}
	return strings.Join(out, " ")
}

func TestReleasesSDK(t *testing.T) {
	t.Parallel()
	eachBackend(t, nil, func(t *testing.T, s *testServer) {
		aliceTok := s.seedUser("alice", "alice-password", false)
		bobTok := s.seedUser("bob", "bob-password", false)
		carolTok := s.seedUser("carol", "carol-password", false)
		alice := s.sdk(gitea.SetToken(aliceTok))
		bob := s.sdk(gitea.SetToken(bobTok)) // a reader of the public repository
		carol := s.sdk(gitea.SetToken(carolTok))
		anon := s.sdk()
		s.createRepo(t, aliceTok, "proj", true, false)
		if _, err := alice.AddCollaborator("alice", "proj", "carol", gitea.AddCollaboratorOption{Permission: ptr(gitea.AccessModeWrite)}); err != nil {
			t.Fatal(err)
		}
		head := s.remoteRef(t, "alice", "proj", "heads/main")
		if head == "" {
			t.Fatal("auto-initialised repository has no main branch")
		}

		// A release for a new tag creates the tag at the default branch.
		v1, resp, err := carol.CreateRelease("alice", "proj", gitea.CreateReleaseOption{TagName: "v1.0", Title: "One", Note: "notes"})
		if err != nil || resp.StatusCode != http.StatusCreated {
			t.Fatalf("CreateRelease: %v %v", err, resp)
		}
		if v1.Target != "main" || v1.Title != "One" || v1.Note != "notes" || v1.IsDraft || v1.Publisher == nil || v1.Publisher.UserName != "carol" ||
			v1.URL != s.URL+"/api/v1/repos/alice/proj/releases/"+itoa(v1.ID) || v1.HTMLURL != s.URL+"/alice/proj/releases/tag/v1.0" ||
			v1.TarURL != s.URL+"/alice/proj/archive/v1.0.tar.gz" || v1.ZipURL != s.URL+"/alice/proj/archive/v1.0.zip" ||
			!v1.PublishedAt.Equal(v1.CreatedAt) || time.Since(v1.CreatedAt) > time.Minute {
			t.Fatalf("created release: %+v", v1)
		}
		if got := s.remoteRef(t, "alice", "proj", "tags/v1.0"); got != head {
			t.Fatalf("tag v1.0 at %q, want %s", got, head)
		}
		if _, resp, err := alice.CreateRelease("alice", "proj", gitea.CreateReleaseOption{TagName: "v1.0", Title: "again"}); err == nil || resp.StatusCode != http.StatusConflict {
			t.Fatalf("second release for a tag: %v %v", err, resp)
		}

		// A tag pushed with git is used as it is (target ignored).
		work := t.TempDir()
		gitCmd(t, work, "clone", "-q", s.gitURL("alice", "alice-password", "alice", "proj"), ".")
		commitFile(t, work, "CHANGES", "two\n", "second")
		gitCmd(t, work, "tag", "pushed")
		gitCmd(t, work, "push", "-q", "origin", "HEAD:main", "pushed")
		second := strings.TrimSpace(gitCmd(t, work, "rev-parse", "HEAD"))
		if _, _, err := alice.CreateRelease("alice", "proj", gitea.CreateReleaseOption{TagName: "pushed", Title: "Pushed", Target: "main"}); err != nil {
			t.Fatalf("release for a pushed tag: %v", err)
		}
		if got := s.remoteRef(t, "alice", "proj", "tags/pushed"); got != second {
			t.Fatalf("pushed tag moved to %q", got)
		}

		// Pre-release and draft; drafts create no tag and are hidden from
		// readers.
		if _, _, err := alice.CreateRelease("alice", "proj", gitea.CreateReleaseOption{TagName: "v2-rc", Title: "RC", IsPrerelease: true}); err != nil {
			t.Fatal(err)
		}
		draft, _, err := alice.CreateRelease("alice", "proj", gitea.CreateReleaseOption{TagName: "v3", Title: "Draft", IsDraft: true})
		if err != nil || !draft.IsDraft {
			t.Fatalf("draft: %+v %v", draft, err)
		}
		if s.remoteRef(t, "alice", "proj", "tags/v3") != "" {
			t.Fatal("a draft created its tag")
		}
		list := func(c *gitea.Client, opt gitea.ListReleasesOptions) string {
			t.Helper()
			rs, _, err := c.ListReleases("alice", "proj", opt)
			if err != nil {
				t.Fatal(err)
			}
			return releaseTags(rs)
		}
		for _, c := range []struct {
			who  string
			c    *gitea.Client
			opt  gitea.ListReleasesOptions
			want string
		}{
			{"owner", alice, gitea.ListReleasesOptions{}, "v3 v2-rc pushed v1.0"},
			{"writer", carol, gitea.ListReleasesOptions{}, "v3 v2-rc pushed v1.0"},
			{"reader", bob, gitea.ListReleasesOptions{}, "v2-rc pushed v1.0"},
			{"anonymous", anon, gitea.ListReleasesOptions{}, "v2-rc pushed v1.0"},
			{"reader asking for drafts", bob, gitea.ListReleasesOptions{IsDraft: ptr(true)}, ""},
			{"owner drafts", alice, gitea.ListReleasesOptions{IsDraft: ptr(true)}, "v3"},
			{"pre-release=true", anon, gitea.ListReleasesOptions{IsPreRelease: ptr(true)}, "v2-rc"},
			{"pre-release=false", alice, gitea.ListReleasesOptions{IsPreRelease: ptr(false)}, "v3 pushed v1.0"},
			{"page 2 of 2", anon, gitea.ListReleasesOptions{ListOptions: gitea.ListOptions{Page: 2, PageSize: 2}}, "v1.0"},
		} {
			if got := list(c.c, c.opt); got != c.want {
				t.Errorf("%s: %q, want %q", c.who, got, c.want)
			}
		}
		if _, resp, err := bob.GetRelease("alice", "proj", draft.ID); err == nil || resp.StatusCode != 404 {
			t.Fatalf("reader GetRelease of a draft: %v", resp)
		}
		if _, resp, err := anon.GetReleaseByTag("alice", "proj", "v3"); err == nil || resp.StatusCode != 404 {
			t.Fatalf("anonymous GetReleaseByTag of a draft: %v", resp)
		}
		if got, _, err := carol.GetReleaseByTag("alice", "proj", "v3"); err != nil || got.ID != draft.ID {
			t.Fatalf("writer GetReleaseByTag of a draft: %v", err)
		}
		if got, _, err := anon.GetRelease("alice", "proj", v1.ID); err != nil || got.TagName != "v1.0" {
			t.Fatalf("GetRelease: %v", err)
		}

		// Latest: newest that is neither draft nor pre-release.
		latest, _, err := anon.GetLatestRelease("alice", "proj")
		if err != nil || latest.TagName != "pushed" {
			t.Fatalf("GetLatestRelease: %+v %v", latest, err)
		}

		// Publishing the draft creates its tag.
		published, resp, err := alice.EditRelease("alice", "proj", draft.ID, gitea.EditReleaseOption{IsDraft: ptr(false), Title: "Three"})
		if err != nil || resp.StatusCode != http.StatusOK || published.IsDraft || published.Title != "Three" || published.Note != "" {
			t.Fatalf("EditRelease: %+v %v", published, err)
		}
		if got := s.remoteRef(t, "alice", "proj", "tags/v3"); got != second {
			t.Fatalf("published draft's tag at %q, want %s", got, second)
		}
		if latest, _, _ := anon.GetLatestRelease("alice", "proj"); latest.TagName != "v3" {
			t.Fatalf("latest after publishing: %s", latest.TagName)
		}
		if _, resp, err := bob.EditRelease("alice", "proj", v1.ID, gitea.EditReleaseOption{Title: "x"}); err == nil || resp.StatusCode != 403 {
			t.Fatalf("reader EditRelease: %v", resp)
		}

		// Deleting a release keeps its tag.
		if resp, err := bob.DeleteRelease("alice", "proj", v1.ID); err == nil || resp.StatusCode != 403 {
			t.Fatalf("reader DeleteRelease: %v", resp)
		}
		if resp, err := carol.DeleteRelease("alice", "proj", v1.ID); err != nil || resp.StatusCode != http.StatusNoContent {
			t.Fatalf("DeleteRelease: %v %v", err, resp)
		}
		if _, resp, err := alice.GetRelease("alice", "proj", v1.ID); err == nil || resp.StatusCode != 404 {
			t.Fatalf("deleted release: %v", resp)
		}
		if got := s.remoteRef(t, "alice", "proj", "tags/v1.0"); got != head {
			t.Fatalf("tag of the deleted release: %q", got)
		}
		if resp, err := alice.DeleteReleaseByTag("alice", "proj", "v2-rc"); err != nil || resp.StatusCode != http.StatusNoContent {
			t.Fatalf("DeleteReleaseByTag: %v %v", err, resp)
		}

		// Tags come from git.
		tags, resp, err := anon.ListRepoTags("alice", "proj", gitea.ListRepoTagsOptions{})
		if err != nil || resp.Header.Get("X-Total-Count") != "4" || len(tags) != 4 {
			t.Fatalf("ListRepoTags: %d %v %v", len(tags), err, resp)
		}
		byName := map[string]*gitea.Tag{}
		for _, tg := range tags {
			byName[tg.Name] = tg
		}
		if tg := byName["v1.0"]; tg == nil || tg.Commit == nil || tg.Commit.SHA != head || tg.ID != head ||
			tg.ZipballURL != s.URL+"/alice/proj/archive/v1.0.zip" || tg.TarballURL != s.URL+"/alice/proj/archive/v1.0.tar.gz" {
			t.Fatalf("tag v1.0: %+v", tg)
		}
		if tg := byName["pushed"]; tg == nil || tg.Message != "second" || tg.Commit.SHA != second {
			t.Fatalf("tag pushed: %+v", tg)
		}
		if tg, _, err := anon.GetTag("alice", "proj", "v3"); err != nil || tg.Commit.SHA != second {
			t.Fatalf("GetTag: %+v %v", tg, err)
		}
		// A tag with a release cannot be deleted directly; one without can.
		if resp, err := alice.DeleteTag("alice", "proj", "v3"); err == nil || resp.StatusCode != http.StatusConflict {
			t.Fatalf("DeleteTag of a released tag: %v", resp)
		}
		if resp, err := alice.DeleteTag("alice", "proj", "v2-rc"); err != nil || resp.StatusCode != http.StatusNoContent {
			t.Fatalf("DeleteTag: %v %v", err, resp)
		}
		if s.remoteRef(t, "alice", "proj", "tags/v2-rc") != "" {
			t.Fatal("deleted tag still on the server")
		}
		if _, resp, err := anon.GetTag("alice", "proj", "v2-rc"); err == nil || resp.StatusCode != 404 {
			t.Fatalf("GetTag of a deleted tag: %v", resp)
		}

		// Tag names with a slash (the SDK sends it as %2F).
		if _, _, err := alice.CreateRelease("alice", "proj", gitea.CreateReleaseOption{TagName: "release/v4", Title: "Four"}); err != nil {
			t.Fatal(err)
		}
		if got, _, err := anon.GetReleaseByTag("alice", "proj", "release/v4"); err != nil || got.TagName != "release/v4" ||
			got.HTMLURL != s.URL+"/alice/proj/releases/tag/release/v4" {
			t.Fatalf("GetReleaseByTag with a slash: %+v %v", got, err)
		}
		if tg, _, err := anon.GetTag("alice", "proj", "release/v4"); err != nil || tg.Name != "release/v4" {
			t.Fatalf("GetTag with a slash: %+v %v", tg, err)
		}
		if resp, err := alice.DeleteReleaseByTag("alice", "proj", "release/v4"); err != nil || resp.StatusCode != http.StatusNoContent {
			t.Fatalf("DeleteReleaseByTag with a slash: %v", err)
		}
		if resp, err := alice.DeleteTag("alice", "proj", "release/v4"); err != nil || resp.StatusCode != http.StatusNoContent {
			t.Fatalf("DeleteTag with a slash: %v", err)
		}
		if s.remoteRef(t, "alice", "proj", "tags/release/v4") != "" {
			t.Fatal("tag release/v4 still on the server")
		}
	})
}

// The REST release and tag rules are cases in testdata/cases/releases.yaml.
