package app_test

import (
	"strings"
	"testing"

	"code.gitea.io/sdk/gitea"
)

func commitSHAs(cs []*gitea.Commit) string {
	var out []string
	for _, c := range cs {
		out = append(out, c.SHA[:7])
	}
	return strings.Join(out, " ")
}

func short(shas ...string) string {
	var out []string
	for _, s := range shas {
		out = append(out, s[:7])
	}
	return strings.Join(out, " ")
}

func fileStatuses(c *gitea.Commit) string {
	var out []string
	for _, f := range c.Files {
		out = append(out, f.Filename)
	}
	return strings.Join(out, " ")
}

func TestCommitsEmptyRepository(t *testing.T) {
	t.Parallel()
	eachBackend(t, nil, func(t *testing.T, s *testServer) {
		aliceTok := s.seedUser("alice", "alice-password", false)
		s.createRepo(t, aliceTok, "empty", false, false)
		r := s.do("GET", "/api/v1/repos/alice/empty/commits", "", "Authorization", "token "+aliceTok)
		if r.Status != 409 || r.message(t) != "Git Repository is empty." {
			t.Fatalf("commits of an empty repository: %d %s", r.Status, r.Body)
		}
		expectStatus(t, s.do("GET", "/api/v1/repos/alice/empty/git/commits/main", "", "Authorization", "token "+aliceTok), 404)
	})
}

