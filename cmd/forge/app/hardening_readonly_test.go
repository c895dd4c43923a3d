package app_test

import (
	"strings"
	"testing"

	"code.gitea.io/sdk/gitea"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	branchesv1 "forge/gen/forge/branches/v1"
	contentsv1 "forge/gen/forge/contents/v1"
	releasesv1 "forge/gen/forge/releases/v1"
	"forge/services/access"
)

// writeCase is one write request and Gitea's refusal of it on a read-only
// repository.
type writeCase struct {
	method, path, body string
	status             int
	message            string
}

func expectRefusals(t *testing.T, s *testServer, token string, cases []writeCase) {
	t.Helper()
	for _, c := range cases {
		r := s.do(c.method, c.path, c.body, "Authorization", "token "+token, "Content-Type", jsonCT)
		if r.Status != c.status {
			t.Errorf("%s %s: status %d, want %d; body %s", c.method, c.path, r.Status, c.status, r.Body)
			continue
		}
		if got := r.message(t); got != c.message {
			t.Errorf("%s %s: message %q, want %q", c.method, c.path, got, c.message)
		}
	}
}

// expectReadOnlyStatus checks a gRPC refusal: its code and the ErrorInfo
// reason and HTTP status that the REST gateway honours.
func expectReadOnlyStatus(t *testing.T, err error, code codes.Code, reason, httpStatus string) {
	t.Helper()
	st := status.Convert(err)
	if st.Code() != code {
		t.Fatalf("code %v (%v), want %v", st.Code(), err, code)
	}
	for _, d := range st.Details() {
		if info, ok := d.(*errdetails.ErrorInfo); ok && info.GetReason() == reason && info.GetMetadata()["http_status"] == httpStatus {
			return
		}
	}
	t.Fatalf("no ErrorInfo %s/%s in %v", reason, httpStatus, st.Details())
}

