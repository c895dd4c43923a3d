package app_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"code.gitea.io/sdk/gitea"

	"forge/services/config"
	"forge/services/store"
)

func allowLocal(c *config.Config) { c.Migrations.AllowLocalNetworks = true }

// secretWatch collects every raw response body of a test to prove that no
// credential ever comes back.
type secretWatch struct {
	s      *testServer
	bodies [][]byte
}

func (w *secretWatch) do(method, path, body string, header ...string) response {
	w.s.t.Helper()
	r := w.s.do(method, path, body, header...)
	w.bodies = append(w.bodies, r.Body)
	return r
}

func (w *secretWatch) check(t *testing.T, secrets ...string) {
	t.Helper()
	for _, b := range w.bodies {
		for _, sec := range secrets {
			if bytes.Contains(b, []byte(sec)) {
				t.Fatalf("a response body carries the credential %q: %s", sec, b)
			}
		}
	}
}

// lsRemote maps the refs of a smart-HTTP URL to their (short) commits.
func lsRemote(t *testing.T, url string) map[string]string {
	t.Helper()
	out := gitCmd(t, t.TempDir(), "ls-remote", url)
	refs := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if sha, ref, ok := strings.Cut(line, "\t"); ok {
			refs[ref] = sha[:7]
		}
	}
	return refs
}

