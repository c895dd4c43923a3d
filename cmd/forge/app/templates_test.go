package app_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"code.gitea.io/sdk/gitea"

	"forge/services/templates"
)

// readClone is a file of a work tree; it fails the test when missing.
func readClone(t *testing.T, dir, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// vendored is a template's text as vendored (services/templates/data).
func vendored(t *testing.T, kind, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "..", "services", "templates", "data", kind, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestRepoCreateWithTemplatesSDK: a repository created through the SDK
// with gitignores, license, readme and issue_labels has them: the clone's
// README.md is "# name\n\ndescription", its .gitignore the vendored
// templates each under "# ---> name", its LICENSE the vendored MIT text
// with the year and owner filled in, and the label set's labels exist; the
// same through POST /orgs/{org}/repos; issue_labels alone (no auto_init)
// makes the labels of an empty repository; an unknown name of any kind is
// 422 and nothing is created.
func TestRepoCreateWithTemplatesSDK(t *testing.T) {
	t.Parallel()
	eachBackend(t, nil, func(t *testing.T, s *testServer) {
		tok := s.seedUser("alice", "alice-password", false)
		alice := s.sdk(gitea.SetToken(tok))
		repo, resp, err := alice.CreateRepo(gitea.CreateRepoOption{Name: "proj", Description: "A demo.", AutoInit: true,
			Gitignores: "Go,macOS", License: "MIT", Readme: "Default", IssueLabels: "Advanced"})
		if err != nil || resp.StatusCode != 201 || repo.Empty {
			t.Fatalf("CreateRepo: %+v %v", repo, err)
		}
		dir := s.clone(t, "alice", "alice-password", "alice", "proj")
		if got := readClone(t, dir, "README.md"); got != "# proj\n\nA demo." {
			t.Errorf("README.md = %q", got)
		}
		wantIgnore := "# ---> Go\n" + vendored(t, "gitignore", "Go") + "\n# ---> macOS\n" + vendored(t, "gitignore", "macOS") + "\n"
		if got := readClone(t, dir, ".gitignore"); got != wantIgnore {
			t.Errorf(".gitignore differs from the vendored templates:\n%q\nwant\n%q", got, wantIgnore)
		}
		mit := vendored(t, "license", "MIT")
		year := time.Now().Format("2006")
		wantLicense := strings.Replace(strings.Replace(mit, "<year>", year, 1), "<copyright holders>", "alice", 1)
		if !strings.HasSuffix(wantLicense, "\n") {
			wantLicense += "\n"
		}
		if got := readClone(t, dir, "LICENSE"); got != wantLicense {
			t.Errorf("LICENSE:\n%q\nwant\n%q", got, wantLicense)
		}
		if !strings.Contains(wantLicense, "Copyright (c) "+year+" alice\n") {
			t.Errorf("the MIT text has no placeholders filled: %.80q", wantLicense)
		}
		if log := gitCmd(t, dir, "log", "--format=%s|%an", "main"); log != "Initial commit|alice\n" {
			t.Errorf("history: %q", log)
		}
		labels, _, err := alice.ListRepoLabels("alice", "proj", gitea.ListLabelsOptions{ListOptions: gitea.ListOptions{PageSize: 50}})
		set, _ := templates.LabelSet("Advanced")
		if err != nil || len(labels) != len(set) {
			t.Fatalf("labels: %d %v, want %d", len(labels), err, len(set))
		}
		byName := map[string]*gitea.Label{}
		for _, l := range labels {
			byName[l.Name] = l
		}
		for _, l := range set {
			got := byName[l.Name]
			if got == nil || got.Color != l.Color || got.Description != l.Description || got.Exclusive != l.Exclusive {
				t.Errorf("label %s: %+v, want %+v", l.Name, got, l)
			}
		}

		// POST /orgs/{org}/repos takes the same options.
		if _, _, err := alice.CreateOrg(gitea.CreateOrgOption{Name: "acme"}); err != nil {
			t.Fatal(err)
		}
		if _, resp, err := alice.CreateOrgRepo("acme", gitea.CreateRepoOption{Name: "lib", AutoInit: true, License: "Apache-2.0",
			Gitignores: "Rust", IssueLabels: "Default"}); err != nil || resp.StatusCode != 201 {
			t.Fatalf("CreateOrgRepo: %v", err)
		}
		org := s.clone(t, "alice", "alice-password", "acme", "lib")
		if got := readClone(t, org, "README.md"); got != "# lib\n\n" {
			t.Errorf("README.md without description = %q", got)
		}
		if got := readClone(t, org, ".gitignore"); got != "# ---> Rust\n"+vendored(t, "gitignore", "Rust")+"\n" {
			t.Errorf(".gitignore = %q", got)
		}
		if got := readClone(t, org, "LICENSE"); !strings.HasPrefix(got, "Apache License\n") && !strings.Contains(got, "Apache License") {
			t.Errorf("LICENSE = %.60q", got)
		}
		if l, _, err := alice.ListRepoLabels("acme", "lib", gitea.ListLabelsOptions{}); err != nil || len(l) != 7 {
			t.Errorf("Default labels: %d %v", len(l), err)
		}

		// issue_labels without auto_init: labels, no commit.
		bare, _, err := alice.CreateRepo(gitea.CreateRepoOption{Name: "bare", IssueLabels: "Default"})
		if err != nil || !bare.Empty {
			t.Fatalf("CreateRepo(bare): %+v %v", bare, err)
		}
		if l, _, err := alice.ListRepoLabels("alice", "bare", gitea.ListLabelsOptions{}); err != nil || len(l) != 7 || l[0].Name != "bug" || l[0].Color != "ee0701" {
			t.Errorf("labels of the empty repository: %+v %v", l, err)
		}

		// An unknown name is refused before anything exists.
		for _, opt := range []gitea.CreateRepoOption{
			{Name: "bad", AutoInit: true, License: "NOPE-1.0"},
			{Name: "bad", AutoInit: true, Gitignores: "Go,Nope"},
			{Name: "bad", AutoInit: true, Readme: "Fancy"},
			{Name: "bad", AutoInit: true, IssueLabels: "Nope"},
			{Name: "bad", License: "../../etc/passwd"},
			{Name: "bad", IssueLabels: "Nope"},
		} {
			_, resp, err := alice.CreateRepo(opt)
			if err == nil || resp == nil || resp.StatusCode != 422 {
				t.Errorf("CreateRepo(%+v): %v, want 422", opt, err)
			}
			if _, resp, _ := alice.GetRepo("alice", "bad"); resp == nil || resp.StatusCode != 404 {
				t.Fatalf("a refused create left a repository")
			}
			if _, err := os.Stat(s.repoDir("alice", "bad")); !os.IsNotExist(err) {
				t.Fatalf("a refused create left files: %v", err)
			}
		}
	})
}

// TestTemplateEndpoints: the template lists and entries as Gitea serves
// them (raw JSON and through the SDK), the texts byte for byte the
// vendored ones, and 404 for an unknown name.
func TestTemplateEndpoints(t *testing.T) {
	t.Parallel()
	eachBackend(t, nil, func(t *testing.T, s *testServer) {
		r := s.do("GET", "/api/v1/licenses", "")
		expectStatus(t, r, 200)
		var list []map[string]any
		r.json(t, &list)
		if len(list) < 500 || list[0]["key"] != "Apache-2.0" || list[1]["name"] != "MIT" ||
			list[1]["url"] != s.URL+"/"+"api/v1/licenses/MIT" || len(list[0]) != 3 {
			t.Fatalf("licenses: %d %v", len(list), list[:2])
		}
		r = s.do("GET", "/api/v1/licenses/MIT", "")
		expectStatus(t, r, 200)
		var lic map[string]any
		r.json(t, &lic)
		if lic["key"] != "MIT" || lic["name"] != "MIT" || lic["body"] != vendored(t, "license", "MIT") ||
			!strings.HasPrefix(lic["implementation"].(string), "Create a text file") || lic["url"] != s.URL+"/"+"api/v1/licenses/MIT" {
			t.Errorf("license MIT: %v", lic)
		}
		r = s.do("GET", "/api/v1/gitignore/templates", "")
		expectStatus(t, r, 200)
		var names []string
		r.json(t, &names)
		if len(names) < 100 || !slices.Contains(names, "Go") || !slices.Contains(names, "macOS") {
			t.Errorf("gitignore templates: %v", names)
		}
		r = s.do("GET", "/api/v1/gitignore/templates/Go", "")
		expectStatus(t, r, 200)
		if want, _ := json.Marshal(map[string]string{"name": "Go", "source": vendored(t, "gitignore", "Go")}); strings.TrimSpace(string(r.Body)) != string(want) {
			t.Errorf("gitignore Go: %s", r.Body)
		}
		r = s.do("GET", "/api/v1/label/templates", "")
		expectStatus(t, r, 200)
		if strings.TrimSpace(string(r.Body)) != `["Advanced","Default"]` {
			t.Errorf("label templates: %s", r.Body)
		}
		r = s.do("GET", "/api/v1/label/templates/Default", "")
		expectStatus(t, r, 200)
		if !strings.HasPrefix(string(r.Body), `[{"name":"bug","exclusive":false,"color":"ee0701","description":"Something is not working"},`) {
			t.Errorf("label set Default: %s", r.Body)
		}
		for _, p := range []string{"/api/v1/licenses/Nope", "/api/v1/licenses/..%2Fgitignore%2FGo", "/api/v1/gitignore/templates/Nope",
			"/api/v1/label/templates/Nope", "/api/v1/label/templates/default"} {
			expectStatus(t, s.do("GET", p, ""), 404)
		}

		c := s.sdk()
		if l, _, err := c.ListLicenseTemplates(); err != nil || len(l) != len(list) || l[1].Key != "MIT" {
			t.Errorf("SDK ListLicenseTemplates: %d %v", len(l), err)
		}
		if info, _, err := c.GetLicenseTemplateInfo("GPL-3.0-only"); err != nil || info.Body != vendored(t, "license", "GPL-3.0-only") {
			t.Errorf("SDK GetLicenseTemplateInfo: %v", err)
		}
		if g, _, err := c.GetGitignoreTemplateInfo("Python"); err != nil || g.Name != "Python" || g.Source != vendored(t, "gitignore", "Python") {
			t.Errorf("SDK GetGitignoreTemplateInfo: %v", err)
		}
		if l, _, err := c.GetLabelTemplate("Advanced"); err != nil || len(l) != 18 || l[0].Name != "Kind/Bug" || l[0].Exclusive || !l[7].Exclusive {
			t.Errorf("SDK GetLabelTemplate: %+v %v", l, err)
		}
	})
}

// TestGenerateRepoSDK: a repository generated from a template through the
// SDK has one commit with the template's tree (modes and directories
// kept) and none of its history, the template's topics and labels, and,
// for the template's administrator, its webhooks and branch protections;
// the template is left as it was. Refused: a repository that is not a
// template (422), no item chosen (422), webhooks by a reader (403), another user as
// owner (403), an organization the caller may not create in (403), an
// unknown owner (404), a template the caller cannot see (404).
func TestGenerateRepoSDK(t *testing.T) {
	t.Parallel()
	eachBackend(t, nil, func(t *testing.T, s *testServer) {
		aliceTok := s.seedUser("alice", "alice-password", false)
		bobTok := s.seedUser("bob", "bob-password", false)
		alice := s.sdk(gitea.SetToken(aliceTok))
		bob := s.sdk(gitea.SetToken(bobTok))
		if _, _, err := alice.CreateRepo(gitea.CreateRepoOption{Name: "tmpl", AutoInit: true, Template: true, IssueLabels: "Default"}); err != nil {
			t.Fatal(err)
		}
		work := s.clone(t, "alice", "alice-password", "alice", "tmpl")
		commitFile(t, work, "cmd/main.go", "package main\n", "add main")
		commitFile(t, work, "run.sh", "#!/bin/sh\necho hi\n", "add script")
		gitCmd(t, work, "update-index", "--chmod=+x", "run.sh")
		gitCmd(t, work, "commit", "-q", "-m", "executable")
		gitCmd(t, work, "push", "-q", "origin", "main")
		tree := strings.TrimSpace(gitCmd(t, work, "rev-parse", "HEAD^{tree}"))
		if _, err := alice.SetRepoTopics("alice", "tmpl", []string{"go", "starter"}); err != nil {
			t.Fatal(err)
		}

		gen, resp, err := bob.CreateRepoFromTemplate("alice", "tmpl", gitea.CreateRepoFromTemplateOption{Owner: "bob", Name: "mine",
			Description: "from a template", GitContent: true, Topics: true, Labels: true})
		if err != nil || resp.StatusCode != 201 || gen.FullName != "bob/mine" || gen.Template || gen.Empty || gen.Description != "from a template" {
			t.Fatalf("CreateRepoFromTemplate: %+v %v", gen, err)
		}
		clone := s.clone(t, "bob", "bob-password", "bob", "mine")
		if got := strings.TrimSpace(gitCmd(t, clone, "rev-parse", "HEAD^{tree}")); got != tree {
			t.Errorf("generated tree %s, template's %s", got, tree)
		}
		if log := gitCmd(t, clone, "log", "--format=%s|%an|%P", "main"); log != "Initial commit|bob|\n" {
			t.Errorf("generated history: %q", log)
		}
		gitCmd(t, clone, "fsck", "--strict")
		if topics, _, err := bob.ListRepoTopics("bob", "mine", gitea.ListRepoTopicsOptions{}); err != nil || strings.Join(topics, ",") != "go,starter" {
			t.Errorf("topics: %v %v", topics, err)
		}
		if l, _, err := bob.ListRepoLabels("bob", "mine", gitea.ListLabelsOptions{}); err != nil || len(l) != 7 {
			t.Errorf("labels: %d %v", len(l), err)
		}
		if l, _, err := alice.ListRepoLabels("alice", "tmpl", gitea.ListLabelsOptions{}); err != nil || len(l) != 7 {
			t.Errorf("the template's labels: %d %v", len(l), err)
		}

		// Labels only: an empty repository.
		empty, resp, err := bob.CreateRepoFromTemplate("alice", "tmpl", gitea.CreateRepoFromTemplateOption{Owner: "bob", Name: "labels", Labels: true})
		if err != nil || resp.StatusCode != 201 || !empty.Empty {
			t.Fatalf("labels only: %+v %v", empty, err)
		}

		// Refusals.
		s.createRepo(t, aliceTok, "plain", true, false)
		s.createRepo(t, aliceTok, "secret", true, true)
		if _, _, err := alice.EditRepo("alice", "secret", gitea.EditRepoOption{Template: gitea.OptionalBool(true)}); err != nil {
			t.Fatal(err)
		}
		if _, _, err := alice.CreateOrg(gitea.CreateOrgOption{Name: "acme"}); err != nil {
			t.Fatal(err)
		}
		for _, tc := range []struct {
			tmpl string
			opt  gitea.CreateRepoFromTemplateOption
			want int
		}{
			{"plain", gitea.CreateRepoFromTemplateOption{Owner: "bob", Name: "x", GitContent: true}, 422},
			{"tmpl", gitea.CreateRepoFromTemplateOption{Owner: "bob", Name: "x"}, 422},
			{"tmpl", gitea.CreateRepoFromTemplateOption{Owner: "bob", Name: "x", Webhooks: true}, 403},
			{"tmpl", gitea.CreateRepoFromTemplateOption{Owner: "alice", Name: "x", GitContent: true}, 403},
			{"tmpl", gitea.CreateRepoFromTemplateOption{Owner: "acme", Name: "x", GitContent: true}, 403},
			{"tmpl", gitea.CreateRepoFromTemplateOption{Owner: "nobody", Name: "x", GitContent: true}, 404},
			{"secret", gitea.CreateRepoFromTemplateOption{Owner: "bob", Name: "x", GitContent: true}, 404},
			{"tmpl", gitea.CreateRepoFromTemplateOption{Owner: "bob", Name: "mine", GitContent: true}, 409},
		} {
			_, resp, err := bob.CreateRepoFromTemplate("alice", tc.tmpl, tc.opt)
			if err == nil || resp == nil || resp.StatusCode != tc.want {
				t.Errorf("generate from %s %+v: %v, want %d", tc.tmpl, tc.opt, err, tc.want)
			}
		}
		if _, resp, _ := bob.GetRepo("bob", "x"); resp == nil || resp.StatusCode != 404 {
			t.Errorf("a refused generate left a repository")
		}
		// The owner of the organization may generate into it; the
		// template's administrator may copy its webhooks and branch
		// protections.
		if _, _, err := alice.CreateRepoHook("alice", "tmpl", gitea.CreateHookOption{Type: gitea.HookTypeGitea, Active: true,
			Events: []string{"push"}, Config: map[string]string{"url": "http://hooks.example/x", "content_type": "json", "secret": "s3"}}); err != nil {
			t.Fatal(err)
		}
		if _, _, err := alice.CreateBranchProtection("alice", "tmpl", gitea.CreateBranchProtectionOption{RuleName: "main",
			RequiredApprovals: 2}); err != nil {
			t.Fatal(err)
		}
		if _, resp, err := alice.CreateRepoFromTemplate("alice", "tmpl", gitea.CreateRepoFromTemplateOption{Owner: "acme", Name: "x",
			GitContent: true, Private: true, Webhooks: true}); err != nil || resp.StatusCode != 201 {
			t.Errorf("generate into an organization: %v", err)
		}
		hooks, _, err := alice.ListRepoHooks("acme", "x", gitea.ListHooksOptions{})
		if err != nil || len(hooks) != 1 || hooks[0].Config["url"] != "http://hooks.example/x" || !hooks[0].Active {
			t.Errorf("copied hooks: %+v %v", hooks, err)
		}
		if p, _, err := alice.ListBranchProtections("acme", "x", gitea.ListBranchProtectionsOptions{}); err != nil || len(p) != 0 {
			t.Errorf("protections copied without protected_branch: %+v %v", p, err)
		}
		raw := s.do("POST", "/api/v1/repos/alice/tmpl/generate", `{"owner":"acme","name":"y","protected_branch":true}`,
			"Authorization", "token "+aliceTok, "Content-Type", jsonCT)
		expectStatus(t, raw, 201)
		if p, _, err := alice.ListBranchProtections("acme", "y", gitea.ListBranchProtectionsOptions{}); err != nil || len(p) != 1 ||
			p[0].RuleName != "main" || p[0].RequiredApprovals != 2 {
			t.Errorf("copied protections: %+v %v", p, err)
		}
		if h, _, err := alice.ListRepoHooks("acme", "y", gitea.ListHooksOptions{}); err != nil || len(h) != 0 {
			t.Errorf("hooks copied without webhooks: %+v %v", h, err)
		}
	})
}

// TestGenerateRepoExpandsTemplate: the files a template's .gitea/template
// names (globs: "*.md" stays at the root, "dir/**" takes a directory's
// tree) have their variables expanded, in content and in path, in the
// generated repository's one commit; other files (and matched binary
// ones) are copied as they are, modes kept, and .gitea/template is left
// out. As seen by a real git clone.
func TestGenerateRepoExpandsTemplate(t *testing.T) {
	t.Parallel()
	eachBackend(t, nil, func(t *testing.T, s *testServer) {
		aliceTok := s.seedUser("alice", "alice-password", false)
		bobTok := s.seedUser("bob", "bob-password", false)
		alice := s.sdk(gitea.SetToken(aliceTok))
		bob := s.sdk(gitea.SetToken(bobTok))
		if _, _, err := alice.CreateRepo(gitea.CreateRepoOption{Name: "tmpl", AutoInit: true, Template: true, Description: "A template"}); err != nil {
			t.Fatal(err)
		}
		work := s.clone(t, "alice", "alice-password", "alice", "tmpl")
		commitFile(t, work, ".gitea/template", "# expanded files\n\n*.md\n  dir/**  \n[invalid\n", "template rules")
		readme := "# $REPO_NAME from ${TEMPLATE_NAME} by $TEMPLATE_OWNER\n" +
			"${REPO_OWNER_UPPER} ${REPO_NAME_PASCAL} ${REPO_NAME_SNAKE} ${REPO_NAME_CAMEL} ${REPO_NAME_KEBAB} ${REPO_NAME_TITLE} ${REPO_NAME_LOWER}\n" +
			"$REPO_DESCRIPTION|$TEMPLATE_DESCRIPTION\n$REPO_LINK $TEMPLATE_LINK $REPO_HTTPS_URL $TEMPLATE_HTTPS_URL\n" +
			"$$REPO_NAME $UNKNOWN ${REPO_DESCRIPTION_SNAKE} costs $5\n"
		commitFile(t, work, "README.md", readme, "readme")
		commitFile(t, work, "dir/${REPO_NAME}.txt", "name=$REPO_NAME\n", "named file")
		commitFile(t, work, "dir/sub/run.sh", "#!/bin/sh\necho $REPO_NAME_SNAKE\n", "script")
		gitCmd(t, work, "update-index", "--chmod=+x", "dir/sub/run.sh")
		gitCmd(t, work, "commit", "-q", "-m", "executable")
		commitFile(t, work, "dir/blob.bin", "\x00\x01$REPO_NAME\n", "binary")
		commitFile(t, work, "docs/guide.md", "$REPO_NAME\n", "not at the root")
		commitFile(t, work, "main.go", "// $REPO_NAME\n", "not matched")
		gitCmd(t, work, "push", "-q", "origin", "main")

		gen, resp, err := bob.CreateRepoFromTemplate("alice", "tmpl", gitea.CreateRepoFromTemplateOption{Owner: "bob", Name: "my-app",
			Description: "My app", GitContent: true})
		if err != nil || resp.StatusCode != 201 {
			t.Fatalf("CreateRepoFromTemplate: %v", err)
		}
		tmpl, _, err := alice.GetRepo("alice", "tmpl")
		if err != nil {
			t.Fatal(err)
		}
		clone := s.clone(t, "bob", "bob-password", "bob", "my-app")
		files := strings.Fields(gitCmd(t, clone, "ls-files"))
		want := []string{"README.md", "dir/blob.bin", "dir/my-app.txt", "dir/sub/run.sh", "docs/guide.md", "main.go"}
		if !slices.Equal(files, want) {
			t.Errorf("generated files %v, want %v", files, want)
		}
		pathOf := func(u string) string {
			return u[strings.Index(u[strings.Index(u, "://")+3:], "/")+strings.Index(u, "://")+3:]
		}
		wantReadme := "# my-app from tmpl by alice\nBOB MyApp my_app myApp my-app My-App my-app\nMy app|A template\n" +
			pathOf(gen.HTMLURL) + " " + pathOf(tmpl.HTMLURL) + " " + gen.CloneURL + " " + tmpl.CloneURL + "\n" +
			"$REPO_NAME UNKNOWN REPO_DESCRIPTION_SNAKE costs 5\n"
		for name, content := range map[string]string{
			"README.md":      wantReadme,
			"dir/my-app.txt": "name=my-app\n",
			"dir/sub/run.sh": "#!/bin/sh\necho my_app\n",
			"dir/blob.bin":   "\x00\x01$REPO_NAME\n",
			"docs/guide.md":  "$REPO_NAME\n",
			"main.go":        "// $REPO_NAME\n",
		} {
			if got := readClone(t, clone, name); got != content {
				t.Errorf("%s: %q, want %q", name, got, content)
			}
		}
		if mode := strings.Fields(gitCmd(t, clone, "ls-files", "-s", "dir/sub/run.sh"))[0]; mode != "100755" {
			t.Errorf("run.sh mode %s", mode)
		}
		if log := gitCmd(t, clone, "log", "--format=%s|%an|%P", "main"); log != "Initial commit|bob|\n" {
			t.Errorf("generated history: %q", log)
		}
		gitCmd(t, clone, "fsck", "--strict")
		// The template is as it was.
		again := s.clone(t, "alice", "alice-password", "alice", "tmpl")
		if got := readClone(t, again, "README.md"); got != readme {
			t.Errorf("template README changed: %q", got)
		}
		if got := readClone(t, again, ".gitea/template"); !strings.Contains(got, "dir/**") {
			t.Errorf("template rules changed: %q", got)
		}

		// A path that expands onto a directory: 422, nothing made.
		commitFile(t, again, "dir/$REPO_NAME", "x\n", "collides for a repository named sub")
		gitCmd(t, again, "push", "-q", "origin", "main")
		r := s.do("POST", "/api/v1/repos/alice/tmpl/generate", `{"owner":"bob","name":"sub","git_content":true}`,
			"Authorization", "token "+bobTok, "Content-Type", jsonCT)
		expectStatus(t, r, 422)
		if m := r.message(t); m != "the template's expanded file paths collide" {
			t.Errorf("collision: %q", m)
		}
		if _, resp, _ := bob.GetRepo("bob", "sub"); resp == nil || resp.StatusCode != 404 {
			t.Errorf("a refused generate left a repository")
		}
	})
}
