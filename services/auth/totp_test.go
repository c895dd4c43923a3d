package auth

import (
	"net/url"
	"testing"
	"time"

	"github.com/pquerna/otp/totp"

	"forge/services/secretbox"
)

// TestTOTPMatchStep: Match names the time step a code belongs to, within
// one step of drift, and refuses anything else.
func TestTOTPMatchStep(t *testing.T) {
	box, err := secretbox.New("test-key", "totp")
	if err != nil {
		t.Fatal(err)
	}
	tt := NewTOTP(box, "forge")
	uri, sealed, err := tt.Enroll("alice")
	if err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse(uri)
	secret := u.Query().Get("secret")
	now := time.Unix(1_700_000_010, 0) // 10 s into step 56666667
	tt.now = func() time.Time { return now }
	step := now.Unix() / 30
	for delta := int64(-2); delta <= 2; delta++ {
		code, err := totp.GenerateCode(secret, now.Add(time.Duration(delta*30)*time.Second))
		if err != nil {
			t.Fatal(err)
		}
		got, ok := tt.Match(sealed, code)
		wantOK := delta >= -1 && delta <= 1
		if ok != wantOK || (ok && got != step+delta) {
			t.Errorf("delta %d: step %d ok %v; want step %d ok %v", delta, got, ok, step+delta, wantOK)
		}
	}
	if _, ok := tt.Match(sealed, ""); ok {
		t.Error("empty code accepted")
	}
	if _, ok := tt.Match([]byte("not sealed"), "123456"); ok {
		t.Error("garbage secret accepted")
	}
}

func TestScopesCovers(t *testing.T) {
	parse := func(names ...string) Scopes {
		s, err := ParseScopes(names)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	cases := []struct {
		have, want []string
		ok         bool
	}{
		{[]string{"all"}, []string{"all"}, true},
		{[]string{"all"}, []string{"public-only", "write:admin"}, true},
		{[]string{"write:user"}, []string{"read:user"}, true},
		{[]string{"write:user"}, []string{"write:user"}, true},
		{[]string{"write:user"}, nil, true},
		{[]string{"read:user"}, []string{"write:user"}, false},
		{[]string{"write:user"}, []string{"write:user", "read:repository"}, false},
		{[]string{"write:user"}, []string{"all"}, false},
		{[]string{"public-only", "all"}, []string{"read:user"}, false},
		{[]string{"public-only", "all"}, []string{"public-only", "read:user"}, true},
		{[]string{"public-only", "write:user"}, nil, false},
	}
	for _, c := range cases {
		if got := parse(c.have...).Covers(parse(c.want...)); got != c.ok {
			t.Errorf("%v covers %v: %v, want %v", c.have, c.want, got, c.ok)
		}
	}
}