// repoRecord loads owner/name from the store.
func (s *testServer) repoRecord(t testing.TB, owner, name string) *store.Repository {
	t.Helper()
	ctx := context.Background()
	u, err := s.App.Store.UserByName(ctx, owner)
	if err != nil {
		t.Fatal(err)
	}
	r, err := s.App.Store.RepositoryByName(ctx, u.ID, name)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// repoDir is the on-disk directory of owner/name.
func (s *testServer) repoDir(owner, name string) string {
	return filepath.Join(s.Cfg.Repository.Root, strings.ToLower(owner), strings.ToLower(name)+".git")
}

// dueNow makes every mirror and push mirror due for the scheduler.
func (s *testServer) dueNow(t *testing.T) {
	t.Helper()
	db := s.App.Store.DB()
	for _, m := range []any{&store.Mirror{}, &store.PushMirror{}} {
		if err := db.Model(m).Where("interval_secs > 0").Update("next_update_unix", 1).Error; err != nil {
			t.Fatal(err)
		}
	}
}

func TestPullMirror(t *testing.T) {
	t.Parallel()
	eachBackend(t, allowLocal, func(t *testing.T, s *testServer) {
		const alicePW = "alice-password"
		aliceTok := s.seedUser("alice", alicePW, false)
		carolTok := s.seedUser("carol", "carol-password", false)
		w := &secretWatch{s: s}
		s.createRepo(t, aliceTok, "source", true, true) // private: the mirror needs the credentials
		work := t.TempDir()
		gitCmd(t, work, "clone", "-q", s.gitURL("alice", alicePW, "alice", "source"), ".")
		gitCmd(t, work, "checkout", "-q", "-b", "dev")
		commitFile(t, work, "dev.txt", "dev\n", "on dev")
		gitCmd(t, work, "push", "-q", "origin", "dev")
		gitCmd(t, work, "checkout", "-q", "main")

		// carol mirrors alice's private repository with alice's credentials.
		source := s.URL + "/alice/source.git"
		before := time.Now().Add(-2 * time.Second)
		body := `{"clone_addr":"` + source + `","repo_name":"copy","mirror":true,"auth_username":"alice","auth_password":"` + alicePW + `","description":"a copy"}`
		r := w.do("POST", "/api/v1/repos/migrate", body, "Authorization", "token "+carolTok, "Content-Type", jsonCT)
		expectStatus(t, r, 201)
		var repo gitea.Repository
		r.json(t, &repo)
		if repo.FullName != "carol/copy" || !repo.Mirror || repo.OriginalURL != source || repo.MirrorInterval != "8h0m0s" ||
			repo.MirrorUpdated.Before(before) || repo.Empty || repo.DefaultBranch != "main" || repo.Description != "a copy" ||
			!repo.Permissions.Admin || !repo.Permissions.Push || !repo.Permissions.Pull || repo.Private {
			t.Fatalf("migrated mirror: %s", r.Body)
		}
		want := []string{"dev@" + revParse(t, work, "dev"), "main@" + revParse(t, work, "main")}
		if got := s.branchRecords(t, "carol", "copy"); strings.Join(got, " ") != strings.Join(want, " ") {
			t.Fatalf("mirror branch records %v, want %v", got, want)
		}
		if refs := lsRemote(t, s.gitURL("", "", "carol", "copy")); refs["refs/heads/dev"] != revParse(t, work, "dev") {
			t.Fatalf("mirror refs: %v", refs)
		}

		// The credentials are stored only sealed.
		rec := s.repoRecord(t, "carol", "copy")
		m, err := s.App.Store.MirrorByRepoID(context.Background(), rec.ID)
		if err != nil {
			t.Fatal(err)
		}
		if m.RemoteAddress != source || bytes.Contains(m.RemoteSealed, []byte(alicePW)) || rec.OriginalURL != source || m.IntervalSecs != 8*3600 {
			t.Fatalf("stored mirror: %+v, original_url %q", m, rec.OriginalURL)
		}
		// ... and never rest in the mirror's own git files.
		filepath.WalkDir(s.repoDir("carol", "copy"), func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				if b, _ := os.ReadFile(p); bytes.Contains(b, []byte(alicePW)) {
					t.Errorf("%s holds the mirror's credentials", p)
				}
			}
			return nil
		})

		// A new commit and a deleted branch reach the mirror on mirror-sync.
		commitFile(t, work, "two.txt", "two\n", "second")
		gitCmd(t, work, "push", "-q", "origin", "main", ":dev")
		carol := s.sdk(gitea.SetToken(carolTok))
		if resp, err := carol.MirrorSync("carol", "copy"); err != nil || resp.StatusCode != 200 {
			t.Fatalf("MirrorSync: %v %v", err, resp)
		}
		head := revParse(t, work, "main")
		if got := s.branchRecords(t, "carol", "copy"); strings.Join(got, " ") != "main@"+head {
			t.Fatalf("records after sync: %v, want main@%s", got, head)
		}
		refs := lsRemote(t, s.gitURL("", "", "carol", "copy"))
		if refs["refs/heads/main"] != head || refs["refs/heads/dev"] != "" {
			t.Fatalf("mirror refs after sync: %v", refs)
		}
		branches, _, err := carol.ListRepoBranches("carol", "copy", gitea.ListRepoBranchesOptions{})
		if err != nil || len(branches) != 1 || branches[0].Name != "main" || !strings.HasPrefix(branches[0].Commit.ID, head) {
			t.Fatalf("branches API after sync: %+v %v", branches, err)
		}
		got, _, err := carol.GetRepo("carol", "copy")
		if err != nil || !got.Mirror || got.OriginalURL != source {
			t.Fatalf("GetRepo of the mirror: %+v %v", got, err)
		}
		if m, _ := s.App.Store.MirrorByRepoID(context.Background(), rec.ID); m.LastError != "" || m.UpdatedUnix < repo.MirrorUpdated.Unix() {
			t.Fatalf("mirror state after sync: %+v", m)
		}

		// The scheduler syncs a due mirror by itself.
		commitFile(t, work, "three.txt", "three\n", "third")
		gitCmd(t, work, "push", "-q", "origin", "main")
		s.dueNow(t)
		if err := s.App.Mirrors.SyncDue(context.Background()); err != nil {
			t.Fatal(err)
		}
		if got := s.branchRecords(t, "carol", "copy"); strings.Join(got, " ") != "main@"+revParse(t, work, "main") {
			t.Fatalf("records after scheduled sync: %v", got)
		}
		if m, _ := s.App.Store.MirrorByRepoID(context.Background(), rec.ID); m.NextUpdateUnix < time.Now().Unix()+8*3600-60 {
			t.Fatalf("next sync not rescheduled: %+v", m)
		}

		// A failed sync (the source's password changed) is recorded,
		// redacted, and the call still answers 200 as Gitea's queue does.
		wrong := `{"clone_addr":"` + source + `","repo_name":"stale","mirror":true,"mirror_interval":"0","auth_username":"alice","auth_password":"` + alicePW + `"}`
		r = w.do("POST", "/api/v1/repos/migrate", wrong, "Authorization", "token "+carolTok, "Content-Type", jsonCT)
		expectStatus(t, r, 201)
		if !strings.Contains(string(r.Body), `"mirror_interval":"0s"`) {
			t.Fatalf("interval 0: %s", r.Body)
		}
		r = w.do("DELETE", "/api/v1/repos/alice/source", "", "Authorization", "token "+aliceTok)
		expectStatus(t, r, 204)
		r = w.do("POST", "/api/v1/repos/carol/stale/mirror-sync", "", "Authorization", "token "+carolTok)
		expectStatus(t, r, 200)
		stale := s.repoRecord(t, "carol", "stale")
		if m, _ := s.App.Store.MirrorByRepoID(context.Background(), stale.ID); m.LastError == "" || strings.Contains(m.LastError, alicePW) {
			t.Fatalf("failed sync state: %+v", m)
		}

		// Rules: write access, mirrors only.
		bobTok := s.seedUser("bob", "bob-password", false)
		r = w.do("POST", "/api/v1/repos/carol/copy/mirror-sync", "", "Authorization", "token "+bobTok)
		expectStatus(t, r, 403)
		r = w.do("POST", "/api/v1/repos/carol/copy/mirror-sync", "")
		expectStatus(t, r, 401)
		s.createRepo(t, carolTok, "plain", true, false)
		r = w.do("POST", "/api/v1/repos/carol/plain/mirror-sync", "", "Authorization", "token "+carolTok)
		expectStatus(t, r, 400)
		if msg := r.message(t); msg != "Repository is not a mirror" {
			t.Fatalf("mirror-sync of a plain repository: %q", msg)
		}
		r = w.do("GET", "/api/v1/repos/carol/copy", "", "Authorization", "token "+carolTok)
		expectStatus(t, r, 200)
		w.check(t, alicePW)
	})
}

