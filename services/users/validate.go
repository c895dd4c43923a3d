package users

import (
	"fmt"
	"net/mail"
	"strings"
)

// reservedNames are Gitea 1.22's reserved user and organization names
// (paths of its web and API routes), and forge's own top-level paths.
var reservedNames = map[string]bool{
	// Gitea's.
	".": true, "..": true, ".well-known": true, "admin": true, "api": true, "assets": true,
	"attachments": true, "avatar": true, "avatars": true, "captcha": true, "commits": true,
	"debug": true, "error": true, "explore": true, "favicon.ico": true, "ghost": true,
	"issues": true, "login": true, "manifest.json": true, "metrics": true, "milestones": true,
	"new": true, "notifications": true, "org": true, "pulls": true, "raw": true, "repo": true,
	"repo-avatars": true, "robots.txt": true, "search": true, "serviceworker.js": true,
	"ssh_info": true, "swagger.v1.json": true, "user": true, "v2": true, "gitea-actions": true,
	// forge's.
	"users": true, "swagger": true, "healthz": true, "info": true, "-": true,
}

// reservedSuffixes are Gitea's reserved name patterns ("*.keys": a user's
// keys, feeds and avatar are served at /{name}.keys and the like).
var reservedSuffixes = []string{".keys", ".gpg", ".rss", ".atom", ".png"}

// CheckReserved refuses a user or organization name Gitea reserves, with
// Gitea's messages (compared trimmed and lower-cased, as Gitea does). The
// name's form and size are declared on the request (forge.options.v1.rules,
// FORMAT_USER_NAME) and checked before the handler.
func CheckReserved(name string) error {
	lower := strings.ToLower(strings.TrimSpace(name))
	if reservedNames[lower] {
		return fmt.Errorf("name is reserved [name: %s]", lower)
	}
	for _, suffix := range reservedSuffixes {
		if strings.HasSuffix(lower, suffix) {
			return fmt.Errorf("name pattern is not allowed [pattern: *%s]", suffix)
		}
	}
	return nil
}

// ValidateEmail checks an e-mail address (a bare addr-spec, at most 254
// characters).
func ValidateEmail(email string) error {
	if email == "" {
		return fmt.Errorf("[Email]: Required")
	}
	addr, err := mail.ParseAddress(email)
	if len(email) > 254 || err != nil || addr.Address != email || addr.Name != "" {
		return fmt.Errorf("e-mail invalid [email: %s]", email)
	}
	return nil
}
