package app_test

import (
	"strings"
	"testing"

	reflectionpb "google.golang.org/grpc/reflection/grpc_reflection_v1"
)

// TestPublicOnlyToken: a public-only token cannot fetch a private
// repository over git. (REST and gRPC refusals are cases in
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