func TestMigratePlainRepository(t *testing.T) {
	t.Parallel()
	eachBackend(t, allowLocal, func(t *testing.T, s *testServer) {
		const alicePW = "alice-password"
		aliceTok := s.seedUser("alice", alicePW, false)
		carolTok := s.seedUser("carol", "carol-password", false)
		s.createRepo(t, aliceTok, "source", true, true)
		work := t.TempDir()
		gitCmd(t, work, "clone", "-q", s.gitURL("alice", alicePW, "alice", "source"), ".")
		gitCmd(t, work, "tag", "v1")
		gitCmd(t, work, "push", "-q", "origin", "v1")

		// Credentials in the clone address itself, through the SDK.
		carol := s.sdk(gitea.SetToken(carolTok))
		repo, resp, err := carol.MigrateRepo(gitea.MigrateRepoOption{
			CloneAddr: s.gitURL("alice", alicePW, "alice", "source"), RepoName: "imported", Private: true, Service: gitea.GitServicePlain,
		})
		if err != nil || resp.StatusCode != 201 {
			t.Fatalf("MigrateRepo: %v %v", err, resp)
		}
		if repo.Mirror || repo.MirrorInterval != "" || repo.OriginalURL != s.URL+"/alice/source.git" || !repo.Private || repo.Empty {
			t.Fatalf("plain migration: %+v", repo)
		}
		if refs := lsRemote(t, s.gitURL("carol", "carol-password", "carol", "imported")); refs["refs/tags/v1"] != revParse(t, work, "HEAD") {
			t.Fatalf("imported refs: %v", refs)
		}
		if got := s.branchRecords(t, "carol", "imported"); len(got) != 1 || got[0] != "main@"+revParse(t, work, "HEAD") {
			t.Fatalf("imported branch records: %v", got)
		}
		// Nothing on disk keeps the credentials of a non-mirror migration.
		dir := s.repoDir("carol", "imported")
		filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				if b, _ := os.ReadFile(p); bytes.Contains(b, []byte(alicePW)) {
					t.Errorf("%s holds the credentials", p)
				}
			}
			return nil
		})
		if entries, _ := os.ReadDir(filepath.Dir(dir)); len(entries) != 1 {
			t.Fatalf("scratch repositories left beside the import: %v", entries)
		}
		// Pushing to an imported repository works (it is not a mirror).
		push := t.TempDir()
		gitCmd(t, push, "clone", "-q", s.gitURL("carol", "carol-password", "carol", "imported"), ".")
		commitFile(t, push, "c.txt", "c\n", "carol's")
		gitCmd(t, push, "push", "-q", "origin", "main")
		r := s.do("POST", "/api/v1/repos/carol/imported/mirror-sync", "", "Authorization", "token "+carolTok)
		expectStatus(t, r, 400)

		// An empty source migrates to an empty repository, plain or mirror.
		s.createRepo(t, aliceTok, "blank", false, true)
		for i, mirror := range []string{"false", "true"} {
			r := s.do("POST", "/api/v1/repos/migrate", `{"clone_addr":"`+s.URL+`/alice/blank.git","repo_name":"blank`+fmtInt(int64(i))+`","mirror":`+mirror+
				`,"auth_username":"alice","auth_password":"`+alicePW+`"}`, "Authorization", "token "+carolTok, "Content-Type", jsonCT)
			expectStatus(t, r, 201)
			if !strings.Contains(string(r.Body), `"empty":true`) {
				t.Fatalf("migrated empty repository: %s", r.Body)
			}
		}
		expectStatus(t, s.do("POST", "/api/v1/repos/carol/blank1/mirror-sync", "", "Authorization", "token "+carolTok), 200)
		if m, err := s.App.Store.MirrorByRepoID(context.Background(), s.repoRecord(t, "carol", "blank1").ID); err != nil || m.LastError != "" {
			t.Fatalf("sync of an empty mirror: %+v %v", m, err)
		}

		// Name taken: 409, and the existing repository is untouched.
		r = s.do("POST", "/api/v1/repos/migrate", `{"clone_addr":"`+s.URL+`/alice/source.git","repo_name":"Imported","auth_username":"alice","auth_password":"`+alicePW+`"}`,
			"Authorization", "token "+carolTok, "Content-Type", jsonCT)
		expectStatus(t, r, 409)
		if bytes.Contains(r.Body, []byte(alicePW)) {
			t.Fatalf("409 body carries the password: %s", r.Body)
		}
		if got := s.branchRecords(t, "carol", "imported"); got[0] != "main@"+revParse(t, push, "HEAD") {
			t.Fatalf("existing repository changed: %v", got)
		}
	})
}

