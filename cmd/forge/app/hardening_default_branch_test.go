package app_test

import (
	"encoding/json"
	"strings"
	"testing"

	"code.gitea.io/sdk/gitea"
)

// TestHardeningDefaultBranchValidated: default_branch used to be stored
// unchecked while a repository was empty (an option-like string for git,
// or 300 characters that overflow PostgreSQL's column). It is a branch name
// wherever it is set: repository creation and PATCH, empty or not.
func TestHardeningDefaultBranchValidated(t *testing.T) {
	t.Parallel()
	eachBackend(t, nil, func(t *testing.T, s *testServer) {
		tok := s.seedUser("alice", "alice-password", false)
		alice := s.sdk(gitea.SetToken(tok))
		bad := []string{"--upload-pack=touch /tmp/pwned", "a..b", "has space", "-x", "HEAD", ".hidden", "x.lock", "a/", strings.Repeat("b", 300)}

		// Raw requests: the SDK itself refuses names over 100 characters.
		auth := []string{"Authorization", "token " + tok, "Content-Type", jsonCT}
		for _, name := range bad {
			body, _ := json.Marshal(map[string]string{"name": "created", "default_branch": name})
			expectStatus(t, s.do("POST", "/api/v1/user/repos", string(body), auth...), 422)
		}
		repo, _, err := alice.CreateRepo(gitea.CreateRepoOption{Name: "created", DefaultBranch: "develop"})
		if err != nil || repo.DefaultBranch != "develop" {
			t.Fatalf("create with develop: %+v %v", repo, err)
		}

		// An empty repository: nothing in git to check the name against.
		s.createRepo(t, tok, "empty", false, false)
		for _, name := range append(bad, "") {
			_, resp, err := alice.EditRepo("alice", "empty", gitea.EditRepoOption{DefaultBranch: &name})
			if err == nil || resp == nil || resp.StatusCode != 422 {
				t.Fatalf("edit empty repository, default_branch %.40q: %v (%v)", name, err, resp)
			}
		}
		if r, _, err := alice.GetRepo("alice", "empty"); err != nil || r.DefaultBranch != "main" {
			t.Fatalf("default branch changed: %+v %v", r, err)
		}
		// The longest valid name fits the column on every backend, and the
		// first file lands on it.
		long := strings.Repeat("l", 120) + "/" + strings.Repeat("m", 134)
		r, _, err := alice.EditRepo("alice", "empty", gitea.EditRepoOption{DefaultBranch: &long})
		if err != nil || r.DefaultBranch != long {
			t.Fatalf("edit to a %d-byte name: %+v %v", len(long), r, err)
		}
		if fr, _, err := alice.CreateFile("alice", "empty", "README.md", gitea.CreateFileOptions{Content: b64("hi\n")}); err != nil {
			t.Fatalf("first file: %+v %v", fr, err)
		}
		if b, _, err := alice.GetRepoBranch("alice", "empty", long); err != nil || b.Name != long {
			t.Fatalf("branch %+v %v", b, err)
		}

		// A repository with commits answers 422 too, before looking the
		// name up in git.
		for _, name := range bad {
			_, resp, err := alice.EditRepo("alice", "empty", gitea.EditRepoOption{DefaultBranch: &name})
			if err == nil || resp == nil || resp.StatusCode != 422 {
				t.Fatalf("edit, default_branch %.40q: %v (%v)", name, err, resp)
			}
		}
	})
}
