package git

import (
	"context"
	"errors"
	"os/exec"
	"strings"
	"testing"
)

// pathSeeds are the seed corpus of FuzzCleanWritePath.
var pathSeeds = []string{
	"", "/", "a", "a/b/c.txt", "/a/b/", "a//b", "./a", "a/../b", "a\x00b", "dir/.git/config",
	"git~1/config", ".git%20/x", ".git /x", ".git./x", ".GIT", ".git\u200c/config", ".g\u200cit", "a\\.git\\b",
	".git::$INDEX_ALLOCATION/x", ".gitignore", ".github/workflows/ci.yml", "café/naïve.txt",
	strings.Repeat("a/", MaxPathDepth-1) + "b", strings.Repeat("a/", MaxPathDepth) + "b",
	strings.Repeat("x", MaxComponentBytes), strings.Repeat("x", MaxComponentBytes+1),
	strings.Repeat("y", MaxPathBytes), strings.Repeat("y", MaxPathBytes+1), strings.Repeat("/", 5000),
}

// FuzzCleanWritePath checks the invariants every path a commit may create
// holds: clean, within the limits, no .git alias; cleaning is idempotent
// and agrees with cleanPath; a refusal is ErrInvalid with a short message.
func FuzzCleanWritePath(f *testing.F) {
	for _, s := range pathSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		q, err := cleanWritePath(p)
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("cleanWritePath(%q): %v is not ErrInvalid", p, err)
			}
			if len(err.Error()) > 400 {
				t.Fatalf("error message of %d bytes", len(err.Error()))
			}
			return
		}
		if q == "" || len(q) > MaxPathBytes || strings.HasPrefix(q, "/") || strings.HasSuffix(q, "/") || strings.IndexByte(q, 0) >= 0 {
			t.Fatalf("cleanWritePath(%q) = %q", p, q)
		}
		comps := strings.Split(q, "/")
		if len(comps) > MaxPathDepth {
			t.Fatalf("cleanWritePath(%q): %d levels", p, len(comps))
		}
		for _, c := range comps {
			if c == "" || c == "." || c == ".." || len(c) > MaxComponentBytes || strings.EqualFold(c, ".git") || isDotGitName(c) {
				t.Fatalf("cleanWritePath(%q) = %q: component %q", p, q, c)
			}
		}
		if again, err := cleanWritePath(q); err != nil || again != q {
			t.Fatalf("cleanWritePath(%q) = %q, %v: not idempotent", q, again, err)
		}
		if r, err := cleanPath(p); err != nil || r != q {
			t.Fatalf("cleanPath(%q) = %q, %v; cleanWritePath gave %q", p, r, err, q)
		}
	})
}

// refSeeds are the seed corpus of FuzzValidRefName and the names
// TestValidRefNameMatchesGit checks against git.
var refSeeds = []string{
	"main", "feature/x", "v1.0", "refs/heads/x", "é", "x@", "@x", "a-b_c", "-x", "HEAD", "@",
	"a..b", "a b", "a/.b", ".a", "a.lock", "a/b.lock/c", "a/", "/a", "a//b", "a.", "a@{b", "@{-1}",
	"a~", "a^", "a:b", "a?", "a*", "a[", "a\\b", "a\x7f", "a\x01", "\xff\xfe", "--upload-pack=touch /tmp/x",
	strings.Repeat("b", 255), strings.Repeat("b", 256),
}

// FuzzValidRefName checks that every accepted name is safe where forge
// puts it: under refs/heads/ as a clean path of non-dot components, as a
// git argument (no leading '-'), in a database column (at most 255 bytes),
// and free of the characters git's revision syntax gives meaning to.
func FuzzValidRefName(f *testing.F) {
	for _, s := range refSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		if !ValidRefName(name) {
			return
		}
		if len(name) > 255 || name[0] == '-' || name == "HEAD" || name == "@" {
			t.Fatalf("ValidRefName(%q) = true", name)
		}
		if strings.ContainsAny(name, " ~^:?*[\\\x7f") || strings.Contains(name, "..") || strings.Contains(name, "@{") {
			t.Fatalf("ValidRefName(%q) = true: special characters", name)
		}
		for i := 0; i < len(name); i++ {
			if name[i] < 0x20 {
				t.Fatalf("ValidRefName(%q) = true: control character", name)
			}
		}
		if p, err := cleanPath("refs/heads/" + name); err != nil || p != "refs/heads/"+name {
			t.Fatalf("ValidRefName(%q) = true but it is no clean path: %v", name, err)
		}
		for _, c := range strings.Split(name, "/") {
			if strings.HasPrefix(c, ".") || strings.HasSuffix(c, ".lock") {
				t.Fatalf("ValidRefName(%q) = true: component %q", name, c)
			}
		}
		if strings.HasSuffix(name, ".") {
			t.Fatalf("ValidRefName(%q) = true: trailing dot", name)
		}
	})
}

// TestValidRefNameMatchesGit compares ValidRefName with
// `git check-ref-format --branch` on the seed names. forge is stricter on
// purpose for "@" (git's shorthand for HEAD) and beyond 255 bytes.
func TestValidRefNameMatchesGit(t *testing.T) {
	if _, err := exec.LookPath(gitBinary); err != nil {
		t.Skip("git not installed")
	}
	dir := t.TempDir()
	for _, name := range refSeeds {
		cmd := exec.CommandContext(context.Background(), gitBinary, "check-ref-format", "--branch", name)
		cmd.Dir = dir
		cmd.Env = clientEnv(t)
		gitOK := cmd.Run() == nil
		forgeOK := ValidRefName(name)
		if name == "@" || len(name) > 255 {
			if forgeOK {
				t.Errorf("ValidRefName(%q) = true, want false", name)
			}
			continue
		}
		if gitOK != forgeOK {
			t.Errorf("%q: git accepts %v, ValidRefName %v", name, gitOK, forgeOK)
		}
	}
}
