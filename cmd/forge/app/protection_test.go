package app_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"code.gitea.io/sdk/gitea"
)

// TestBranchProtectionCRUD drives the five calls through the SDK: a rule
// is created with every field and read back as created (lists of names,
// status_check_contexts null when not sent), listed plain names first,
// edited with absent, null and empty lists (absent/null keep, [] clears,
// a list replaces), refused when duplicated (403) or naming an unknown
// user (422), and deleted (then 404).
func TestBranchProtectionCRUD(t *testing.T) {
	t.Parallel()
	eachBackend(t, nil, func(t *testing.T, s *testServer) {
		tok := s.seedUser("alice", "alice-password", false)
		s.seedUser("bob", "bob-password", false)
		alice := s.sdk(gitea.SetToken(tok))
		s.createRepo(t, tok, "proj", true, false)

		glob, resp, err := alice.CreateBranchProtection("alice", "proj", gitea.CreateBranchProtectionOption{RuleName: "release/*"})
		if err != nil || resp.StatusCode != http.StatusCreated {
			t.Fatalf("create glob: %v %v", resp, err)
		}
		if glob.BranchName != "" || glob.RuleName != "release/*" || glob.StatusCheckContexts != nil {
			t.Fatalf("glob rule: %+v", glob)
		}
		bp, _, err := alice.CreateBranchProtection("alice", "proj", gitea.CreateBranchProtectionOption{
			BranchName: "main", EnablePush: true, EnablePushWhitelist: true, PushWhitelistUsernames: []string{"bob"},
			PushWhitelistDeployKeys: true, EnableMergeWhitelist: true, MergeWhitelistUsernames: []string{"alice"},
			EnableStatusCheck: true, StatusCheckContexts: []string{"ci/*"}, RequiredApprovals: 2,
			EnableApprovalsWhitelist: true, ApprovalsWhitelistUsernames: []string{"bob"}, BlockOnRejectedReviews: true,
			BlockOnOfficialReviewRequests: true, BlockOnOutdatedBranch: true, DismissStaleApprovals: true,
			RequireSignedCommits: true, ProtectedFilePatterns: "*.lock", UnprotectedFilePatterns: "docs/**",
		})
		if err != nil {
			t.Fatal(err)
		}
		want := gitea.BranchProtection{BranchName: "main", RuleName: "main", EnablePush: true, EnablePushWhitelist: true,
			PushWhitelistUsernames: []string{"bob"}, PushWhitelistTeams: []string{}, PushWhitelistDeployKeys: true,
			EnableMergeWhitelist: true, MergeWhitelistUsernames: []string{"alice"}, MergeWhitelistTeams: []string{},
			EnableStatusCheck: true, StatusCheckContexts: []string{"ci/*"}, RequiredApprovals: 2,
			EnableApprovalsWhitelist: true, ApprovalsWhitelistUsernames: []string{"bob"}, ApprovalsWhitelistTeams: []string{},
			BlockOnRejectedReviews: true, BlockOnOfficialReviewRequests: true, BlockOnOutdatedBranch: true,
			DismissStaleApprovals: true, RequireSignedCommits: true, ProtectedFilePatterns: "*.lock", UnprotectedFilePatterns: "docs/**",
			Created: bp.Created, Updated: bp.Updated}
		if !equalProtection(*bp, want) || bp.Created.IsZero() {
			t.Fatalf("created %+v\nwant %+v", *bp, want)
		}
		got, _, err := alice.GetBranchProtection("alice", "proj", "main")
		if err != nil || !equalProtection(*got, want) {
			t.Fatalf("get: %+v %v", got, err)
		}
		list, _, err := alice.ListBranchProtections("alice", "proj", gitea.ListBranchProtectionsOptions{})
		if err != nil || len(list) != 2 || list[0].RuleName != "main" || list[1].RuleName != "release/*" {
			t.Fatalf("list: %+v %v", list, err)
		}

		// Duplicate: 403; unknown user: 422; neither name: 400.
		if _, resp, _ := alice.CreateBranchProtection("alice", "proj", gitea.CreateBranchProtectionOption{RuleName: "main"}); resp == nil || resp.StatusCode != http.StatusForbidden {
			t.Fatalf("duplicate: %v", resp)
		}
		if _, resp, _ := alice.CreateBranchProtection("alice", "proj", gitea.CreateBranchProtectionOption{RuleName: "dev", PushWhitelistUsernames: []string{"nobody"}}); resp == nil || resp.StatusCode != http.StatusUnprocessableEntity {
			t.Fatalf("unknown user: %v", resp)
		}
		if _, resp, _ := alice.CreateBranchProtection("alice", "proj", gitea.CreateBranchProtectionOption{}); resp == nil || resp.StatusCode != http.StatusBadRequest {
			t.Fatalf("no name: %v", resp)
		}

		// PATCH: nil lists (sent as null) keep everything.
		no := false
		got, _, err = alice.EditBranchProtection("alice", "proj", "main", gitea.EditBranchProtectionOption{BlockOnOutdatedBranch: &no})
		if err != nil || got.BlockOnOutdatedBranch || !slices.Equal(got.StatusCheckContexts, []string{"ci/*"}) ||
			!slices.Equal(got.PushWhitelistUsernames, []string{"bob"}) || !got.EnableStatusCheck {
			t.Fatalf("edit with nulls: %+v %v", got, err)
		}
		// Absent (raw body without the keys) keeps them too.
		raw := s.rawJSON(t, tok, http.MethodPatch, "/api/v1/repos/alice/proj/branch_protections/main", `{"required_approvals": 1}`)
		if raw["required_approvals"].(float64) != 1 || len(raw["status_check_contexts"].([]any)) != 1 {
			t.Fatalf("edit absent: %v", raw)
		}
		// [] clears, whatever enable_status_check says; a list replaces.
		got, _, err = alice.EditBranchProtection("alice", "proj", "main", gitea.EditBranchProtectionOption{
			StatusCheckContexts: []string{}, MergeWhitelistUsernames: []string{"bob"}, PushWhitelistUsernames: []string{}})
		if err != nil || got.StatusCheckContexts == nil || len(got.StatusCheckContexts) != 0 || !got.EnableStatusCheck ||
			!slices.Equal(got.MergeWhitelistUsernames, []string{"bob"}) || len(got.PushWhitelistUsernames) != 0 ||
			!slices.Equal(got.ApprovalsWhitelistUsernames, []string{"bob"}) {
			t.Fatalf("edit with lists: %+v %v", got, err)
		}
		raw = s.rawJSON(t, tok, http.MethodGet, "/api/v1/repos/alice/proj/branch_protections/main", "")
		if c, ok := raw["status_check_contexts"].([]any); !ok || len(c) != 0 {
			t.Fatalf("cleared contexts read back as %v", raw["status_check_contexts"])
		}
		// enable_push false clears the push whitelist flags.
		got, _, err = alice.EditBranchProtection("alice", "proj", "main", gitea.EditBranchProtectionOption{EnablePush: &no})
		if err != nil || got.EnablePush || got.EnablePushWhitelist || got.PushWhitelistDeployKeys {
			t.Fatalf("disable push: %+v %v", got, err)
		}
		if _, resp, _ := alice.EditBranchProtection("alice", "proj", "main", gitea.EditBranchProtectionOption{MergeWhitelistUsernames: []string{"ghost-x"}}); resp == nil || resp.StatusCode != http.StatusUnprocessableEntity {
			t.Fatalf("edit unknown user: %v", resp)
		}
		if _, resp, _ := alice.EditBranchProtection("alice", "proj", "nope", gitea.EditBranchProtectionOption{}); resp == nil || resp.StatusCode != http.StatusNotFound {
			t.Fatalf("edit missing: %v", resp)
		}

		if resp, err := alice.DeleteBranchProtection("alice", "proj", "main"); err != nil || resp.StatusCode != http.StatusNoContent {
			t.Fatalf("delete: %v %v", resp, err)
		}
		if _, resp, _ := alice.GetBranchProtection("alice", "proj", "main"); resp == nil || resp.StatusCode != http.StatusNotFound {
			t.Fatalf("get deleted: %v", resp)
		}
		if resp, _ := alice.DeleteBranchProtection("alice", "proj", "main"); resp == nil || resp.StatusCode != http.StatusNotFound {
			t.Fatalf("delete again: %v", resp)
		}
	})
}

