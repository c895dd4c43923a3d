package app_test

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"code.gitea.io/sdk/gitea"

	"forge/services/store"
)

// TestAdminListOrgs: the site administrator lists every organization,
// private and limited ones too, by name, a page at a time with the total
// in X-Total-Count and a Link header; others are refused.
func TestAdminListOrgs(t *testing.T) {
	t.Parallel()
	eachBackend(t, nil, func(t *testing.T, s *testServer) {
		tok := s.seedUser("boss", "boss-password", false)
		boss := s.sdk(gitea.SetToken(tok))
		for name, vis := range map[string]gitea.VisibleType{"delta": gitea.VisibleTypePrivate, "alpha": gitea.VisibleTypePublic,
			"charlie": gitea.VisibleTypeLimited, "bravo": gitea.VisibleTypePrivate, "echo": gitea.VisibleTypePublic} {
			if _, _, err := boss.CreateOrg(gitea.CreateOrgOption{Name: name, Visibility: vis}); err != nil {
				t.Fatalf("CreateOrg %s: %v", name, err)
			}
		}
		admin := s.sdk(gitea.SetToken(s.AdminToken))
		var names []string
		for page := 1; page <= 3; page++ {
			list, resp, err := admin.AdminListOrgs(gitea.AdminListOrgsOptions{ListOptions: gitea.ListOptions{Page: page, PageSize: 2}})
			if err != nil {
				t.Fatalf("AdminListOrgs page %d: %v", page, err)
			}
			if got := resp.Header.Get("X-Total-Count"); got != "5" {
				t.Fatalf("page %d: X-Total-Count %q", page, got)
			}
			if link := resp.Header.Get("Link"); (page < 3) != strings.Contains(link, `rel="next"`) {
				t.Fatalf("page %d: Link %q", page, link)
			}
			for _, o := range list {
				names = append(names, o.UserName+":"+o.Visibility)
			}
		}
		if want := "alpha:public bravo:private charlie:limited delta:private echo:public"; strings.Join(names, " ") != want {
			t.Fatalf("orgs = %v, want %s", names, want)
		}

		// A member of private organizations is no administrator.
		if _, resp, err := boss.AdminListOrgs(gitea.AdminListOrgsOptions{}); err == nil || resp.StatusCode != http.StatusForbidden {
			t.Fatalf("AdminListOrgs by a non-admin: %v %v", resp, err)
		}
		expectStatus(t, s.do("GET", "/api/v1/admin/orgs", ""), http.StatusUnauthorized)
	})
}

// TestAdminListEmails: every user's address, in Gitea's Email shape
// (email, verified, primary, user_id, username), sorted by address and
// paged; the search matches the address, the user name or the full name.
func TestAdminListEmails(t *testing.T) {
	t.Parallel()
	eachBackend(t, nil, func(t *testing.T, s *testServer) {
		tok := s.seedUser("zoe", "zoe-password", false)
		s.seedUser("amy", "amy-password", false)
		zoe := s.sdk(gitea.SetToken(tok))
		if _, _, err := zoe.CreateOrg(gitea.CreateOrgOption{Name: "corp", Email: "corp@example.org"}); err != nil {
			t.Fatal(err)
		}
		admin := s.sdk(gitea.SetToken(s.AdminToken))
		users := map[string]int64{}
		for _, name := range []string{"root", "zoe", "amy"} {
			u, _, err := admin.GetUserInfo(name)
			if err != nil {
				t.Fatal(err)
			}
			users[name] = u.ID
		}
		list, resp, err := admin.ListAdminEmails(gitea.ListAdminEmailsOptions{ListOptions: gitea.ListOptions{Page: 1, PageSize: 2}})
		if err != nil {
			t.Fatalf("ListAdminEmails: %v", err)
		}
		if resp.Header.Get("X-Total-Count") != "3" || !strings.Contains(resp.Header.Get("Link"), `rel="next"`) {
			t.Fatalf("headers: %v", resp.Header)
		}
		want := []gitea.Email{
			{Email: "amy@example.org", Verified: true, Primary: true, UserID: users["amy"], Username: "amy"},
			{Email: "root@example.org", Verified: true, Primary: true, UserID: users["root"], Username: "root"},
		}
		if len(list) != 2 || *list[0] != want[0] || *list[1] != want[1] {
			t.Fatalf("page 1 = %+v %+v", list[0], list[1:])
		}
		list, _, err = admin.ListAdminEmails(gitea.ListAdminEmailsOptions{ListOptions: gitea.ListOptions{Page: 2, PageSize: 2}})
		if err != nil || len(list) != 1 || list[0].Username != "zoe" {
			t.Fatalf("page 2: %v %+v", err, list)
		}
		found, resp, err := admin.SearchAdminEmails(gitea.SearchAdminEmailsOptions{Query: "ZO"})
		if err != nil || len(found) != 1 || found[0].Email != "zoe@example.org" || resp.Header.Get("X-Total-Count") != "1" {
			t.Fatalf("SearchAdminEmails: %v %+v", err, found)
		}

		if _, resp, err := zoe.ListAdminEmails(gitea.ListAdminEmailsOptions{}); err == nil || resp.StatusCode != http.StatusForbidden {
			t.Fatalf("ListAdminEmails by a non-admin: %v %v", resp, err)
		}
		if _, resp, err := zoe.SearchAdminEmails(gitea.SearchAdminEmailsOptions{Query: "a"}); err == nil || resp.StatusCode != http.StatusForbidden {
			t.Fatalf("SearchAdminEmails by a non-admin: %v %v", resp, err)
		}
		expectStatus(t, s.do("GET", "/api/v1/admin/emails", ""), http.StatusUnauthorized)
		expectStatus(t, s.do("GET", "/api/v1/admin/emails/search?q=a", ""), http.StatusUnauthorized)
	})
}

