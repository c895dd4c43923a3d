package app_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"code.gitea.io/sdk/gitea"

	"forge/services/config"
)

func timeList(list []*gitea.TrackedTime) string {
	out := []string{}
	for _, t := range list {
		issue := ""
		if t.Issue != nil {
			issue = t.Issue.Title
		}
		out = append(out, t.UserName+":"+fmtInt(t.Time)+":"+issue)
	}
	return strings.Join(out, " ")
}

// TestTrackedTimesSDK drives the SDK's time tracking calls: a writer and
// the poster add time (an administrator for someone else), a reader who
// is neither may not; lists by issue, repository (filtered by user and
// time) and the caller's own; deleting one time and resetting one's own;
// stopwatches started, listed, stopped (adding their time) and deleted.
func TestTrackedTimesSDK(t *testing.T) {
	t.Parallel()
	eachBackend(t, nil, func(t *testing.T, s *testServer) {
		aliceTok := s.seedUser("alice", "alice-password", false)
		bobTok := s.seedUser("bob", "bob-password", false)
		carolTok := s.seedUser("carol", "carol-password", false)
		alice := s.sdk(gitea.SetToken(aliceTok))
		bob := s.sdk(gitea.SetToken(bobTok))
		carol := s.sdk(gitea.SetToken(carolTok))
		s.createRepo(t, aliceTok, "proj", false, false)
		if _, err := alice.AddCollaborator("alice", "proj", "bob", gitea.AddCollaboratorOption{Permission: ptr(gitea.AccessModeWrite)}); err != nil {
			t.Fatal(err)
		}
		one, _, err := carol.CreateIssue("alice", "proj", gitea.CreateIssueOption{Title: "one"})
		if err != nil {
			t.Fatal(err)
		}
		two, _, err := alice.CreateIssue("alice", "proj", gitea.CreateIssueOption{Title: "two"})
		if err != nil {
			t.Fatal(err)
		}

		tt, resp, err := bob.AddTime("alice", "proj", one.Index, gitea.AddTimeOption{Time: 60})
		if err != nil || resp.StatusCode != http.StatusOK || tt.Time != 60 || tt.UserName != "bob" || tt.Issue == nil || tt.Issue.Title != "one" {
			t.Fatalf("AddTime: %+v %v", tt, err)
		}
		// The poster tracks time on their own issue, not on another one.
		if _, _, err := carol.AddTime("alice", "proj", one.Index, gitea.AddTimeOption{Time: 30}); err != nil {
			t.Fatalf("the poster adds time: %v", err)
		}
		if _, resp, _ := carol.AddTime("alice", "proj", two.Index, gitea.AddTimeOption{Time: 30}); resp == nil || resp.StatusCode != http.StatusForbidden {
			t.Fatalf("a reader added time to someone else's issue: %v", resp)
		}
		// A repository administrator adds time for someone else; a writer's
		// user_name is ignored.
		old := time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)
		if tt, _, err := alice.AddTime("alice", "proj", two.Index, gitea.AddTimeOption{Time: 10, User: "bob", Created: old}); err != nil || tt.UserName != "bob" || !tt.Created.Equal(old) {
			t.Fatalf("an administrator adds time for bob: %+v %v", tt, err)
		}
		if tt, _, err := bob.AddTime("alice", "proj", two.Index, gitea.AddTimeOption{Time: 5, User: "carol"}); err != nil || tt.UserName != "bob" {
			t.Fatalf("a writer's user_name: %+v %v", tt, err)
		}

		list, resp, err := bob.ListIssueTrackedTimes("alice", "proj", one.Index, gitea.ListTrackedTimesOptions{})
		if err != nil || timeList(list) != "bob:60:one carol:30:one" || resp.Header.Get("X-Total-Count") != "2" {
			t.Fatalf("ListIssueTrackedTimes by a writer: %s %v", timeList(list), err)
		}
		// Someone who does not write the issues sees their own times only.
		if list, _, err := carol.ListIssueTrackedTimes("alice", "proj", one.Index, gitea.ListTrackedTimesOptions{}); err != nil || timeList(list) != "carol:30:one" {
			t.Fatalf("ListIssueTrackedTimes by the poster: %s %v", timeList(list), err)
		}
		if _, resp, _ := carol.ListRepoTrackedTimes("alice", "proj", gitea.ListTrackedTimesOptions{User: "bob"}); resp == nil || resp.StatusCode != http.StatusForbidden {
			t.Fatalf("a reader listed bob's times: %v", resp)
		}
		if list, _, err := alice.ListRepoTrackedTimes("alice", "proj", gitea.ListTrackedTimesOptions{User: "bob"}); err != nil || timeList(list) != "bob:60:one bob:10:two bob:5:two" {
			t.Fatalf("bob's times in the repository: %s %v", timeList(list), err)
		}
		if list, _, err := alice.ListRepoTrackedTimes("alice", "proj", gitea.ListTrackedTimesOptions{Before: old.Add(time.Hour)}); err != nil || timeList(list) != "bob:10:two" {
			t.Fatalf("times before 2020: %s %v", timeList(list), err)
		}
		if list, _, err := alice.GetUserTrackedTimes("alice", "proj", "carol"); err != nil || timeList(list) != "carol:30:one" {
			t.Fatalf("GetUserTrackedTimes: %s %v", timeList(list), err)
		}
		if _, resp, _ := carol.GetUserTrackedTimes("alice", "proj", "bob"); resp == nil || resp.StatusCode != http.StatusForbidden {
			t.Fatalf("carol listed bob's times: %v", resp)
		}
		mine, _, err := bob.ListMyTrackedTimes(gitea.ListTrackedTimesOptions{})
		if err != nil || timeList(mine) != "bob:60:one bob:10:two bob:5:two" {
			t.Fatalf("ListMyTrackedTimes: %s %v", timeList(mine), err)
		}

		// Deleting: one's own time, or anyone's for site administrators.
		if resp, _ := carol.DeleteTime("alice", "proj", one.Index, mine[0].ID); resp == nil || resp.StatusCode != http.StatusForbidden {
			t.Fatalf("carol deleted bob's time: %v", resp)
		}
		if resp, err := bob.DeleteTime("alice", "proj", one.Index, mine[0].ID); err != nil || resp.StatusCode != http.StatusNoContent {
			t.Fatalf("DeleteTime: %v", err)
		}
		if resp, _ := bob.DeleteTime("alice", "proj", one.Index, mine[0].ID); resp == nil || resp.StatusCode != http.StatusNotFound {
			t.Fatalf("deleting a deleted time: %v", resp)
		}
		if resp, err := bob.ResetIssueTime("alice", "proj", two.Index); err != nil || resp.StatusCode != http.StatusNoContent {
			t.Fatalf("ResetIssueTime: %v", err)
		}
		if resp, _ := bob.ResetIssueTime("alice", "proj", two.Index); resp == nil || resp.StatusCode != http.StatusNotFound {
			t.Fatalf("resetting without times: %v", resp)
		}
		if mine, _, _ := bob.ListMyTrackedTimes(gitea.ListTrackedTimesOptions{}); len(mine) != 0 {
			t.Fatalf("bob's times after the deletes: %s", timeList(mine))
		}

		// Stopwatches: writers only; one running per user (starting another
		// stops the first, adding its time).
		if resp, _ := carol.StartIssueStopWatch("alice", "proj", one.Index); resp == nil || resp.StatusCode != http.StatusForbidden {
			t.Fatalf("a reader started a stopwatch: %v", resp)
		}
		if resp, err := bob.StartIssueStopWatch("alice", "proj", one.Index); err != nil || resp.StatusCode != http.StatusCreated {
			t.Fatalf("StartIssueStopWatch: %v", err)
		}
		if resp, _ := bob.StartIssueStopWatch("alice", "proj", one.Index); resp == nil || resp.StatusCode != http.StatusConflict {
			t.Fatalf("a second start: %v", resp)
		}
		sws, _, err := bob.GetMyStopwatches()
		if err != nil || len(sws) != 1 || sws[0].IssueIndex != one.Index || sws[0].IssueTitle != "one" || sws[0].RepoOwnerName != "alice" || sws[0].RepoName != "proj" || sws[0].Seconds < 0 || sws[0].Created.IsZero() {
			t.Fatalf("GetMyStopwatches: %+v %v", sws[0], err)
		}
		if _, err := bob.StartIssueStopWatch("alice", "proj", two.Index); err != nil {
			t.Fatal(err)
		}
		if sws, _, _ := bob.GetMyStopwatches(); len(sws) != 1 || sws[0].IssueIndex != two.Index {
			t.Fatalf("after starting another: %+v", sws)
		}
		if resp, err := bob.StopIssueStopWatch("alice", "proj", two.Index); err != nil || resp.StatusCode != http.StatusCreated {
			t.Fatalf("StopIssueStopWatch: %v", err)
		}
		if resp, _ := bob.StopIssueStopWatch("alice", "proj", two.Index); resp == nil || resp.StatusCode != http.StatusConflict {
			t.Fatalf("stopping a stopped stopwatch: %v", resp)
		}
		if mine, _, _ := bob.ListMyTrackedTimes(gitea.ListTrackedTimesOptions{}); timeList(mine) != "bob:"+fmtInt(mine[0].Time)+":one bob:"+fmtInt(mine[1].Time)+":two" {
			t.Fatalf("the stopwatches' times: %s", timeList(mine))
		}
		if _, err := bob.StartIssueStopWatch("alice", "proj", one.Index); err != nil {
			t.Fatal(err)
		}
		if resp, err := bob.DeleteIssueStopwatch("alice", "proj", one.Index); err != nil || resp.StatusCode != http.StatusNoContent {
			t.Fatalf("DeleteIssueStopwatch: %v", err)
		}
		if sws, _, _ := bob.GetMyStopwatches(); len(sws) != 0 {
			t.Fatalf("stopwatches after the delete: %+v", sws)
		}
		if mine, _, _ := bob.ListMyTrackedTimes(gitea.ListTrackedTimesOptions{}); len(mine) != 2 {
			t.Fatalf("a cancelled stopwatch added time: %s", timeList(mine))
		}
	})
}

