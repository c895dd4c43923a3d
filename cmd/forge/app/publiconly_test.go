package app_test

import (
	"strings"
	"testing"

	reflectionpb "google.golang.org/grpc/reflection/grpc_reflection_v1"
)

// TestPublicOnlyToken: a public-only token cannot fetch a private
// repository over git, nor one of an organization that is not public. (REST and gRPC refusals are cases in
// testdata/cases/permissions.yaml.)
func TestPublicOnlyToken(t *testing.T) {
	s := startServer(t, "sqlite3", nil)
	aliceTok := s.seedUser("alice", "alice-password", false)
	s.createRepo(t, aliceTok, "private", true, true)
	pub := s.createToken(t, "alice", "alice-password", "pub", "public-only", "read:repository", "read:user")
	if out, err := gitTry(t.TempDir(), "ls-remote", s.gitURL("alice", pub, "alice", "private")); err == nil {
		t.Fatalf("public-only token fetched a private repository: %s", out)
	}
	// The full token still fetches.
	gitCmd(t, t.TempDir(), "ls-remote", s.gitURL("alice", aliceTok, "alice", "private"))

	// Nor a public repository of an organization that is not public: git
	// meets the rule of the API (testdata/cases/publiconly.yaml).
	for _, vis := range []string{"limited", "private"} {
		org := "org-" + vis
		expectStatus(t, s.do("POST", "/api/v1/orgs", `{"username":"`+org+`","visibility":"`+vis+`"}`,
			"Authorization", "token "+aliceTok, "Content-Type", jsonCT), 201)
		expectStatus(t, s.do("POST", "/api/v1/orgs/"+org+"/repos", `{"name":"open","auto_init":true}`,
			"Authorization", "token "+aliceTok, "Content-Type", jsonCT), 201)
		if out, err := gitTry(t.TempDir(), "ls-remote", s.gitURL("alice", pub, org, "open")); err == nil {
			t.Errorf("public-only token fetched a public repository of a %s organization: %s", vis, out)
		}
		gitCmd(t, t.TempDir(), "ls-remote", s.gitURL("alice", aliceTok, org, "open"))
	}
}

func TestGRPCReflection(t *testing.T) {
	s := startServer(t, "sqlite3", nil)
	stream, err := reflectionpb.NewServerReflectionClient(s.grpcConn()).ServerReflectionInfo(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if err := stream.Send(&reflectionpb.ServerReflectionRequest{MessageRequest: &reflectionpb.ServerReflectionRequest_ListServices{}}); err != nil {
		t.Fatal(err)
	}
	resp, err := stream.Recv()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, svc := range resp.GetListServicesResponse().GetService() {
		names = append(names, svc.GetName())
	}
	joined := strings.Join(names, " ")
	for _, want := range []string{"forge.users.v1.UserService", "forge.admin.v1.AdminService", "forge.repos.v1.RepositoryService"} {
		if !strings.Contains(joined, want) {
			t.Errorf("reflection lacks %s: %v", want, names)
		}
	}
}
