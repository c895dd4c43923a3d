package validate

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/known/structpb"

	adminv1 "forge/gen/forge/admin/v1"
	branchesv1 "forge/gen/forge/branches/v1"
	contentsv1 "forge/gen/forge/contents/v1"
	issuesv1 "forge/gen/forge/issues/v1"
	labelsv1 "forge/gen/forge/labels/v1"
	mirrorsv1 "forge/gen/forge/mirrors/v1"
	orgsv1 "forge/gen/forge/orgs/v1"
	releasesv1 "forge/gen/forge/releases/v1"
	reposv1 "forge/gen/forge/repos/v1"
	tokensv1 "forge/gen/forge/tokens/v1"
	usersv1 "forge/gen/forge/users/v1"
	"forge/services/errs"
)

func ptr(s string) *string { return &s }

// units is a units map of n entries.
func units(n int) map[string]string {
	m := map[string]string{}
	for i := 0; i < n; i++ {
		m[fmt.Sprint("u", i)] = "read"
	}
	return m
}

func TestCheckMessages(t *testing.T) {
	long := strings.Repeat("a", 101)
	for _, tc := range []struct {
		name string
		req  proto.Message
		want string // "" = valid
	}{
		{"repo name required", &reposv1.CreateCurrentUserRepoRequest{}, "[Name]: Required"},
		{"repo name blank", &reposv1.CreateCurrentUserRepoRequest{Name: "  "}, "[Name]: Required"},
		{"repo name too long", &reposv1.CreateCurrentUserRepoRequest{Name: long}, "[Name]: MaxSize"},
		{"repo name form", &reposv1.CreateCurrentUserRepoRequest{Name: "a b"}, `[Name]: invalid repository name "a b" (letters, digits, '-', '_', '.')`},
		{"repo name ok", &reposv1.CreateCurrentUserRepoRequest{Name: "demo.git-x_1"}, ""},
		{"description runes", &reposv1.CreateCurrentUserRepoRequest{Name: "d", Description: strings.Repeat("é", 2048)}, ""},
		{"description too long", &reposv1.CreateCurrentUserRepoRequest{Name: "d", Description: strings.Repeat("é", 2049)}, "[Description]: MaxSize"},
		{"default branch too long", &reposv1.CreateCurrentUserRepoRequest{Name: "d", DefaultBranch: long}, "[DefaultBranch]: MaxSize"},
		{"nested option checked", &reposv1.AdminCreateRepoRequest{Username: "u", Repository: &reposv1.CreateRepoOption{Name: "a/b"}}, `[Name]: invalid repository name "a/b" (letters, digits, '-', '_', '.')`},
		{"nested option unset", &reposv1.AdminCreateRepoRequest{Username: "u"}, ""},
		{"edit: unset fields are not checked", &reposv1.EditRepoRequest{Owner: "o", Repo: "r"}, ""},
		{"edit: a set empty name is", &reposv1.EditRepoRequest{Name: ptr("")}, "[Name]: Required"},
		{"edit: description", &reposv1.EditRepoRequest{Description: ptr(strings.Repeat("x", 2049))}, "[Description]: MaxSize"},
		{"migrate: clone address first", &mirrorsv1.MigrateRepoRequest{}, "[CloneAddr]: Required"},
		{"migrate: repo name", &mirrorsv1.MigrateRepoRequest{CloneAddr: "https://x", RepoName: long}, "[RepoName]: MaxSize"},
		{"branch: renamed field", &branchesv1.CreateBranchRequest{}, "[BranchName]: Required"},
		{"branch: ref form", &branchesv1.CreateBranchRequest{NewBranchName: "a..b"}, "[BranchName]: GitRefName"},
		{"branch: optional ref", &branchesv1.CreateBranchRequest{NewBranchName: "x", OldRefName: "bad ref"}, "[OldRefName]: GitRefName"},
		{"branch: ok", &branchesv1.CreateBranchRequest{NewBranchName: "x", OldBranchName: "main"}, ""},
		{"contents: new branch", &contentsv1.CreateFileRequest{NewBranch: long}, "[NewBranchName]: MaxSize"},
		{"contents: sha", &contentsv1.UpdateFileRequest{}, "[SHA]: Required"},
		{"contents: delete sha", &contentsv1.DeleteFileRequest{Branch: "main"}, "[SHA]: Required"},
		{"release tag", &releasesv1.CreateReleaseRequest{TagName: " "}, "[TagName]: Required"},
		{"token name", &tokensv1.CreateAccessTokenRequest{}, "[Name]: Required"},
		{"full name", &adminv1.CreateUserRequest{Username: "u", FullName: long}, "[FullName]: MaxSize"},
		{"user name required", &adminv1.CreateUserRequest{}, "[Username]: Required"},
		{"user name size", &adminv1.CreateUserRequest{Username: strings.Repeat("u", 41)}, "[Username]: MaxSize"},
		{"user name form", &adminv1.CreateUserRequest{Username: "a--b"}, `[Username]: invalid user name "a--b" (letters, digits, and single '-', '_' or '.' between them)`},
		{"user name ok", &adminv1.CreateUserRequest{Username: "a-b.c_d"}, ""},
		{"password size", &adminv1.CreateUserRequest{Username: "u", Password: strings.Repeat("p", 256)}, "[Password]: MaxSize"},
		{"edit password size", &adminv1.EditUserRequest{Password: strings.Repeat("p", 256)}, "[Password]: MaxSize"},
		{"no rules", &reposv1.GetRepoRequest{}, ""},
		{"list at its bound", &issuesv1.CreateIssueRequest{Title: "t", Assignees: make([]string, 50)}, ""},
		{"list over its bound", &issuesv1.CreateIssueRequest{Title: "t", Assignees: make([]string, 51)}, "[Assignees]: MaxSize"},
		{"int list over its bound", &issuesv1.CreateIssueRequest{Title: "t", Labels: make([]int64, 101)}, "[Labels]: MaxSize"},
		{"map over its bound", &orgsv1.CreateTeamRequest{Name: "t", UnitsMap: units(11)}, "[UnitsMap]: MaxSize"},
		{"map at its bound", &orgsv1.CreateTeamRequest{Name: "t", UnitsMap: units(10)}, ""},
		{"NUL in a field without rules", &issuesv1.EditIssueRequest{State: ptr("a\x00b")}, "[State]: contains a NUL character"},
		{"NUL in a field with rules", &issuesv1.CreateIssueRequest{Title: "a\x00"}, "[Title]: contains a NUL character"},
		{"NUL in a path field", &reposv1.GetRepoRequest{Owner: "\x00"}, "[Owner]: contains a NUL character"},
		{"NUL in a list", &issuesv1.CreateIssueRequest{Title: "t", Assignees: []string{"a", "b\x00"}}, "[Assignees]: contains a NUL character"},
		{"NUL in a map key", &orgsv1.CreateTeamRequest{Name: "t", UnitsMap: map[string]string{"repo.code\x00": "read"}}, "[UnitsMap]: contains a NUL character"},
		{"NUL in a map value", &orgsv1.CreateTeamRequest{Name: "t", UnitsMap: map[string]string{"repo.code": "read\x00"}}, "[UnitsMap]: contains a NUL character"},
		{"NUL in a nested message", &reposv1.AdminCreateRepoRequest{Username: "u", Repository: &reposv1.CreateRepoOption{Name: "r", Description: "\x00"}}, "[Description]: contains a NUL character"},
		{"NUL in a JSON value names the field", &labelsv1.AddIssueLabelsRequest{Labels: []*structpb.Value{structpb.NewNumberValue(1), structpb.NewStringValue("x\x00")}}, "[Labels]: contains a NUL character"},
		{"NUL in an optional field", &usersv1.UpdateUserSettingsRequest{Location: ptr("\x00")}, "[Location]: contains a NUL character"},
		{"invalid UTF-8", &issuesv1.CreateCommentRequest{Body: "\xff"}, "[Body]: is not valid UTF-8"},
		{"other control characters pass", &issuesv1.CreateCommentRequest{Body: "a\tb\x01"}, ""},
		{"website: http", &usersv1.UpdateUserSettingsRequest{Website: ptr("https://example.com/x")}, ""},
		{"website: cleared", &usersv1.UpdateUserSettingsRequest{Website: ptr("")}, ""},
		{"website: javascript", &usersv1.UpdateUserSettingsRequest{Website: ptr("javascript:alert(1)")}, "[Website]: Url"},
		{"website: upper-case scheme", &usersv1.UpdateUserSettingsRequest{Website: ptr("JAVASCRIPT:alert(1)")}, "[Website]: Url"},
		{"website: no host", &adminv1.EditUserRequest{Website: ptr("http://")}, "[Website]: Url"},
		{"website: relative", &orgsv1.CreateOrgRequest{Username: "o", Website: "example.com"}, "[Website]: Url"},
		{"website: repository", &reposv1.EditRepoRequest{Website: ptr("data:text/html,x")}, "[Website]: Url"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := Check(tc.req)
			if tc.want == "" {
				if err != nil {
					t.Fatalf("Check = %v, want nil", err)
				}
				return
			}
			var e *errs.Error
			if !errors.As(err, &e) || e.Kind != errs.Invalid || e.Message != tc.want {
				t.Fatalf("Check = %#v, want Invalid %q", err, tc.want)
			}
		})
	}
}

