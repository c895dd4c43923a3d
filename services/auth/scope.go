package auth

import (
	"fmt"
	"strings"
)

// Category is a token scope category (Gitea's names).
type Category int

const (
	CategoryActivityPub Category = iota
	CategoryAdmin
	CategoryMisc
	CategoryNotification
	CategoryOrganization
	CategoryPackage
	CategoryIssue
	CategoryRepository
	CategoryUser
	numCategories
)

var categoryNames = [numCategories]string{
	"activitypub", "admin", "misc", "notification", "organization", "package", "issue", "repository", "user",
}

func (c Category) String() string { return categoryNames[c] }

// Level is the access a scope grants in a category.
type Level int

const (
	LevelNone Level = iota
	LevelRead
	LevelWrite
)

// Scopes is a parsed, normalised token scope set.
type Scopes struct {
	PublicOnly bool
	levels     [numCategories]Level
}

// ParseScopes parses Gitea scope names (a list, or the stored
// comma-separated form). Empty names are ignored; an unknown name is an
// error.
func ParseScopes(names []string) (Scopes, error) {
	var s Scopes
	for _, raw := range names {
		for _, name := range strings.Split(raw, ",") {
			name = strings.TrimSpace(name)
			switch {
			case name == "":
			case name == "all":
				for c := range s.levels {
					s.levels[c] = LevelWrite
				}
			case name == "public-only":
				s.PublicOnly = true
			default:
				level, cat, ok := strings.Cut(name, ":")
				c := categoryByName(cat)
				if !ok || c < 0 || (level != "read" && level != "write") {
					return Scopes{}, fmt.Errorf("invalid access token scope: %s", name)
				}
				l := LevelRead
				if level == "write" {
					l = LevelWrite
				}
				if l > s.levels[c] {
					s.levels[c] = l
				}
			}
		}
	}
	return s, nil
}

func categoryByName(name string) Category {
	for c, n := range categoryNames {
		if n == name {
			return Category(c)
		}
	}
	return -1
}

// Names returns the normalised scope list: public-only first, then one
// entry per category in Gitea's order, and "all" when every category is
// writable.
func (s Scopes) Names() []string {
	var out []string
	if s.PublicOnly {
		out = append(out, "public-only")
	}
	all := true
	for _, l := range s.levels {
		all = all && l == LevelWrite
	}
	if all {
		return append(out, "all")
	}
	for c, l := range s.levels {
		switch l {
		case LevelWrite:
			out = append(out, "write:"+categoryNames[c])
		case LevelRead:
			out = append(out, "read:"+categoryNames[c])
		}
	}
	return out
}

// String is the stored form.
func (s Scopes) String() string { return strings.Join(s.Names(), ",") }

// Has reports whether the scopes grant level in category.
func (s Scopes) Has(c Category, l Level) bool { return s.levels[c] >= l }
