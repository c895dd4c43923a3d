package app_test

import (
	"strings"
	"testing"

	"forge/services/access"
)

// The REST and gRPC refusals on archived repositories and pull mirrors are
// cases in testdata/cases/readonly.yaml; these flows cover git.

// TestReadOnlyArchivedRepository: git fetches from an archived repository
// but cannot push to it, with Gitea's text; unarchiving lets the push in.
func TestReadOnlyArchivedRepository(t *testing.T) {
	t.Parallel()
	eachBackend(t, nil, func(t *testing.T, s *testServer) {
		const alicePW = "alice-password"
		aliceTok := s.seedUser("alice", alicePW, false)
		h := []string{"Authorization", "token " + aliceTok, "Content-Type", jsonCT}
		s.createRepo(t, aliceTok, "demo", true, false)
		work := t.TempDir()
		gitCmd(t, work, "clone", "-q", s.gitURL("alice", alicePW, "alice", "demo"), ".")
		expectStatus(t, s.do("PATCH", "/api/v1/repos/alice/demo", `{"archived":true}`, h...), 200)

		locked := "<Repository " + fmtInt(s.repoRecord(t, "alice", "demo").ID) + ":alice/demo> is archived"
		commitFile(t, work, "pushed.txt", "pushed\n", "push")
		if out, err := gitTry(work, "push", "-q", "origin", "main"); err == nil || !strings.Contains(out, "403") {
			t.Fatalf("push to an archived repository: %v\n%s", err, out)
		}
		r := s.do("GET", "/alice/demo.git/info/refs?service=git-receive-pack", "", "Authorization", basic("alice", alicePW))
		if r.Status != 403 || strings.TrimSpace(string(r.Body)) != locked {
			t.Fatalf("receive-pack advertisement: %d %s", r.Status, r.Body)
		}
		gitCmd(t, work, "fetch", "-q", "origin")

		expectStatus(t, s.do("PATCH", "/api/v1/repos/alice/demo", `{"archived":false}`, h...), 200)
		gitCmd(t, work, "push", "-q", "origin", "main")
	})
}

// TestReadOnlyPullMirror: git clones a pull mirror but cannot push to it.
func TestReadOnlyPullMirror(t *testing.T) {
	t.Parallel()
	eachBackend(t, allowLocal, func(t *testing.T, s *testServer) {
		const carolPW = "carol-password"
		aliceTok := s.seedUser("alice", "alice-password", false)
		carolTok := s.seedUser("carol", carolPW, false)
		s.createRepo(t, aliceTok, "source", true, false)
		r := s.do("POST", "/api/v1/repos/migrate", `{"clone_addr":"`+s.URL+`/alice/source.git","repo_name":"copy","mirror":true}`,
			"Authorization", "token "+carolTok, "Content-Type", jsonCT)
		expectStatus(t, r, 201)

		work := t.TempDir()
		gitCmd(t, work, "clone", "-q", s.gitURL("carol", carolPW, "carol", "copy"), ".")
		commitFile(t, work, "pushed.txt", "pushed\n", "push")
		if out, err := gitTry(work, "push", "-q", "origin", "main"); err == nil || !strings.Contains(out, "403") {
			t.Fatalf("push to a mirror: %v\n%s", err, out)
		}
		r = s.do("GET", "/carol/copy.git/info/refs?service=git-receive-pack", "", "Authorization", basic("carol", carolPW))
		if r.Status != 403 || strings.TrimSpace(string(r.Body)) != access.MirrorReadOnlyMessage {
			t.Fatalf("receive-pack advertisement: %d %s", r.Status, r.Body)
		}
	})
}
