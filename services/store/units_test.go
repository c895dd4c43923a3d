package store_test

import (
	"context"
	"fmt"
	"testing"

	"forge/services/access"
	"forge/services/auth"
	"forge/services/store"
	"forge/services/store/storetest"
)

// TestUnitRuleAgrees: the unit rule the store applies in SQL — the
// repositories whose unit a viewer reads (dependency lists, notification
// lists) and the users who read a unit of a repository (the notification
// fan-out) — agrees with services/access's rule for one user and one
// repository (Checker.IssueUnitMode), for every user, repository and kind of issue of a
// world with a code-only team, an issues-only team, a pulls-only team on
// one listed repository, an administrators' team, collaborators, a
// restricted user, a site administrator and a stranger.
func TestUnitRuleAgrees(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		users := mkUsers(t, s, "ann", "coder", "tracker", "puller", "lead", "collab", "collabadmin", "restricted", "stranger", "bot")
		admin := newUser("root", "root@x.org", true)
		if err := s.CreateUser(ctx, admin); err != nil {
			t.Fatal(err)
		}
		users = append(users, admin)
		by := map[string]*store.User{}
		for _, u := range users {
			by[u.Name] = u
		}
		by["restricted"].Restricted = true
		if err := s.DB().Model(by["restricted"]).Update("restricted", true).Error; err != nil {
			t.Fatal(err)
		}
		org, _ := newOrg(t, s, "acme", store.VisibilityPublic, by["ann"])

		type repoSpec struct {
			name                  string
			private, issues, pull bool
		}
		var repos []*store.Repository
		for _, rs := range []repoSpec{
			{"pub", false, true, true},
			{"priv", true, true, true},
			{"off", true, false, true},
			{"pubnopulls", false, true, false},
		} {
			r := &store.Repository{OwnerID: org.ID, OwnerName: org.Name, Name: rs.name, IsPrivate: rs.private,
				HasIssues: rs.issues, HasPullRequests: rs.pull, IsEmpty: true, DefaultBranch: "main"}
			if err := s.CreateRepository(ctx, r, by["ann"].ID); err != nil {
				t.Fatal(err)
			}
			repos = append(repos, r)
		}
		mine := &store.Repository{OwnerID: by["ann"].ID, OwnerName: "ann", Name: "mine", IsPrivate: true,
			HasIssues: true, HasPullRequests: true, IsEmpty: true, DefaultBranch: "main"}
		if err := s.CreateRepository(ctx, mine, by["ann"].ID); err != nil {
			t.Fatal(err)
		}
		repos = append(repos, mine)
		priv, off := repos[1], repos[2]

		team := func(name string, authorize store.AccessMode, all bool, member string, units map[int]store.AccessMode, listed ...*store.Repository) {
			tm := &store.Team{OrgID: org.ID, Name: name, LowerName: name, Authorize: authorize, IncludesAllRepositories: all}
			for u, m := range units {
				tm.Units = append(tm.Units, store.TeamUnit{OrgID: org.ID, Type: u, AccessMode: m})
			}
			if err := s.CreateTeam(ctx, tm); err != nil {
				t.Fatal(err)
			}
			if err := s.AddTeamMember(ctx, tm.ID, by[member].ID); err != nil {
				t.Fatal(err)
			}
			for _, r := range listed {
				if err := s.AddTeamRepo(ctx, tm.ID, r.ID); err != nil {
					t.Fatal(err)
				}
			}
		}
		team("coders", store.AccessRead, true, "coder", map[int]store.AccessMode{store.UnitTypeCode: store.AccessRead})
		team("trackers", store.AccessRead, true, "tracker", map[int]store.AccessMode{store.UnitTypeCode: store.AccessRead, store.UnitTypeIssues: store.AccessRead})
		team("pullers", store.AccessWrite, false, "puller", map[int]store.AccessMode{store.UnitTypePullRequests: store.AccessWrite}, priv)
		team("leads", store.AccessAdmin, false, "lead", nil, off)
		if err := s.SetCollaborator(ctx, priv.ID, by["collab"].ID, store.AccessRead); err != nil {
			t.Fatal(err)
		}
		if err := s.SetCollaborator(ctx, off.ID, by["collabadmin"].ID, store.AccessAdmin); err != nil {
			t.Fatal(err)
		}

		// An issue and a pull request in each repository, each a
		// dependency of hub; everyone watches everything; bot acts.
		hub := &store.Issue{RepoID: newRepo(t, s, "hub").ID, Index: 1, PosterID: by["bot"].ID, Title: "hub"}
		if err := s.DB().Create(hub).Error; err != nil {
			t.Fatal(err)
		}
		type subject struct {
			repo  *store.Repository
			issue *store.Issue
		}
		var subjects []subject
		for _, r := range repos {
			for i, pull := range []bool{false, true} {
				is := &store.Issue{RepoID: r.ID, Index: int64(i + 1), PosterID: by["bot"].ID, Title: fmt.Sprintf("%s#%d", r.Name, i+1), IsPull: pull}
				if err := s.DB().Create(is).Error; err != nil {
					t.Fatal(err)
				}
				if err := s.AddIssueDependency(ctx, hub.ID, is.ID); err != nil {
					t.Fatal(err)
				}
				subjects = append(subjects, subject{r, is})
			}
			for _, u := range users {
				if _, err := s.Watch(ctx, u.ID, r.ID); err != nil {
					t.Fatal(err)
				}
			}
		}
		for _, sj := range subjects {
			a := &store.Activity{Kind: store.ActivityIssueCreated, RepoID: sj.repo.ID, IssueID: sj.issue.ID, ActorID: by["bot"].ID, CreatedUnix: 1000}
			if err := s.DB().Create(a).Error; err != nil {
				t.Fatal(err)
			}
		}
		for {
			n, err := s.FanOutActivities(ctx, 100)
			if err != nil {
				t.Fatal(err)
			}
			if n == 0 {
				break
			}
		}

		checker := access.NewChecker(s)
		for _, u := range users {
			if u.Name == "bot" {
				continue
			}
			viewer := &auth.Principal{User: u}
			listed := map[int64]bool{}
			deps, err := s.ListIssueDependencies(ctx, store.DependencyListOptions{IssueID: hub.ID, Visible: access.Filter(viewer), Limit: 100})
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range deps {
				listed[d.ID] = true
			}
			var written []store.Notification
			if err := s.DB().Where("user_id = ?", u.ID).Find(&written).Error; err != nil {
				t.Fatal(err)
			}
			threads := map[int64]bool{}
			for _, n := range written {
				threads[n.IssueID] = true
			}
			for _, sj := range subjects {
				unit := auth.UnitIssues
				if sj.issue.IsPull {
					unit = auth.UnitPulls
				}
				mode, err := checker.IssueUnitMode(ctx, sj.repo, u, unit)
				if err != nil {
					t.Fatal(err)
				}
				want := mode >= store.AccessRead
				if listed[sj.issue.ID] != want {
					t.Errorf("%s on %s: dependency list shows it %v, the rule says %v", u.Name, sj.issue.Title, listed[sj.issue.ID], want)
				}
				if threads[sj.issue.ID] != want {
					t.Errorf("%s on %s: fan-out wrote a thread %v, the rule says %v", u.Name, sj.issue.Title, threads[sj.issue.ID], want)
				}
				// A thread written while the user could read it (here:
				// written for everyone) is listed only while they can.
				if !threads[sj.issue.ID] {
					source := store.NotificationSourceIssue
					if sj.issue.IsPull {
						source = store.NotificationSourcePull
					}
					n := &store.Notification{UserID: u.ID, RepoID: sj.repo.ID, IssueID: sj.issue.ID, Status: store.NotificationUnread, Source: source}
					if err := s.DB().Create(n).Error; err != nil {
						t.Fatal(err)
					}
				}
			}
			list, total, err := s.ListNotifications(ctx, store.NotificationFilter{UserID: u.ID, Repos: access.Filter(viewer)}, 0, 100)
			if err != nil {
				t.Fatal(err)
			}
			shown := map[int64]bool{}
			for _, n := range list {
				shown[n.IssueID] = true
			}
			for _, sj := range subjects {
				if shown[sj.issue.ID] != threads[sj.issue.ID] {
					t.Errorf("%s on %s: notification list shows it %v, the rule says %v", u.Name, sj.issue.Title, shown[sj.issue.ID], threads[sj.issue.ID])
				}
			}
			if int(total) != len(list) {
				t.Errorf("%s: notification total %d, listed %d", u.Name, total, len(list))
			}
		}
	})
}
