package app_test

import (
	"bytes"
	"context"
	"testing"
	"time"

	"forge/cmd/forge/app"
	"forge/services/config"
	"forge/services/git"
	"forge/services/store"
)

// TestAnswerCache: a declared read (forge.options.v1.cache_answer) asked
// again while nothing has committed is answered without a call to the
// services (the gRPC counter stays), byte for byte and header for header
// as the first time; any commit (through the API, or SQL beside forge) is
// seen by the very next request; an answer goes only to the caller it was
// computed for. Git reads are replayed on both databases until a ref
// moves.
func TestAnswerCache(t *testing.T) {
	t.Parallel()
	const scrapeToken = "answers-scrape-token"
	eachBackend(t, func(c *config.Config) { c.Metrics.Enabled, c.Metrics.Token = true, scrapeToken }, func(t *testing.T, s *testServer) {
		calls := func(method string) float64 {
			return scrape(t, s, scrapeToken)[`forge_grpc_requests_total{code="OK",method="`+method+`"}`]
		}
		replayed := func(method string, requests func()) {
			t.Helper()
			expectReplayed(t, calls, method, requests)
		}
		get := func(path, auth string, want int, header ...string) response {
			t.Helper()
			h := append([]string{}, header...)
			if auth != "" {
				h = append(h, "Authorization", auth)
			}
			r := s.do("GET", path, "", h...)
			expectStatus(t, r, want)
			return r
		}
		admin := "token " + s.AdminToken
		aliceTok := s.seedUser("alice", "alice-password-1", false)
		alice := "token " + aliceTok
		s.createRepo(t, s.AdminToken, "secret", false, true)
		for i := range 3 {
			s.adminDo(t, "POST", "/api/v1/repos/root/secret/labels", `{"name":"l`+string(rune('a'+i))+`","color":"#00aabb"}`, 201)
		}

		t.Run("replayed until a commit", func(t *testing.T) {
			const getRepo = "/forge.repos.v1.RepositoryService/GetRepo"
			replayed(getRepo, func() {
				first := get("/api/v1/repos/root/secret", admin, 200)
				for range 2 {
					again := get("/api/v1/repos/root/secret", admin, 200)
					if !bytes.Equal(again.Body, first.Body) {
						t.Fatalf("replayed body differs:\n%s\n%s", again.Body, first.Body)
					}
					if again.Header.Get("Content-Type") != first.Header.Get("Content-Type") {
						t.Fatalf("content type %q, first %q", again.Header.Get("Content-Type"), first.Header.Get("Content-Type"))
					}
					if id := again.Header.Get("X-Request-Id"); id == "" || id == first.Header.Get("X-Request-Id") {
						t.Fatalf("request id %q replayed (first %q)", id, first.Header.Get("X-Request-Id"))
					}
				}
			})

			s.adminDo(t, "PATCH", "/api/v1/repos/root/secret", `{"description":"through the API"}`, 200)
			var repo struct{ Description string }
			get("/api/v1/repos/root/secret", admin, 200).json(t, &repo)
			if repo.Description != "through the API" {
				t.Fatalf("description %q after the edit", repo.Description)
			}
			// A commit beside forge, as the command line or an operator's SQL.
			if err := s.App.Store.DB().Model(&store.Repository{}).Where("lower_name = ?", "secret").
				Update("description", "beside forge").Error; err != nil {
				t.Fatal(err)
			}
			get("/api/v1/repos/root/secret", admin, 200).json(t, &repo)
			if repo.Description != "beside forge" {
				t.Fatalf("description %q after a commit beside forge", repo.Description)
			}
		})

		t.Run("only to its caller", func(t *testing.T) {
			get("/api/v1/repos/root/secret", admin, 200)
			get("/api/v1/repos/root/secret", admin, 200)
			get("/api/v1/repos/root/secret", alice, 404)
			get("/api/v1/repos/root/secret", "", 404)
			// The same user with a token that lacks the scope.
			narrow := s.createToken(t, "root", rootPassword, "answers-narrow", "read:user")
			get("/api/v1/repos/root/secret", "token "+narrow, 403)
			// A sudo read is the sudo user's (and always a call: the
			// sudo is logged for each).
			get("/api/v1/repos/root/secret", admin, 404, "Sudo", "alice")
			get("/api/v1/repos/root/secret", admin, 404, "Sudo", "alice")
			get("/api/v1/repos/root/secret", admin, 200)
		})

		t.Run("headers of the answer", func(t *testing.T) {
			const listLabels = "/forge.labels.v1.LabelService/ListRepoLabels"
			path := "/api/v1/repos/root/secret/labels?limit=1"
			replayed(listLabels, func() {
				first := get(path, admin, 200)
				again := get(path, admin, 200)
				for _, h := range []string{"X-Total-Count", "Link", "Access-Control-Expose-Headers"} {
					if first.Header.Get(h) == "" || again.Header.Get(h) != first.Header.Get(h) {
						t.Fatalf("%s: %q, first %q", h, again.Header.Get(h), first.Header.Get(h))
					}
				}
				// The query-string token gets its warning, replayed or not; the
				// header token never does.
				byQuery := get(path+"&token="+s.AdminToken, "", 200)
				if byQuery.Header.Get("X-Gitea-Warning") == "" || !bytes.Equal(byQuery.Body, first.Body) {
					t.Fatalf("query token answer: warning %q, body %s", byQuery.Header.Get("X-Gitea-Warning"), byQuery.Body)
				}
				if w := get(path, admin, 200).Header.Get("X-Gitea-Warning"); w != "" {
					t.Fatalf("header token answer carries the query token's warning %q", w)
				}
			})
		})

		t.Run("git reads replayed until a ref moves", func(t *testing.T) {
			const getContents = "/forge.contents.v1.ContentService/GetContents"
			s.createRepo(t, s.AdminToken, "code", true, false)
			path := "/api/v1/repos/root/code/contents/README.md"
			replayed(getContents, func() {
				first := get(path, admin, 200)
				if again := get(path, admin, 200); !bytes.Equal(again.Body, first.Body) {
					t.Fatalf("replayed body differs:\n%s\n%s", again.Body, first.Body)
				}
			})
			// The raw file (a stream) is replayed once it was sent whole.
			const getRaw = "/forge.contents.v1.ContentService/GetRawFile"
			raw := "/api/v1/repos/root/code/raw/README.md"
			replayed(getRaw, func() {
				first := get(raw, admin, 200)
				again := get(raw, admin, 200)
				if !bytes.Equal(again.Body, first.Body) || again.Header.Get("Content-Length") != first.Header.Get("Content-Length") ||
					again.Header.Get("Content-Disposition") != first.Header.Get("Content-Disposition") {
					t.Fatalf("replayed raw file differs: %q %v, first %q %v", again.Body, again.Header, first.Body, first.Header)
				}
			})
			work := s.clone(t, "root", rootPassword, "root", "code")
			sha := commitAs(t, work, "root@example.org", 1700000000, "README.md", "pushed\n", "push")
			gitCmd(t, work, "push", "-q", "origin", "main")
			var file struct {
				SHA     string `json:"last_commit_sha"`
				Content string
			}
			get(path, admin, 200).json(t, &file)
			if file.SHA != sha || file.Content != "cHVzaGVkCg==" {
				t.Fatalf("after the push: last commit %s content %q, want %s and the pushed text", file.SHA, file.Content, sha)
			}
			if r := get(raw, admin, 200); string(r.Body) != "pushed\n" {
				t.Fatalf("raw file after the push: %q", r.Body)
			}
		})

		t.Run("revoked token refused at once", func(t *testing.T) {
			get("/api/v1/user", alice, 200)
			get("/api/v1/user", alice, 200)
			r := s.do("DELETE", "/api/v1/users/alice/tokens/seed", "", "Authorization", basicAuth("alice", "alice-password-1"))
			expectStatus(t, r, 204)
			get("/api/v1/user", alice, 401)
		})

	})
}

