package app_test

import (
	"encoding/json"
	"net/http"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"code.gitea.io/sdk/gitea"
)

type tagProtectionJSON struct {
	ID                 int64    `json:"id"`
	NamePattern        string   `json:"name_pattern"`
	WhitelistUsernames []string `json:"whitelist_usernames"`
	WhitelistTeams     []string `json:"whitelist_teams"`
	CreatedAt          string   `json:"created_at"`
	UpdatedAt          string   `json:"updated_at"`
}

// TestTagProtectionCRUD drives the five calls of
// /repos/{o}/{r}/tag_protections as Gitea 1.22 answers them: created
// (201) and read back with names, refused when the pattern is empty (400),
// no one is whitelisted (400), the pattern is taken (403) or a user is
// unknown (422); edited with absent fields kept and lists replaced;
// refused to a writer who is not an administrator (403); deleted (204,
// then 404).
func TestTagProtectionCRUD(t *testing.T) {
	t.Parallel()
	eachBackend(t, nil, func(t *testing.T, s *testServer) {
		_, _, tok, bobTok, _, _ := protectedRepoTokens(t, s)
		auth := func(tok string) []string {
			return []string{"Authorization", "token " + tok, "Content-Type", "application/json"}
		}
		base := "/api/v1/repos/alice/proj/tag_protections"
		r := s.do("POST", base, `{"name_pattern":" v* ","whitelist_usernames":["alice"]}`, auth(tok)...)
		expectStatus(t, r, http.StatusCreated)
		var created tagProtectionJSON
		r.json(t, &created)
		if created.ID == 0 || created.NamePattern != "v*" || !slices.Equal(created.WhitelistUsernames, []string{"alice"}) ||
			created.WhitelistTeams == nil || len(created.WhitelistTeams) != 0 || created.CreatedAt == "" || created.UpdatedAt == "" {
			t.Fatalf("created: %s", r.Body)
		}
		for _, c := range []struct {
			body, msg string
			status    int
		}{
			{`{"name_pattern":"  ","whitelist_usernames":["alice"]}`, "name_pattern are empty", http.StatusBadRequest},
			{`{"name_pattern":"rel-*"}`, "both whitelist_usernames and whitelist_teams are empty", http.StatusBadRequest},
			{`{"name_pattern":"v*","whitelist_usernames":["bob"]}`, "Tag protection already exist", http.StatusForbidden},
			{`{"name_pattern":"rel-*","whitelist_usernames":["nobody"]}`, "User does not exist", http.StatusUnprocessableEntity},
		} {
			r := s.do("POST", base, c.body, auth(tok)...)
			expectStatus(t, r, c.status)
			if m := r.message(t); m != c.msg {
				t.Fatalf("%s: message %q, want %q", c.body, m, c.msg)
			}
		}

		var list []tagProtectionJSON
		r = s.do("GET", base, "", auth(tok)...)
		expectStatus(t, r, http.StatusOK)
		r.json(t, &list)
		if len(list) != 1 || list[0].ID != created.ID {
			t.Fatalf("list: %s", r.Body)
		}
		one := base + "/" + jsonInt(created.ID)
		expectStatus(t, s.do("GET", one, "", auth(tok)...), http.StatusOK)
		expectStatus(t, s.do("GET", base+"/99999", "", auth(tok)...), http.StatusNotFound)

		// A writer who is not an administrator may not read or write rules.
		expectStatus(t, s.do("GET", base, "", auth(bobTok)...), http.StatusForbidden)
		expectStatus(t, s.do("POST", base, `{"name_pattern":"x","whitelist_usernames":["bob"]}`, auth(bobTok)...), http.StatusForbidden)
		expectStatus(t, s.do("DELETE", one, "", auth(bobTok)...), http.StatusForbidden)

		// PATCH: absent keeps, a list replaces, a pattern replaces.
		var edited tagProtectionJSON
		r = s.do("PATCH", one, `{"whitelist_usernames":["bob","alice"]}`, auth(tok)...)
		expectStatus(t, r, http.StatusOK)
		r.json(t, &edited)
		if edited.NamePattern != "v*" || !slices.Equal(edited.WhitelistUsernames, []string{"alice", "bob"}) {
			t.Fatalf("edit lists: %s", r.Body)
		}
		r = s.do("PATCH", one, `{"name_pattern":"/^v[0-9]+$/"}`, auth(tok)...)
		expectStatus(t, r, http.StatusOK)
		r.json(t, &edited)
		if edited.NamePattern != "/^v[0-9]+$/" || len(edited.WhitelistUsernames) != 2 {
			t.Fatalf("edit pattern: %s", r.Body)
		}
		expectStatus(t, s.do("PATCH", one, `{"whitelist_usernames":["ghost-x"]}`, auth(tok)...), http.StatusUnprocessableEntity)
		expectStatus(t, s.do("PATCH", base+"/99999", `{}`, auth(tok)...), http.StatusNotFound)

		expectStatus(t, s.do("DELETE", one, "", auth(tok)...), http.StatusNoContent)
		expectStatus(t, s.do("GET", one, "", auth(tok)...), http.StatusNotFound)
	})
}

