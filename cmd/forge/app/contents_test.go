package app_test

import (
	"bytes"
	"encoding/base64"
	"os"
	"strings"
	"testing"
	"time"

	"code.gitea.io/sdk/gitea"
)

func b64(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }

// blobSHA is the blob id of path at rev in a work tree.
func blobSHA(t *testing.T, dir, rev, path string) string {
	return strings.TrimSpace(gitCmd(t, dir, "rev-parse", rev+":"+path))
}

func TestContentsEmptyRepository(t *testing.T) {
	t.Parallel()
	eachBackend(t, nil, func(t *testing.T, s *testServer) {
		aliceTok := s.seedUser("alice", "alice-password", false)
		s.createRepo(t, aliceTok, "empty", false, false)
		// Reads of an empty repository are cases in
		// testdata/cases/contents.yaml.
		// The first file committed through the API makes the repository
		// and its default branch.
		alice := s.sdk(gitea.SetToken(aliceTok))
		fr, resp, err := alice.CreateFile("alice", "empty", "README.md", gitea.CreateFileOptions{Content: b64("hi\n")})
		if err != nil || resp.StatusCode != 201 || fr.Content.Path != "README.md" || len(fr.Commit.Parents) != 0 {
			t.Fatalf("first file: %+v %v", fr, err)
		}
		if got := s.branchRecords(t, "alice", "empty"); len(got) != 1 || got[0] != "main@"+fr.Commit.SHA[:7] {
			t.Fatalf("records after the first file: %v", got)
		}
		if repo, _, err := alice.GetRepo("alice", "empty"); err != nil || repo.Empty {
			t.Fatalf("repository still empty: %+v %v", repo, err)
		}
	})
}