// TestTrackedTimesDisabled: with [service] ENABLE_TIMETRACKING off,
// adding time is 400 and the repository says so in internal_tracker.
func TestTrackedTimesDisabled(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(c *config.Config) { c.TimeTracking.Enabled = false }, func(t *testing.T, s *testServer) {
		aliceTok := s.seedUser("alice", "alice-password", false)
		alice := s.sdk(gitea.SetToken(aliceTok))
		s.createRepo(t, aliceTok, "proj", false, false)
		is, _, err := alice.CreateIssue("alice", "proj", gitea.CreateIssueOption{Title: "one"})
		if err != nil {
			t.Fatal(err)
		}
		_, resp, err := alice.AddTime("alice", "proj", is.Index, gitea.AddTimeOption{Time: 5})
		if resp == nil || resp.StatusCode != http.StatusBadRequest || !strings.Contains(err.Error(), "time tracking disabled") {
			t.Fatalf("AddTime with time tracking off: %v", err)
		}
		if _, resp, _ := alice.ListRepoTrackedTimes("alice", "proj", gitea.ListTrackedTimesOptions{}); resp == nil || resp.StatusCode != http.StatusBadRequest {
			t.Fatalf("ListRepoTrackedTimes with time tracking off: %v", resp)
		}
		repo, _, err := alice.GetRepo("alice", "proj")
		if err != nil || repo.InternalTracker == nil || repo.InternalTracker.EnableTimeTracker {
			t.Fatalf("internal_tracker with time tracking off: %+v %v", repo.InternalTracker, err)
		}
	})
}
