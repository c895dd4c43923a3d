package app_test

import (
	"net/http"
	"strings"
	"testing"

	"code.gitea.io/sdk/gitea"
)

// TestPullNotifications: opening a pull request, commenting on it and
// merging it notify the repository's watchers and its participants,
// never the actor, in threads whose subject is of type Pull, points at
// the pull request in the API (/pulls/N, as its html_url does on the web)
// and reads open, then merged once merged; a pull request closed without
// a merge reads closed. The subject-type filter pull finds them.
func TestPullNotifications(t *testing.T) {
	t.Parallel()
	eachBackend(t, nil, func(t *testing.T, s *testServer) {
		aliceTok := s.seedUser("alice", "alice-password", false)
		alice := s.sdk(gitea.SetToken(aliceTok))
		bob := s.sdk(gitea.SetToken(s.seedUser("bob", "bob-password", false)))
		carol := s.sdk(gitea.SetToken(s.seedUser("carol", "carol-password", false)))
		s.createRepo(t, aliceTok, "proj", true, false)
		if _, err := bob.WatchRepo("alice", "proj"); err != nil {
			t.Fatal(err)
		}
		work := s.clone(t, "alice", "alice-password", "alice", "proj")
		for _, b := range []string{"one", "two"} {
			gitCmd(t, work, "checkout", "-q", "-b", b, "origin/main")
			commitFile(t, work, b+".txt", b+"\n", "add "+b)
			gitCmd(t, work, "push", "-q", "origin", b)
			if _, _, err := alice.CreatePullRequest("alice", "proj", gitea.CreatePullRequestOption{Head: b, Base: "main", Title: "Pull " + b}); err != nil {
				t.Fatal(err)
			}
		}
		api := s.URL + "/api/v1/repos/alice/proj/pulls/"
		// threads waits until c's pull request threads read want (index:
		// state), and checks their subjects.
		threads := func(c *gitea.Client, who string, want map[string]string) {
			t.Helper()
			var got map[string]string
			waitFor(t, notifyWait, who+"'s pull request threads", func() bool {
				list, _, err := c.ListNotifications(gitea.ListNotificationOptions{
					Status: []gitea.NotifyStatus{gitea.NotifyStatusUnread, gitea.NotifyStatusRead}, SubjectTypes: []gitea.NotifySubjectType{gitea.NotifySubjectPull}})
				if err != nil {
					t.Fatal(err)
				}
				got = map[string]string{}
				for _, n := range list {
					index := strings.TrimPrefix(n.Subject.URL, api)
					if n.Subject.Type != gitea.NotifySubjectPull || index == n.Subject.URL ||
						n.Subject.HTMLURL != s.URL+"/alice/proj/pulls/"+index {
						t.Fatalf("%s's thread subject: %+v", who, n.Subject)
					}
					got[index] = string(n.Subject.State)
				}
				return len(got) == len(want) && func() bool {
					for k, v := range want {
						if got[k] != v {
							return false
						}
					}
					return true
				}()
			})
		}
		// Opened: bob watches; alice opened them.
		threads(bob, "bob", map[string]string{"1": "open", "2": "open"})
		// carol comments on 1: alice, its poster, hears of it.
		if _, _, err := carol.CreateIssueComment("alice", "proj", 1, gitea.CreateIssueCommentOption{Body: "looks good"}); err != nil {
			t.Fatal(err)
		}
		threads(alice, "alice", map[string]string{"1": "open"})
		// Merged by alice, 2 closed by alice.
		if ok, resp, err := alice.MergePullRequest("alice", "proj", 1, gitea.MergePullRequestOption{Style: gitea.MergeStyleMerge}); err != nil || !ok || resp.StatusCode != http.StatusOK {
			t.Fatalf("merge: %v %v", resp, err)
		}
		closed := gitea.StateClosed
		if _, _, err := alice.EditPullRequest("alice", "proj", 2, gitea.EditPullRequestOption{State: &closed}); err != nil {
			t.Fatal(err)
		}
		threads(bob, "bob", map[string]string{"1": "merged", "2": "closed"})
		threads(carol, "carol", map[string]string{"1": "merged"})
		// The actor hears nothing of her own merge: her thread on 1 stays
		// read once read.
		if _, _, err := alice.ReadNotifications(gitea.MarkNotificationOptions{}); err != nil {
			t.Fatal(err)
		}
		if n, _, err := alice.CheckNotifications(); err != nil || n != 0 {
			t.Fatalf("alice's unread threads: %d %v", n, err)
		}
	})
}
