package protection

import (
	"context"
	"fmt"
	"testing"

	"forge/services/git"
	"forge/services/store"
)

func rules(names ...string) []store.BranchProtection {
	out := make([]store.BranchProtection, len(names))
	for i, n := range names {
		out[i] = store.BranchProtection{ID: int64(i + 1), RuleName: n, EnablePush: true}
	}
	Order(out)
	return out
}

// TestMatchOrder: plain names before globs, each in creation order;
// plain names match case-insensitively; * stops at /, ** does not.
func TestMatchOrder(t *testing.T) {
	rs := rules("release/**", "rel*", "main", "release/v1", "{dev,test}-?")
	for _, c := range []struct{ branch, want string }{
		{"main", "main"}, {"MAIN", "main"}, {"release/v1", "release/v1"}, {"release/v2/x", "release/**"},
		{"relx", "rel*"}, {"rel/x", ""}, {"dev-1", "{dev,test}-?"}, {"test-12", ""}, {"other", ""},
	} {
		got := ""
		if r := Match(rs, c.branch); r != nil {
			got = r.RuleName
		}
		if got != c.want {
			t.Errorf("Match(%q) = %q, want %q", c.branch, got, c.want)
		}
	}
	if !GlobMatches("ci/*", "ci/build/linux") || GlobMatches("ci/*", "lint") {
		t.Error("status check contexts: * crosses /")
	}
}

// TestDecide: each field of a rule refuses what it protects, in Gitea's order.
func TestDecide(t *testing.T) {
	base := store.BranchProtection{RuleName: "main", EnablePush: true, EnablePushWhitelist: true,
		PushWhitelistUserIDs: store.MakeIDList([]int64{1}), ProtectedFilePatterns: "*.lock", UnprotectedFilePatterns: "docs/**",
		RequireSignedCommits: true}
	alice, bob := Doer{ID: 1}, Doer{ID: 2}
	for _, c := range []struct {
		d    Doer
		c    Change
		want string
	}{
		{alice, Change{Branch: "main", Files: []string{"a.txt"}}, ""},
		{bob, Change{Branch: "main", Files: []string{"a.txt"}}, "Not allowed to push to protected branch main"},
		{bob, Change{Branch: "main", Files: []string{"docs/a.md"}}, ""},
		{alice, Change{Branch: "main", Delete: true}, "branch main is protected from deletion"},
		{alice, Change{Branch: "main", Force: true}, "branch main is protected from force push"},
		{alice, Change{Branch: "main", Unsigned: "abc"}, "branch main is protected from unverified commit abc"},
		{alice, Change{Branch: "main", Files: []string{"Deps.LOCK"}}, "branch main is protected from changing file Deps.LOCK"},
		{alice, Change{Branch: "main", Files: []string{"x/deps.lock"}}, ""},
	} {
		got := ""
		if r := Decide(&base, c.d, c.c); r != nil {
			got = r.Message
		}
		if got != c.want {
			t.Errorf("Decide(%+v, %+v) = %q, want %q", c.d, c.c, got, c.want)
		}
	}
	closed := base
	closed.EnablePush = false
	if r := Decide(&closed, alice, Change{Branch: "main"}); r == nil {
		t.Error("enable_push false lets the whitelist push")
	}
	// A deploy key (no user) passes a push whitelist only when the rule
	// whitelists deploy keys; a rule without a whitelist lets it push.
	deploy := Doer{DeployKey: true}
	if CanPush(&base, deploy) {
		t.Error("a push whitelist without deploy keys lets a deploy key push")
	}
	keys := base
	keys.PushWhitelistDeployKeys = true
	if !CanPush(&keys, deploy) || CanPush(&keys, bob) {
		t.Error("push_whitelist_deploy_keys: deploy keys push, the rest of the rule holds")
	}
	open := base
	open.EnablePushWhitelist = false
	if !CanPush(&open, deploy) || CanPush(&closed, Doer{DeployKey: true}) {
		t.Error("a deploy key without a whitelist: as any writer")
	}
}

type fakeGit struct{}

func (fakeGit) QuarantineIsAncestor(context.Context, *git.Quarantine, string, string) (bool, error) {
	return true, nil
}
func (fakeGit) ChangedPaths(context.Context, *git.Quarantine, string, string, int) ([]string, error) {
	return []string{"README.md", "src/main.go"}, nil
}
func (fakeGit) FirstUnsigned(context.Context, *git.Quarantine, string, string) (string, error) {
	return "", nil
}

// BenchmarkPreReceive50Rules is forge's side of the pre-receive check of a
// push of one branch to a repository with 50 rules (49 globs that do not
// match, then the branch's rule with file patterns), git's answers
// stubbed: what the rules cost on top of the git processes the check runs
// (one merge-base, one diff; see BenchmarkPush/.../rules=50 for the whole push).
func BenchmarkPreReceive50Rules(b *testing.B) {
	names := make([]string, 0, 50)
	for i := 0; i < 49; i++ {
		names = append(names, fmt.Sprintf("rule-%02d/**", i))
	}
	rs := rules(append(names, "main")...)
	rs[0].ProtectedFilePatterns = "*.lock;secret/**"
	p := &Pusher{Rules: &RepoRules{Rules: rs}, Git: fakeGit{}, UID: 1}
	q := &git.Quarantine{Updates: []git.RefUpdate{{Name: "refs/heads/main", OldSHA: "a", NewSHA: "b"}}}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, ok := p.Check(context.Background(), q); !ok {
			b.Fatal("refused")
		}
	}
}
