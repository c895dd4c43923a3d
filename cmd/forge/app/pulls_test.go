package app_test

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"

	"code.gitea.io/sdk/gitea"
)

// TestPullsSDK opens pull requests through the Gitea SDK: from a branch
// of three commits (head and base sha as git rev-parse gives them, the
// diff size as git diff --numstat base...head counts it, the head commit
// kept under refs/pull/N/head), reads it back one and in the list, and as
// an issue (pull_request filled); from a fork (owner:branch); the 422,
// 404 and 409 answers leave nothing behind; 20 concurrent creations get
// distinct numbers shared with issues.
func TestPullsSDK(t *testing.T) {
	t.Parallel()
	eachBackend(t, nil, func(t *testing.T, s *testServer) {
		aliceTok := s.seedUser("alice", "alice-password", false)
		bobTok := s.seedUser("bob", "bob-password", false)
		alice := s.sdk(gitea.SetToken(aliceTok))
		bob := s.sdk(gitea.SetToken(bobTok))
		s.createRepo(t, aliceTok, "proj", true, false)
		work := s.clone(t, "alice", "alice-password", "alice", "proj")
		gitCmd(t, work, "checkout", "-q", "-b", "feature")
		commitFile(t, work, "a.txt", "one\ntwo\n", "first")
		commitFile(t, work, "b.txt", "three\n", "second")
		commitFile(t, work, "README.md", "rewritten\n", "third")
		gitCmd(t, work, "push", "-q", "origin", "feature")
		headSHA := strings.TrimSpace(gitCmd(t, work, "rev-parse", "feature"))
		baseSHA := strings.TrimSpace(gitCmd(t, work, "rev-parse", "origin/main"))
		adds, dels, files := numstat(t, gitCmd(t, work, "diff", "--numstat", "origin/main...feature"))

		pr, resp, err := alice.CreatePullRequest("alice", "proj", gitea.CreatePullRequestOption{Head: "feature", Base: "main", Title: "Feature", Body: "please"})
		if err != nil || resp.StatusCode != http.StatusCreated {
			t.Fatalf("CreatePullRequest: %v %v", resp, err)
		}
		check := func(what string, pr *gitea.PullRequest) {
			t.Helper()
			if pr.Index != 1 || pr.Title != "Feature" || pr.State != gitea.StateOpen || pr.HasMerged || !pr.Mergeable ||
				pr.Head == nil || pr.Head.Sha != headSHA || pr.Head.Ref != "feature" || pr.Head.Repository == nil || pr.Head.Repository.FullName != "alice/proj" ||
				pr.Base == nil || pr.Base.Sha != baseSHA || pr.Base.Ref != "main" || pr.MergeBase != baseSHA ||
				deref(pr.Additions) != adds || deref(pr.Deletions) != dels || deref(pr.ChangedFiles) != files ||
				pr.DiffURL != s.URL+"/alice/proj/pulls/1.diff" || pr.HTMLURL != s.URL+"/alice/proj/pulls/1" || pr.Poster == nil || pr.Poster.UserName != "alice" {
				t.Fatalf("%s: %+v head %+v base %+v (want head %s base %s, +%d -%d %d files)", what, pr, pr.Head, pr.Base, headSHA, baseSHA, adds, dels, files)
			}
		}
		check("created", pr)
		got, _, err := bob.GetPullRequest("alice", "proj", 1)
		if err != nil {
			t.Fatal(err)
		}
		check("got", got)
		list, resp, err := bob.ListRepoPullRequests("alice", "proj", gitea.ListPullRequestsOptions{})
		if err != nil || len(list) != 1 || resp.Header.Get("X-Total-Count") != "1" {
			t.Fatalf("ListRepoPullRequests: %d %v", len(list), err)
		}
		check("listed", list[0])

		// Its commits, newest first, each with its stats and files as git
		// counts them against its parent.
		want := strings.Fields(gitCmd(t, work, "log", "--format=%H", "origin/main..feature"))
		commits, resp, err := bob.ListPullRequestCommits("alice", "proj", 1, gitea.ListPullRequestCommitsOptions{})
		if err != nil || len(commits) != len(want) || resp.Header.Get("X-Total-Count") != "3" {
			t.Fatalf("ListPullRequestCommits: %d commits (want %d), total %q, %v", len(commits), len(want), resp.Header.Get("X-Total-Count"), err)
		}
		for i, c := range commits {
			a, d, n := numstat(t, gitCmd(t, work, "show", "--numstat", "--format=", want[i]))
			if c.SHA != want[i] || c.Stats == nil || c.Stats.Additions != a || c.Stats.Deletions != d || c.Stats.Total != a+d || len(c.Files) != n {
				t.Fatalf("commit %d: %s %+v %d files, want %s +%d -%d %d files", i, c.SHA, c.Stats, len(c.Files), want[i], a, d, n)
			}
		}
		page, _, err := bob.ListPullRequestCommits("alice", "proj", 1, gitea.ListPullRequestCommitsOptions{ListOptions: gitea.ListOptions{Page: 2, PageSize: 2}})
		if err != nil || len(page) != 1 || page[0].SHA != want[2] {
			t.Fatalf("second page of 2: %+v %v", page, err)
		}
		gitCmd(t, work, "fetch", "-q", "origin", "refs/pull/1/head")
		if kept := strings.TrimSpace(gitCmd(t, work, "rev-parse", "FETCH_HEAD")); kept != headSHA {
			t.Fatalf("refs/pull/1/head is %s, want %s", kept, headSHA)
		}
		is, _, err := bob.GetIssue("alice", "proj", 1)
		if err != nil || is.PullRequest == nil || is.Title != "Feature" {
			t.Fatalf("the pull request as an issue: %+v %v", is, err)
		}
		if _, resp, err := bob.GetPullRequest("alice", "proj", 2); err == nil || resp.StatusCode != 404 {
			t.Fatalf("an unused number: %v", err)
		}
		if _, _, err := alice.CreateIssue("alice", "proj", gitea.CreateIssueOption{Title: "plain"}); err != nil {
			t.Fatal(err)
		}
		if _, resp, err := bob.GetPullRequest("alice", "proj", 2); err == nil || resp.StatusCode != 404 {
			t.Fatalf("a plain issue as a pull request: %v", err)
		}

		// Refusals leave nothing: the next number is still 3.
		refuse := func(opt gitea.CreatePullRequestOption, status int, message string) {
			t.Helper()
			_, resp, err := alice.CreatePullRequest("alice", "proj", opt)
			if err == nil || resp.StatusCode != status || !strings.Contains(err.Error(), message) {
				t.Fatalf("%+v: %v %v, want %d %q", opt, resp, err, status, message)
			}
		}
		refuse(gitea.CreatePullRequestOption{Head: "main", Base: "main", Title: "x"}, 422, "There are no changes between the head and the base")
		gitCmd(t, work, "push", "-q", "origin", "origin/main:refs/heads/same")
		refuse(gitea.CreatePullRequestOption{Head: "same", Base: "main", Title: "x"}, 422, "There are no changes between the head and the base")
		refuse(gitea.CreatePullRequestOption{Head: "nope", Base: "main", Title: "x"}, 404, "")
		refuse(gitea.CreatePullRequestOption{Head: "feature", Base: "nope", Title: "x"}, 404, "")
		refuse(gitea.CreatePullRequestOption{Head: "carol:feature", Base: "main", Title: "x"}, 404, "")
		refuse(gitea.CreatePullRequestOption{Head: "bob:feature", Base: "main", Title: "x"}, 404, "")
		refuse(gitea.CreatePullRequestOption{Head: "feature", Base: "main", Title: "again"}, 409,
			fmt.Sprintf("pull request already exists for these targets [id: %d, issue_id: %d, head_repo_id: %d, base_repo_id: %d, head_branch: feature, base_branch: main]",
				pr.ID, is.ID, pr.Head.RepoID, pr.Base.RepoID))
		if all, _, _ := alice.ListRepoPullRequests("alice", "proj", gitea.ListPullRequestsOptions{}); len(all) != 1 {
			t.Fatalf("pull requests after refusals: %d", len(all))
		}
		next, _, err := alice.CreateIssue("alice", "proj", gitea.CreateIssueOption{Title: "after refusals"})
		if err != nil || next.Index != 3 {
			t.Fatalf("the number after refusals: %+v %v", next, err)
		}

		// From bob's fork.
		if _, _, err := bob.CreateFork("alice", "proj", gitea.CreateForkOption{}); err != nil {
			t.Fatal(err)
		}
		fw := s.clone(t, "bob", "bob-password", "bob", "proj")
		gitCmd(t, fw, "checkout", "-q", "-b", "fix")
		commitFile(t, fw, "fix.txt", "fixed\n", "fix it")
		gitCmd(t, fw, "push", "-q", "origin", "fix")
		fixSHA := strings.TrimSpace(gitCmd(t, fw, "rev-parse", "fix"))
		fpr, _, err := bob.CreatePullRequest("alice", "proj", gitea.CreatePullRequestOption{Head: "bob:fix", Base: "main", Title: "Fix"})
		if err != nil || fpr.Index != 4 || fpr.Head.Sha != fixSHA || fpr.Head.Repository == nil || fpr.Head.Repository.FullName != "bob/proj" ||
			fpr.Base.Repository.FullName != "alice/proj" || deref(fpr.Additions) != 1 || deref(fpr.ChangedFiles) != 1 {
			t.Fatalf("a pull request from a fork: %+v %v", fpr, err)
		}
		gitCmd(t, work, "fetch", "-q", "origin", "refs/pull/4/head")
		if kept := strings.TrimSpace(gitCmd(t, work, "rev-parse", "FETCH_HEAD")); kept != fixSHA {
			t.Fatalf("refs/pull/4/head is %s, want %s", kept, fixSHA)
		}

		// 20 creations at once, distinct heads: distinct numbers.
		const n = 20
		for i := range n {
			gitCmd(t, work, "checkout", "-q", "-b", fmt.Sprintf("c%02d", i), "origin/main")
			commitFile(t, work, fmt.Sprintf("c%02d.txt", i), "x\n", "c")
		}
		gitCmd(t, work, "push", "-q", "origin", "refs/heads/c*:refs/heads/c*")
		var wg sync.WaitGroup
		numbers := make([]int64, n)
		errs := make([]error, n)
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				p, _, err := alice.CreatePullRequest("alice", "proj", gitea.CreatePullRequestOption{Head: fmt.Sprintf("c%02d", i), Base: "main", Title: "c"})
				if err == nil {
					numbers[i] = p.Index
				}
				errs[i] = err
			}()
		}
		wg.Wait()
		seen := map[int64]bool{}
		for i, err := range errs {
			if err != nil {
				t.Fatalf("creation %d: %v", i, err)
			}
			if seen[numbers[i]] || numbers[i] < 5 || numbers[i] > 4+n {
				t.Fatalf("numbers: %v", numbers)
			}
			seen[numbers[i]] = true
		}
		all, resp, err := alice.ListRepoPullRequests("alice", "proj", gitea.ListPullRequestsOptions{ListOptions: gitea.ListOptions{PageSize: 50}})
		if err != nil || len(all) != n+2 || resp.Header.Get("X-Total-Count") != strconv.Itoa(n+2) {
			t.Fatalf("list after concurrent creations: %d %v", len(all), err)
		}
	})
}

// numstat sums git diff --numstat output.
func numstat(t *testing.T, out string) (adds, dels, files int) {
	t.Helper()
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		f := strings.Fields(line)
		a, _ := strconv.Atoi(f[0])
		d, _ := strconv.Atoi(f[1])
		adds, dels, files = adds+a, dels+d, files+1
	}
	return adds, dels, files
}

func deref(p *int) int {
	if p == nil {
		return -1
	}
	return *p
}