func TestMigrateRefusals(t *testing.T) {
	s := startServer(t, "sqlite3", nil) // ALLOW_LOCALNETWORKS = false
	aliceTok := s.seedUser("alice", "alice-password", false)
	s.seedUser("bob", "bob-password", false)
	s.createRepo(t, aliceTok, "source", true, false)
	migrate := func(token, body string) response {
		t.Helper()
		h := []string{"Content-Type", jsonCT}
		if token != "" {
			h = append(h, "Authorization", "token "+token)
		}
		return s.do("POST", "/api/v1/repos/migrate", body, h...)
	}
	port := s.URL[strings.LastIndex(s.URL, ":")+1:]
	for _, addr := range []string{
		s.URL + "/alice/source.git",
		"http://localhost:" + port + "/alice/source.git",
		"http://[::1]:" + port + "/alice/source.git",
		"http://0.0.0.0:" + port + "/alice/source.git",
		"http://2130706433:" + port + "/alice/source.git",
		"http://169.254.169.254/latest/meta-data",
		"http://10.1.2.3/x.git",
		"http://[::ffff:127.0.0.1]:" + port + "/alice/source.git",
	} {
		r := migrate(aliceTok, `{"clone_addr":"`+addr+`","repo_name":"copy","mirror":true}`)
		expectStatus(t, r, 422)
		if msg := r.message(t); msg != "You can not import from disallowed hosts." {
			t.Fatalf("%s: %q", addr, msg)
		}
	}
	for _, addr := range []string{s.Cfg.Repository.Root + "/alice/source.git", "file://" + s.Cfg.Repository.Root + "/alice/source.git", "ssh://git@example.org/x.git", "ext::sh -c id"} {
		r := migrate(aliceTok, `{"clone_addr":"`+addr+`","repo_name":"copy"}`)
		expectStatus(t, r, 422)
	}
	for body, want := range map[string]string{
		`{"repo_name":"copy"}`:                                                                              "[CloneAddr]: Required",
		`{"clone_addr":"https://example.org/x.git"}`:                                                        "[RepoName]: Required",
		`{"clone_addr":"https://example.org/x.git","repo_name":"a/b"}`:                                      "",
		`{"clone_addr":"https://example.org/x.git","repo_name":"x","repo_owner":"zz"}`:                      "user does not exist [name: zz]",
		`{"clone_addr":"https://example.org/x.git","repo_name":"x","mirror":true,"mirror_interval":"5m"}`:   "",
		`{"clone_addr":"https://example.org/x.git","repo_name":"x","mirror":true,"mirror_interval":"soon"}`: "",
	} {
		r := migrate(aliceTok, body)
		expectStatus(t, r, 422)
		if msg := r.message(t); want != "" && msg != want {
			t.Fatalf("%s: %q, want %q", body, msg, want)
		}
	}
	// Only site administrators migrate into another account.
	r := migrate(aliceTok, `{"clone_addr":"https://example.org/x.git","repo_name":"x","repo_owner":"bob"}`)
	expectStatus(t, r, 403)
	r = migrate(s.AdminToken, `{"clone_addr":"`+s.URL+`/alice/source.git","repo_name":"x","repo_owner":"bob"}`)
	expectStatus(t, r, 422) // past the owner check, refused for the host
	r = migrate("", `{"clone_addr":"https://example.org/x.git","repo_name":"x"}`)
	expectStatus(t, r, 401)
	// Nothing was created by any refusal.
	for _, name := range []string{"copy", "x"} {
		for _, owner := range []string{"alice", "bob"} {
			r := s.do("GET", "/api/v1/repos/"+owner+"/"+name, "", "Authorization", "token "+s.AdminToken)
			expectStatus(t, r, 404)
			if _, err := os.Stat(s.repoDir(owner, name)); !os.IsNotExist(err) {
				t.Fatalf("%s/%s exists on disk: %v", owner, name, err)
			}
		}
	}
}

