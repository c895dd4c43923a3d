package app_test

import (
	"bytes"
	"net/http"
	"testing"

	"code.gitea.io/sdk/gitea"
)

// TestActionsSecretsSDK: the SDK's secret calls; PUT answers 201 then 204,
// lists show names and never values, a name at the organization, the
// repository and the user level are three secrets, and the value is not
// in the database in clear. (Who may call: testdata/cases/actions.yaml.)
func TestActionsSecretsSDK(t *testing.T) {
	t.Parallel()
	eachBackend(t, nil, func(t *testing.T, s *testServer) {
		aliceTok := s.seedUser("alice", "alice-password", false)
		alice := s.sdk(gitea.SetToken(aliceTok))
		if _, _, err := alice.CreateOrg(gitea.CreateOrgOption{Name: "acme"}); err != nil {
			t.Fatal(err)
		}
		s.createRepo(t, aliceTok, "proj", false, false)

		const clear = "s3cr3t-value-in-clear"
		resp, err := alice.CreateOrgActionSecret("acme", "deploy_key", gitea.CreateOrUpdateSecretOption{Data: clear})
		if err != nil || resp.StatusCode != http.StatusCreated {
			t.Fatalf("org secret create: %v %v", resp, err)
		}
		resp, err = alice.CreateOrgActionSecret("acme", "DEPLOY_KEY", gitea.CreateOrUpdateSecretOption{Data: clear + "2"})
		if err != nil || resp.StatusCode != http.StatusNoContent {
			t.Fatalf("org secret update: %v %v", resp, err)
		}
		resp, err = alice.CreateRepoActionSecret("alice", "proj", "deploy_key", gitea.CreateOrUpdateSecretOption{Data: clear})
		if err != nil || resp.StatusCode != http.StatusCreated {
			t.Fatalf("repo secret create (same name as the org's): %v %v", resp, err)
		}
		resp, err = alice.CreateUserActionSecret("deploy_key", gitea.CreateOrUpdateSecretOption{Data: clear})
		if err != nil || resp.StatusCode != http.StatusCreated {
			t.Fatalf("user secret create (same name): %v %v", resp, err)
		}
		r := s.do("PUT", "/api/v1/user/actions/secrets/DEPLOY_KEY", `{"data":"x"}`, "Authorization", "token "+aliceTok, "Content-Type", jsonCT)
		if r.Status != http.StatusNoContent || len(r.Body) != 0 {
			t.Fatalf("user secret update: %d %s", r.Status, r.Body)
		}
		r = s.do("PUT", "/api/v1/repos/alice/proj/actions/secrets/OTHER", `{"data":"x"}`, "Authorization", "token "+aliceTok, "Content-Type", jsonCT)
		if r.Status != http.StatusCreated || len(r.Body) != 0 {
			t.Fatalf("201 without a body: %d %q", r.Status, r.Body)
		}

		list, resp, err := alice.ListOrgActionSecret("acme", gitea.ListOrgActionSecretOption{})
		if err != nil || len(list) != 1 || list[0].Name != "DEPLOY_KEY" || list[0].Data != "" || list[0].Created.IsZero() ||
			resp.Header.Get("X-Total-Count") != "1" {
			t.Fatalf("org list: %+v %v", list, err)
		}
		rlist, _, err := alice.ListRepoActionSecret("alice", "proj", gitea.ListRepoActionSecretOption{})
		if err != nil || len(rlist) != 2 || rlist[0].Name != "DEPLOY_KEY" || rlist[1].Name != "OTHER" {
			t.Fatalf("repo list: %+v %v", rlist, err)
		}
		r = s.do("GET", "/api/v1/user/actions/secrets", "", "Authorization", "token "+aliceTok)
		if r.Status != 200 || bytes.Contains(r.Body, []byte(clear)) || !bytes.Contains(r.Body, []byte(`"name":"DEPLOY_KEY"`)) {
			t.Fatalf("user list: %d %s", r.Status, r.Body)
		}

		// Deleting the org's leaves the repository's and the user's.
		if resp, err := alice.DeleteOrgActionSecret("acme", "deploy_key"); err != nil || resp.StatusCode != http.StatusNoContent {
			t.Fatalf("org delete: %v", err)
		}
		if resp, err := alice.DeleteOrgActionSecret("acme", "deploy_key"); err == nil || resp.StatusCode != http.StatusNotFound {
			t.Fatalf("org delete twice: %v", err)
		}
		rlist, _, _ = alice.ListRepoActionSecret("alice", "proj", gitea.ListRepoActionSecretOption{})
		if len(rlist) != 2 {
			t.Fatalf("the org delete touched the repository's: %+v", rlist)
		}
		if resp, err := alice.DeleteUserActionSecret("DEPLOY_KEY"); err != nil || resp.StatusCode != http.StatusNoContent {
			t.Fatalf("user delete: %v", err)
		}
		if resp, err := alice.DeleteRepoActionSecret("alice", "proj", "deploy_key"); err != nil || resp.StatusCode != http.StatusNoContent {
			t.Fatalf("repo delete: %v", err)
		}

		// At rest: sealed.
		var rows []struct {
			Name string
			Data []byte
		}
		if err := s.App.Store.DB().Table("action_secrets").Select("name, data").Find(&rows).Error; err != nil || len(rows) != 1 {
			t.Fatalf("rows: %v %v", rows, err)
		}
		if rows[0].Name != "OTHER" || len(rows[0].Data) < 17 { // sealed: nonce and tag around the value
			t.Fatalf("rows: %+v", rows)
		}
		s.do("PUT", "/api/v1/user/actions/secrets/PLAIN", `{"data":"`+clear+`"}`, "Authorization", "token "+aliceTok, "Content-Type", jsonCT)
		var n int64
		if err := s.App.Store.DB().Table("action_secrets").Where("name = ?", "PLAIN").Count(&n).Error; err != nil || n != 1 {
			t.Fatalf("PLAIN: %d %v", n, err)
		}
		var data []byte
		s.App.Store.DB().Table("action_secrets").Where("name = ?", "PLAIN").Select("data").Row().Scan(&data)
		if bytes.Contains(data, []byte(clear)) || len(data) == 0 {
			t.Fatalf("secret stored in clear: %q", data)
		}
	})
}