func TestCommitsAPI(t *testing.T) {
	t.Parallel()
	eachBackend(t, nil, func(t *testing.T, s *testServer) {
		const pw = "alice-password"
		aliceTok := s.seedUser("alice", pw, false)
		auth := []string{"Authorization", "token " + aliceTok}
		s.createRepo(t, aliceTok, "proj", false, false)
		work := s.clone(t, "alice", pw, "alice", "proj")
		gitCmd(t, work, "checkout", "-q", "-b", "main")
		const t0 = 1_700_000_000
		commitAs(t, work, "alice@example.org", t0, "b.txt", "b\n", "add b")
		c1 := commitAs(t, work, "alice@example.org", t0, "a.txt", "1\n2\n3\n", "first")
		gitCmd(t, work, "rm", "-q", "b.txt")
		c2 := commitAs(t, work, "tester@example.org", t0+10, "a.txt", "1\nTWO\n3\nfour\n", "second\n\nwith a body")
		gitCmd(t, work, "tag", "v1")
		gitCmd(t, work, "mv", "a.txt", "c.txt")
		gitCmd(t, work, "commit", "-q", "-m", "rename")
		c3 := strings.TrimSpace(gitCmd(t, work, "rev-parse", "HEAD"))
		c4 := commitAs(t, work, "alice@example.org", t0+30, "docs/x.md", "x\n", "docs")
		gitCmd(t, work, "checkout", "-q", "-b", "side", c1)
		c5 := commitAs(t, work, "alice@example.org", t0+40, "side.txt", "s\n", "side")
		gitCmd(t, work, "push", "-q", "origin", "main", "side", "v1")
		c0 := strings.TrimSpace(gitCmd(t, work, "rev-parse", c1+"^"))

		alice := s.sdk(gitea.SetToken(aliceTok))
		all := gitea.ListCommitOptions{Stat: true, Files: true, Verification: true}
		list, resp, err := alice.ListRepoCommits("alice", "proj", all)
		if err != nil || commitSHAs(list) != short(c4, c3, c2, c1, c0) || resp.Header.Get("X-Total-Count") != "5" {
			t.Fatalf("list: %s %v", commitSHAs(list), err)
		}

		// One commit in full.
		c := list[2]
		if c.SHA != c2 || c.URL != s.URL+"/api/v1/repos/alice/proj/git/commits/"+c2 || c.HTMLURL != s.URL+"/alice/proj/commit/"+c2 ||
			c.RepoCommit.Message != "second\n\nwith a body\n" || c.RepoCommit.URL != c.URL ||
			c.RepoCommit.Author.Email != "tester@example.org" || c.RepoCommit.Author.Date != "2023-11-15T00:13:30+02:00" ||
			c.RepoCommit.Tree.SHA != strings.TrimSpace(gitCmd(t, work, "rev-parse", c2+"^{tree}")) ||
			c.RepoCommit.Verification == nil || c.RepoCommit.Verification.Verified ||
			c.Author != nil || c.Committer != nil || !c.Created.Equal(timeUnix(t0+10)) ||
			len(c.Parents) != 1 || c.Parents[0].SHA != c1 || c.Parents[0].URL != s.URL+"/api/v1/repos/alice/proj/git/commits/"+c1 ||
			fileStatuses(c) != "a.txt b.txt" || c.Stats.Additions != 2 || c.Stats.Deletions != 2 || c.Stats.Total != 4 {
			t.Fatalf("second commit: %+v\n%+v\n%+v", c, c.RepoCommit, c.Stats)
		}
		// Authors with an account are users (seen as by an anonymous caller).
		if a := list[3].Author; a == nil || a.UserName != "alice" || a.Email != "alice@noreply.127.0.0.1" {
			t.Fatalf("author of the first commit: %+v", a)
		}

		// Raw JSON: statuses, null author, [] parents, zero parent times;
		// every optional part is on by default and off on request.
		r := s.do("GET", "/api/v1/repos/alice/proj/commits", "", auth...)
		body := string(r.Body)
		for _, want := range []string{
			`"files":[{"filename":"a.txt","status":"modified"},{"filename":"b.txt","status":"removed"}]`,
			`"files":[{"filename":"a.txt","status":"removed"},{"filename":"c.txt","status":"added"}]`,
			`"author":null,"committer":null,"parents":[{`,
			`"parents":[],"files":[{"filename":"b.txt","status":"added"}]`,
			`"sha":"` + c1 + `","created":"0001-01-01T00:00:00Z"}]`,
			`"stats":{"total":4,"additions":2,"deletions":2}`,
			`"verification":{"verified":false,"reason":"gpg.error.not_signed_commit","signer":null,"signature":"","payload":""}`,
		} {
			if !strings.Contains(body, want) {
				t.Fatalf("commits JSON lacks %s:\n%s", want, body)
			}
		}
		r = s.do("GET", "/api/v1/repos/alice/proj/commits?stat=false&files=false&verification=false", "", auth...)
		body = string(r.Body)
		if strings.Count(body, `"files":null,"stats":null}`) != 5 || strings.Count(body, `"verification":null`) != 5 {
			t.Fatalf("commits without optional parts:\n%s", body)
		}

		// Paging, with Gitea's legacy headers.
		r = s.do("GET", "/api/v1/repos/alice/proj/commits?limit=2&page=2", "", auth...)
		var page []*gitea.Commit
		r.json(t, &page)
		h := r.Header
		if commitSHAs(page) != short(c2, c1) || h.Get("X-Total-Count") != "5" || h.Get("X-Page") != "2" || h.Get("X-PerPage") != "2" ||
			h.Get("X-Total") != "5" || h.Get("X-PageCount") != "3" || h.Get("X-HasMore") != "true" ||
			!strings.Contains(h.Get("Link"), `page=3>; rel="next"`) {
			t.Fatalf("page 2: %s %v", commitSHAs(page), h)
		}
		r = s.do("GET", "/api/v1/repos/alice/proj/commits?limit=2&page=3", "", auth...)
		if r.Header.Get("X-HasMore") != "false" {
			t.Fatalf("last page: %v", r.Header)
		}

		// Start ref, path filter, exclusions.
		for q, want := range map[string]string{
			"sha=side":              short(c5, c1, c0),
			"sha=v1":                short(c2, c1, c0),
			"sha=" + c3[:8]:         short(c3, c2, c1, c0),
			"path=docs":             short(c4),
			"path=a.txt":            short(c3, c2, c1),
			"sha=side&path=b.txt":   short(c0),
			"not=v1":                short(c4, c3),
			"sha=side&not=main":     short(c5),
			"path=docs&sha=feature": "",
		} {
			r := s.do("GET", "/api/v1/repos/alice/proj/commits?stat=false&"+q, "", auth...)
			if want == "" {
				expectStatus(t, r, 404)
				continue
			}
			var cs []*gitea.Commit
			r.json(t, &cs)
			if commitSHAs(cs) != want {
				t.Fatalf("%s: %s, want %s", q, commitSHAs(cs), want)
			}
		}
		for _, q := range []string{"sha=nope", "path=nope", "not=nope"} {
			expectStatus(t, s.do("GET", "/api/v1/repos/alice/proj/commits?"+q, "", auth...), 404)
		}

		// A single commit, by sha, short sha or ref.
		for _, ref := range []string{c3, c3[:7], "main~1"} {
			one, _, err := alice.GetSingleCommit("alice", "proj", ref)
			if ref == "main~1" {
				if err == nil {
					t.Fatalf("revision expression %s resolved", ref)
				}
				continue
			}
			if err != nil || one.SHA != c3 || fileStatuses(one) != "a.txt c.txt" || one.Stats == nil || one.Stats.Total != 0 {
				t.Fatalf("GetSingleCommit %s: %+v %v", ref, one, err)
			}
		}
		if one, _, err := alice.GetSingleCommit("alice", "proj", "side"); err != nil || one.SHA != c5 {
			t.Fatalf("commit by branch: %+v %v", one, err)
		}
		r = s.do("GET", "/api/v1/repos/alice/proj/git/commits/"+c1+"?files=false&stat=false", "", auth...)
		if !strings.HasSuffix(string(r.Body), `"files":null,"stats":null}`+"\n") {
			t.Fatalf("single commit without files and stats: %s", r.Body)
		}
		expectStatus(t, s.do("GET", "/api/v1/repos/alice/proj/git/commits/"+strings.Repeat("a", 40), "", auth...), 404)

		// Private repositories are invisible to others.
		s.createRepo(t, aliceTok, "secret", true, true)
		expectStatus(t, s.do("GET", "/api/v1/repos/alice/secret/commits", ""), 404)
		expectStatus(t, s.do("GET", "/api/v1/repos/alice/secret/git/commits/main", ""), 404)
		expectStatus(t, s.do("GET", "/api/v1/repos/alice/secret/commits", "", auth...), 200)
		expectStatus(t, s.do("GET", "/api/v1/repos/alice/proj/commits", ""), 200)
	})
}
