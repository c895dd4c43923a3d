package auth

import (
	"time"

	"github.com/pquerna/otp"
	"github.com/pquerna/otp/totp"

	"forge/services/secretbox"
)

// TOTP enrols users in time-based one-time passwords and checks codes. The
// shared secret is stored sealed with SECRET_KEY.
type TOTP struct {
	box    *secretbox.Box
	issuer string
	now    func() time.Time
}

// NewTOTP uses box to seal secrets; issuer names forge in authenticators.
func NewTOTP(box *secretbox.Box, issuer string) *TOTP {
	return &TOTP{box: box, issuer: issuer, now: time.Now}
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

// totpPeriod and totpSkew are pquerna/otp's defaults (what Validate and
// authenticator apps use): 30-second steps, one step of clock drift either
// way.
const (
	totpPeriod = 30
	totpSkew   = 1
)

// Match reports whether code is valid now for the sealed secret and, if
// so, the time step (Unix time / 30 s) it belongs to. The caller stores
// the step so that a code is accepted once (see Store.ClaimTOTPStep).
func (t *TOTP) Match(sealed []byte, code string) (step int64, ok bool) {
	secret, err := t.box.Open(sealed)
	if err != nil || code == "" {
		return 0, false
	}
	now := t.now()
	// The current step first, then the drift allowance, each validated
	// alone so the matching step is known.
	for _, delta := range []int64{0, -totpSkew, totpSkew} {
		at := now.Add(time.Duration(delta*totpPeriod) * time.Second)
		valid, err := totp.ValidateCustom(code, string(secret), at, totp.ValidateOpts{
			Period: totpPeriod, Skew: 0, Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1,
		})
		if err == nil && valid {
			return at.Unix() / totpPeriod, true
		}
	}
	return 0, false
}