// TestActionsVariablesSDK: the SDK's variable calls at the three levels,
// names upper-cased, 409 on a taken name, rename by PUT, the same name at
// two levels independent.
func TestActionsVariablesSDK(t *testing.T) {
	t.Parallel()
	eachBackend(t, nil, func(t *testing.T, s *testServer) {
		aliceTok := s.seedUser("alice", "alice-password", false)
		alice := s.sdk(gitea.SetToken(aliceTok))
		if _, _, err := alice.CreateOrg(gitea.CreateOrgOption{Name: "acme"}); err != nil {
			t.Fatal(err)
		}
		s.createRepo(t, aliceTok, "proj", false, false)
		repo := s.repoRecord(t, "alice", "proj")

		if resp, err := alice.CreateRepoActionVariable("alice", "proj", "region", "eu"); err != nil || resp.StatusCode != http.StatusCreated {
			t.Fatalf("repo create: %v", err)
		}
		if resp, err := alice.CreateRepoActionVariable("alice", "proj", "REGION", "us"); err == nil || resp.StatusCode != http.StatusConflict {
			t.Fatalf("repo create twice: %v", err)
		}
		if resp, err := alice.CreateOrgActionVariable("acme", "region", gitea.CreateActionVariableOption{Value: "org"}); err != nil || resp.StatusCode != http.StatusCreated {
			t.Fatalf("org create (same name): %v", err)
		}
		if resp, err := alice.CreateUserActionVariable("region", gitea.CreateActionVariableOption{Value: "mine"}); err != nil || resp.StatusCode != http.StatusCreated {
			t.Fatalf("user create (same name): %v", err)
		}
		v, _, err := alice.GetRepoActionVariable("alice", "proj", "region")
		if err != nil || v.Name != "REGION" || v.Value != "eu" || v.RepoID != repo.ID || v.OwnerID != 0 {
			t.Fatalf("repo get: %+v %v", v, err)
		}
		if resp, err := alice.UpdateRepoActionVariable("alice", "proj", "region", "asia"); err != nil || resp.StatusCode != http.StatusNoContent {
			t.Fatalf("repo update: %v", err)
		}
		ov, _, err := alice.GetOrgActionVariable("acme", "REGION")
		if err != nil || ov.Data != "org" || ov.RepoID != 0 || ov.OwnerID == 0 {
			t.Fatalf("org variable after the repo update: %+v %v", ov, err)
		}
		if resp, err := alice.UpdateUserActionVariable("region", gitea.UpdateActionVariableOption{Name: "zone", Value: "z1"}); err != nil || resp.StatusCode != http.StatusNoContent {
			t.Fatalf("user rename: %v", err)
		}
		uv, _, err := alice.GetUserActionVariable("zone")
		if err != nil || uv.Name != "ZONE" || uv.Data != "z1" {
			t.Fatalf("renamed: %+v %v", uv, err)
		}
		if _, resp, err := alice.GetUserActionVariable("region"); err == nil || resp.StatusCode != http.StatusNotFound {
			t.Fatalf("old name: %v", err)
		}
		list, resp, err := alice.ListRepoActionVariable("alice", "proj", gitea.ListRepoActionVariableOption{})
		if err != nil || len(list) != 1 || list[0].Value != "asia" || resp.Header.Get("X-Total-Count") != "1" {
			t.Fatalf("repo list: %+v %v", list, err)
		}
		olist, _, err := alice.ListOrgActionVariable("acme", gitea.ListOrgActionVariableOption{})
		if err != nil || len(olist) != 1 || olist[0].Data != "org" {
			t.Fatalf("org list: %+v %v", olist, err)
		}
		ulist, _, err := alice.ListUserActionVariable(gitea.ListOptions{})
		if err != nil || len(ulist) != 1 || ulist[0].Name != "ZONE" {
			t.Fatalf("user list: %+v %v", ulist, err)
		}
		// DeleteOrgActionVariable refuses servers below 1.25 client-side.
		if r := s.do("DELETE", "/api/v1/orgs/acme/actions/variables/region", "", "Authorization", "token "+aliceTok); r.Status != http.StatusNoContent {
			t.Fatalf("org delete: %d %s", r.Status, r.Body)
		}
		if r := s.do("DELETE", "/api/v1/orgs/acme/actions/variables/region", "", "Authorization", "token "+aliceTok); r.Status != http.StatusNotFound {
			t.Fatalf("org delete twice: %d %s", r.Status, r.Body)
		}
		if _, _, err := alice.GetRepoActionVariable("alice", "proj", "region"); err != nil {
			t.Fatalf("the repository's survives the org delete: %v", err)
		}
		if resp, err := alice.DeleteRepoActionVariable("alice", "proj", "region"); err != nil || resp.StatusCode != http.StatusNoContent {
			t.Fatalf("repo delete: %v", err)
		}
		if resp, err := alice.DeleteUserActionVariable("zone"); err != nil || resp.StatusCode != http.StatusNoContent {
			t.Fatalf("user delete: %v", err)
		}
	})
}