func equalProtection(a, b gitea.BranchProtection) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return string(ja) == string(jb)
}

// rawJSON sends body with the token and decodes the JSON object answered.
func (s *testServer) rawJSON(t *testing.T, tok, method, path, body string) map[string]any {
	t.Helper()
	req, err := http.NewRequest(method, s.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "token "+tok)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var out map[string]any
	if err := json.Unmarshal(b, &out); err != nil || resp.StatusCode >= 300 {
		t.Fatalf("%s %s: %d %s", method, path, resp.StatusCode, b)
	}
	return out
}

// protectedRepo makes alice's proj with bob as a writer and returns
// alice's and bob's clients and work trees.
func protectedRepo(t *testing.T, s *testServer) (*gitea.Client, *gitea.Client, string, string) {
	a, b, _, _, ad, bd := protectedRepoTokens(t, s)
	return a, b, ad, bd
}

// protectedRepoTokens is protectedRepo with alice's and bob's tokens.
func protectedRepoTokens(t *testing.T, s *testServer) (*gitea.Client, *gitea.Client, string, string, string, string) {
	t.Helper()
	tok := s.seedUser("alice", "alice-password", false)
	bobTok := s.seedUser("bob", "bob-password", false)
	alice := s.sdk(gitea.SetToken(tok))
	s.createRepo(t, tok, "proj", true, false)
	write := gitea.AccessModeWrite
	if _, err := alice.AddCollaborator("alice", "proj", "bob", gitea.AddCollaboratorOption{Permission: &write}); err != nil {
		t.Fatal(err)
	}
	return alice, s.sdk(gitea.SetToken(bobTok)), tok, bobTok, s.clone(t, "alice", "alice-password", "alice", "proj"), s.clone(t, "bob", "bob-password", "alice", "proj")
}