func TestMigrateFailedCloneLeavesNothing(t *testing.T) {
	s := startServer(t, "sqlite3", allowLocal)
	const alicePW = "alice-password"
	aliceTok := s.seedUser("alice", alicePW, false)
	s.createRepo(t, aliceTok, "private", true, true)
	for _, tc := range []struct{ body, want string }{
		{`{"clone_addr":"` + s.URL + `/alice/missing.git","repo_name":"copy","mirror":true,"auth_username":"alice","auth_password":"` + alicePW + `"}`, "Migration failed: "},
		{`{"clone_addr":"` + s.URL + `/alice/private.git","repo_name":"copy","auth_username":"alice","auth_password":"wrong-password-123"}`, "Authentication failed: "},
		{`{"clone_addr":"http://alice:` + alicePW + `@127.0.0.1:1/x.git","repo_name":"copy"}`, "Migration failed: "},
	} {
		r := s.do("POST", "/api/v1/repos/migrate", tc.body, "Authorization", "token "+aliceTok, "Content-Type", jsonCT)
		expectStatus(t, r, 422)
		if msg := r.message(t); !strings.HasPrefix(msg, tc.want) || strings.Contains(msg, alicePW) || strings.Contains(msg, "wrong-password-123") ||
			strings.Contains(msg, s.Cfg.Repository.Root) {
			t.Fatalf("failed clone message %q, want prefix %q and no secrets or paths", msg, tc.want)
		}
		expectStatus(t, s.do("GET", "/api/v1/repos/alice/copy", "", "Authorization", "token "+aliceTok), 404)
		if _, err := os.Stat(s.repoDir("alice", "copy")); !os.IsNotExist(err) {
			t.Fatalf("failed migration left files: %v", err)
		}
		if entries, _ := os.ReadDir(filepath.Join(s.Cfg.Repository.Root, "alice")); len(entries) != 1 {
			t.Fatalf("failed migration left files beside: %v", entries)
		}
	}
	// The name is free again.
	r := s.do("POST", "/api/v1/repos/migrate", `{"clone_addr":"`+s.URL+`/alice/private.git","repo_name":"copy","auth_username":"alice","auth_password":"`+alicePW+`"}`,
		"Authorization", "token "+aliceTok, "Content-Type", jsonCT)
	expectStatus(t, r, 201)
}