func TestUnaryStopsBeforeTheHandler(t *testing.T) {
	called := false
	handler := func(context.Context, any) (any, error) { called = true; return "ok", nil }
	info := &grpc.UnaryServerInfo{FullMethod: "/forge.tokens.v1.TokenService/CreateAccessToken"}
	if _, err := Unary(context.Background(), &tokensv1.CreateAccessTokenRequest{}, info, handler); err == nil || called {
		t.Fatalf("invalid request: err %v, handler called %v", err, called)
	}
	out, err := Unary(context.Background(), &tokensv1.CreateAccessTokenRequest{Name: "t"}, info, handler)
	if err != nil || out != "ok" || !called {
		t.Fatalf("valid request: %v, %v, handler called %v", out, err, called)
	}
}

// TestEveryDeclaredRuleIsUsable reads the rules of every forge message, so a
// rule on a field it cannot apply to fails here rather than at a call.
func TestEveryDeclaredRuleIsUsable(t *testing.T) {
	n := 0
	protoregistry.GlobalFiles.RangeFiles(func(fd protoreflect.FileDescriptor) bool {
		if !strings.HasPrefix(string(fd.Package()), "forge.") {
			return true
		}
		msgs := fd.Messages()
		for i := 0; i < msgs.Len(); i++ {
			func() {
				defer func() {
					if r := recover(); r != nil {
						t.Errorf("%s: %v", msgs.Get(i).FullName(), r)
					}
				}()
				n += len(rulesFor(msgs.Get(i)))
			}()
		}
		return true
	})
	if n == 0 {
		t.Fatal("no rules found; are the generated packages linked?")
	}
}