// pushRefused pushes args in dir and wants the push refused with the
// message line git prints as "remote: <want>".
func pushRefused(t *testing.T, dir, want string, args ...string) {
	t.Helper()
	out, err := gitTry(dir, append([]string{"push"}, args...)...)
	if err == nil {
		t.Fatalf("push %v accepted, want refused with %q:\n%s", args, want, out)
	}
	if !strings.Contains(out, "remote: "+want) || !strings.Contains(out, "pre-receive hook declined") {
		t.Fatalf("push %v: want \"remote: %s\", got:\n%s", args, want, out)
	}
}

// TestBranchProtectionPush pushes with the real git client to protected
// branches: each field of a rule refuses what it protects, and git prints
// why as "remote: ..." lines; what the rule allows still lands, and a
// branch no rule names is unaffected.
func TestBranchProtectionPush(t *testing.T) {
	t.Parallel()
	eachBackend(t, nil, func(t *testing.T, s *testServer) {
		alice, _, aliceDir, bobDir := protectedRepo(t, s)
		mk := func(o gitea.CreateBranchProtectionOption) {
			t.Helper()
			if _, _, err := alice.CreateBranchProtection("alice", "proj", o); err != nil {
				t.Fatal(err)
			}
		}
		// Branches to protect later, pushed while nothing is protected.
		gitCmd(t, aliceDir, "push", "-q", "origin", "main:release/1", "main:signed", "main:feature")
		mk(gitea.CreateBranchProtectionOption{RuleName: "main", EnablePush: true, EnablePushWhitelist: true,
			PushWhitelistUsernames: []string{"alice"}, ProtectedFilePatterns: "*.lock", UnprotectedFilePatterns: "docs/**"})
		mk(gitea.CreateBranchProtectionOption{RuleName: "release/*", EnablePush: true})
		mk(gitea.CreateBranchProtectionOption{RuleName: "signed", EnablePush: true, RequireSignedCommits: true})

		// Push whitelist: bob may not push to main, alice may.
		gitCmd(t, bobDir, "pull", "-q", "origin", "main")
		commitFile(t, bobDir, "bob.txt", "bob\n", "bob's change")
		pushRefused(t, bobDir, "Not allowed to push to protected branch main", "origin", "HEAD:main")
		// ...except files that are all unprotected.
		gitCmd(t, bobDir, "reset", "-q", "--hard", "origin/main")
		commitFile(t, bobDir, "docs/guide.md", "guide\n", "docs only")
		gitCmd(t, bobDir, "push", "-q", "origin", "HEAD:main")
		gitCmd(t, aliceDir, "pull", "-q", "origin", "main")
		commitFile(t, aliceDir, "alice.txt", "alice\n", "alice's change")
		gitCmd(t, aliceDir, "push", "-q", "origin", "HEAD:main")

		// Protected files: refused even to the whitelist.
		commitFile(t, aliceDir, "deps.lock", "x\n", "lock")
		pushRefused(t, aliceDir, "branch main is protected from changing file deps.lock", "origin", "HEAD:main")
		gitCmd(t, aliceDir, "reset", "-q", "--hard", "origin/main")

		// Force push: refused.
		gitCmd(t, aliceDir, "reset", "-q", "--hard", "HEAD~1")
		commitFile(t, aliceDir, "other.txt", "other\n", "rewrite")
		pushRefused(t, aliceDir, "branch main is protected from force push", "-f", "origin", "HEAD:main")
		gitCmd(t, aliceDir, "reset", "-q", "--hard", "origin/main")

		// Deletion: refused (a glob rule).
		pushRefused(t, aliceDir, "branch release/1 is protected from deletion", "origin", ":release/1")
		// Creating a branch a rule names is a push like any other.
		gitCmd(t, aliceDir, "push", "-q", "origin", "HEAD:release/2")

		// Signed commits: an unsigned commit is refused, naming it.
		gitCmd(t, aliceDir, "checkout", "-q", "-B", "signed", "origin/signed")
		commitFile(t, aliceDir, "s.txt", "s\n", "unsigned")
		sha := strings.TrimSpace(gitCmd(t, aliceDir, "rev-parse", "HEAD"))
		pushRefused(t, aliceDir, "branch signed is protected from unverified commit "+sha, "origin", "HEAD:signed")

		// A branch no rule names: anything goes, force push and deletion too.
		gitCmd(t, aliceDir, "push", "-q", "-f", "origin", "HEAD:feature")
		gitCmd(t, aliceDir, "push", "-q", "origin", ":feature")

		// Deleting the rule lifts it.
		if _, err := alice.DeleteBranchProtection("alice", "proj", "release/*"); err != nil {
			t.Fatal(err)
		}
		gitCmd(t, aliceDir, "push", "-q", "origin", ":release/1")
	})
}

