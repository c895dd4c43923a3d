package auth

import (
	"github.com/pquerna/otp/totp"

	"forge/services/secretbox"
)

// TOTP enrols users in time-based one-time passwords and checks codes. The
// shared secret is stored sealed with SECRET_KEY.
type TOTP struct {
	box    *secretbox.Box
	issuer string
}

// NewTOTP uses box to seal secrets; issuer names forge in authenticators.
func NewTOTP(box *secretbox.Box, issuer string) *TOTP {
	return &TOTP{box: box, issuer: issuer}
}

// Enroll creates a new secret for account and returns the otpauth URI to
// show once and the sealed secret to store.
func (t *TOTP) Enroll(account string) (uri string, sealed []byte, err error) {
	key, err := totp.Generate(totp.GenerateOpts{Issuer: t.issuer, AccountName: account})
	if err != nil {
		return "", nil, err
	}
	return key.URL(), t.box.Seal([]byte(key.Secret())), nil
}

// Valid reports whether code is currently valid for the sealed secret.
func (t *TOTP) Valid(sealed []byte, code string) bool {
	secret, err := t.box.Open(sealed)
	if err != nil || code == "" {
		return false
	}
	return totp.Validate(code, string(secret))
}
