package keys

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"strings"
	"testing"

	"golang.org/x/crypto/ssh"
)

var defaultRules = Rules{Check: true, Sizes: map[string]int{"ed25519": 256, "ecdsa": 256, "rsa": 3071, "dsa": -1}}

func authorized(t *testing.T, key any) string {
	t.Helper()
	pub, err := ssh.NewPublicKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(ssh.MarshalAuthorizedKey(pub)))
}

const (
	ed2     = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAICcW3KKBqhr/JTkSX11MURFqq5L4wqlauQzK45R80O+p"
	ed2FP   = "SHA256:jkqUJbH46LLJigj1DEoccMyG7C4x/NKdNd5YwA4Rh44"
	rfc4716 = `---- BEGIN SSH2 PUBLIC KEY ----
Comment: "256-bit ED25519, converted by root@vm from OpenSSH"
AAAAC3NzaC1lZDI1NTE5AAAAICcW3KKBqhr/JTkSX11MURFqq5L4wqlauQzK45R80O+p
---- END SSH2 PUBLIC KEY ----`
)

// TestParse: Gitea's checks of a key: one line, a known type, long
// enough; the SSH2 format converted; the fingerprint as ssh-keygen -l.
func TestParse(t *testing.T) {
	small, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	big, err := rsa.GenerateKey(rand.Reader, 3072)
	if err != nil {
		t.Fatal(err)
	}
	ec, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, content, want string
	}{
		{"ed25519 with a comment", ed2 + " me@host", ""},
		{"rsa 3072", authorized(t, &big.PublicKey), ""},
		{"ecdsa p256", authorized(t, &ec.PublicKey), ""},
		{"rsa 2048", authorized(t, &small.PublicKey), "Invalid key content: key length is not enough: got 2048, needs 3071"},
		{"two lines", ed2 + "\n" + ed2, "Invalid key content: only a single line with a single key please"},
		{"options", "no-pty " + ed2, "Invalid key content: only a single line with a single key please"},
		{"garbage", "hello", "Invalid key content: ssh: no key found"},
		{"rfc4716", rfc4716, ""},
	} {
		_, err := defaultRules.Parse(c.content)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.want != "" && (err == nil || err.Error() != c.want):
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
	p, err := defaultRules.Parse(rfc4716)
	if err != nil || p.Content != ed2 || p.Fingerprint != ed2FP {
		t.Fatalf("rfc4716: %+v %v", p, err)
	}
	p, err = defaultRules.Parse("  " + ed2 + " me@host \n")
	if err != nil || p.Content != ed2+" me@host" || p.Fingerprint != ed2FP {
		t.Fatalf("stored form: %+v %v", p, err)
	}
	// A type the rules do not list is refused; without the check, allowed.
	only := Rules{Check: true, Sizes: map[string]int{"rsa": 3071}}
	if _, err := only.Parse(ed2); err == nil || err.Error() != "Invalid key content: key type is not allowed: ed25519" {
		t.Fatalf("unlisted type: %v", err)
	}
	if _, err := (Rules{}).Parse(authorized(t, &small.PublicKey)); err != nil {
		t.Fatalf("MINIMUM_KEY_SIZE_CHECK off: %v", err)
	}
}
