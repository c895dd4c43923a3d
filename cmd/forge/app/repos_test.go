package app_test

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"code.gitea.io/sdk/gitea"
)

func TestRepositoryLifecycleSDK(t *testing.T) {
	t.Parallel()
	eachBackend(t, nil, func(t *testing.T, s *testServer) {
		aliceTok := s.seedUser("alice", "alice-password", false)
		bobTok := s.seedUser("bob", "bob-password", false)
		alice := s.sdk(gitea.SetToken(aliceTok))
		bob := s.sdk(gitea.SetToken(bobTok))
		anon := s.sdk()

		repo, resp, err := alice.CreateRepo(gitea.CreateRepoOption{Name: "Hello", Description: "demo", AutoInit: true, DefaultBranch: "trunk"})
		if err != nil || resp.StatusCode != http.StatusCreated {
			t.Fatalf("CreateRepo: %v %v", err, resp)
		}
		if repo.FullName != "alice/Hello" || repo.Empty || repo.DefaultBranch != "trunk" || !repo.Permissions.Admin ||
			repo.CloneURL != s.URL+"/alice/Hello.git" || repo.Owner.UserName != "alice" || repo.Watchers != 1 {
			t.Fatalf("created repository: %+v", repo)
		}
		if _, resp, err := alice.CreateRepo(gitea.CreateRepoOption{Name: "hello"}); err == nil || resp.StatusCode != http.StatusConflict {
			t.Fatalf("duplicate name: %v %v", err, resp)
		}
		empty, _, err := alice.CreateRepo(gitea.CreateRepoOption{Name: "empty", Private: true})
		if err != nil || !empty.Empty || !empty.Private {
			t.Fatalf("empty private repository: %+v %v", empty, err)
		}

		// Anonymous and other users: public visible, private invisible (404).
		got, _, err := anon.GetRepo("alice", "hello")
		if err != nil || got.ID != repo.ID || got.Permissions.Push || !got.Permissions.Pull {
			t.Fatalf("anonymous GetRepo: %+v %v", got, err)
		}
		if _, resp, err := bob.GetRepo("alice", "empty"); err == nil || resp.StatusCode != 404 {
			t.Fatalf("private repository seen by bob: %v", resp)
		}
		if _, resp, err := bob.GetRepo("nobody", "x"); err == nil || resp.StatusCode != 404 {
			t.Fatalf("missing owner: %v", resp)
		}
		byID, _, err := alice.GetRepoByID(empty.ID)
		if err != nil || byID.Name != "empty" {
			t.Fatalf("GetRepoByID: %v", err)
		}
		if _, resp, err := bob.GetRepoByID(empty.ID); err == nil || resp.StatusCode != 404 {
			t.Fatalf("bob GetRepoByID of a private repository: %v", resp)
		}

		// Collaborators: bob gets read access to the private repository.
		if _, err := alice.AddCollaborator("alice", "empty", "bob", gitea.AddCollaboratorOption{Permission: ptr(gitea.AccessModeRead)}); err != nil {
			t.Fatalf("AddCollaborator: %v", err)
		}
		got, _, err = bob.GetRepo("alice", "empty")
		if err != nil || got.Permissions.Push || !got.Permissions.Pull {
			t.Fatalf("collaborator view: %+v %v", got, err)
		}
		perm, _, err := bob.CollaboratorPermission("alice", "empty", "bob")
		if err != nil || perm.Permission != "read" {
			t.Fatalf("CollaboratorPermission: %+v %v", perm, err)
		}
		if _, _, err := bob.EditRepo("alice", "empty", gitea.EditRepoOption{Description: ptr("hijack")}); err == nil {
			t.Fatal("read collaborator edited the repository")
		}
		if resp, err := bob.DeleteRepo("alice", "empty"); err == nil || resp.StatusCode != 403 {
			t.Fatalf("read collaborator deleted the repository: %v", resp)
		}

		// Lists respect visibility.
		list, _, err := bob.ListUserRepos("alice", gitea.ListReposOptions{})
		if err != nil || len(list) != 2 {
			t.Fatalf("bob lists %d of alice's repositories, want 2 (one through collaboration)", len(list))
		}
		list, _, _ = anon.ListUserRepos("alice", gitea.ListReposOptions{})
		if len(list) != 1 || list[0].Name != "Hello" {
			t.Fatalf("anonymous list: %d", len(list))
		}
		mine, _, err := bob.ListMyRepos(gitea.ListReposOptions{})
		if err != nil || len(mine) != 1 || mine[0].Name != "empty" {
			t.Fatalf("bob's own list: %v", err)
		}
		found, _, err := anon.SearchRepos(gitea.SearchRepoOptions{Keyword: "ell"})
		if err != nil || len(found) != 1 || found[0].Name != "Hello" {
			t.Fatalf("SearchRepos: %v", err)
		}

		// Edit and rename; the clone URL follows.
		edited, _, err := alice.EditRepo("alice", "Hello", gitea.EditRepoOption{Name: ptr("world"), Description: ptr("renamed")})
		if err != nil || edited.Name != "world" || edited.Description != "renamed" {
			t.Fatalf("EditRepo: %+v %v", edited, err)
		}
		out := gitCmd(t, t.TempDir(), "ls-remote", s.gitURL("", "", "alice", "world"))
		if !strings.Contains(out, "refs/heads/trunk") {
			t.Fatalf("renamed repository not served: %s", out)
		}
		if resp, err := alice.DeleteRepo("alice", "world"); err != nil || resp.StatusCode != 204 {
			t.Fatalf("DeleteRepo: %v %v", err, resp)
		}
		if _, resp, _ := alice.GetRepo("alice", "world"); resp.StatusCode != 404 {
			t.Fatalf("deleted repository: %d", resp.StatusCode)
		}
		if _, err := os.Stat(filepath.Join(s.Cfg.Repository.Root, "alice", "world.git")); !os.IsNotExist(err) {
			t.Fatalf("git data of a deleted repository remains: %v", err)
		}
	})
}