// TestAdminCron: the list shows forge's scheduled tasks with their
// schedules; a manual run is answered at once, then counted, and does the
// task's work (the attachment sweep removes an old file without a row and
// an abandoned upload, and keeps a young one).
func TestAdminCron(t *testing.T) {
	t.Parallel()
	eachBackend(t, nil, func(t *testing.T, s *testServer) {
		admin := s.sdk(gitea.SetToken(s.AdminToken))
		tasks := cronTasks(t, admin)
		for _, name := range []string{"delete_orphaned_attachments", "delete_scratch_files", "delete_stray_pull_refs", "deliver_notifications", "deliver_webhooks", "reconcile_branches", "sync_external_users", "update_mirrors"} {
			task, ok := tasks[name]
			if !ok {
				t.Fatalf("no task %s in %v", name, tasks)
			}
			every, err := time.ParseDuration(strings.TrimPrefix(task.Schedule, "@every "))
			if !strings.HasPrefix(task.Schedule, "@every ") || err != nil || every < time.Second || every > 24*time.Hour {
				t.Fatalf("%s: schedule %q", name, task.Schedule)
			}
			if task.Next.IsZero() || task.Next.Before(time.Now().Add(-time.Minute)) {
				t.Fatalf("%s: next %v", name, task.Next)
			}
		}
		if before := tasks["delete_orphaned_attachments"]; before.ExecTimes != 0 || !before.Prev.IsZero() {
			t.Fatalf("the hourly sweep ran already: %+v", before)
		}

		root := filepath.Join(s.Cfg.Server.AppDataPath, "attachments")
		old := time.Now().Add(-2 * time.Hour)
		orphan := filepath.Join(root, "a", "b", "ab0rphan")
		abandoned := filepath.Join(root, "tmp", "abandoned.upload")
		young := filepath.Join(root, "c", "d", "cdyoung")
		for _, p := range []string{orphan, abandoned, young} {
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte("left over"), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		for _, p := range []string{orphan, abandoned} {
			if err := os.Chtimes(p, old, old); err != nil {
				t.Fatal(err)
			}
		}

		start := time.Now().Add(-time.Second)
		if _, err := admin.RunCronTasks("delete_orphaned_attachments"); err != nil {
			t.Fatalf("RunCronTasks: %v", err)
		}
		waitFor(t, 10*time.Second, "the old files removed", func() bool {
			_, e1 := os.Stat(orphan)
			_, e2 := os.Stat(abandoned)
			return os.IsNotExist(e1) && os.IsNotExist(e2)
		})
		if _, err := os.Stat(young); err != nil {
			t.Fatalf("a young file was removed: %v", err)
		}
		after := cronTasks(t, admin)["delete_orphaned_attachments"]
		if after.ExecTimes != 1 || after.Prev.Before(start) || after.Prev.After(time.Now().Add(time.Second)) {
			t.Fatalf("after a run: %+v", after)
		}

		// Another task, counted too.
		if _, err := admin.RunCronTasks("delete_scratch_files"); err != nil {
			t.Fatalf("RunCronTasks: %v", err)
		}
		waitFor(t, 10*time.Second, "the scratch sweep counted", func() bool {
			task := cronTasks(t, admin)["delete_scratch_files"]
			return task.ExecTimes == 1 && !task.Prev.IsZero()
		})

		resp, err := admin.RunCronTasks("no_such_task")
		if err == nil || resp.StatusCode != http.StatusNotFound {
			t.Fatalf("unknown task: %v %v", resp, err)
		}
		tok := s.seedUser("alice", "alice-password", false)
		alice := s.sdk(gitea.SetToken(tok))
		if _, resp, err := alice.ListCronTasks(gitea.ListCronTaskOptions{}); err == nil || resp.StatusCode != http.StatusForbidden {
			t.Fatalf("ListCronTasks by a non-admin: %v %v", resp, err)
		}
		if resp, err := alice.RunCronTasks("delete_scratch_files"); err == nil || resp.StatusCode != http.StatusForbidden {
			t.Fatalf("RunCronTasks by a non-admin: %v %v", resp, err)
		}
		expectStatus(t, s.do("GET", "/api/v1/admin/cron", ""), http.StatusUnauthorized)
		expectStatus(t, s.do("POST", "/api/v1/admin/cron/delete_scratch_files", ""), http.StatusUnauthorized)
	})
}

// cronTasks lists the scheduled tasks by name.
func cronTasks(t *testing.T, c *gitea.Client) map[string]*gitea.CronTask {
	t.Helper()
	list, resp, err := c.ListCronTasks(gitea.ListCronTaskOptions{})
	if err != nil {
		t.Fatalf("ListCronTasks: %v", err)
	}
	if resp.Header.Get("Link") != "" {
		t.Fatalf("Link header on the cron list: %q", resp.Header.Get("Link"))
	}
	out := map[string]*gitea.CronTask{}
	for _, task := range list {
		out[task.Name] = task
	}
	return out
}

// TestAdminListsQueriesConstant: a page of 50 organizations or addresses
// costs the statements of a page of 5 (TestListQueriesConstant's rule).
func TestAdminListsQueriesConstant(t *testing.T) {
	t.Parallel()
	s := startServer(t, "sqlite3", noReplays)
	ctx := context.Background()
	seed := func(from, to int) {
		for i := from; i < to; i++ {
			u := &store.User{Name: fmt.Sprintf("u%02d", i), Email: fmt.Sprintf("u%02d@example.org", i), IsActive: true,
				Visibility: store.VisibilityPrivate}
			o := &store.User{Name: fmt.Sprintf("o%02d", i), Type: store.UserTypeOrganization, Visibility: store.VisibilityPrivate}
			for _, x := range []*store.User{u, o} {
				if err := s.App.Store.CreateUser(ctx, x); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	for _, path := range []string{"/api/v1/admin/orgs?limit=%d", "/api/v1/admin/emails?limit=%d", "/api/v1/admin/emails/search?q=u&limit=%d"} {
		seed(0, 5)
		small, n := queriesOf(t, s, s.AdminToken, fmt.Sprintf(path, 5))
		if n != 5 {
			t.Fatalf("%s: %d items", path, n)
		}
		seed(5, 50)
		large, n := queriesOf(t, s, s.AdminToken, fmt.Sprintf(path, 50))
		if n != 50 {
			t.Fatalf("%s: %d items", path, n)
		}
		if small != large {
			t.Errorf("%s: %d queries for 5 items, %d for 50", path, small, large)
		}
		if err := s.App.Store.DB().Exec("DELETE FROM users WHERE name LIKE 'u%' OR name LIKE 'o%'").Error; err != nil {
			t.Fatal(err)
		}
	}
}
