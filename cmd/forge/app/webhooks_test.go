package app_test

import (
	"bytes"
	"net/http"
	"reflect"
	"testing"

	"code.gitea.io/sdk/gitea"
)

// TestWebhooksSDK: the SDK's hook calls at the four levels; Gitea's
// defaults (events push, inactive), expanded events, edit semantics
// (events, branch filter and authorization header replaced, active only
// when given), secrets never returned and sealed at rest, levels
// independent. (Who may call: testdata/cases/webhooks.yaml.)
func TestWebhooksSDK(t *testing.T) {
	t.Parallel()
	eachBackend(t, nil, func(t *testing.T, s *testServer) {
		aliceTok := s.seedUser("alice", "alice-password", false)
		alice := s.sdk(gitea.SetToken(aliceTok))
		root := s.sdk(gitea.SetToken(s.AdminToken))
		if _, _, err := alice.CreateOrg(gitea.CreateOrgOption{Name: "acme"}); err != nil {
			t.Fatal(err)
		}
		s.createRepo(t, aliceTok, "proj", false, false)

		const secret, authz = "hook-secret-in-clear", "Bearer auth-in-clear"
		h, resp, err := alice.CreateRepoHook("alice", "proj", gitea.CreateHookOption{Type: gitea.HookTypeGitea,
			Config:              map[string]string{"url": "http://example.com/hook", "content_type": "json", "secret": secret},
			AuthorizationHeader: authz, BranchFilter: "main"})
		if err != nil || resp.StatusCode != http.StatusCreated {
			t.Fatalf("create: %v %v", resp, err)
		}
		if h.ID == 0 || h.Active || !reflect.DeepEqual(h.Events, []string{"push"}) || h.BranchFilter != "main" ||
			h.AuthorizationHeader != "" || h.Config["secret"] != "" || h.Config["url"] != "http://example.com/hook" ||
			h.Created.IsZero() {
			t.Fatalf("created hook: %+v", h)
		}
		list, resp, err := alice.ListRepoHooks("alice", "proj", gitea.ListHooksOptions{})
		if err != nil || len(list) != 1 || list[0].ID != h.ID || resp.Header.Get("X-Total-Count") != "1" {
			t.Fatalf("list: %+v %v", list, err)
		}
		got, _, err := alice.GetRepoHook("alice", "proj", h.ID)
		if err != nil || got.ID != h.ID {
			t.Fatalf("get: %+v %v", got, err)
		}

		// Edit: events given, active given; branch filter and authorization
		// header omitted are cleared.
		active := true
		if resp, err := alice.EditRepoHook("alice", "proj", h.ID, gitea.EditHookOption{Events: []string{"issues_only", "release"},
			Active: &active, Config: map[string]string{"content_type": "form"}}); err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("edit: %v %v", resp, err)
		}
		got, _, _ = alice.GetRepoHook("alice", "proj", h.ID)
		if !got.Active || !reflect.DeepEqual(got.Events, []string{"issues", "release"}) || got.BranchFilter != "" ||
			got.Config["content_type"] != "form" || got.Config["url"] != "http://example.com/hook" {
			t.Fatalf("after edit: %+v", got)
		}
		// Edit without events resets them to push; without active keeps it.
		if _, err := alice.EditRepoHook("alice", "proj", h.ID, gitea.EditHookOption{}); err != nil {
			t.Fatal(err)
		}
		got, _, _ = alice.GetRepoHook("alice", "proj", h.ID)
		if !got.Active || !reflect.DeepEqual(got.Events, []string{"push"}) {
			t.Fatalf("after empty edit: %+v", got)
		}

		// Organization and user levels.
		oh, _, err := alice.CreateOrgHook("acme", gitea.CreateHookOption{Type: gitea.HookTypeGitea, Active: true,
			Config: map[string]string{"url": "http://example.com/org", "content_type": "json"}, Events: []string{"pull_request_review"}})
		if err != nil || !reflect.DeepEqual(oh.Events, []string{"pull_request_review_approved", "pull_request_review_rejected", "pull_request_review_comment"}) {
			t.Fatalf("org create: %+v %v", oh, err)
		}
		if l, _, err := alice.ListOrgHooks("acme", gitea.ListHooksOptions{}); err != nil || len(l) != 1 || l[0].ID != oh.ID {
			t.Fatalf("org list: %+v %v", l, err)
		}
		if _, err := alice.EditOrgHook("acme", oh.ID, gitea.EditHookOption{Events: []string{"create"}}); err != nil {
			t.Fatal(err)
		}
		if g, _, err := alice.GetOrgHook("acme", oh.ID); err != nil || !reflect.DeepEqual(g.Events, []string{"create"}) {
			t.Fatalf("org get: %+v %v", g, err)
		}
		// The repository's hook id is not the organization's.
		if _, resp, err := alice.GetOrgHook("acme", h.ID); err == nil || resp.StatusCode != http.StatusNotFound {
			t.Fatalf("repo hook via the org: %v", err)
		}
		uh, _, err := alice.CreateMyHook(gitea.CreateHookOption{Type: gitea.HookTypeGogs,
			Config: map[string]string{"url": "http://example.com/me", "content_type": "json"}})
		if err != nil {
			t.Fatal(err)
		}
		if l, _, err := alice.ListMyHooks(gitea.ListHooksOptions{}); err != nil || len(l) != 1 || l[0].ID != uh.ID {
			t.Fatalf("user list: %+v %v", l, err)
		}
		if _, err := alice.EditMyHook(uh.ID, gitea.EditHookOption{Active: &active}); err != nil {
			t.Fatal(err)
		}
		if g, _, err := alice.GetMyHook(uh.ID); err != nil || !g.Active {
			t.Fatalf("user get: %+v %v", g, err)
		}

		// Admin: a plain create is a system hook, which the plain list shows.
		ah, _, err := root.CreateAdminHook(gitea.CreateHookOption{Type: gitea.HookTypeGitea,
			Config: map[string]string{"url": "http://example.com/sys", "content_type": "json"}})
		if err != nil {
			t.Fatal(err)
		}
		if l, _, err := root.ListAdminHooks(gitea.ListAdminHooksOptions{}); err != nil || len(l) != 1 || l[0].ID != ah.ID {
			t.Fatalf("admin list: %+v %v", l, err)
		}
		if e, _, err := root.EditAdminHook(ah.ID, gitea.EditHookOption{Active: &active}); err != nil || !e.Active {
			t.Fatalf("admin edit: %+v %v", e, err)
		}
		if g, _, err := root.GetAdminHook(ah.ID); err != nil || !g.Active {
			t.Fatalf("admin get: %+v %v", g, err)
		}
		// The admin level does not reach a repository's hook.
		if _, resp, err := root.GetAdminHook(h.ID); err == nil || resp.StatusCode != http.StatusNotFound {
			t.Fatalf("repo hook via admin: %v", err)
		}

		// At rest: sealed.
		var rows []struct {
			Secret              []byte
			AuthorizationHeader []byte
		}
		if err := s.App.Store.DB().Table("webhooks").Select("secret, authorization_header").Find(&rows).Error; err != nil || len(rows) != 4 {
			t.Fatalf("rows: %v %v", rows, err)
		}
		for _, r := range rows {
			if bytes.Contains(r.Secret, []byte(secret)) || bytes.Contains(r.AuthorizationHeader, []byte("auth-in-clear")) {
				t.Fatalf("stored in clear: %q %q", r.Secret, r.AuthorizationHeader)
			}
		}

		// Deletes: each level its own.
		if resp, err := alice.DeleteOrgHook("acme", h.ID); err == nil || resp.StatusCode != http.StatusNotFound {
			t.Fatalf("repo hook deleted via the org: %v", err)
		}
		for _, del := range []func() (*gitea.Response, error){
			func() (*gitea.Response, error) { return alice.DeleteRepoHook("alice", "proj", h.ID) },
			func() (*gitea.Response, error) { return alice.DeleteOrgHook("acme", oh.ID) },
			func() (*gitea.Response, error) { return alice.DeleteMyHook(uh.ID) },
			func() (*gitea.Response, error) { return root.DeleteAdminHook(ah.ID) },
		} {
			if resp, err := del(); err != nil || resp.StatusCode != http.StatusNoContent {
				t.Fatalf("delete: %v %v", resp, err)
			}
		}
		if resp, err := alice.DeleteRepoHook("alice", "proj", h.ID); err == nil || resp.StatusCode != http.StatusNotFound {
			t.Fatalf("delete twice: %v", err)
		}
	})
}

