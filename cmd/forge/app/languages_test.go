package app_test

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"code.gitea.io/sdk/gitea"
)

// A multi-language repository pushed with git: GET /languages counts the
// bytes of each language on the default branch as Gitea does (the SDK's
// GetRepoLanguages), leaving out vendored code, documentation, dotfiles
// and data, and following .gitattributes; an empty repository has none.
func TestLanguages(t *testing.T) {
	t.Parallel()
	eachBackend(t, nil, func(t *testing.T, s *testServer) {
		const pw = "alice-password"
		aliceTok := s.seedUser("alice", pw, false)
		alice := s.sdk(gitea.SetToken(aliceTok))
		s.createRepo(t, aliceTok, "empty", false, false)
		if got, _, err := alice.GetRepoLanguages("alice", "empty"); err != nil || len(got) != 0 {
			t.Fatalf("empty repository: %v %v", got, err)
		}
		r := s.do("GET", "/api/v1/repos/alice/empty/languages", "", "Authorization", "token "+aliceTok)
		if r.Status != 200 || strings.TrimSpace(string(r.Body)) != "{}" {
			t.Fatalf("empty repository body: %d %s", r.Status, r.Body)
		}

		s.createRepo(t, aliceTok, "poly", false, false)
		work := s.clone(t, "alice", pw, "alice", "poly")
		gitCmd(t, work, "checkout", "-q", "-b", "main")
		files := map[string]string{
			"main.go":             "package main\n\nfunc main() { println(\"hi\") }\n",
			"internal/util/u.go":  "package util\n\n// U does nothing.\nfunc U() {}\n",
			"tools/gen.py":        "import sys\n\nprint(sys.argv)\n",
			"web/app.js":          "function f(a) { return a + 1; }\nconsole.log(f(1));\n",
			"web/site.css":        "body { margin: 0; }\n",
			"legacy/page.inc":     "<?php echo 'x'; ?>\n",
			"README.md":           "# poly\n",
			"docs/example.py":     "print(1)\n",
			"vendor/dep/dep.go":   "package dep\n",
			"node_modules/x/x.js": "module.exports = 1;\n",
			".eslintrc.js":        "module.exports = {};\n",
			"config.json":         "{\"a\": 1}\n",
			"third/lib.go":        "package third\n",
			".gitattributes":      "*.inc linguist-language=PHP\nthird/** linguist-vendored\n",
		}
		// What Gitea counts, by extension, from the files themselves.
		byExt := map[string]string{".go": "Go", ".py": "Python", ".js": "JavaScript", ".css": "CSS", ".inc": "PHP"}
		skipped := map[string]bool{"README.md": true, "docs/example.py": true, "vendor/dep/dep.go": true,
			"node_modules/x/x.js": true, ".eslintrc.js": true, "config.json": true, "third/lib.go": true, ".gitattributes": true}
		want := map[string]int64{}
		for name, content := range files {
			p := filepath.Join(work, name)
			os.MkdirAll(filepath.Dir(p), 0o755)
			if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
			if !skipped[name] {
				want[byExt[filepath.Ext(name)]] += int64(len(content))
			}
		}
		gitCmd(t, work, "add", "-A")
		gitCmd(t, work, "commit", "-q", "-m", "many languages")
		gitCmd(t, work, "push", "-q", "origin", "main")

		got, _, err := alice.GetRepoLanguages("alice", "poly")
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("languages %v (%v), want %v", got, err, want)
		}
		// A push changes the answer (a new commit id), and a stranger
		// cannot see a private repository's languages.
		commitFile(t, work, "more.go", "package main\n", "more")
		gitCmd(t, work, "push", "-q", "origin", "main")
		want["Go"] += int64(len("package main\n"))
		if got, _, err = alice.GetRepoLanguages("alice", "poly"); err != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("after push %v (%v), want %v", got, err, want)
		}
		s.createRepo(t, aliceTok, "secret", true, true)
		expectStatus(t, s.do("GET", "/api/v1/repos/alice/secret/languages", ""), 404)
	})
}
