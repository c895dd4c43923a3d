package app_test

import (
	"net/http"
	"strings"
	"testing"

	"code.gitea.io/sdk/gitea"
)

// TestIssueSubscriptions drives issue subscriptions through the SDK and
// raw HTTP on both databases: check (poster and repository watcher follow
// by default, a stranger does not), subscribe and unsubscribe with
// Gitea's 201 (changed) and 200 (already so), the subscribers list, who
// may change someone else's subscription, 404s, and the notifications an
// explicit choice adds or removes.
func TestIssueSubscriptions(t *testing.T) {
	t.Parallel()
	eachBackend(t, nil, func(t *testing.T, s *testServer) {
		aliceTok := s.seedUser("alice", "alice-password", false) // owner, watches by creating
		bobTok := s.seedUser("bob", "bob-password", false)
		carolTok := s.seedUser("carol", "carol-password", false)
		daveTok := s.seedUser("dave", "dave-password", false)
		alice, bob := s.sdk(gitea.SetToken(aliceTok)), s.sdk(gitea.SetToken(bobTok))
		carol, dave := s.sdk(gitea.SetToken(carolTok)), s.sdk(gitea.SetToken(daveTok))
		s.createRepo(t, aliceTok, "proj", false, false)
		issue, _, err := carol.CreateIssue("alice", "proj", gitea.CreateIssueOption{Title: "Crash"})
		if err != nil {
			t.Fatal(err)
		}
		path := "/api/v1/repos/alice/proj/issues/" + fmtInt(issue.Index) + "/subscriptions"

		check := func(c *gitea.Client, want bool) {
			t.Helper()
			w, _, err := c.CheckIssueSubscription("alice", "proj", issue.Index)
			if err != nil || w.Subscribed != want || w.Ignored == want {
				t.Fatalf("check: %+v %v, want subscribed %v", w, err, want)
			}
		}
		check(carol, true) // the poster
		check(alice, true) // watches the repository
		check(bob, false)

		// The WatchInfo shape.
		r := s.do("GET", path+"/check", "", "Authorization", "token "+bobTok)
		expectStatus(t, r, http.StatusOK)
		var raw map[string]any
		r.json(t, &raw)
		if raw["subscribed"] != false || raw["ignored"] != true || raw["reason"] != nil ||
			raw["url"] != s.URL+"/api/v1/repos/alice/proj/issues/"+fmtInt(issue.Index)+"/subscriptions" ||
			raw["repository_url"] != s.URL+"/api/v1/repos/alice/proj" || raw["created_at"] == nil {
			t.Fatalf("WatchInfo: %s", r.Body)
		}
		if _, ok := raw["reason"]; !ok {
			t.Fatalf("WatchInfo without reason: %s", r.Body)
		}
		expectStatus(t, s.do("GET", path+"/check", ""), http.StatusUnauthorized)
		expectStatus(t, s.do("GET", "/api/v1/repos/alice/proj/issues/99/subscriptions/check", "", "Authorization", "token "+bobTok), http.StatusNotFound)

		// Subscribe: 201, then 200.
		if _, err := bob.IssueSubscribe("alice", "proj", issue.Index); err != nil {
			t.Fatalf("IssueSubscribe: %v", err)
		}
		check(bob, true)
		r = s.do("PUT", path+"/bob", "", "Authorization", "token "+bobTok)
		expectStatus(t, r, http.StatusOK)
		subscribers := func(want string) {
			t.Helper()
			us, resp, err := dave.GetIssueSubscribers("alice", "proj", issue.Index)
			var names []string
			for _, u := range us {
				names = append(names, u.UserName)
			}
			if err != nil || strings.Join(names, ",") != want || resp.Header.Get("X-Total-Count") != fmtInt(int64(len(names))) {
				t.Fatalf("subscribers: %v %v, want %s", names, err, want)
			}
		}
		subscribers("bob")

		// Someone else's subscription: only repository or site admins.
		r = s.do("PUT", path+"/dave", "", "Authorization", "token "+bobTok)
		expectStatus(t, r, http.StatusForbidden)
		if m := r.message(t); m != "bob is not permitted to change subscriptions for dave" {
			t.Fatalf("403 message %q", m)
		}
		if _, err := alice.AddIssueSubscription("alice", "proj", issue.Index, "dave"); err != nil {
			t.Fatalf("the owner subscribes dave: %v", err)
		}
		check(dave, true)
		subscribers("bob,dave")
		expectStatus(t, s.do("PUT", path+"/nobody", "", "Authorization", "token "+aliceTok), http.StatusNotFound)
		expectStatus(t, s.do("PUT", "/api/v1/repos/alice/proj/issues/99/subscriptions/bob", "", "Authorization", "token "+bobTok), http.StatusNotFound)
		expectStatus(t, s.do("PUT", path+"/bob", ""), http.StatusUnauthorized)

		// Unsubscribe: also from what watching implies; 201, then 200.
		if _, err := alice.IssueUnSubscribe("alice", "proj", issue.Index); err != nil {
			t.Fatalf("IssueUnSubscribe: %v", err)
		}
		check(alice, false)
		r = s.do("DELETE", path+"/alice", "", "Authorization", "token "+aliceTok)
		expectStatus(t, r, http.StatusOK)
		if _, err := dave.IssueUnSubscribe("alice", "proj", issue.Index); err != nil {
			t.Fatal(err)
		}
		subscribers("bob")

		// Notifications follow the choices: carol comments; bob
		// (subscribed) gets a thread, alice (unsubscribed watcher: her
		// thread of the issue's creation is read first) and dave
		// (unsubscribed) none.
		waitFor(t, notifyWait, "alice's thread of the creation", func() bool { return unreadCount(t, alice) == 1 })
		if _, _, err := alice.ReadNotifications(gitea.MarkNotificationOptions{}); err != nil {
			t.Fatal(err)
		}
		if _, _, err := carol.CreateIssueComment("alice", "proj", issue.Index, gitea.CreateIssueCommentOption{Body: "more"}); err != nil {
			t.Fatal(err)
		}
		waitFor(t, notifyWait, "bob's thread", func() bool { return unreadCount(t, bob) == 1 })
		if n := unreadCount(t, alice); n != 0 {
			t.Fatalf("alice, unsubscribed, has %d threads", n)
		}
		if n := unreadCount(t, dave); n != 0 {
			t.Fatalf("dave, unsubscribed, has %d threads", n)
		}
	})
}
