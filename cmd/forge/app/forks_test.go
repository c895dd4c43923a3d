package app_test

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"code.gitea.io/sdk/gitea"
)

// TestForksSDK: a fork made through the Gitea SDK is a real repository
// with the parent's history, takes pushes without changing the parent,
// and still clones once the parent is deleted (its parent then null, its
// fork flag false); 20 concurrent forks by 20 users leave the parent's
// forks_count at exactly 20, and deleting a fork counts it off. (Who may
// fork and see forks are cases in testdata/cases/forks.yaml.)
func TestForksSDK(t *testing.T) {
	t.Parallel()
	eachBackend(t, nil, func(t *testing.T, s *testServer) {
		aliceTok := s.seedUser("alice", "alice-password", false)
		bobTok := s.seedUser("bob", "bob-password", false)
		alice := s.sdk(gitea.SetToken(aliceTok))
		bob := s.sdk(gitea.SetToken(bobTok))
		s.createRepo(t, aliceTok, "proj", true, false)
		work := s.clone(t, "alice", "alice-password", "alice", "proj")
		commitFile(t, work, "lib.go", "package lib\n", "add lib")
		gitCmd(t, work, "tag", "v1")
		gitCmd(t, work, "push", "-q", "origin", "main", "v1")
		parentHead := strings.TrimSpace(gitCmd(t, work, "rev-parse", "HEAD"))

		fork, resp, err := bob.CreateFork("alice", "proj", gitea.CreateForkOption{})
		if err != nil || resp.StatusCode != 202 || !fork.Fork || fork.Parent == nil || fork.Parent.FullName != "alice/proj" || fork.FullName != "bob/proj" {
			t.Fatalf("CreateFork: %+v %v", fork, err)
		}
		clone := s.clone(t, "bob", "bob-password", "bob", "proj")
		if head := strings.TrimSpace(gitCmd(t, clone, "rev-parse", "HEAD")); head != parentHead {
			t.Fatalf("the fork's main is %s, the parent's %s", head, parentHead)
		}
		if tags := strings.TrimSpace(gitCmd(t, clone, "tag")); tags != "v1" {
			t.Fatalf("the fork's tags: %q", tags)
		}
		commitFile(t, clone, "fork.txt", "mine\n", "fork work")
		gitCmd(t, clone, "push", "-q", "origin", "main")
		forkHead := strings.TrimSpace(gitCmd(t, clone, "rev-parse", "HEAD"))
		parentBranch, _, err := alice.GetRepoBranch("alice", "proj", "main")
		if err != nil || parentBranch.Commit.ID != parentHead {
			t.Fatalf("the parent's main after a push to the fork: %+v %v", parentBranch, err)
		}
		forks, resp, err := alice.ListForks("alice", "proj", gitea.ListForksOptions{})
		if err != nil || len(forks) != 1 || forks[0].FullName != "bob/proj" || resp.Header.Get("X-Total-Count") != "1" {
			t.Fatalf("ListForks: %+v %v", forks, err)
		}

		if _, err := alice.DeleteRepo("alice", "proj"); err != nil {
			t.Fatalf("delete the parent: %v", err)
		}
		again := s.clone(t, "bob", "bob-password", "bob", "proj")
		if head := strings.TrimSpace(gitCmd(t, again, "rev-parse", "HEAD")); head != forkHead {
			t.Fatalf("the fork after its parent's delete: %s, want %s", head, forkHead)
		}
		gitCmd(t, again, "log", "-q", "--format=%H", parentHead) // the parent's history is still there
		orphan, _, err := bob.GetRepo("bob", "proj")
		if err != nil || orphan.Parent != nil || orphan.Fork {
			t.Fatalf("the fork of a deleted parent: %+v %v", orphan, err)
		}

		// 20 users fork one repository at once: each fork is counted once.
		s.createRepo(t, aliceTok, "hub", true, false)
		const n = 20
		clients := make([]*gitea.Client, n)
		for i := range clients {
			clients[i] = s.sdk(gitea.SetToken(s.seedUser(fmt.Sprintf("user%02d", i), "password", false)))
		}
		var wg sync.WaitGroup
		errs := make([]error, n)
		for i, c := range clients {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, _, errs[i] = c.CreateFork("alice", "hub", gitea.CreateForkOption{})
			}()
		}
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				t.Fatalf("fork %d: %v", i, err)
			}
		}
		hub, _, err := alice.GetRepo("alice", "hub")
		if err != nil || hub.Forks != n {
			t.Fatalf("forks_count after %d concurrent forks: %d %v", n, hub.Forks, err)
		}
		all, resp, err := alice.ListForks("alice", "hub", gitea.ListForksOptions{ListOptions: gitea.ListOptions{PageSize: 50}})
		if err != nil || len(all) != n || resp.Header.Get("X-Total-Count") != fmt.Sprint(n) {
			t.Fatalf("ListForks after %d forks: %d %v", n, len(all), err)
		}
		if _, err := clients[0].DeleteRepo("user00", "hub"); err != nil {
			t.Fatal(err)
		}
		hub, _, err = alice.GetRepo("alice", "hub")
		if err != nil || hub.Forks != n-1 {
			t.Fatalf("forks_count after a fork's delete: %d %v", hub.Forks, err)
		}
	})
}