var remoteNameRE = regexp.MustCompile(`^remote_mirror_[A-Za-z0-9]{10}$`)

func TestPushMirrors(t *testing.T) {
	t.Parallel()
	eachBackend(t, allowLocal, func(t *testing.T, s *testServer) {
		const alicePW = "alice-password"
		aliceTok := s.seedUser("alice", alicePW, false)
		bobTok := s.seedUser("bob", "bob-password", false)
		carolTok := s.seedUser("carol", "carol-password", false)
		w := &secretWatch{s: s}
		auth := func(tok string) []string { return []string{"Authorization", "token " + tok, "Content-Type", jsonCT} }
		s.createRepo(t, aliceTok, "origin", true, false)
		s.createRepo(t, aliceTok, "backup", false, true)
		s.createRepo(t, aliceTok, "live", false, true)
		expectStatus(t, s.do("PUT", "/api/v1/repos/alice/origin/collaborators/bob", `{"permission":"write"}`, auth(aliceTok)...), 204)

		// Add: 200 with the address redacted, never synced yet.
		backupURL := s.URL + "/alice/backup.git"
		created := time.Now().Add(-2 * time.Second)
		r := w.do("POST", "/api/v1/repos/alice/origin/push_mirrors",
			`{"remote_address":"`+backupURL+`","remote_username":"alice","remote_password":"`+alicePW+`","interval":"8h0m0s"}`, auth(aliceTok)...)
		expectStatus(t, r, 200)
		var pm gitea.PushMirrorResponse
		r.json(t, &pm)
		if pm.RepoName != "origin" || !remoteNameRE.MatchString(pm.RemoteName) || pm.RemoteAddress != backupURL || pm.Interval != "8h0m0s" ||
			pm.SyncONCommit || pm.LastError != "" {
			t.Fatalf("added push mirror: %s", r.Body)
		}
		if lu, err := time.Parse(time.RFC3339, pm.LastUpdate); err != nil || lu.Unix() != 0 {
			t.Fatalf("last_update of a new push mirror: %q", pm.LastUpdate)
		}
		if c, err := time.Parse(time.RFC3339, pm.Created); err != nil || c.Before(created) {
			t.Fatalf("created: %q", pm.Created)
		}

		// The SDK adds a sync_on_commit mirror with interval 0.
		alice := s.sdk(gitea.SetToken(aliceTok))
		live, _, err := alice.PushMirrors("alice", "origin", gitea.CreatePushMirrorOption{
			RemoteAddress: s.URL + "/alice/live.git", RemoteUsername: "alice", RemotePassword: alicePW, Interval: "0", SyncONCommit: true,
		})
		if err != nil || live.Interval != "0s" || !live.SyncONCommit {
			t.Fatalf("PushMirrors: %+v %v", live, err)
		}

		// List, paged, and get.
		list, resp, err := alice.ListPushMirrors("alice", "origin", gitea.ListOptions{})
		if err != nil || len(list) != 2 || list[0].RemoteName != pm.RemoteName || resp.Header.Get("X-Total-Count") != "2" {
			t.Fatalf("ListPushMirrors: %v %v", list, err)
		}
		r = w.do("GET", "/api/v1/repos/alice/origin/push_mirrors?limit=1&page=2", "", auth(aliceTok)...)
		expectStatus(t, r, 200)
		if !strings.Contains(string(r.Body), live.RemoteName) || r.Header.Get("X-Total-Count") != "2" || !strings.Contains(r.Header.Get("Link"), `rel="first"`) {
			t.Fatalf("page 2: %s %v", r.Body, r.Header)
		}
		got, _, err := alice.GetPushMirrorByRemoteName("alice", "origin", live.RemoteName)
		if err != nil || got.RemoteAddress != s.URL+"/alice/live.git" {
			t.Fatalf("GetPushMirrorByRemoteName: %+v %v", got, err)
		}
		expectStatus(t, w.do("GET", "/api/v1/repos/alice/origin/push_mirrors/remote_mirror_nope", "", auth(aliceTok)...), 404)

		// Sync: the backup receives the commits, last_update moves.
		originHead := lsRemote(t, s.gitURL("", "", "alice", "origin"))["refs/heads/main"]
		if resp, err := alice.TriggerPushMirrorsSync("alice", "origin"); err != nil || resp.StatusCode != 200 {
			t.Fatalf("TriggerPushMirrorsSync: %v %v", err, resp)
		}
		if got := lsRemote(t, s.gitURL("alice", alicePW, "alice", "backup"))["refs/heads/main"]; got != originHead {
			t.Fatalf("backup main %q, want %q", got, originHead)
		}
		got, _, _ = alice.GetPushMirrorByRemoteName("alice", "origin", pm.RemoteName)
		if lu, _ := time.Parse(time.RFC3339, got.LastUpdate); lu.Before(created) || got.LastError != "" {
			t.Fatalf("after sync: %+v", got)
		}
		if got := s.branchRecords(t, "alice", "backup"); len(got) != 1 || got[0] != "main@"+originHead {
			t.Fatalf("backup branch records after the push: %v", got)
		}

		// sync_on_commit: a push to origin reaches live by itself, not backup.
		work := t.TempDir()
		gitCmd(t, work, "clone", "-q", s.gitURL("alice", alicePW, "alice", "origin"), ".")
		commitFile(t, work, "new.txt", "new\n", "new")
		gitCmd(t, work, "push", "-q", "origin", "main")
		head := revParse(t, work, "HEAD")
		deadline := time.Now().Add(20 * time.Second)
		for lsRemote(t, s.gitURL("alice", alicePW, "alice", "live"))["refs/heads/main"] != head {
			if time.Now().After(deadline) {
				t.Fatal("sync_on_commit push mirror not updated after a push")
			}
			time.Sleep(50 * time.Millisecond)
		}
		if got := lsRemote(t, s.gitURL("alice", alicePW, "alice", "backup"))["refs/heads/main"]; got != originHead {
			t.Fatalf("backup (no sync_on_commit) moved to %s", got)
		}
		// The scheduler pushes due mirrors with an interval.
		s.dueNow(t)
		if err := s.App.Mirrors.SyncDue(context.Background()); err != nil {
			t.Fatal(err)
		}
		if got := lsRemote(t, s.gitURL("alice", alicePW, "alice", "backup"))["refs/heads/main"]; got != head {
			t.Fatalf("backup after the scheduled push: %s, want %s", got, head)
		}
		// A commit made through the contents API reaches live too.
		r = s.do("POST", "/api/v1/repos/alice/origin/contents/api.txt", `{"content":"YXBp","message":"via api"}`,
			"Authorization", "token "+aliceTok, "Content-Type", jsonCT)
		expectStatus(t, r, 201)
		apiHead := lsRemote(t, s.gitURL("alice", alicePW, "alice", "origin"))["refs/heads/main"]
		for lsRemote(t, s.gitURL("alice", alicePW, "alice", "live"))["refs/heads/main"] != apiHead {
			if time.Now().After(deadline.Add(20 * time.Second)) {
				t.Fatal("sync_on_commit push mirror not updated after a commit through the API")
			}
			time.Sleep(50 * time.Millisecond)
		}

		// Bad input: 400.
		for _, body := range []string{
			`{"remote_address":"` + backupURL + `","interval":""}`,
			`{"remote_address":"` + backupURL + `"}`,
			`{"remote_address":"` + backupURL + `","interval":"soon"}`,
			`{"remote_address":"` + backupURL + `","interval":"5m"}`,
			`{"remote_address":"ftp://example.org/x","interval":"8h"}`,
			`{"remote_address":"/srv/x.git","interval":"8h"}`,
			`{"remote_address":"","interval":"8h"}`,
		} {
			expectStatus(t, w.do("POST", "/api/v1/repos/alice/origin/push_mirrors", body, auth(aliceTok)...), 400)
		}

		// Only repository administrators: a write collaborator gets 403, a
		// stranger 403 on a public repository and 404 on a private one.
		for _, tok := range []string{bobTok, carolTok} {
			expectStatus(t, w.do("GET", "/api/v1/repos/alice/origin/push_mirrors", "", auth(tok)...), 403)
			expectStatus(t, w.do("POST", "/api/v1/repos/alice/origin/push_mirrors", `{"remote_address":"`+backupURL+`","interval":"0"}`, auth(tok)...), 403)
			expectStatus(t, w.do("GET", "/api/v1/repos/alice/origin/push_mirrors/"+pm.RemoteName, "", auth(tok)...), 403)
			expectStatus(t, w.do("DELETE", "/api/v1/repos/alice/origin/push_mirrors/"+pm.RemoteName, "", auth(tok)...), 403)
			expectStatus(t, w.do("POST", "/api/v1/repos/alice/origin/push_mirrors-sync", "", auth(tok)...), 403)
		}
		expectStatus(t, w.do("GET", "/api/v1/repos/alice/backup/push_mirrors", "", auth(carolTok)...), 404)
		expectStatus(t, w.do("GET", "/api/v1/repos/alice/origin/push_mirrors", ""), 401)

		// Delete: 204, then 404.
		if resp, err := alice.DeletePushMirror("alice", "origin", pm.RemoteName); err != nil || resp.StatusCode != 204 {
			t.Fatalf("DeletePushMirror: %v %v", err, resp)
		}
		expectStatus(t, w.do("GET", "/api/v1/repos/alice/origin/push_mirrors/"+pm.RemoteName, "", auth(aliceTok)...), 404)
		expectStatus(t, w.do("DELETE", "/api/v1/repos/alice/origin/push_mirrors/"+pm.RemoteName, "", auth(aliceTok)...), 404)
		r = w.do("GET", "/api/v1/repos/alice/origin/push_mirrors", "", auth(aliceTok)...)
		var left []gitea.PushMirrorResponse
		if err := json.Unmarshal(r.Body, &left); err != nil || len(left) != 1 || left[0].RemoteName != live.RemoteName {
			t.Fatalf("after delete: %s", r.Body)
		}
		// A failing push mirror: the sync answers 500 and records a
		// redacted error.
		r = w.do("POST", "/api/v1/repos/alice/origin/push_mirrors",
			`{"remote_address":"`+s.URL+`/alice/missing.git","remote_username":"alice","remote_password":"`+alicePW+`","interval":"0"}`, auth(aliceTok)...)
		expectStatus(t, r, 200)
		expectStatus(t, w.do("POST", "/api/v1/repos/alice/origin/push_mirrors-sync", "", auth(aliceTok)...), 500)
		r = w.do("GET", "/api/v1/repos/alice/origin/push_mirrors", "", auth(aliceTok)...)
		if !strings.Contains(string(r.Body), `"last_error":"`) || strings.Contains(string(r.Body), `"last_error":""}`+"]") {
			t.Fatalf("failed push not recorded: %s", r.Body)
		}
		w.check(t, alicePW)
		// Stored only sealed.
		var rows []store.PushMirror
		s.App.Store.DB().Find(&rows)
		for _, row := range rows {
			if bytes.Contains(row.RemoteSealed, []byte(alicePW)) || strings.Contains(row.RemoteAddress, alicePW) || strings.Contains(row.LastError, alicePW) {
				t.Fatalf("stored push mirror holds the password: %+v", row)
			}
		}
	})
}

func TestPushMirrorDisallowedHost(t *testing.T) {
	s := startServer(t, "sqlite3", nil)
	aliceTok := s.seedUser("alice", "alice-password", false)
	s.createRepo(t, aliceTok, "origin", true, false)
	r := s.do("POST", "/api/v1/repos/alice/origin/push_mirrors", `{"remote_address":"`+s.URL+`/alice/x.git","interval":"8h"}`,
		"Authorization", "token "+aliceTok, "Content-Type", jsonCT)
	expectStatus(t, r, 422)
	if msg := r.message(t); msg != "You can not import from disallowed hosts." {
		t.Fatalf("disallowed push mirror host: %q", msg)
	}
	r = s.do("GET", "/api/v1/repos/alice/origin/push_mirrors", "", "Authorization", "token "+aliceTok)
	if strings.TrimSpace(string(r.Body)) != "[]" {
		t.Fatalf("refused push mirror was stored: %s", r.Body)
	}
}
