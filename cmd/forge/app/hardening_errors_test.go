package app_test

import (
	"context"
	"testing"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	commitsv1 "forge/gen/forge/commits/v1"
	reposv1 "forge/gen/forge/repos/v1"
)

// expectDeclared asserts a gRPC error's code and its forge ErrorInfo: the
// reason and the Gitea HTTP status the service declared ("" for none).
func expectDeclared(t *testing.T, err error, code codes.Code, reason, httpStatus string) {
	t.Helper()
	st := status.Convert(err)
	if st.Code() != code {
		t.Fatalf("code %v (%v), want %v", st.Code(), err, code)
	}
	for _, d := range st.Details() {
		if info, ok := d.(*errdetails.ErrorInfo); ok && info.GetDomain() == "forge" {
			if info.GetReason() != reason || info.GetMetadata()["http_status"] != httpStatus {
				t.Fatalf("ErrorInfo %s/%v, want %s/%s", info.GetReason(), info.GetMetadata(), reason, httpStatus)
			}
			return
		}
	}
	t.Fatalf("no forge ErrorInfo in %v", st.Details())
}

// TestDeclaredErrorStatuses: the statuses Gitea answers beside its codes'
// defaults are declared on the errors the services return (no per-method
// table in the gateway): REST clients get Gitea's status and message, gRPC
// clients the canonical code with the declared status in ErrorInfo.
func TestDeclaredErrorStatuses(t *testing.T) {
	t.Parallel()
	eachBackend(t, nil, func(t *testing.T, s *testServer) {
		const alicePW = "alice-password"
		aliceTok := s.seedUser("alice", alicePW, false)
		s.seedUser("bob", "bob-password", false)
		h := []string{"Authorization", "token " + aliceTok, "Content-Type", jsonCT}
		s.createRepo(t, aliceTok, "demo", true, false)
		s.createRepo(t, aliceTok, "empty", false, false)

		// A taken repository name: 409.
		r := s.do("POST", "/api/v1/user/repos", `{"name":"demo"}`, h...)
		expectStatus(t, r, 409)
		if m := r.message(t); m != "The repository with the same name already exists." {
			t.Fatalf("message %q", m)
		}
		// A taken branch name: 409.
		expectStatus(t, s.do("POST", "/api/v1/repos/alice/demo/branches", `{"new_branch_name":"dev"}`, h...), 201)
		r = s.do("POST", "/api/v1/repos/alice/demo/branches", `{"new_branch_name":"dev"}`, h...)
		expectStatus(t, r, 409)
		if m := r.message(t); m != "The branch already exists." {
			t.Fatalf("message %q", m)
		}
		// The commits of an empty repository: 409.
		r = s.do("GET", "/api/v1/repos/alice/empty/commits", "", h...)
		expectStatus(t, r, 409)
		if m := r.message(t); m != "Git Repository is empty." {
			t.Fatalf("message %q", m)
		}
		// A used token name: 400.
		r = s.do("POST", "/api/v1/users/alice/tokens", `{"name":"seed","scopes":["all"]}`, "Authorization", basic("alice", alicePW), "Content-Type", jsonCT)
		expectStatus(t, r, 400)
		// A used e-mail: 422 on create, 400 on edit.
		s.adminDo(t, "POST", "/api/v1/admin/users", `{"username":"carol","email":"bob@example.org","password":"carol-password-1"}`, 422)
		s.adminDo(t, "PATCH", "/api/v1/admin/users/alice", `{"email":"bob@example.org"}`, 400)

		// Over gRPC: canonical codes, the declared status as a detail.
		ctx := withToken(context.Background(), aliceTok)
		repos := reposv1.NewRepositoryServiceClient(s.grpcConn())
		_, err := repos.CreateCurrentUserRepo(ctx, &reposv1.CreateCurrentUserRepoRequest{Name: "demo"})
		expectDeclared(t, err, codes.AlreadyExists, "ALREADY_EXISTS", "409")
		commits := commitsv1.NewCommitServiceClient(s.grpcConn())
		_, err = commits.ListCommits(ctx, &commitsv1.ListCommitsRequest{Owner: "alice", Repo: "empty"})
		expectDeclared(t, err, codes.FailedPrecondition, "FAILED_PRECONDITION", "409")
	})
}