func jsonInt(n int64) string {
	b, _ := json.Marshal(n)
	return string(b)
}

// TestTagProtectionEnforced: a writer outside a rule's whitelist cannot
// create, move or delete the tags it matches, by git push over HTTP and
// SSH (git prints "remote: Tag <name> is protected"), by POST and DELETE
// /tags or by a release that would create its tag (422, Gitea's
// messages); the whitelisted user can, and tags no rule matches are
// free.
func TestTagProtectionEnforced(t *testing.T) {
	t.Parallel()
	sshOK := true
	if _, err := exec.LookPath("ssh"); err != nil {
		sshOK = false
	}
	eachBackend(t, withSSH, func(t *testing.T, s *testServer) {
		alice, bob, tok, bobTok, aliceDir, bobDir := protectedRepoTokens(t, s)
		auth := func(tok string) []string {
			return []string{"Authorization", "token " + tok, "Content-Type", "application/json"}
		}
		expectStatus(t, s.do("POST", "/api/v1/repos/alice/proj/tag_protections",
			`{"name_pattern":"v*","whitelist_usernames":["alice"]}`, auth(tok)...), http.StatusCreated)
		expectStatus(t, s.do("POST", "/api/v1/repos/alice/proj/tag_protections",
			`{"name_pattern":"/^rel-[0-9]+$/","whitelist_usernames":["alice"]}`, auth(tok)...), http.StatusCreated)

		// git push over HTTP.
		gitCmd(t, bobDir, "tag", "v1")
		pushRefused(t, bobDir, "Tag v1 is protected", "origin", "v1")
		gitCmd(t, bobDir, "tag", "rel-7")
		pushRefused(t, bobDir, "Tag rel-7 is protected", "origin", "rel-7")
		gitCmd(t, bobDir, "tag", "rel-x")
		gitCmd(t, bobDir, "push", "-q", "origin", "rel-x") // the regexp does not match
		gitCmd(t, bobDir, "tag", "other")
		gitCmd(t, bobDir, "push", "-q", "origin", "other")
		gitCmd(t, aliceDir, "tag", "v1")
		gitCmd(t, aliceDir, "push", "-q", "origin", "v1")
		pushRefused(t, bobDir, "Tag v1 is protected", "origin", ":refs/tags/v1")
		commitFile(t, bobDir, "b.txt", "b\n", "elsewhere")
		gitCmd(t, bobDir, "tag", "-f", "v1")
		pushRefused(t, bobDir, "Tag v1 is protected", "-f", "origin", "v1")
		if _, _, err := bob.GetTag("alice", "proj", "v1"); err != nil {
			t.Fatal(err)
		}

		// The tag API and releases.
		r := s.do("POST", "/api/v1/repos/alice/proj/tags", `{"tag_name":"v2"}`, auth(bobTok)...)
		expectStatus(t, r, http.StatusUnprocessableEntity)
		if m := r.message(t); m != "user not allowed to create protected tag" {
			t.Fatalf("create tag: %q", m)
		}
		r = s.do("DELETE", "/api/v1/repos/alice/proj/tags/v1", "", auth(bobTok)...)
		expectStatus(t, r, http.StatusUnprocessableEntity)
		if m := r.message(t); m != "user not allowed to delete protected tag" {
			t.Fatalf("delete tag: %q", m)
		}
		r = s.do("POST", "/api/v1/repos/alice/proj/releases", `{"tag_name":"v3","name":"three"}`, auth(bobTok)...)
		expectStatus(t, r, http.StatusUnprocessableEntity)
		if m := r.message(t); m != "release tag name is protected [tag_name: v3]" {
			t.Fatalf("release: %q", m)
		}
		// A release of an existing protected tag creates no tag: allowed.
		expectStatus(t, s.do("POST", "/api/v1/repos/alice/proj/releases", `{"tag_name":"v1","name":"one"}`, auth(bobTok)...), http.StatusCreated)
		expectStatus(t, s.do("POST", "/api/v1/repos/alice/proj/tags", `{"tag_name":"free"}`, auth(bobTok)...), http.StatusCreated)
		expectStatus(t, s.do("POST", "/api/v1/repos/alice/proj/tags", `{"tag_name":"v2"}`, auth(tok)...), http.StatusCreated)
		expectStatus(t, s.do("DELETE", "/api/v1/repos/alice/proj/tags/v2", "", auth(tok)...), http.StatusNoContent)
		if tags, _, err := alice.ListRepoTags("alice", "proj", gitea.ListRepoTagsOptions{}); err != nil || len(tags) != 4 {
			t.Fatalf("tags: %+v %v", tags, err)
		}

		// git push over SSH: the same refusal.
		if !sshOK {
			return
		}
		keys := t.TempDir()
		bobKey, bobLine := sshKey(t, keys, "bob")
		if _, _, err := bob.CreatePublicKey(gitea.CreateKeyOption{Title: "bob", Key: bobLine}); err != nil {
			t.Fatal(err)
		}
		work := filepath.Join(t.TempDir(), "work")
		if out, err := s.sshGit(filepath.Dir(work), bobKey, "clone", "-q", s.sshURL("alice", "proj"), work); err != nil {
			t.Fatalf("clone over ssh: %v\n%s", err, out)
		}
		gitCmd(t, work, "tag", "v9")
		out, err := s.sshGit(work, bobKey, "push", "origin", "v9")
		if err == nil || !strings.Contains(out, "remote: Tag v9 is protected") || !strings.Contains(out, "pre-receive hook declined") {
			t.Fatalf("protected tag over SSH: %v\n%s", err, out)
		}
	})
}