func TestContentsRead(t *testing.T) {
	t.Parallel()
	eachBackend(t, nil, func(t *testing.T, s *testServer) {
		const pw = "alice-password"
		aliceTok := s.seedUser("alice", pw, false)
		auth := []string{"Authorization", "token " + aliceTok}
		s.createRepo(t, aliceTok, "proj", false, false)
		work := s.clone(t, "alice", pw, "alice", "proj")
		gitCmd(t, work, "checkout", "-q", "-b", "main")
		readme := commitAs(t, work, "alice@example.org", 1_700_000_000, "README.md", "hello\n", "readme")
		commitAs(t, work, "alice@example.org", 1_700_000_100, "docs/guide.md", "guide\n", "docs")
		if err := os.Symlink("README.md", work+"/link"); err != nil {
			t.Fatal(err)
		}
		gitCmd(t, work, "add", "link")
		gitCmd(t, work, "commit", "-q", "-m", "link")
		// A submodule entry (a gitlink) without checking anything out.
		gitCmd(t, work, "update-index", "--add", "--cacheinfo", "160000,"+readme+",sub")
		gitCmd(t, work, "commit", "-q", "-m", "submodule")
		head := strings.TrimSpace(gitCmd(t, work, "rev-parse", "HEAD"))
		gitCmd(t, work, "tag", "v1")
		gitCmd(t, work, "checkout", "-q", "-b", "feature/x")
		commitFile(t, work, "docs/guide.md", "guide v2\n", "guide v2")
		gitCmd(t, work, "push", "-q", "origin", "main", "feature/x", "v1")

		alice := s.sdk(gitea.SetToken(aliceTok))
		api := s.URL + "/api/v1/repos/alice/proj"

		// A file: its bytes in padded base64, its blob and last commit.
		c, _, err := alice.GetContents("alice", "proj", "", "README.md")
		if err != nil {
			t.Fatal(err)
		}
		content, _ := base64.StdEncoding.DecodeString(*c.Content)
		if c.Type != "file" || *c.Encoding != "base64" || string(content) != "hello\n" || c.Size != 6 ||
			c.SHA != blobSHA(t, work, "main", "README.md") || *c.LastCommitSha != readme || c.Name != "README.md" ||
			*c.URL != api+"/contents/README.md?ref=main" || *c.HTMLURL != s.URL+"/alice/proj/src/branch/main/README.md" ||
			*c.GitURL != api+"/git/blobs/"+c.SHA || *c.DownloadURL != s.URL+"/alice/proj/raw/branch/main/README.md" ||
			*c.Links.Self != *c.URL || *c.Links.GitURL != *c.GitURL || *c.Links.HTMLURL != *c.HTMLURL {
			t.Fatalf("file: %+v", c)
		}
		// The root and a directory are arrays without content.
		list, _, err := alice.ListContents("alice", "proj", "", "")
		if err != nil || len(list) != 4 {
			t.Fatalf("root: %v %v", list, err)
		}
		kinds := map[string]*gitea.ContentsResponse{}
		for _, e := range list {
			kinds[e.Type] = e
		}
		if d := kinds["dir"]; d == nil || d.Path != "docs" || d.Size != 0 || *d.GitURL != api+"/git/trees/"+d.SHA || d.DownloadURL != nil {
			t.Fatalf("dir entry: %+v", d)
		}
		if l := kinds["symlink"]; l == nil || l.Target == nil || *l.Target != "README.md" || l.Content != nil {
			t.Fatalf("symlink entry: %+v", l)
		}
		if m := kinds["submodule"]; m == nil || m.SHA != readme || m.HTMLURL != nil || m.GitURL != nil || m.DownloadURL != nil {
			t.Fatalf("submodule entry: %+v", m)
		}
		r := s.do("GET", "/api/v1/repos/alice/proj/contents/docs", "", auth...)
		if !strings.HasPrefix(string(r.Body), `[{"name":"guide.md","path":"docs/guide.md",`) ||
			!strings.Contains(string(r.Body), `"encoding":null,"content":null,`) {
			t.Fatalf("directory listing: %s", r.Body)
		}
		if r := s.do("GET", "/api/v1/repos/alice/proj/contents/docs/", "", auth...); !strings.HasPrefix(string(r.Body), "[") {
			t.Fatalf("directory with a trailing slash: %s", r.Body)
		}
		// A single symlink is an object with its target.
		r = s.do("GET", "/api/v1/repos/alice/proj/contents/link", "", auth...)
		if !strings.Contains(string(r.Body), `"type":"symlink"`) || !strings.Contains(string(r.Body), `"target":"README.md"`) {
			t.Fatalf("symlink: %s", r.Body)
		}

		// Refs: a branch with a slash, a tag, a sha; the self URL keeps the
		// ref as given, the HTML URL says what it is.
		for ref, want := range map[string]string{"feature/x": "guide v2\n", "v1": "guide\n", head[:8]: "guide\n", "main": "guide\n"} {
			c, _, err := alice.GetContents("alice", "proj", ref, "docs/guide.md")
			if err != nil {
				t.Fatalf("ref %s: %v", ref, err)
			}
			if got, _ := base64.StdEncoding.DecodeString(*c.Content); string(got) != want {
				t.Fatalf("ref %s: %q", ref, got)
			}
		}
		c, _, _ = alice.GetContents("alice", "proj", "v1", "docs/guide.md")
		if *c.HTMLURL != s.URL+"/alice/proj/src/tag/v1/docs/guide.md" || *c.URL != api+"/contents/docs/guide.md?ref=v1" {
			t.Fatalf("tag URLs: %s %s", *c.HTMLURL, *c.URL)
		}
		c, _, _ = alice.GetContents("alice", "proj", "feature/x", "docs/guide.md")
		if *c.HTMLURL != s.URL+"/alice/proj/src/branch/feature/x/docs/guide.md" || *c.URL != api+"/contents/docs/guide.md?ref=feature%2Fx" {
			t.Fatalf("branch URLs: %s %s", *c.HTMLURL, *c.URL)
		}

		// Missing path, ref, owner, repository: 404.
		for _, p := range []string{
			"/api/v1/repos/alice/proj/contents/nope", "/api/v1/repos/alice/proj/contents/README.md?ref=nope",
			"/api/v1/repos/alice/proj/contents/README.md/x", "/api/v1/repos/nobody/proj/contents",
			"/api/v1/repos/alice/nope/contents",
		} {
			expectStatus(t, s.do("GET", p, "", auth...), 404)
		}
		// Public: anonymous callers read too.
		expectStatus(t, s.do("GET", "/api/v1/repos/alice/proj/contents/README.md", ""), 200)
	})
}

