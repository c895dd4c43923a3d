package app_test

import (
	"io"
	"net/http"
	"os"
	"strconv"
	"testing"
)

// Round trips of the code endpoints on SQLite over loopback with
// keep-alive, each serially (latency) and from parallel clients
// (throughput):
//
//	go test -run '^$' -bench 'Code' -benchmem ./cmd/forge/app/
//
// The repository has 51 commits, each changing a few lines of a few files.

// benchCodeRepo makes alice/bench with 51 commits and returns alice's token.
func benchCodeRepo(b *testing.B, s *testServer) string {
	b.Helper()
	tok := s.seedUser("alice", "alice-password", false)
	r := s.do("POST", "/api/v1/user/repos", `{"name":"bench","auto_init":true}`, "Authorization", "token "+tok, "Content-Type", jsonCT)
	if r.Status != 201 {
		b.Fatalf("create repository: %d %s", r.Status, r.Body)
	}
	dir := b.TempDir()
	run := func(args ...string) {
		if out, err := gitTry(dir, args...); err != nil {
			b.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	run("clone", "-q", s.gitURL("alice", "alice-password", "alice", "bench"), ".")
	for i := range 50 {
		for f := range 3 {
			name := dir + "/file" + strconv.Itoa((i+f)%7) + ".txt"
			old, _ := os.ReadFile(name)
			if err := os.WriteFile(name, append(old, []byte("line "+strconv.Itoa(i)+"\n")...), 0o644); err != nil {
				b.Fatal(err)
			}
		}
		run("add", "-A")
		run("commit", "-q", "-m", "commit "+strconv.Itoa(i))
	}
	run("push", "-q", "origin", "main")
	return tok
}

func benchCode(b *testing.B, path string) { benchCodeAfter(b, path, nil) }

// benchCodeAfter is benchCode with more seeding after the repository's
// history (seed gets the server, alice's token and her clone).
func benchCodeAfter(b *testing.B, path string, seed func(s *testServer, tok string)) {
	s := startServer(b, "sqlite3", nil)
	tok := benchCodeRepo(b, s)
	if seed != nil {
		seed(s, tok)
	}
	url := s.URL + path
	c := benchClient()
	b.Run("serial", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			req, _ := http.NewRequest("GET", url, nil)
			req.Header.Set("Authorization", "token "+tok)
			resp, err := c.Do(req)
			if err != nil {
				b.Fatal(err)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 {
				b.Fatalf("status %d", resp.StatusCode)
			}
		}
	})
	b.Run("parallel", func(b *testing.B) { benchGet(b, c, url, tok) })
}

func BenchmarkCodeGetContentsFile(b *testing.B) {
	benchCode(b, "/api/v1/repos/alice/bench/contents/file3.txt")
}

func BenchmarkCodeListCommits50(b *testing.B) {
	benchCode(b, "/api/v1/repos/alice/bench/commits?limit=50")
}

func BenchmarkCodeListCommits10(b *testing.B) {
	benchCode(b, "/api/v1/repos/alice/bench/commits?limit=10")
}

func BenchmarkCodeListBranches(b *testing.B) {
	benchCode(b, "/api/v1/repos/alice/bench/branches")
}

func BenchmarkCodeGetRawFile(b *testing.B) {
	benchCode(b, "/api/v1/repos/alice/bench/raw/file3.txt")
}

// benchPull opens pull request 1 of alice/bench: a branch of 10 commits
// on main's head, each changing a few lines of a few files.
func benchPull(s *testServer, tok string) {
	b := s.t
	dir := b.TempDir()
	run := func(args ...string) {
		if out, err := gitTry(dir, args...); err != nil {
			b.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	run("clone", "-q", s.gitURL("alice", "alice-password", "alice", "bench"), ".")
	run("checkout", "-q", "-b", "feature")
	for i := range 10 {
		for f := range 3 {
			name := dir + "/file" + strconv.Itoa((i+f)%5) + ".txt"
			old, _ := os.ReadFile(name)
			if err := os.WriteFile(name, append(old, []byte("feature "+strconv.Itoa(i)+"\n")...), 0o644); err != nil {
				b.Fatal(err)
			}
		}
		run("add", "-A")
		run("commit", "-q", "-m", "feature "+strconv.Itoa(i))
	}
	run("push", "-q", "origin", "feature")
	r := s.do("POST", "/api/v1/repos/alice/bench/pulls", `{"head":"feature","base":"main","title":"feature"}`,
		"Authorization", "token "+tok, "Content-Type", jsonCT)
	if r.Status != 201 {
		b.Fatalf("open pull request: %d %s", r.Status, r.Body)
	}
}

func BenchmarkCodePullCommits(b *testing.B) {
	benchCodeAfter(b, "/api/v1/repos/alice/bench/pulls/1/commits", benchPull)
}

func BenchmarkCodePullFiles(b *testing.B) {
	benchCodeAfter(b, "/api/v1/repos/alice/bench/pulls/1/files", benchPull)
}