// TestBranchProtectionAPI changes protected branches through the contents
// and branch APIs: Gitea's 403s for a writer outside the push whitelist, a
// protected file, a branch that requires signed commits (forge does not
// sign its commits) and a protected branch's deletion.
func TestBranchProtectionAPI(t *testing.T) {
	t.Parallel()
	eachBackend(t, nil, func(t *testing.T, s *testServer) {
		alice, bob, aliceTok, _, aliceDir, _ := protectedRepoTokens(t, s)
		gitCmd(t, aliceDir, "push", "-q", "origin", "main:release/1", "main:signed")
		for _, o := range []gitea.CreateBranchProtectionOption{
			{RuleName: "main", EnablePush: true, EnablePushWhitelist: true, PushWhitelistUsernames: []string{"alice"}, ProtectedFilePatterns: "*.lock"},
			{RuleName: "release/*", EnablePush: true},
			{RuleName: "signed", EnablePush: true, RequireSignedCommits: true},
		} {
			if _, _, err := alice.CreateBranchProtection("alice", "proj", o); err != nil {
				t.Fatal(err)
			}
		}
		// The branch JSON shows the rule: protected, who may push.
		for _, c := range []struct {
			who          *gitea.Client
			branch, rule string
			push         bool
		}{{bob, "main", "", false}, {alice, "main", "main", true}, {bob, "release/1", "", true}, {alice, "release/1", "release/*", true}} {
			b, _, err := c.who.GetRepoBranch("alice", "proj", c.branch)
			if err != nil || !b.Protected || b.UserCanPush != c.push || !b.UserCanMerge || b.EffectiveBranchProtectionName != c.rule {
				t.Fatalf("branch %s: %+v %v, want protected, push %v, rule %q", c.branch, b, err, c.push, c.rule)
			}
		}
		content := "aGVsbG8K"
		refused := func(c *gitea.Client, branch, path, want string) {
			t.Helper()
			_, resp, err := c.CreateFile("alice", "proj", path, gitea.CreateFileOptions{FileOptions: gitea.FileOptions{BranchName: branch}, Content: content})
			if resp == nil || resp.StatusCode != http.StatusForbidden || err == nil || !strings.Contains(err.Error(), want) {
				t.Fatalf("create %s on %s: %v %v, want 403 %q", path, branch, resp, err, want)
			}
		}
		refused(bob, "main", "b.txt", "user cannot commit to repo [user: bob]")
		refused(alice, "main", "x.lock", "path is protected and can not be changed [path: x.lock]")
		refused(alice, "signed", "s.txt", "user cannot commit to repo [user: alice]")
		if _, resp, err := alice.CreateFile("alice", "proj", "ok.txt", gitea.CreateFileOptions{FileOptions: gitea.FileOptions{BranchName: "main"}, Content: content}); err != nil || resp.StatusCode != http.StatusCreated {
			t.Fatalf("whitelisted create: %v %v", resp, err)
		}
		if _, resp, err := bob.CreateFile("alice", "proj", "ok.txt", gitea.CreateFileOptions{FileOptions: gitea.FileOptions{BranchName: "release/1"}, Content: content}); err != nil || resp.StatusCode != http.StatusCreated {
			t.Fatalf("create on a branch pushing is open to: %v %v", resp, err)
		}
		// Deleting a protected branch: 403 "branch protected".
		if r := s.do("DELETE", "/api/v1/repos/alice/proj/branches/release/1", "", "Authorization", "token "+aliceTok); r.Status != http.StatusForbidden || !strings.Contains(string(r.Body), `"branch protected"`) {
			t.Fatalf("delete protected branch: %d %s", r.Status, r.Body)
		}
		if ok, _, err := alice.DeleteRepoBranch("alice", "proj", "release/1"); ok || err != nil {
			t.Fatalf("SDK delete of a protected branch: %v %v", ok, err)
		}
	})
}

