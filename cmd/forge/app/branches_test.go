package app_test

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"code.gitea.io/sdk/gitea"
)

// clone clones owner/repo over smart HTTP as user into a new work tree.
func (s *testServer) clone(t *testing.T, user, password, owner, repo string) string {
	t.Helper()
	dir := t.TempDir()
	gitCmd(t, dir, "clone", "-q", s.gitURL(user, password, owner, repo), ".")
	return dir
}

// commitAs commits name with content as the given author (and committer)
// at a fixed time (unix seconds), so that history order is deterministic.
func commitAs(t *testing.T, dir, email string, unix int64, name, content, message string) string {
	t.Helper()
	if i := strings.LastIndex(name, "/"); i > 0 {
		os.MkdirAll(dir+"/"+name[:i], 0o755)
	}
	if err := os.WriteFile(dir+"/"+name, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	gitCmd(t, dir, "add", name)
	date := strconv.FormatInt(unix, 10) + " +0200"
	who, _, _ := strings.Cut(email, "@")
	cmd := exec.Command("git", "commit", "-q", "-m", message)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(),
		"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "LC_ALL=C",
		"GIT_AUTHOR_NAME="+who, "GIT_AUTHOR_EMAIL="+email, "GIT_AUTHOR_DATE="+date,
		"GIT_COMMITTER_NAME="+who, "GIT_COMMITTER_EMAIL="+email, "GIT_COMMITTER_DATE="+date,
	)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git commit: %v\n%s", err, out)
	}
	return strings.TrimSpace(gitCmd(t, dir, "rev-parse", "HEAD"))
}

// remoteHeads lists the branches of owner/repo as git sees them over smart
// HTTP, as name@short-sha.
func (s *testServer) remoteHeads(t *testing.T, owner, repo, user, password string) []string {
	t.Helper()
	out := gitCmd(t, t.TempDir(), "ls-remote", "--heads", s.gitURL(user, password, owner, repo))
	var heads []string
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if sha, ref, ok := strings.Cut(line, "\t"); ok {
			heads = append(heads, strings.TrimPrefix(ref, "refs/heads/")+"@"+sha[:7])
		}
	}
	return heads
}

func timeUnix(sec int64) time.Time { return time.Unix(sec, 0) }