func TestReadOnlyArchivedRepository(t *testing.T) {
	eachBackend(t, allowLocal, func(t *testing.T, s *testServer) {
		const alicePW = "alice-password"
		aliceTok := s.seedUser("alice", alicePW, false)
		bobTok := s.seedUser("bob", "bob-password", false)
		h := []string{"Authorization", "token " + aliceTok, "Content-Type", jsonCT}
		s.createRepo(t, aliceTok, "demo", true, false)
		s.createRepo(t, aliceTok, "backup", false, false)
		expectStatus(t, s.do("POST", "/api/v1/repos/alice/demo/branches", `{"new_branch_name":"dev"}`, h...), 201)
		r := s.do("POST", "/api/v1/repos/alice/demo/releases", `{"tag_name":"v1","name":"one"}`, h...)
		expectStatus(t, r, 201)
		var rel gitea.Release
		r.json(t, &rel)
		r = s.do("POST", "/api/v1/repos/alice/demo/push_mirrors",
			`{"remote_address":"`+s.URL+`/alice/backup.git","remote_username":"alice","remote_password":"`+alicePW+`","interval":"8h0m0s"}`, h...)
		expectStatus(t, r, 200)
		var pm gitea.PushMirrorResponse
		r.json(t, &pm)
		readme := fileSHA(t, s, aliceTok, "alice", "demo", "README.md")

		// Archive; editing the repository itself stays allowed.
		r = s.do("PATCH", "/api/v1/repos/alice/demo", `{"archived":true}`, h...)
		expectStatus(t, r, 200)
		var repo gitea.Repository
		r.json(t, &repo)
		if !repo.Archived {
			t.Fatalf("PATCH archived: %s", r.Body)
		}
		expectStatus(t, s.do("PATCH", "/api/v1/repos/alice/demo", `{"description":"kept for history"}`, h...), 200)

		locked := "<Repository " + fmtInt(s.repoRecord(t, "alice", "demo").ID) + ":alice/demo> is archived"
		relPath := "/api/v1/repos/alice/demo/releases/" + fmtInt(rel.ID)
		expectRefusals(t, s, aliceTok, []writeCase{
			// Gitea's not-archived routes: 423 Locked.
			{"POST", "/api/v1/repos/alice/demo/contents/new.txt", `{"content":"aGkK"}`, 423, locked},
			{"PUT", "/api/v1/repos/alice/demo/contents/README.md", `{"content":"aGkK","sha":"` + readme + `"}`, 423, locked},
			{"DELETE", "/api/v1/repos/alice/demo/contents/README.md", `{"sha":"` + readme + `"}`, 423, locked},
			{"POST", "/api/v1/repos/alice/demo/branches", `{"new_branch_name":"other"}`, 423, locked},
			{"DELETE", "/api/v1/repos/alice/demo/branches/dev", "", 423, locked},
			{"POST", "/api/v1/repos/alice/demo/push_mirrors", `{"remote_address":"` + s.URL + `/alice/backup.git","interval":"8h0m0s"}`, 423, locked},
			{"DELETE", "/api/v1/repos/alice/demo/push_mirrors/" + pm.RemoteName, "", 423, locked},
			{"POST", "/api/v1/repos/alice/demo/push_mirrors-sync", "", 423, locked},
			{"POST", "/api/v1/repos/alice/demo/mirror-sync", "", 423, locked},
			// Releases and tags: no not-archived in Gitea's routes, 403.
			{"POST", "/api/v1/repos/alice/demo/releases", `{"tag_name":"v2"}`, 403, locked},
			{"PATCH", relPath, `{"name":"renamed"}`, 403, locked},
			{"DELETE", relPath, "", 403, locked},
			{"DELETE", "/api/v1/repos/alice/demo/releases/tags/v1", "", 403, locked},
			{"DELETE", "/api/v1/repos/alice/demo/tags/v1", "", 403, locked},
		})
		// The Gitea SDK sees the same statuses.
		alice := s.sdk(gitea.SetToken(aliceTok))
		_, resp, err := alice.CreateFile("alice", "demo", "sdk.txt", gitea.CreateFileOptions{Content: "aGkK"})
		if err == nil || resp == nil || resp.StatusCode != 423 || !strings.Contains(err.Error(), locked) {
			t.Fatalf("SDK CreateFile on an archived repository: %v %v", resp, err)
		}
		_, resp, err = alice.CreateBranch("alice", "demo", gitea.CreateBranchOption{BranchName: "sdk"})
		if err == nil || resp == nil || resp.StatusCode != 423 {
			t.Fatalf("SDK CreateBranch on an archived repository: %v %v", resp, err)
		}
		_, resp, err = alice.CreateRelease("alice", "demo", gitea.CreateReleaseOption{TagName: "sdk", Title: "sdk"})
		if err == nil || resp == nil || resp.StatusCode != 403 {
			t.Fatalf("SDK CreateRelease on an archived repository: %v %v", resp, err)
		}

		// A caller without write access meets the permission check first.
		r = s.do("POST", "/api/v1/repos/alice/demo/contents/new.txt", `{"content":"aGkK"}`, "Authorization", "token "+bobTok, "Content-Type", jsonCT)
		expectStatus(t, r, 403)

		// Nothing was written; reads still work.
		expectStatus(t, s.do("GET", "/api/v1/repos/alice/demo/contents/new.txt", "", h...), 404)
		expectStatus(t, s.do("GET", "/api/v1/repos/alice/demo/branches/dev", "", h...), 200)
		expectStatus(t, s.do("GET", relPath, "", h...), 200)
		expectStatus(t, s.do("GET", "/api/v1/repos/alice/demo/tags/v1", "", h...), 200)
		expectStatus(t, s.do("GET", "/api/v1/repos/alice/demo/push_mirrors/"+pm.RemoteName, "", h...), 200)
		if got := fileSHA(t, s, aliceTok, "alice", "demo", "README.md"); got != readme {
			t.Fatalf("README changed on an archived repository: %s", got)
		}

		// gRPC: the same refusal, FailedPrecondition with the 423 detail
		// for code, PermissionDenied for releases.
		ctx := withToken(t.Context(), aliceTok)
		_, err = contentsv1.NewContentServiceClient(s.grpcConn()).CreateFile(ctx, &contentsv1.CreateFileRequest{
			Owner: "alice", Repo: "demo", Filepath: "grpc.txt", Content: "aGkK",
		})
		expectReadOnlyStatus(t, err, codes.FailedPrecondition, access.ReasonArchived, "423")
		if status.Convert(err).Message() != locked {
			t.Fatalf("gRPC message: %v", err)
		}
		_, err = releasesv1.NewReleaseServiceClient(s.grpcConn()).CreateRelease(ctx, &releasesv1.CreateReleaseRequest{Owner: "alice", Repo: "demo", TagName: "v3"})
		expectReadOnlyStatus(t, err, codes.PermissionDenied, access.ReasonArchived, "403")

		// git: fetch works, push is refused with the same text.
		work := t.TempDir()
		gitCmd(t, work, "clone", "-q", s.gitURL("alice", alicePW, "alice", "demo"), ".")
		commitFile(t, work, "pushed.txt", "pushed\n", "push")
		if out, err := gitTry(work, "push", "-q", "origin", "main"); err == nil || !strings.Contains(out, "403") {
			t.Fatalf("push to an archived repository: %v\n%s", err, out)
		}
		r = s.do("GET", "/alice/demo.git/info/refs?service=git-receive-pack", "", "Authorization", basic("alice", alicePW))
		if r.Status != 403 || strings.TrimSpace(string(r.Body)) != locked {
			t.Fatalf("receive-pack advertisement: %d %s", r.Status, r.Body)
		}
		gitCmd(t, work, "fetch", "-q", "origin")

		// Unarchive: every write works again.
		r = s.do("PATCH", "/api/v1/repos/alice/demo", `{"archived":false}`, h...)
		expectStatus(t, r, 200)
		r.json(t, &repo)
		if repo.Archived {
			t.Fatalf("PATCH archived=false: %s", r.Body)
		}
		expectStatus(t, s.do("POST", "/api/v1/repos/alice/demo/contents/new.txt", `{"content":"aGkK"}`, h...), 201)
		expectStatus(t, s.do("POST", "/api/v1/repos/alice/demo/branches", `{"new_branch_name":"other"}`, h...), 201)
		expectStatus(t, s.do("DELETE", "/api/v1/repos/alice/demo/branches/dev", "", h...), 204)
		expectStatus(t, s.do("PATCH", relPath, `{"name":"renamed"}`, h...), 200)
		expectStatus(t, s.do("POST", "/api/v1/repos/alice/demo/releases", `{"tag_name":"v2"}`, h...), 201)
		expectStatus(t, s.do("DELETE", "/api/v1/repos/alice/demo/push_mirrors/"+pm.RemoteName, "", h...), 204)
		gitCmd(t, work, "pull", "-q", "--rebase", "origin", "main")
		gitCmd(t, work, "push", "-q", "origin", "main")
	})
}