// TestTagProtectionTeamWhitelist: in an organization's repository, a rule
// whitelisting a team lets that team's member push (real git push) and
// delete the tags it matches, while a member of another team with write
// access is refused ("remote: Tag <name> is protected", and 422 on POST
// /tags) yet still pushes tags no rule matches.
func TestTagProtectionTeamWhitelist(t *testing.T) {
	t.Parallel()
	eachBackend(t, nil, func(t *testing.T, s *testServer) {
		aliceTok := s.seedUser("alice", "alice-password", false)
		s.seedUser("bob", "bob-password", false)
		carolTok := s.seedUser("carol", "carol-password", false)
		alice := s.sdk(gitea.SetToken(aliceTok))
		if _, _, err := alice.CreateOrg(gitea.CreateOrgOption{Name: "acme"}); err != nil {
			t.Fatal(err)
		}
		if _, _, err := alice.CreateOrgRepo("acme", gitea.CreateRepoOption{Name: "lib", AutoInit: true}); err != nil {
			t.Fatal(err)
		}
		for team, member := range map[string]string{"releasers": "bob", "devs": "carol"} {
			tm, _, err := alice.CreateTeam("acme", gitea.CreateTeamOption{Name: team, Permission: gitea.AccessModeWrite,
				Units: []gitea.RepoUnitType{gitea.RepoUnitCode, gitea.RepoUnitReleases}, IncludesAllRepositories: true})
			if err != nil {
				t.Fatalf("CreateTeam %s: %v", team, err)
			}
			if _, err := alice.AddTeamMember(tm.ID, member); err != nil {
				t.Fatal(err)
			}
		}
		r := s.do("POST", "/api/v1/repos/acme/lib/tag_protections", `{"name_pattern":"v*","whitelist_teams":["releasers"]}`,
			"Authorization", "token "+aliceTok, "Content-Type", jsonCT)
		expectStatus(t, r, http.StatusCreated)
		var rule tagProtectionJSON
		r.json(t, &rule)
		if !slices.Equal(rule.WhitelistTeams, []string{"releasers"}) || len(rule.WhitelistUsernames) != 0 {
			t.Fatalf("rule: %s", r.Body)
		}

		bobDir := s.clone(t, "bob", "bob-password", "acme", "lib")
		carolDir := s.clone(t, "carol", "carol-password", "acme", "lib")

		// The other team's writer: refused on v*, free elsewhere.
		gitCmd(t, carolDir, "tag", "v1")
		pushRefused(t, carolDir, "Tag v1 is protected", "origin", "v1")
		gitCmd(t, carolDir, "tag", "nightly")
		gitCmd(t, carolDir, "push", "-q", "origin", "nightly")
		r = s.do("POST", "/api/v1/repos/acme/lib/tags", `{"tag_name":"v2"}`, "Authorization", "token "+carolTok, "Content-Type", jsonCT)
		expectStatus(t, r, http.StatusUnprocessableEntity)
		if m := r.message(t); m != "user not allowed to create protected tag" {
			t.Fatalf("create tag: %q", m)
		}

		// The whitelisted team's member pushes the protected tag.
		gitCmd(t, bobDir, "tag", "v1")
		gitCmd(t, bobDir, "push", "-q", "origin", "v1")
		want := strings.TrimSpace(gitCmd(t, bobDir, "rev-parse", "v1"))
		remote := gitCmd(t, carolDir, "ls-remote", "origin", "refs/tags/v1")
		if !strings.HasPrefix(remote, want+"\trefs/tags/v1") {
			t.Fatalf("v1 on the server: %q, want %s", remote, want)
		}
		// ...which the other team's writer may not delete; the member may.
		pushRefused(t, carolDir, "Tag v1 is protected", "origin", ":refs/tags/v1")
		gitCmd(t, bobDir, "push", "-q", "origin", ":refs/tags/v1")
		if remote := gitCmd(t, carolDir, "ls-remote", "origin", "refs/tags/v1"); remote != "" {
			t.Fatalf("v1 still on the server: %q", remote)
		}
	})
}
