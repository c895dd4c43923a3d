package app_test

import (
	"net/http"
	"strings"
	"testing"

	"code.gitea.io/sdk/gitea"

	"forge/services/store"
)

// TestNotificationsFollowTheIssuesUnit: a thread is written only for a
// user who may read the issue's unit, and read only while they still
// may. bob watches an organization's private repository through a team
// that gives code and issues; alice opens an issue: bob's thread. The
// team loses the issues unit: the thread leaves his list and his count,
// and reading or marking it answers as for a missing thread; a new issue
// writes him no thread at all. The unit back, the old thread is his
// again, the new issue still not.
func TestNotificationsFollowTheIssuesUnit(t *testing.T) {
	t.Parallel()
	eachBackend(t, nil, func(t *testing.T, s *testServer) {
		aliceTok := s.seedUser("alice", "alice-password", false)
		bobTok := s.seedUser("bob", "bob-password", false)
		alice, bob := s.sdk(gitea.SetToken(aliceTok)), s.sdk(gitea.SetToken(bobTok))
		if _, _, err := alice.CreateOrg(gitea.CreateOrgOption{Name: "acme"}); err != nil {
			t.Fatal(err)
		}
		if _, _, err := alice.CreateOrgRepo("acme", gitea.CreateRepoOption{Name: "plans", Private: true}); err != nil {
			t.Fatal(err)
		}
		withIssues := []gitea.RepoUnitType{gitea.RepoUnitCode, gitea.RepoUnitIssues}
		team, _, err := alice.CreateTeam("acme", gitea.CreateTeamOption{Name: "trackers", Permission: gitea.AccessModeRead,
			Units: withIssues, IncludesAllRepositories: true})
		if err != nil {
			t.Fatalf("CreateTeam: %v", err)
		}
		if _, err := alice.AddTeamMember(team.ID, "bob"); err != nil {
			t.Fatal(err)
		}
		setUnits := func(units []gitea.RepoUnitType) {
			t.Helper()
			if _, err := alice.EditTeam(team.ID, gitea.EditTeamOption{Name: "trackers", Permission: gitea.AccessModeRead,
				Units: units, IncludesAllRepositories: &[]bool{true}[0]}); err != nil {
				t.Fatalf("EditTeam: %v", err)
			}
		}
		if _, err := bob.WatchRepo("acme", "plans"); err != nil {
			t.Fatal(err)
		}

		first, _, err := alice.CreateIssue("acme", "plans", gitea.CreateIssueOption{Title: "Launch date"})
		if err != nil {
			t.Fatal(err)
		}
		waitFor(t, notifyWait, "bob's thread", func() bool { return unreadCount(t, bob) == 1 })
		list, _, err := bob.ListNotifications(gitea.ListNotificationOptions{})
		if err != nil || len(list) != 1 || list[0].Subject.Title != "Launch date" {
			t.Fatalf("ListNotifications: %+v %v", list, err)
		}
		id := list[0].ID
		if _, _, err := bob.GetNotification(id); err != nil {
			t.Fatalf("GetNotification: %v", err)
		}

		// The team now gives code only.
		setUnits([]gitea.RepoUnitType{gitea.RepoUnitCode})
		if _, _, err := bob.GetRepo("acme", "plans"); err != nil {
			t.Fatalf("bob still reads the repository: %v", err)
		}
		if l, resp, err := bob.ListNotifications(gitea.ListNotificationOptions{Status: []gitea.NotifyStatus{gitea.NotifyStatusUnread, gitea.NotifyStatusRead, gitea.NotifyStatusPinned}}); err != nil || len(l) != 0 || resp.Header.Get("X-Total-Count") != "0" {
			t.Fatalf("threads after the unit went: %+v %v", l, err)
		}
		if n := unreadCount(t, bob); n != 0 {
			t.Fatalf("unread after the unit went: %d", n)
		}
		missing := `"message":"notification does not exist [id: ` + itoa(id) + `]"`
		for _, method := range []string{"GET", "PATCH"} {
			r := s.do(method, "/api/v1/notifications/threads/"+itoa(id), "", "Authorization", "token "+bobTok)
			if r.Status != http.StatusNotFound || !strings.Contains(string(r.Body), missing) {
				t.Fatalf("%s thread after the unit went: %d %s", method, r.Status, r.Body)
			}
		}

		// A new issue: no thread is written for bob.
		second, _, err := alice.CreateIssue("acme", "plans", gitea.CreateIssueOption{Title: "Budget"})
		if err != nil {
			t.Fatal(err)
		}
		waitFor(t, notifyWait, "the notifier to drain the activity queue", func() bool {
			var n int64
			s.App.Store.DB().Model(&store.Activity{}).Count(&n)
			return n == 0
		})
		threads := func(issueID int64) int64 {
			var n int64
			err := s.App.Store.DB().Model(&store.Notification{}).
				Joins("JOIN issues ON issues.id = notifications.issue_id").
				Joins("JOIN users ON users.id = notifications.user_id").
				Where("users.lower_name = ? AND issues.id = ?", "bob", issueID).Count(&n).Error
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
		if n := threads(second.ID); n != 0 {
			t.Fatalf("a thread was written for a user who may not read the issue: %d", n)
		}

		// The unit back: the old thread is readable again (it was hidden,
		// not deleted); the new issue wrote none.
		setUnits(withIssues)
		got, _, err := bob.GetNotification(id)
		if err != nil || got.Subject.Title != "Launch date" {
			t.Fatalf("GetNotification with the unit back: %+v %v", got, err)
		}
		if threads(first.ID) != 1 || threads(second.ID) != 0 {
			t.Fatalf("threads of bob: first %d, second %d", threads(first.ID), threads(second.ID))
		}
	})
}