func TestRawFiles(t *testing.T) {
	t.Parallel()
	eachBackend(t, nil, func(t *testing.T, s *testServer) {
		const pw = "alice-password"
		aliceTok := s.seedUser("alice", pw, false)
		bobTok := s.seedUser("bob", "bob-password", false)
		s.createRepo(t, aliceTok, "proj", false, false)
		s.createRepo(t, aliceTok, "secret", true, true)
		work := s.clone(t, "alice", pw, "alice", "proj")
		gitCmd(t, work, "checkout", "-q", "-b", "main")
		big := bytes.Repeat([]byte("0123456789abcdef"), 40_000) // 640 KB: many chunks
		png := append([]byte("\x89PNG\r\n\x1a\n"), make([]byte, 100)...)
		files := map[string][]byte{
			"README.md": []byte("hello\n"), "big.bin": append([]byte{0, 1, 2}, big...), "img.png": png,
			"page.html": []byte("<html><script>alert(1)</script></html>"), "dir/a.txt": []byte("a\n"), "empty.txt": nil,
		}
		for name, content := range files {
			os.MkdirAll(work+"/dir", 0o755)
			if err := os.WriteFile(work+"/"+name, content, 0o644); err != nil {
				t.Fatal(err)
			}
			gitCmd(t, work, "add", name)
		}
		gitCmd(t, work, "commit", "-q", "-m", "files")
		head := strings.TrimSpace(gitCmd(t, work, "rev-parse", "HEAD"))
		gitCmd(t, work, "tag", "v1")
		gitCmd(t, work, "checkout", "-q", "-b", "feature/x")
		commitFile(t, work, "README.md", "feature\n", "feature")
		gitCmd(t, work, "push", "-q", "origin", "main", "feature/x", "v1")

		for _, c := range []struct{ path, want, ctype string }{
			{"README.md", "hello\n", "text/plain; charset=utf-8"},
			{"README.md?ref=feature/x", "feature\n", "text/plain; charset=utf-8"},
			{"main/README.md", "hello\n", "text/plain; charset=utf-8"},
			{"feature/x/README.md", "feature\n", "text/plain; charset=utf-8"},
			{"v1/README.md", "hello\n", "text/plain; charset=utf-8"},
			{head + "/README.md", "hello\n", "text/plain; charset=utf-8"},
			{"dir/a.txt", "a\n", "text/plain; charset=utf-8"},
			{"main/dir/a.txt", "a\n", "text/plain; charset=utf-8"},
			{"big.bin", string(files["big.bin"]), "application/octet-stream"},
			{"img.png", string(png), "image/png"},
			{"page.html", string(files["page.html"]), "text/plain; charset=utf-8"},
			{"empty.txt", "", "text/plain; charset=utf-8"},
		} {
			r := s.do("GET", "/api/v1/repos/alice/proj/raw/"+c.path, "")
			if r.Status != 200 || string(r.Body) != c.want || r.Header.Get("Content-Type") != c.ctype ||
				r.Header.Get("Content-Length") != itoa(int64(len(c.want))) {
				t.Fatalf("raw %s: %d %q %v (%d bytes)", c.path, r.Status, r.Header.Get("Content-Type"), r.Header, len(r.Body))
			}
		}
		r := s.do("GET", "/api/v1/repos/alice/proj/raw/dir/a.txt", "")
		if r.Header.Get("Content-Disposition") != "inline; filename=a.txt" || r.Header.Get("X-Content-Type-Options") != "nosniff" {
			t.Fatalf("raw headers: %v", r.Header)
		}
		// The SDK's GetFile (raw/{ref}/{path}) and the media alias.
		alice := s.sdk(gitea.SetToken(aliceTok))
		if b, _, err := alice.GetFile("alice", "proj", "feature/x", "README.md"); err != nil || string(b) != "feature\n" {
			t.Fatalf("SDK GetFile: %q %v", b, err)
		}
		if r := s.do("GET", "/api/v1/repos/alice/proj/media/README.md", ""); string(r.Body) != "hello\n" {
			t.Fatalf("media: %d %s", r.Status, r.Body)
		}
		// Missing file, directory, ref; private repository for others.
		for _, p := range []string{"proj/raw/nope", "proj/raw/dir", "proj/raw/README.md?ref=nope", "secret/raw/README.md"} {
			r := s.do("GET", "/api/v1/repos/alice/"+p, "", "Authorization", "token "+bobTok)
			if r.Status != 404 || !strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") {
				t.Fatalf("%s: %d %v", p, r.Status, r.Header)
			}
			r.message(t)
		}
		expectStatus(t, s.do("GET", "/api/v1/repos/alice/secret/raw/README.md", ""), 404)
		expectStatus(t, s.do("GET", "/api/v1/repos/alice/secret/raw/README.md", "", "Authorization", "token "+aliceTok), 200)
	})
}

