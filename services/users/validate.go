package users

import (
	"fmt"
	"net/mail"
	"regexp"
	"strings"
)

var validName = regexp.MustCompile(`^[A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?$`)

// Names that would collide with forge's own URL paths.
var reservedNames = map[string]bool{
	"admin": true, "api": true, "assets": true, "attachments": true, "avatars": true, "explore": true,
	"ghost": true, "login": true, "new": true, "org": true, "repo": true, "user": true, "users": true,
	"swagger": true, "healthz": true, "info": true, "notifications": true, "-": true,
}

// ValidateName checks a user or organization name: letters, digits and
// single '-', '_', '.' between them, at most 40 characters, not reserved.
func ValidateName(name string) error {
	switch {
	case name == "":
		return fmt.Errorf("[Username]: Required")
	case len(name) > 40:
		return fmt.Errorf("[Username]: MaxSize")
	case !validName.MatchString(name) || strings.Contains(name, "..") || strings.Contains(name, "--") || strings.Contains(name, "__"):
		return fmt.Errorf("[Username]: invalid user name %q (letters, digits, and single '-', '_' or '.' between them)", name)
	case reservedNames[strings.ToLower(name)]:
		return fmt.Errorf("name is reserved [name: %s]", name)
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