// branchRecords lists the branch records of owner/name as name@sha.
func (s *testServer) branchRecords(t *testing.T, ownerName, name string) []string {
	t.Helper()
	ctx := context.Background()
	owner, err := s.App.Store.UserByName(ctx, ownerName)
	if err != nil {
		t.Fatal(err)
	}
	repo, err := s.App.Store.RepositoryByName(ctx, owner.ID, name)
	if err != nil {
		t.Fatal(err)
	}
	bs, _, err := s.App.Store.ListBranches(ctx, repo.ID, 0, 1000)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, b := range bs {
		out = append(out, b.Name+"@"+b.CommitID[:7])
	}
	sort.Strings(out)
	return out
}

func revParse(t *testing.T, dir, ref string) string {
	return strings.TrimSpace(gitCmd(t, dir, "rev-parse", ref))[:7]
}

func TestGitCloneAndPush(t *testing.T) {
	t.Parallel()
	eachBackend(t, nil, func(t *testing.T, s *testServer) {
		aliceTok := s.seedUser("alice", "alice-password", false)
		s.createRepo(t, aliceTok, "project", false, false)
		if got := s.branchRecords(t, "alice", "project"); len(got) != 0 {
			t.Fatalf("empty repository starts with records %v", got)
		}

		work := t.TempDir()
		gitCmd(t, work, "clone", "-q", s.gitURL("alice", "alice-password", "alice", "project"), ".")
		gitCmd(t, work, "checkout", "-q", "-b", "main")
		commitFile(t, work, "README.md", "hello\n", "first")
		gitCmd(t, work, "branch", "dev")
		gitCmd(t, work, "branch", "feature/deep/name")
		gitCmd(t, work, "tag", "-a", "v1.0", "-m", "release one")
		gitCmd(t, work, "push", "-q", "origin", "main", "dev", "feature/deep/name", "v1.0")
		head := revParse(t, work, "HEAD")
		want := []string{"dev@" + head, "feature/deep/name@" + head, "main@" + head}
		if got := s.branchRecords(t, "alice", "project"); strings.Join(got, " ") != strings.Join(want, " ") {
			t.Fatalf("records after first push: %v, want %v", got, want)
		}
		r := s.do("GET", "/api/v1/repos/alice/project", "", "Authorization", "token "+aliceTok)
		if !strings.Contains(string(r.Body), `"empty":false`) || !strings.Contains(string(r.Body), `"default_branch":"main"`) {
			t.Fatalf("repository after first push: %s", r.Body)
		}

		// An update touches only the pushed branch.
		commitFile(t, work, "a.txt", "a\n", "second")
		gitCmd(t, work, "push", "-q", "origin", "main")
		second := revParse(t, work, "HEAD")
		if got := s.branchRecords(t, "alice", "project"); got[2] != "main@"+second || got[0] != "dev@"+head {
			t.Fatalf("records after update: %v", got)
		}

		// Force-push dev to a divergent commit, delete a branch by push.
		gitCmd(t, work, "checkout", "-q", "dev")
		commitFile(t, work, "b.txt", "b\n", "divergent")
		gitCmd(t, work, "push", "-q", "--force", "origin", "dev")
		gitCmd(t, work, "push", "-q", "origin", "--delete", "feature/deep/name")
		devHead := revParse(t, work, "HEAD")
		want = []string{"dev@" + devHead, "main@" + second}
		if got := s.branchRecords(t, "alice", "project"); strings.Join(got, " ") != strings.Join(want, " ") {
			t.Fatalf("records after force-push and delete: %v, want %v", got, want)
		}

		// A fresh anonymous clone of the public repository sees it all.
		other := t.TempDir()
		gitCmd(t, other, "clone", "-q", s.URL+"/alice/project", ".")
		if out := gitCmd(t, other, "tag"); strings.TrimSpace(out) != "v1.0" {
			t.Fatalf("tags in clone: %q", out)
		}
		if revParse(t, other, "origin/dev") != devHead {
			t.Fatal("clone has a stale dev")
		}
	})
}