func TestContentsWrite(t *testing.T) {
	t.Parallel()
	eachBackend(t, nil, func(t *testing.T, s *testServer) {
		const pw = "alice-password"
		aliceTok := s.seedUser("alice", pw, false)
		s.createRepo(t, aliceTok, "proj", true, false)
		alice := s.sdk(gitea.SetToken(aliceTok))
		auth := []string{"Authorization", "token " + aliceTok, "Content-Type", jsonCT}

		// Create: committed by the caller on the default branch, described
		// with its content, recorded, and in a fresh clone.
		fr, resp, err := alice.CreateFile("alice", "proj", "docs/a.txt", gitea.CreateFileOptions{Content: b64("one\n")})
		if err != nil || resp.StatusCode != 201 {
			t.Fatalf("create: %v", err)
		}
		got, _ := base64.StdEncoding.DecodeString(*fr.Content.Content)
		c := fr.Commit
		if fr.Content.Path != "docs/a.txt" || string(got) != "one\n" || *fr.Content.LastCommitSha != c.SHA ||
			c.Message != "Add docs/a.txt\n" || c.Author.Name != "alice" || c.Author.Email != "alice@example.org" ||
			c.Committer.Email != "alice@example.org" || len(c.Parents) != 1 || c.URL != s.URL+"/api/v1/repos/alice/proj/git/commits/"+c.SHA ||
			c.HTMLURL != s.URL+"/alice/proj/commit/"+c.SHA || fr.Verification.Reason != "gpg.error.not_signed_commit" {
			t.Fatalf("create response: %+v\ncommit %+v", fr.Content, c)
		}
		if recs := s.branchRecords(t, "alice", "proj"); len(recs) != 1 || recs[0] != "main@"+c.SHA[:7] {
			t.Fatalf("records after create: %v", recs)
		}
		fresh := s.clone(t, "", "", "alice", "proj")
		if b, err := os.ReadFile(fresh + "/docs/a.txt"); err != nil || string(b) != "one\n" {
			t.Fatalf("file in a fresh clone: %q %v", b, err)
		}
		sha := fr.Content.SHA

		// Create on a new branch, with explicit author, committer, dates
		// and a message.
		when := time.Date(2020, 5, 6, 7, 8, 9, 0, time.UTC)
		fr, _, err = alice.CreateFile("alice", "proj", "b.txt", gitea.CreateFileOptions{
			FileOptions: gitea.FileOptions{
				Message: "custom", NewBranchName: "topic/b",
				Author:    gitea.Identity{Name: "Ann Author", Email: "ann@example.org"},
				Committer: gitea.Identity{Name: "Carl Committer", Email: "carl@example.org"},
				Dates:     gitea.CommitDateOptions{Author: when, Committer: when.Add(time.Hour)},
			},
			Content: b64("b\n"),
		})
		if err != nil || fr.Commit.Author.Name != "Ann Author" || fr.Commit.Committer.Email != "carl@example.org" ||
			fr.Commit.Author.Date != "2020-05-06T07:08:09Z" || fr.Commit.Committer.Date != "2020-05-06T08:08:09Z" ||
			fr.Commit.Message != "custom\n" || *fr.Content.URL != s.URL+"/api/v1/repos/alice/proj/contents/b.txt?ref=topic%2Fb" {
			t.Fatalf("create on a new branch: %+v %+v %v", fr.Commit, fr.Content, err)
		}
		if heads := s.remoteHeads(t, "alice", "proj", "", ""); !contains(heads, "topic/b@"+fr.Commit.SHA[:7]) {
			t.Fatalf("new branch not in git: %v", heads)
		}
		if recs := s.branchRecords(t, "alice", "proj"); !contains(recs, "topic/b@"+fr.Commit.SHA[:7]) {
			t.Fatalf("new branch not recorded: %v", recs)
		}
		if _, _, err := alice.GetContents("alice", "proj", "main", "b.txt"); err == nil {
			t.Fatal("file of the new branch is on main")
		}

		// Update needs the current sha; renames with from_path.
		_, resp, err = alice.UpdateFile("alice", "proj", "docs/a.txt", gitea.UpdateFileOptions{SHA: strings.Repeat("0", 40), Content: b64("x")})
		if err == nil || resp.StatusCode != 422 {
			t.Fatalf("update with a stale sha: %v", err)
		}
		fr, resp, err = alice.UpdateFile("alice", "proj", "docs/b.txt", gitea.UpdateFileOptions{SHA: sha, FromPath: "docs/a.txt", Content: b64("two\n")})
		if err != nil || resp.StatusCode != 200 || fr.Content.Path != "docs/b.txt" || fr.Commit.Message != "Update docs/b.txt\n" {
			t.Fatalf("rename: %+v %v", fr, err)
		}
		if _, _, err := alice.GetContents("alice", "proj", "", "docs/a.txt"); err == nil {
			t.Fatal("renamed file still at its old path")
		}
		sha = fr.Content.SHA

		// Delete needs the current sha too; the response has content null.
		expectStatus(t, s.do("DELETE", "/api/v1/repos/alice/proj/contents/docs/b.txt", `{"sha":"`+strings.Repeat("1", 40)+`"}`, auth...), 400)
		r := s.do("DELETE", "/api/v1/repos/alice/proj/contents/docs/b.txt", `{"sha":"`+sha+`"}`, auth...)
		if r.Status != 200 || !strings.HasPrefix(string(r.Body), `{"content":null,"commit":{`) ||
			!strings.Contains(string(r.Body), `"message":"Delete docs/b.txt\n"`) {
			t.Fatalf("delete: %d %s", r.Status, r.Body)
		}
		if resp, err := alice.DeleteFile("alice", "proj", "docs/b.txt", gitea.DeleteFileOptions{SHA: sha}); err == nil || resp.StatusCode != 404 {
			t.Fatalf("delete again: %v", err)
		}

		// Refusals and who may write are cases in testdata/cases/contents.yaml.
	})
}