// expectReplayed runs requests (identical requests, at least two) and
// checks that at most the first reached the services as a call of method
// (calls reads the counter). A commit of forge's own background work (a
// token's last use, written every few seconds) between them makes another
// call, so the requests are sent again, up to three times.
func expectReplayed(t *testing.T, calls func(method string) float64, method string, requests func()) {
	t.Helper()
	var got float64
	for range 3 {
		before := calls(method)
		requests()
		if got = calls(method) - before; got <= 1 {
			return
		}
	}
	t.Fatalf("%v calls of %s: not replayed", got, method)
}

// TestAnswerCacheSeesOtherMachinesRefMoves: two forge processes on one
// PostgreSQL database and one repository root, the second made blind to
// the first's ref moves (app.WithRefWatch), as a process on another
// machine is. The second replays a git read, then the first moves the
// branch through its git store alone, recording nothing: the second's
// very next answer is the new content, because the first counted the move
// in the database (git.Store.ReportRefMoves) before the write returned.
func TestAnswerCacheSeesOtherMachinesRefMoves(t *testing.T) {
	t.Parallel()
	const scrapeToken = "answers-scrape-token"
	metricsOn := func(c *config.Config) { c.Metrics.Enabled, c.Metrics.Token = true, scrapeToken }
	a := startServerWith(t, "postgres", metricsOn)
	cfg := *a.Cfg
	b := serveConfig(t, &cfg, metricsOn, app.WithRefWatch(func() (uint64, bool) { return 0, true }))
	b.AdminToken = a.AdminToken
	admin := "token " + a.AdminToken
	a.createRepo(t, a.AdminToken, "code", true, false)

	const getContents = "/forge.contents.v1.ContentService/GetContents"
	path := "/api/v1/repos/root/code/contents/README.md"
	type file struct {
		SHA     string `json:"last_commit_sha"`
		Content string
	}
	get := func(s *testServer) file {
		t.Helper()
		r := s.do("GET", path, "", "Authorization", admin)
		expectStatus(t, r, 200)
		var f file
		r.json(t, &f)
		return f
	}
	calls := func(method string) float64 {
		return scrape(t, b, scrapeToken)[`forge_grpc_requests_total{code="OK",method="`+method+`"}`]
	}
	var first file
	expectReplayed(t, calls, getContents, func() {
		first = get(b)
		if again := get(b); again != first {
			t.Fatalf("replayed %+v, first %+v", again, first)
		}
	})

	repoPath, err := a.App.Git.RepoPath("root", "code")
	if err != nil {
		t.Fatal(err)
	}
	sha, err := a.App.Git.ChangeFiles(context.Background(), repoPath, git.ChangeFilesOptions{Branch: "main",
		Files:   []git.FileChange{{Op: git.OpUpdate, Path: "README.md", Content: []byte("moved\n")}},
		Author:  git.Signature{Name: "A", Email: "a@example.org", When: time.Now()},
		Message: "moved where the second process cannot see"})
	if err != nil {
		t.Fatal(err)
	}
	if got := get(b); got.SHA != sha || got.Content != "bW92ZWQK" {
		t.Fatalf("second process after the move: %+v, want last commit %s and the new text (first %+v)", got, sha, first)
	}
}
