package app_test

import (
	"strings"
	"testing"

	reflectionpb "google.golang.org/grpc/reflection/grpc_reflection_v1"
)

// TestPublicOnlyToken: a public-only token is refused on private
// repositories everywhere, including anonymous-capable GETs and git.
func TestPublicOnlyToken(t *testing.T) {
	s := startServer(t, "sqlite3", nil)
	aliceTok := s.seedUser("alice", "alice-password", false)
	s.createRepo(t, aliceTok, "private", true, true)
	s.createRepo(t, aliceTok, "public", true, false)
	pub := s.createToken(t, "alice", "alice-password", "pub", "public-only", "read:repository", "read:user")
	expectStatus(t, s.do("GET", "/api/v1/repos/alice/public", "", "Authorization", "token "+pub), 200)
	r := s.do("GET", "/api/v1/repos/alice/private", "", "Authorization", "token "+pub)
	expectStatus(t, r, 403)
	if !strings.Contains(r.message(t), "public repos") {
		t.Fatalf("message: %s", r.Body)
	}
	r = s.do("GET", "/api/v1/users/alice/repos", "", "Authorization", "token "+pub)
	if strings.Contains(string(r.Body), `"name":"private"`) {
		t.Fatal("public-only token lists a private repository")
	}
	if out, err := gitTry(t.TempDir(), "ls-remote", s.gitURL("alice", pub, "alice", "private")); err == nil {
		t.Fatalf("public-only token fetched a private repository: %s", out)
	}
	// The full token still works.
	expectStatus(t, s.do("GET", "/api/v1/repos/alice/private", "", "Authorization", "token "+aliceTok), 200)
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