func branchNames(bs []*gitea.Branch) string {
	var names []string
	for _, b := range bs {
		names = append(names, b.Name)
	}
	return strings.Join(names, " ")
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// The empty-repository and refusal rules are cases in
// testdata/cases/branches.yaml.

func TestBranchesAPI(t *testing.T) {
	t.Parallel()
	eachBackend(t, nil, func(t *testing.T, s *testServer) {
		const pw = "alice-password"
		aliceTok := s.seedUser("alice", pw, false)
		bobTok := s.seedUser("bob", "bob-password", false)
		alice := s.sdk(gitea.SetToken(aliceTok))
		auth := []string{"Authorization", "token " + aliceTok}
		post := append(auth, "Content-Type", jsonCT)
		s.createRepo(t, aliceTok, "proj", false, false)

		// History with distinct commit times: old < main = zeta < feature.
		const t0 = 1_700_000_000
		work := s.clone(t, "alice", pw, "alice", "proj")
		gitCmd(t, work, "checkout", "-q", "-b", "main")
		first := commitAs(t, work, "alice@example.org", t0, "a.txt", "1\n", "first")
		gitCmd(t, work, "branch", "old")
		gitCmd(t, work, "tag", "v1")
		second := commitAs(t, work, "alice@example.org", t0+100, "a.txt", "2\n", "second")
		gitCmd(t, work, "branch", "zeta")
		gitCmd(t, work, "checkout", "-q", "-b", "feature/deep/x")
		third := commitAs(t, work, "tester@example.org", t0+200, "b.txt", "3\n", "third")
		gitCmd(t, work, "push", "-q", "origin", "main", "old", "zeta", "feature/deep/x", "v1")

		// Latest commit first, then by name, from the branch records.
		list, resp, err := alice.ListRepoBranches("alice", "proj", gitea.ListRepoBranchesOptions{})
		if err != nil || branchNames(list) != "feature/deep/x main zeta old" || resp.Header.Get("X-Total-Count") != "4" {
			t.Fatalf("list: %q %v (X-Total-Count %q)", branchNames(list), err, resp.Header.Get("X-Total-Count"))
		}
		r := s.do("GET", "/api/v1/repos/alice/proj/branches?limit=2&page=2", "", auth...)
		var page []*gitea.Branch
		r.json(t, &page)
		base := s.URL + "/api/v1/repos/alice/proj/branches?limit=2&page="
		if branchNames(page) != "zeta old" || r.Header.Get("X-Total-Count") != "4" ||
			r.Header.Get("Link") != `<`+base+`1>; rel="first",<`+base+`1>; rel="prev"` {
			t.Fatalf("page 2: %q, headers %v", branchNames(page), r.Header)
		}
		// Past the end of a non-empty repository: [], not null.
		if r := s.do("GET", "/api/v1/repos/alice/proj/branches?limit=2&page=3", "", auth...); string(r.Body) != "[]\n" {
			t.Fatalf("past the end: %q", r.Body)
		}

		// One branch, with a slash in its name; the head's author is
		// matched to an account by e-mail.
		b, _, err := alice.GetRepoBranch("alice", "proj", "feature/deep/x")
		if err != nil || b.Name != "feature/deep/x" || b.Commit.ID != third || b.Commit.Author.UserName != "" ||
			b.Commit.Author.Email != "tester@example.org" || b.Commit.Message != "third\n" {
			t.Fatalf("feature branch: %+v %v", b, err)
		}
		b, _, err = alice.GetRepoBranch("alice", "proj", "main")
		if err != nil || b.Commit.ID != second || b.Commit.Author.UserName != "alice" || b.Commit.Committer.UserName != "alice" ||
			!b.Commit.Timestamp.Equal(timeUnix(t0+100)) || b.Commit.URL != s.URL+"/alice/proj/commit/"+second ||
			!b.UserCanPush || !b.UserCanMerge || b.Protected {
			t.Fatalf("main: %+v %+v %v", b, b.Commit, err)
		}
		r = s.do("GET", "/api/v1/repos/alice/proj/branches/main", "", auth...)
		for _, want := range []string{
			`"protected":false,"required_approvals":0,"enable_status_check":false,"status_check_contexts":[],` +
				`"user_can_push":true,"user_can_merge":true,"effective_branch_protection_name":""}`,
			`"verification":{"verified":false,"reason":"gpg.error.not_signed_commit","signer":null,"signature":"","payload":""}`,
			`"added":null,"removed":null,"modified":null`,
		} {
			if !strings.Contains(string(r.Body), want) {
				t.Fatalf("branch JSON lacks %s:\n%s", want, r.Body)
			}
		}
		r = s.do("GET", "/api/v1/repos/alice/proj/branches/nope", "", auth...)
		expectStatus(t, r, 404)

		// Readers (anonymous too) see branches but may not push; they may
		// not create or delete them.
		bob := s.sdk(gitea.SetToken(bobTok))
		if b, _, err := bob.GetRepoBranch("alice", "proj", "main"); err != nil || b.UserCanPush || b.UserCanMerge {
			t.Fatalf("reader's view: %+v %v", b, err)
		}
		expectStatus(t, s.do("GET", "/api/v1/repos/alice/proj/branches", ""), 200)
		if _, resp, err := bob.CreateBranch("alice", "proj", gitea.CreateBranchOption{BranchName: "x"}); err == nil || resp.StatusCode != 403 {
			t.Fatalf("reader creates a branch: %v", err)
		}
		expectStatus(t, s.do("POST", "/api/v1/repos/alice/proj/branches", `{"new_branch_name":"x"}`, "Content-Type", jsonCT), 401)
		expectStatus(t, s.do("DELETE", "/api/v1/repos/alice/proj/branches/old", "", "Authorization", "token "+bobTok), 403)

		// Create from the default branch, a branch, a tag and a sha: git and
		// the branch records both have the new branch.
		nb, resp, err := alice.CreateBranch("alice", "proj", gitea.CreateBranchOption{BranchName: "api/one"})
		if err != nil || resp.StatusCode != 201 || nb.Name != "api/one" || nb.Commit.ID != second {
			t.Fatalf("create from default: %+v %v", nb, err)
		}
		nb, _, err = alice.CreateBranch("alice", "proj", gitea.CreateBranchOption{BranchName: "api/two", OldBranchName: "old"})
		if err != nil || nb.Commit.ID != first {
			t.Fatalf("create from old_branch_name: %+v %v", nb, err)
		}
		for name, from := range map[string]string{"api/tag": "v1", "api/sha": third[:10]} {
			r = s.do("POST", "/api/v1/repos/alice/proj/branches", `{"new_branch_name":"`+name+`","old_ref_name":"`+from+`"}`, post...)
			expectStatus(t, r, 201)
		}
		heads := s.remoteHeads(t, "alice", "proj", "", "")
		records := s.branchRecords(t, "alice", "proj")
		for _, want := range []string{"api/one@" + second[:7], "api/two@" + first[:7], "api/tag@" + first[:7], "api/sha@" + third[:7]} {
			if !contains(heads, want) || !contains(records, want) {
				t.Fatalf("%s: git has %v, records %v", want, heads, records)
			}
		}

		// Refusals.
		for _, c := range []struct {
			body   string
			status int
			msg    string
		}{
			{`{"new_branch_name":"main"}`, 409, "The branch already exists."},
			{`{"new_branch_name":"v1"}`, 409, "The branch with the same tag already exists."},
			{`{"new_branch_name":"feature"}`, 409, "The branch with a name that conflicts with another branch already exists."},
			{`{"new_branch_name":"x","old_branch_name":"nope"}`, 404, "The old branch does not exist"},
			{`{"new_branch_name":"x","old_ref_name":"nope"}`, 404, "The old ref does not exist [ref: nope]"},
			{`{"new_branch_name":"bad..name"}`, 422, "[BranchName]: GitRefName"},
			{`{"old_branch_name":"main"}`, 422, "[BranchName]: Required"},
		} {
			r := s.do("POST", "/api/v1/repos/alice/proj/branches", c.body, post...)
			if r.Status != c.status || r.message(t) != c.msg {
				t.Fatalf("%s: %d %s", c.body, r.Status, r.Body)
			}
		}

		// Delete: not the default branch, not an unknown one; a deleted
		// branch leaves git and the records.
		r = s.do("DELETE", "/api/v1/repos/alice/proj/branches/main", "", auth...)
		if r.Status != 403 || r.message(t) != "can not delete default branch" {
			t.Fatalf("delete default: %d %s", r.Status, r.Body)
		}
		expectStatus(t, s.do("DELETE", "/api/v1/repos/alice/proj/branches/nope", "", auth...), 404)
		if ok, resp, err := alice.DeleteRepoBranch("alice", "proj", "api/one"); !ok || err != nil || resp.StatusCode != 204 {
			t.Fatalf("delete: %v %v", ok, err)
		}
		if heads := s.remoteHeads(t, "alice", "proj", "", ""); contains(heads, "api/one@"+second[:7]) {
			t.Fatalf("deleted branch still in git: %v", heads)
		}
		if records := s.branchRecords(t, "alice", "proj"); contains(records, "api/one@"+second[:7]) {
			t.Fatalf("deleted branch still recorded: %v", records)
		}
		expectStatus(t, s.do("GET", "/api/v1/repos/alice/proj/branches/api/one", "", auth...), 404)

		// A branch deleted by a push leaves the list; the API's new
		// branches reach a fresh clone.
		gitCmd(t, work, "push", "-q", "origin", "--delete", "zeta")
		list, _, _ = alice.ListRepoBranches("alice", "proj", gitea.ListRepoBranchesOptions{})
		if got := branchNames(list); strings.Contains(got, "zeta") || !strings.Contains(got, "api/two") {
			t.Fatalf("list after push and API changes: %s", got)
		}
		fresh := s.clone(t, "", "", "alice", "proj")
		if got := revParse(t, fresh, "origin/api/two"); got != first[:7] {
			t.Fatalf("API branch in a fresh clone at %s", got)
		}
	})
}

// Branch, contents and commit permissions on private repositories are
// cases in testdata/cases/permissions.yaml.