// TestBranchProtectionMerge merges into a protected base: the merge
// whitelist (405 "User not allowed to merge PR", force_merge or not),
// required status checks matched as globs against the head's latest
// statuses, required approvals (no review counts yet), an outdated head,
// and force_merge by a repository administrator skipping the checks.
func TestBranchProtectionMerge(t *testing.T) {
	t.Parallel()
	eachBackend(t, nil, func(t *testing.T, s *testServer) {
		alice, _, aliceTok, bobTok, aliceDir, _ := protectedRepoTokens(t, s)
		open := func(branch string) int64 {
			t.Helper()
			gitCmd(t, aliceDir, "fetch", "-q", "origin")
			gitCmd(t, aliceDir, "checkout", "-q", "-B", branch, "origin/main")
			commitFile(t, aliceDir, branch+".txt", branch+"\n", "add "+branch)
			gitCmd(t, aliceDir, "push", "-q", "origin", branch)
			pr, _, err := alice.CreatePullRequest("alice", "proj", gitea.CreatePullRequestOption{Head: branch, Base: "main", Title: branch})
			if err != nil {
				t.Fatal(err)
			}
			return pr.Index
		}
		// The SDK answers a refused merge without its message: raw HTTP.
		var mergeBody func(tok string, index int64, body string) response
		mergeAs := func(tok string, index int64, force bool) response {
			t.Helper()
			return mergeBody(tok, index, fmt.Sprintf(`{"Do":"merge","force_merge":%v}`, force))
		}
		mergeBody = func(tok string, index int64, body string) response {
			t.Helper()
			// The merge state is computed after the push: retry while
			// Gitea's "try again later" answers.
			for i := 0; ; i++ {
				r := s.do("POST", fmt.Sprintf("/api/v1/repos/alice/proj/pulls/%d/merge", index), body,
					"Authorization", "token "+tok, "Content-Type", jsonCT)
				if r.Status == http.StatusMethodNotAllowed && strings.Contains(string(r.Body), "try again later") && i < 50 {
					time.Sleep(100 * time.Millisecond)
					continue
				}
				return r
			}
		}
		refused := func(tok string, index int64, force bool, want string) {
			t.Helper()
			if r := mergeAs(tok, index, force); r.Status != http.StatusMethodNotAllowed || !strings.Contains(string(r.Body), want) {
				t.Fatalf("merge %d: %d %s, want 405 %q", index, r.Status, r.Body, want)
			}
		}
		merged := func(tok string, index int64, force bool) {
			t.Helper()
			if r := mergeAs(tok, index, force); r.Status != http.StatusOK {
				t.Fatalf("merge %d: %d %s", index, r.Status, r.Body)
			}
		}
		pr1 := open("one")
		if _, _, err := alice.CreateBranchProtection("alice", "proj", gitea.CreateBranchProtectionOption{RuleName: "main",
			EnablePush: true, EnableMergeWhitelist: true, MergeWhitelistUsernames: []string{"alice"},
			EnableStatusCheck: true, StatusCheckContexts: []string{"ci/*"}}); err != nil {
			t.Fatal(err)
		}
		// bob writes the code but is not in the merge whitelist.
		refused(bobTok, pr1, false, "User not allowed to merge PR")
		refused(bobTok, pr1, true, "User not allowed to merge PR")
		// No status of ci/*: pending, refused.
		refused(aliceTok, pr1, false, "not allowed to merge [reason: Not all required status checks successful]")
		head := strings.TrimSpace(gitCmd(t, aliceDir, "rev-parse", "one"))
		status := func(ctx string, st gitea.StatusState) {
			t.Helper()
			if _, _, err := alice.CreateStatus("alice", "proj", head, gitea.CreateStatusOption{State: st, Context: ctx}); err != nil {
				t.Fatal(err)
			}
		}
		status("ci/build", gitea.StatusFailure)
		status("lint", gitea.StatusSuccess)
		refused(aliceTok, pr1, false, "Not all required status checks successful")
		status("ci/build", gitea.StatusSuccess)
		merged(aliceTok, pr1, false)

		// Approvals: none counts yet; the owner forces the merge.
		pr2 := open("two")
		yes, two := true, int64(1)
		if _, _, err := alice.EditBranchProtection("alice", "proj", "main", gitea.EditBranchProtectionOption{
			EnableStatusCheck: new(bool), RequiredApprovals: &two, BlockOnOutdatedBranch: &yes}); err != nil {
			t.Fatal(err)
		}
		refused(aliceTok, pr2, false, "not allowed to merge [reason: Does not have enough approvals]")
		merged(aliceTok, pr2, true)

		// Outdated head: the base moved past it.
		if _, _, err := alice.EditBranchProtection("alice", "proj", "main", gitea.EditBranchProtectionOption{RequiredApprovals: new(int64)}); err != nil {
			t.Fatal(err)
		}
		gitCmd(t, aliceDir, "fetch", "-q", "origin")
		gitCmd(t, aliceDir, "checkout", "-q", "-B", "three", "origin/main~1")
		commitFile(t, aliceDir, "three.txt", "three\n", "add three")
		gitCmd(t, aliceDir, "push", "-q", "origin", "three")
		pr3, _, err := alice.CreatePullRequest("alice", "proj", gitea.CreatePullRequestOption{Head: "three", Base: "main", Title: "three"})
		if err != nil {
			t.Fatal(err)
		}
		refused(aliceTok, pr3.Index, false, "not allowed to merge [reason: The head branch is behind the base branch]")
		merged(aliceTok, pr3.Index, true)

		// delete_branch_after_merge leaves a protected head branch alone.
		pr4 := open("four")
		if _, _, err := alice.CreateBranchProtection("alice", "proj", gitea.CreateBranchProtectionOption{RuleName: "four", EnablePush: true}); err != nil {
			t.Fatal(err)
		}
		if r := mergeBody(aliceTok, pr4, `{"Do":"merge","delete_branch_after_merge":true}`); r.Status != http.StatusOK {
			t.Fatalf("merge four: %d %s", r.Status, r.Body)
		}
		if _, _, err := alice.GetRepoBranch("alice", "proj", "four"); err != nil {
			t.Fatalf("protected head branch deleted after the merge: %v", err)
		}

		// A pull request that changes a protected file is not merged; one
		// that changes none of them is.
		patterns := "docs/*.md; five.txt"
		if _, _, err := alice.EditBranchProtection("alice", "proj", "main", gitea.EditBranchProtectionOption{ProtectedFilePatterns: &patterns}); err != nil {
			t.Fatal(err)
		}
		pr5 := open("five")
		refused(aliceTok, pr5, false, "not allowed to merge [reason: Changed protected files]")
		pr6 := open("six")
		merged(aliceTok, pr6, false)
		merged(aliceTok, pr5, true)

		// forge signs no merge: a branch that requires signed commits
		// takes none, forced or not.
		pr7 := open("seven")
		if _, _, err := alice.EditBranchProtection("alice", "proj", "main", gitea.EditBranchProtectionOption{RequireSignedCommits: &yes}); err != nil {
			t.Fatal(err)
		}
		refused(aliceTok, pr7, false, "Protected branch main requires signed commits but this merge would not be signed")
		refused(aliceTok, pr7, true, "Protected branch main requires signed commits but this merge would not be signed")
	})
}