// TestRunnerRegistrationTokens: each level has its own token, the same on
// every GET and POST (the SDK's calls and raw HTTP, the global one at
// both paths), sealed in the database.
func TestRunnerRegistrationTokens(t *testing.T) {
	t.Parallel()
	eachBackend(t, nil, func(t *testing.T, s *testServer) {
		aliceTok := s.seedUser("alice", "alice-password", false)
		alice := s.sdk(gitea.SetToken(aliceTok))
		root := s.sdk(gitea.SetToken(s.AdminToken))
		if _, _, err := alice.CreateOrg(gitea.CreateOrgOption{Name: "acme"}); err != nil {
			t.Fatal(err)
		}
		s.createRepo(t, aliceTok, "proj", false, false)

		get := func(tok, path string) string {
			t.Helper()
			var out struct{ Token string }
			r := s.do("GET", path, "", "Authorization", "token "+tok)
			if r.Status != 200 {
				t.Fatalf("GET %s: %d %s", path, r.Status, r.Body)
			}
			r.json(t, &out)
			if len(out.Token) < 32 {
				t.Fatalf("GET %s: token %q", path, out.Token)
			}
			return out.Token
		}
		tokens := map[string]string{}
		rt, _, err := alice.CreateRepoActionRunnerRegistrationToken("alice", "proj")
		if err != nil {
			t.Fatal(err)
		}
		tokens["repo"] = rt.Token
		if got := get(aliceTok, "/api/v1/repos/alice/proj/actions/runners/registration-token"); got != rt.Token {
			t.Fatalf("repo GET after POST: %s != %s", got, rt.Token)
		}
		tokens["org"] = get(aliceTok, "/api/v1/orgs/acme/actions/runners/registration-token")
		ot, _, err := alice.CreateOrgActionRunnerRegistrationToken("acme")
		if err != nil || ot.Token != tokens["org"] {
			t.Fatalf("org POST after GET: %+v %v", ot, err)
		}
		ut, _, err := alice.CreateUserActionRunnerRegistrationToken()
		if err != nil {
			t.Fatal(err)
		}
		tokens["user"] = ut.Token
		if again, _, _ := alice.CreateUserActionRunnerRegistrationToken(); again == nil || again.Token != ut.Token {
			t.Fatalf("user POST twice: %+v", again)
		}
		gt, _, err := root.CreateAdminActionRunnerRegistrationToken()
		if err != nil {
			t.Fatal(err)
		}
		tokens["global"] = gt.Token
		for _, path := range []string{"/api/v1/admin/runners/registration-token", "/api/v1/admin/actions/runners/registration-token"} {
			if got := get(s.AdminToken, path); got != gt.Token {
				t.Fatalf("GET %s: %s != %s", path, got, gt.Token)
			}
		}
		r := s.do("POST", "/api/v1/admin/runners/registration-token", "", "Authorization", "token "+s.AdminToken)
		if r.Status != 200 || !bytes.Contains(r.Body, []byte(gt.Token)) {
			t.Fatalf("POST old admin path: %d %s", r.Status, r.Body)
		}
		seen := map[string]string{}
		for level, tok := range tokens {
			if other, dup := seen[tok]; dup {
				t.Fatalf("%s and %s share a token", level, other)
			}
			seen[tok] = level
		}
		var stored [][]byte
		if err := s.App.Store.DB().Table("action_runner_tokens").Pluck("token", &stored).Error; err != nil || len(stored) != 4 {
			t.Fatalf("stored: %d %v", len(stored), err)
		}
		for _, b := range stored {
			for _, tok := range tokens {
				if bytes.Contains(b, []byte(tok)) {
					t.Fatal("a runner token is stored in clear")
				}
			}
		}
	})
}