// TestWebhooksDefaultHooks: default hooks (POST /admin/hooks?type=default)
// are listed with type=default, not with the plain list, found by id, and
// copied into each repository created afterwards.
func TestWebhooksDefaultHooks(t *testing.T) {
	t.Parallel()
	eachBackend(t, nil, func(t *testing.T, s *testServer) {
		aliceTok := s.seedUser("alice", "alice-password", false)
		alice := s.sdk(gitea.SetToken(aliceTok))
		root := s.sdk(gitea.SetToken(s.AdminToken))
		s.createRepo(t, aliceTok, "before", false, false)
		r := s.do("POST", "/api/v1/admin/hooks?type=default", `{"type":"gitea","config":{"url":"http://example.com/d","content_type":"json"},"events":["issues_only"],"active":true}`,
			"Authorization", "token "+s.AdminToken, "Content-Type", jsonCT)
		if r.Status != http.StatusCreated {
			t.Fatalf("create default: %d %s", r.Status, r.Body)
		}
		if l, _, err := root.ListAdminHooks(gitea.ListAdminHooksOptions{}); err != nil || len(l) != 0 {
			t.Fatalf("system list shows a default hook: %+v %v", l, err)
		}
		l, _, err := root.ListAdminHooks(gitea.ListAdminHooksOptions{Type: "default"})
		if err != nil || len(l) != 1 {
			t.Fatalf("default list: %+v %v", l, err)
		}
		if g, _, err := root.GetAdminHook(l[0].ID); err != nil || g.Config["url"] != "http://example.com/d" {
			t.Fatalf("get default: %+v %v", g, err)
		}
		s.createRepo(t, aliceTok, "after", false, false)
		if hs, _, err := alice.ListRepoHooks("alice", "before", gitea.ListHooksOptions{}); err != nil || len(hs) != 0 {
			t.Fatalf("older repository got the default hook: %+v %v", hs, err)
		}
		hs, _, err := alice.ListRepoHooks("alice", "after", gitea.ListHooksOptions{})
		if err != nil || len(hs) != 1 || hs[0].Config["url"] != "http://example.com/d" || !hs[0].Active ||
			!reflect.DeepEqual(hs[0].Events, []string{"issues"}) || hs[0].ID == l[0].ID {
			t.Fatalf("new repository's hooks: %+v %v", hs, err)
		}
	})
}