func TestGitAccessRules(t *testing.T) {
	s := startServer(t, "sqlite3", nil)
	aliceTok := s.seedUser("alice", "alice-password", false)
	s.seedUser("bob", "bob-password", false)
	s.seedUser("carol", "carol-password", false)
	s.createRepo(t, aliceTok, "secret", true, true)
	s.createRepo(t, aliceTok, "open", true, false)
	r := s.do("PUT", "/api/v1/repos/alice/secret/collaborators/carol", `{"permission":"read"}`, "Authorization", "token "+aliceTok, "Content-Type", jsonCT)
	expectStatus(t, r, 204)

	tmp := t.TempDir()
	try := func(args ...string) string {
		out, err := gitTry(tmp, args...)
		if err == nil {
			return "ok"
		}
		return out
	}
	// Anonymous: public clone works; private asks for credentials (401).
	if got := try("ls-remote", s.gitURL("", "", "alice", "open")); got != "ok" {
		t.Fatalf("anonymous clone of a public repository: %s", got)
	}
	resp, _ := http.Get(s.URL + "/alice/secret.git/info/refs?service=git-upload-pack")
	if resp.StatusCode != 401 || resp.Header.Get("WWW-Authenticate") == "" {
		t.Fatalf("anonymous private: %d", resp.StatusCode)
	}
	resp, _ = http.Get(s.URL + "/alice/open.git/info/refs?service=git-receive-pack")
	if resp.StatusCode != 401 {
		t.Fatalf("anonymous push: %d", resp.StatusCode)
	}
	// Signed in without access: 404.
	req, _ := http.NewRequest("GET", s.URL+"/alice/secret.git/info/refs?service=git-upload-pack", nil)
	req.SetBasicAuth("bob", "bob-password")
	resp, _ = http.DefaultClient.Do(req)
	if resp.StatusCode != 404 {
		t.Fatalf("bob on a private repository: %d", resp.StatusCode)
	}
	// A read collaborator clones but cannot push (403).
	work := t.TempDir()
	gitCmd(t, work, "clone", "-q", s.gitURL("carol", "carol-password", "alice", "secret"), ".")
	commitFile(t, work, "x.txt", "x\n", "carol's change")
	if out, err := gitTry(work, "push", "-q", "origin", "HEAD"); err == nil || !strings.Contains(out, "403") {
		t.Fatalf("read collaborator pushed: %v %s", err, out)
	}
	// A token as password: read:repository fetches but cannot push.
	readTok := s.createToken(t, "alice", "alice-password", "reader", "read:repository")
	gitCmd(t, t.TempDir(), "ls-remote", s.gitURL("alice", readTok, "alice", "secret"))
	work = t.TempDir()
	gitCmd(t, work, "clone", "-q", s.gitURL("alice", readTok, "alice", "secret"), ".")
	commitFile(t, work, "y.txt", "y\n", "alice's change")
	if out, err := gitTry(work, "push", "-q", "origin", "HEAD"); err == nil || !strings.Contains(out, "403") {
		t.Fatalf("read-scoped token pushed: %v %s", err, out)
	}
	writeTok := s.createToken(t, "alice", "alice-password", "writer", "write:repository")
	gitCmd(t, work, "push", "-q", s.gitURL("x", writeTok, "alice", "secret"), "HEAD")

	// TOTP: the password is refused for git, a token works.
	enrollTOTP(t, s, "alice")
	if out, err := gitTry(tmp, "ls-remote", s.gitURL("alice", "alice-password", "alice", "secret")); err == nil || !strings.Contains(out, "two-factor authentication") {
		t.Fatalf("TOTP user with a password: %v %s", err, out)
	}
	gitCmd(t, tmp, "ls-remote", s.gitURL("alice", writeTok, "alice", "secret"))
}

// TestDeleteUserWithRepositories: a user who owns repositories is deleted
// only with ?purge=true, which removes the repositories and their files.
func TestDeleteUserWithRepositories(t *testing.T) {
	t.Parallel()
	eachBackend(t, nil, func(t *testing.T, s *testServer) {
		bobTok := s.seedUser("bob", "bob-password", false)
		s.createRepo(t, bobTok, "mine", true, false)
		admin := "token " + s.AdminToken
		r := s.do("DELETE", "/api/v1/admin/users/bob", "", "Authorization", admin)
		expectStatus(t, r, 422)
		if !strings.Contains(r.message(t), "ownership of repositories") {
			t.Fatalf("message: %s", r.Body)
		}
		expectStatus(t, s.do("GET", "/api/v1/repos/bob/mine", ""), 200)
		expectStatus(t, s.do("DELETE", "/api/v1/admin/users/bob?purge=true", "", "Authorization", admin), 204)
		expectStatus(t, s.do("GET", "/api/v1/users/bob", ""), 404)
		if _, err := os.Stat(filepath.Join(s.Cfg.Repository.Root, "bob", "mine.git")); !os.IsNotExist(err) {
			t.Fatalf("purged repository files remain: %v", err)
		}
	})
}