func TestReadOnlyPullMirror(t *testing.T) {
	eachBackend(t, allowLocal, func(t *testing.T, s *testServer) {
		const carolPW = "carol-password"
		aliceTok := s.seedUser("alice", "alice-password", false)
		carolTok := s.seedUser("carol", carolPW, false)
		h := []string{"Authorization", "token " + carolTok, "Content-Type", jsonCT}
		s.createRepo(t, aliceTok, "source", true, false)
		ha := []string{"Authorization", "token " + aliceTok, "Content-Type", jsonCT}
		expectStatus(t, s.do("POST", "/api/v1/repos/alice/source/branches", `{"new_branch_name":"dev"}`, ha...), 201)
		expectStatus(t, s.do("POST", "/api/v1/repos/alice/source/releases", `{"tag_name":"v1"}`, ha...), 201)

		r := s.do("POST", "/api/v1/repos/migrate", `{"clone_addr":"`+s.URL+`/alice/source.git","repo_name":"copy","mirror":true}`, h...)
		expectStatus(t, r, 201)
		readme := fileSHA(t, s, carolTok, "carol", "copy", "README.md")
		if refs := lsRemote(t, s.gitURL("", "", "carol", "copy")); refs["refs/tags/v1"] == "" || refs["refs/heads/dev"] == "" {
			t.Fatalf("mirror refs: %v", refs)
		}

		const ro = access.MirrorReadOnlyMessage
		expectRefusals(t, s, carolTok, []writeCase{
			{"POST", "/api/v1/repos/carol/copy/contents/new.txt", `{"content":"aGkK"}`, 403, ro},
			{"PUT", "/api/v1/repos/carol/copy/contents/README.md", `{"content":"aGkK","sha":"` + readme + `"}`, 403, ro},
			{"DELETE", "/api/v1/repos/carol/copy/contents/README.md", `{"sha":"` + readme + `"}`, 403, ro},
			{"POST", "/api/v1/repos/carol/copy/branches", `{"new_branch_name":"other"}`, 403, ro},
			{"DELETE", "/api/v1/repos/carol/copy/branches/dev", "", 403, ro},
			{"POST", "/api/v1/repos/carol/copy/releases", `{"tag_name":"v2"}`, 403, ro},
			{"PATCH", "/api/v1/repos/carol/copy/releases/1", `{"name":"renamed"}`, 403, ro},
			{"DELETE", "/api/v1/repos/carol/copy/releases/1", "", 403, ro},
			{"DELETE", "/api/v1/repos/carol/copy/releases/tags/v1", "", 403, ro},
			{"DELETE", "/api/v1/repos/carol/copy/tags/v1", "", 403, ro},
		})

		// Reads work, nothing changed; syncing the mirror is its one write.
		expectStatus(t, s.do("GET", "/api/v1/repos/carol/copy/contents/new.txt", "", h...), 404)
		expectStatus(t, s.do("GET", "/api/v1/repos/carol/copy/branches/dev", "", h...), 200)
		expectStatus(t, s.do("GET", "/api/v1/repos/carol/copy/tags/v1", "", h...), 200)
		expectStatus(t, s.do("POST", "/api/v1/repos/carol/copy/mirror-sync", "", h...), 200)

		// gRPC.
		ctx := withToken(t.Context(), carolTok)
		_, err := releasesv1.NewReleaseServiceClient(s.grpcConn()).DeleteTag(ctx, &releasesv1.DeleteTagRequest{Owner: "carol", Repo: "copy", Tag: "v1"})
		expectReadOnlyStatus(t, err, codes.PermissionDenied, access.ReasonMirror, "403")
		_, err = branchesv1.NewBranchServiceClient(s.grpcConn()).CreateBranch(ctx, &branchesv1.CreateBranchRequest{Owner: "carol", Repo: "copy", NewBranchName: "x"})
		expectReadOnlyStatus(t, err, codes.PermissionDenied, access.ReasonMirror, "403")

		// git: clone works, push is refused.
		work := t.TempDir()
		gitCmd(t, work, "clone", "-q", s.gitURL("carol", carolPW, "carol", "copy"), ".")
		commitFile(t, work, "pushed.txt", "pushed\n", "push")
		if out, err := gitTry(work, "push", "-q", "origin", "main"); err == nil || !strings.Contains(out, "403") {
			t.Fatalf("push to a mirror: %v\n%s", err, out)
		}
		r = s.do("GET", "/carol/copy.git/info/refs?service=git-receive-pack", "", "Authorization", basic("carol", carolPW))
		if r.Status != 403 || strings.TrimSpace(string(r.Body)) != ro {
			t.Fatalf("receive-pack advertisement: %d %s", r.Status, r.Body)
		}

		// An archived mirror is locked for syncing too, until unarchived.
		expectStatus(t, s.do("PATCH", "/api/v1/repos/carol/copy", `{"archived":true}`, h...), 200)
		locked := "<Repository " + fmtInt(s.repoRecord(t, "carol", "copy").ID) + ":carol/copy> is archived"
		expectRefusals(t, s, carolTok, []writeCase{
			{"POST", "/api/v1/repos/carol/copy/mirror-sync", "", 423, locked},
			{"POST", "/api/v1/repos/carol/copy/contents/new.txt", `{"content":"aGkK"}`, 423, locked},
		})
		expectStatus(t, s.do("PATCH", "/api/v1/repos/carol/copy", `{"archived":false}`, h...), 200)
		expectStatus(t, s.do("POST", "/api/v1/repos/carol/copy/mirror-sync", "", h...), 200)
	})
}

// fileSHA is the blob SHA of a file on the default branch.
func fileSHA(t *testing.T, s *testServer, token, owner, repo, path string) string {
	t.Helper()
	r := s.do("GET", "/api/v1/repos/"+owner+"/"+repo+"/contents/"+path, "", "Authorization", "token "+token)
	expectStatus(t, r, 200)
	var c gitea.ContentsResponse
	r.json(t, &c)
	return c.SHA
}
