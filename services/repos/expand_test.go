package repos

import "testing"

// TestTemplateExpansion: variables in content keep their values; in paths
// each value has what a file name may not hold replaced by "_" (so a
// description cannot add directories or climb out); globs are gobwas's
// with '/' separating components.
func TestTemplateExpansion(t *testing.T) {
	v := newTemplateVars("Alice", "go-sdk", "", RepoLinks{}, "bob", "my repo", "a/../b: c", RepoLinks{Link: "/bob/my repo"})
	for _, c := range []struct {
		in, want string
		path     bool
	}{
		{"$REPO_DESCRIPTION", "a/../b: c", false},
		{"x/$REPO_DESCRIPTION.md", "x/a___b_ c.md", true},
		{"${TEMPLATE_NAME_PASCAL}|${TEMPLATE_NAME_CAMEL}|${TEMPLATE_NAME_SNAKE}|${TEMPLATE_NAME_TITLE}|${TEMPLATE_OWNER_LOWER}", "GoSdk|goSdk|go_sdk|Go-Sdk|alice", false},
		{"${REPO_NAME_SNAKE} ${REPO_NAME_KEBAB} $REPO_LINK", "my_repo my-repo /bob/my repo", false},
		{"$$REPO_NAME ${NOPE} $", "$REPO_NAME NOPE $", false},
	} {
		if got := v.expand(c.in, c.path); got != c.want {
			t.Errorf("expand(%q, %v) = %q, want %q", c.in, c.path, got, c.want)
		}
	}
	match := templateMatcher([]byte("# c\n*.md\n\ndir/**\n**.[gG][oO]\n"))
	for p, want := range map[string]bool{"README.md": true, "docs/a.md": false, "dir/a/b.txt": true, "x/y/main.GO": true, "dir": false, "main.c": false} {
		if got := match(p); got != want {
			t.Errorf("match(%q) = %v", p, got)
		}
	}
	if templateMatcher([]byte("# only comments\n\n")) != nil {
		t.Error("rules without globs match")
	}
}
