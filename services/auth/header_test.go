package auth

import (
	"encoding/base64"
	"net/textproto"
	"strings"
	"testing"
)

func TestParseAuthorization(t *testing.T) {
	b64 := func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
	cases := []struct {
		header string
		want   Credentials
		err    bool
	}{
		{"", Credentials{}, false},
		{"token abc", Credentials{Scheme: SchemeToken, Token: "abc"}, false},
		{"Token abc", Credentials{}, false}, // Gitea: "token" is case-sensitive
		{"bearer  abc ", Credentials{Scheme: SchemeToken, Token: "abc"}, false},
		{"BEARER abc", Credentials{Scheme: SchemeToken, Token: "abc"}, false},
		{"Basic " + b64("alice:pa:ss"), Credentials{Scheme: SchemeBasic, User: "alice", Pass: "pa:ss"}, false},
		{"basic " + b64("alice"), Credentials{Scheme: SchemeBasic, User: "alice"}, false},
		{"Basic " + b64(":"), Credentials{Scheme: SchemeBasic}, false},
		{"Basic !!!", Credentials{}, true},
		{"Digest x", Credentials{}, false},
	}
	for _, c := range cases {
		got, err := ParseAuthorization(c.header)
		if (err != nil) != c.err || got != c.want {
			t.Errorf("%q: %+v, %v; want %+v (error %v)", c.header, got, err, c.want, c.err)
		}
	}
}

// FuzzParseAuthorization: any header parses without panicking, into
// either an error or credentials of one scheme; Basic credentials built
// from a user (without colon) and password come back unchanged. The seed
// corpus runs with every go test.
func FuzzParseAuthorization(f *testing.F) {
	for _, seed := range []struct{ user, pass string }{
		{"alice", "secret"}, {"", ""}, {"bob", "p:a:s:s"}, {"ünï", "çødé\x00"},
		{"0123456789abcdef0123456789abcdef01234567", "x-oauth-basic"},
	} {
		f.Add(seed.user, seed.pass, "Basic "+base64.StdEncoding.EncodeToString([]byte(seed.user+":"+seed.pass)))
	}
	f.Add("", "", "token 0123456789abcdef0123456789abcdef01234567")
	f.Add("", "", "Bearer")
	f.Add("", "", "Basic ====")
	f.Add("", "", " Basic x")
	f.Fuzz(func(t *testing.T, user, pass, header string) {
		c, err := ParseAuthorization(header)
		if err != nil && c != (Credentials{}) {
			t.Fatalf("%q: error %v with credentials %+v", header, err, c)
		}
		if c.Scheme == SchemeToken && (c.User != "" || c.Pass != "") || c.Scheme == SchemeBasic && c.Token != "" {
			t.Fatalf("%q: mixed credentials %+v", header, c)
		}
		if strings.Contains(user, ":") {
			return
		}
		for _, scheme := range []string{"Basic ", "basic ", "BASIC  "} {
			h := scheme + base64.StdEncoding.EncodeToString([]byte(user+":"+pass))
			got, err := ParseAuthorization(h)
			if err != nil || got != (Credentials{Scheme: SchemeBasic, User: user, Pass: pass}) {
				t.Fatalf("round trip of %q:%q via %q: %+v, %v", user, pass, h, got, err)
			}
		}
	})
}

// TestCredentialNames: the metadata keys of the credential headers are
// those headers as gRPC carries them (lower case), and the header
// constants are in net/http's canonical form, which the gateway's header
// matcher compares against.
func TestCredentialNames(t *testing.T) {
	for header, md := range map[string]string{HeaderAuthorization: MDAuthorization, HeaderOTP: MDOTP} {
		if strings.ToLower(header) != md {
			t.Errorf("header %s travels as metadata %s", header, md)
		}
		if textproto.CanonicalMIMEHeaderKey(header) != header {
			t.Errorf("header %s is not in canonical form", header)
		}
	}
}
