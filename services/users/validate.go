package users

import (
	"fmt"
	"net/mail"
	"strings"
)

// Names that would collide with forge's own URL paths.
var reservedNames = map[string]bool{
	"admin": true, "api": true, "assets": true, "attachments": true, "avatars": true, "explore": true,
	"ghost": true, "login": true, "new": true, "org": true, "repo": true, "user": true, "users": true,
	"swagger": true, "healthz": true, "info": true, "notifications": true, "-": true,
}

// CheckReserved refuses a user or organization name forge's URLs use. The
// name's form and size are declared on the request (forge.options.v1.rules,
// FORMAT_USER_NAME) and checked before the handler.
func CheckReserved(name string) error {
	if reservedNames[strings.ToLower(name)] {
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
