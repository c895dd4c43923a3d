package protection

import (
	"context"
	"regexp"
	"sort"
	"strings"
	"sync"

	"forge/services/errs"
	"forge/services/store"
)

// RulesStore reads the branch protection rules of a repository.
type RulesStore interface {
	BranchProtections(ctx context.Context, repoID int64) ([]store.BranchProtection, error)
}

// LoadRules returns the rules of repository repoID in matching order
// (Order): the one way every check reads them.
func LoadRules(ctx context.Context, st RulesStore, repoID int64) ([]store.BranchProtection, error) {
	rules, err := st.BranchProtections(ctx, repoID)
	if err != nil {
		return nil, errs.Wrap(err, "branch protections")
	}
	Order(rules)
	return rules, nil
}

// RuleFor returns the rule protecting branch of repository repoID, nil
// when none does.
func RuleFor(ctx context.Context, st RulesStore, repoID int64, branch string) (*store.BranchProtection, error) {
	rules, err := LoadRules(ctx, st, repoID)
	if err != nil {
		return nil, err
	}
	return Match(rules, branch), nil
}

// IsGlob reports whether a rule name is a pattern rather than a branch
// name (store.IsGlobRuleName).
func IsGlob(name string) bool { return store.IsGlobRuleName(name) }

// Order sorts rules the way they match a branch: plain names first, then
// globs, each in creation order.
func Order(rules []store.BranchProtection) {
	sort.SliceStable(rules, func(i, j int) bool {
		gi, gj := IsGlob(rules[i].RuleName), IsGlob(rules[j].RuleName)
		if gi != gj {
			return !gi
		}
		return rules[i].ID < rules[j].ID
	})
}

// Match returns the first rule of ordered rules (see Order) that names
// branch, nil when none does. Plain names match case-insensitively;
// globs use / as a separator that only ** crosses.
func Match(rules []store.BranchProtection, branch string) *store.BranchProtection {
	for i := range rules {
		if RuleMatches(rules[i].RuleName, branch) {
			return &rules[i]
		}
	}
	return nil
}

// RuleMatches reports whether rule names branch.
func RuleMatches(rule, branch string) bool {
	if !IsGlob(rule) {
		return strings.EqualFold(rule, branch)
	}
	re := compileGlob(rule, "/")
	return re != nil && re.MatchString(branch)
}

// GlobMatches reports whether s matches pattern with no separator (*
// crosses /), as status check contexts are matched.
func GlobMatches(pattern, s string) bool {
	re := compileGlob(pattern, "")
	return re != nil && re.MatchString(s)
}

type globKey struct {
	pattern string
	seps    string
}

// globs caches compiled patterns: the same few rules are matched on every
// push and merge. A malformed pattern is cached as nil (matches nothing).
var globs sync.Map

// maxCachedGlobs bounds the cache; past it patterns are compiled anew.
const maxCachedGlobs = 10000

var globCount int64
var globMu sync.Mutex

func compileGlob(pattern string, seps string) *regexp.Regexp {
	k := globKey{pattern, seps}
	if v, ok := globs.Load(k); ok {
		return v.(*regexp.Regexp)
	}
	re, _ := regexp.Compile(globRegexp(pattern, seps))
	globMu.Lock()
	if globCount < maxCachedGlobs {
		globCount++
		globs.Store(k, re)
	}
	globMu.Unlock()
	return re
}

// globRegexp translates a glob: * any run without a separator (anything
// when seps is empty), ** anything, ? one character but a separator,
// [...] and [!...] classes, {a,b} alternatives, \x the character x.
func globRegexp(p string, seps string) string {
	notSep := "."
	if seps != "" {
		notSep = "[^" + regexp.QuoteMeta(seps) + "]"
	}
	var b strings.Builder
	b.WriteString("^")
	rs := []rune(p)
	depth := 0
	for i := 0; i < len(rs); i++ {
		c := rs[i]
		switch c {
		case '*':
			if i+1 < len(rs) && rs[i+1] == '*' {
				b.WriteString(".*")
				i++
			} else {
				b.WriteString(notSep + "*")
			}
		case '?':
			b.WriteString(notSep)
		case '\\':
			if i+1 < len(rs) {
				i++
				b.WriteString(regexp.QuoteMeta(string(rs[i])))
			} else {
				b.WriteString(`\\`)
			}
		case '[':
			j := i + 1
			for j < len(rs) && rs[j] != ']' {
				j++
			}
			if j >= len(rs) {
				b.WriteString(`\[`)
				continue
			}
			class := string(rs[i+1 : j])
			if strings.HasPrefix(class, "!") {
				class = "^" + class[1:]
			}
			b.WriteString("[" + strings.ReplaceAll(class, `\`, `\\`) + "]")
			i = j
		case '{':
			depth++
			b.WriteString("(?:")
		case '}':
			if depth > 0 {
				depth--
				b.WriteString(")")
			} else {
				b.WriteString(`\}`)
			}
		case ',':
			if depth > 0 {
				b.WriteString("|")
			} else {
				b.WriteString(",")
			}
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	for ; depth > 0; depth-- {
		b.WriteString(")")
	}
	b.WriteString("$")
	return b.String()
}

// FilePatterns splits a rule's ;-separated file globs (lower-cased, as
// paths are compared case-insensitively).
func FilePatterns(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ";") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, strings.ToLower(p))
		}
	}
	return out
}

// matchAny returns the first path matching one of the patterns ("" when
// none does).
func matchAny(patterns, paths []string) string {
	for _, f := range paths {
		lf := strings.ToLower(f)
		for _, p := range patterns {
			// As Gitea: / and . separate, so *.lock is a name at the root.
			if re := compileGlob(p, "./"); re != nil && re.MatchString(lf) {
				return f
			}
		}
	}
	return ""
}

// allMatch reports whether every path matches one of the patterns.
func allMatch(patterns, paths []string) bool {
	if len(paths) == 0 || len(patterns) == 0 {
		return false
	}
	for _, f := range paths {
		if matchAny(patterns, []string{f}) == "" {
			return false
		}
	}
	return true
}

// ValidGlob reports whether pattern is a well-formed glob for
// GlobMatches: every [ class and { group closed, and a class that compiles
// (a webhook's branch filter is checked with it when set).
func ValidGlob(pattern string) bool {
	depth := 0
	rs := []rune(pattern)
	for i := 0; i < len(rs); i++ {
		switch rs[i] {
		case '\\':
			i++
		case '[':
			j := i + 1
			for j < len(rs) && rs[j] != ']' {
				j++
			}
			if j >= len(rs) {
				return false
			}
			i = j
		case '{':
			depth++
		case '}':
			if depth == 0 {
				return false
			}
			depth--
		}
	}
	if depth != 0 {
		return false
	}
	_, err := regexp.Compile(globRegexp(pattern, ""))
	return err == nil
}
