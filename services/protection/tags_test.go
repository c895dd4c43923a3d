package protection

import "testing"

// TestTagPatternMatches: globs as Gitea's documentation shows them (no
// separator), regular expressions between slashes, and bad patterns
// matching nothing.
func TestTagPatternMatches(t *testing.T) {
	for _, c := range []struct {
		pattern, tag string
		want         bool
	}{
		{"v*", "v", true}, {"v*", "v-1", true}, {"v*", "version2", true}, {"v*", "a/v1", false},
		{"v[0-9]", "v7", true}, {"v[0-9]", "v10", false},
		{"*-release", "2.1-release", true}, {"gitea", "gitea", true}, {"gitea", "Gitea", false},
		{"*gitea*", "1_gitea-release", true}, {"{v,rel}-*", "rel-x", true}, {"{v,rel}-*", "x-1", false},
		{"*", "any/thing", true},
		{`/\Av/`, "version2", true}, {`/\Av/`, "a-v", false}, {"/^v[0-9]+$/", "v12", true}, {"/^v[0-9]+$/", "v12a", false},
		{"/(/", "(", false},
	} {
		if got := TagPatternMatches(c.pattern, c.tag); got != c.want {
			t.Errorf("TagPatternMatches(%q, %q) = %v, want %v", c.pattern, c.tag, got, c.want)
		}
	}
	if validTagPattern("/(/") || validTagPattern("v[") || !validTagPattern("/^v/") || !validTagPattern("v*") {
		t.Error("validTagPattern")
	}
}
