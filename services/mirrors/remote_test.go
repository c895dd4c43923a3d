package mirrors

import (
	"context"
	"errors"
	"net/netip"
	"net/url"
	"strings"
	"testing"
)

func TestParseRemote(t *testing.T) {
	for _, tc := range []struct {
		raw, user, pass string
		want            string // "" = refused
	}{
		{"https://example.org/o/r.git", "", "", "https://example.org/o/r.git"},
		{"HTTP://example.org/o/r", "", "", "http://example.org/o/r"},
		{"git://example.org/r.git", "", "", "git://example.org/r.git"},
		{"https://a:b@example.org/r.git", "", "", "https://a:b@example.org/r.git"},
		{"https://a:b@example.org/r.git", "u", "p@ss", "https://u:p%40ss@example.org/r.git"},
		{"https://example.org/r.git", "", "tok", "https://:tok@example.org/r.git"},
		{"  https://example.org/r.git ", "", "", "https://example.org/r.git"},
		{"/srv/git/r.git", "", "", ""},
		{"../r.git", "", "", ""},
		{"file:///srv/git/r.git", "", "", ""},
		{"ext::sh -c touch% /tmp/pwned", "", "", ""},
		{"ssh://git@example.org/r.git", "", "", ""},
		{"git@example.org:r.git", "", "", ""},
		{"https:///r.git", "", "", ""},
		{"-uhttps://example.org/r.git", "", "", ""},
		{"https://example.org/r.git\n", "", "", "https://example.org/r.git"},
		{"https://example.org/r\n.git", "", "", ""},
		{"", "", "", ""},
	} {
		u, err := parseRemote(tc.raw, tc.user, tc.pass)
		switch {
		case tc.want == "" && !errors.Is(err, errInvalidURL):
			t.Errorf("parseRemote(%q) = %v, %v; want errInvalidURL", tc.raw, u, err)
		case tc.want != "" && (err != nil || u.String() != tc.want):
			t.Errorf("parseRemote(%q, %q, %q) = %v, %v; want %s", tc.raw, tc.user, tc.pass, u, err, tc.want)
		}
	}
}

func TestPublicAddr(t *testing.T) {
	for addr, want := range map[string]bool{
		"93.184.216.34":        true,
		"8.8.8.8":              true,
		"2606:4700::1111":      true,
		"127.0.0.1":            false,
		"127.1.2.3":            false,
		"::1":                  false,
		"0.0.0.0":              false,
		"0.1.2.3":              false,
		"::":                   false,
		"10.1.2.3":             false,
		"172.16.0.1":           false,
		"192.168.1.1":          false,
		"169.254.169.254":      false, // cloud metadata
		"fe80::1":              false,
		"fc00::1":              false,
		"fd12:3456::1":         false,
		"::ffff:127.0.0.1":     false,
		"::ffff:10.0.0.1":      false,
		"100.64.0.1":           false,
		"224.0.0.1":            false,
		"ff02::1":              false,
		"255.255.255.255":      false,
		"64:ff9b::7f00:1":      false,
		"2002:7f00:1::1":       false,
		"::ffff:93.184.216.34": true,
	} {
		if got := publicAddr(netip.MustParseAddr(addr)); got != want {
			t.Errorf("publicAddr(%s) = %v, want %v", addr, got, want)
		}
	}
}

// fakeResolver answers from a table.
type fakeResolver map[string][]string

func (f fakeResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	addrs, ok := f[host]
	if !ok {
		return nil, errors.New("no such host")
	}
	var out []netip.Addr
	for _, a := range addrs {
		out = append(out, netip.MustParseAddr(a))
	}
	return out, nil
}

func TestHostPolicy(t *testing.T) {
	res := fakeResolver{
		"public.example":   {"93.184.216.34", "2606:2800:220:1::1"},
		"mixed.example":    {"93.184.216.34", "127.0.0.1"}, // every address must be public
		"internal.example": {"10.0.0.5"},
		"v6local.example":  {"::1"},
		"empty.example":    {},
	}
	p := hostPolicy{resolver: res}
	for raw, want := range map[string]error{
		"https://public.example/r.git":       nil,
		"https://93.184.216.34/r.git":        nil,
		"https://[2606:4700::1111]/r.git":    nil,
		"https://mixed.example/r.git":        errDisallowedHost,
		"https://internal.example/r.git":     errDisallowedHost,
		"https://v6local.example/r.git":      errDisallowedHost,
		"https://127.0.0.1:3000/r.git":       errDisallowedHost,
		"http://[::1]/r.git":                 errDisallowedHost,
		"http://[::ffff:127.0.0.1]/r.git":    errDisallowedHost,
		"http://169.254.169.254/latest":      errDisallowedHost,
		"http://0.0.0.0:3000/r.git":          errDisallowedHost,
		"http://localhost/r.git":             errDisallowedHost,
		"http://LOCALHOST./r.git":            errDisallowedHost,
		"http://foo.localhost/r.git":         errDisallowedHost,
		"http://2130706433/r.git":            errDisallowedHost, // 127.0.0.1 as one number
		"http://0x7f.1/r.git":                errDisallowedHost,
		"http://017700000001/r.git":          errDisallowedHost,
		"git://internal.example/r.git":       errDisallowedHost,
		"https://nowhere.example/r.git":      errUnresolvable,
		"https://empty.example/r.git":        errUnresolvable,
		"https://user:pw@internal.example/r": errDisallowedHost,
	} {
		u, err := url.Parse(raw)
		if err != nil {
			t.Fatal(err)
		}
		if got := p.check(context.Background(), u); !errors.Is(got, want) && got != want {
			t.Errorf("check(%s) = %v, want %v", raw, got, want)
		}
	}
	// ALLOW_LOCALNETWORKS lets every address through, but a name must
	// still resolve (git is pinned to its addresses).
	open := hostPolicy{allowLocal: true, resolver: res}
	for _, raw := range []string{"http://127.0.0.1:3000/r.git", "http://internal.example/r", "http://[::ffff:0:127.0.0.1]/r"} {
		u, _ := url.Parse(raw)
		if err := open.check(context.Background(), u); err != nil {
			t.Errorf("allowLocal check(%s) = %v", raw, err)
		}
	}
	if u, _ := url.Parse("http://nowhere.example/r"); !errors.Is(open.check(context.Background(), u), errUnresolvable) {
		t.Errorf("allowLocal check of an unresolvable name passed")
	}
}

func TestRedact(t *testing.T) {
	remote, _ := url.Parse("https://alice:s3cr%2Fet!@example.org/r.git")
	pw, _ := remote.User.Password()
	text := "fatal: unable to access '" + remote.String() + "': denied for alice:" + pw +
		" (" + url.QueryEscape(pw) + ") and https://bob:other@example.net/x"
	got := redact(text, remote)
	for _, secret := range []string{pw, url.QueryEscape(pw), "s3cr%2Fet", "other", "bob:"} {
		if strings.Contains(got, secret) {
			t.Errorf("redacted text still contains %q: %s", secret, got)
		}
	}
	if !strings.Contains(got, "https://example.org/r.git") {
		t.Errorf("redacted text lost the address: %s", got)
	}
	tokenRemote, _ := url.Parse("https://0123456789abcdef0123@example.org/r.git")
	if got := redact("auth failed for token 0123456789abcdef0123", tokenRemote); strings.Contains(got, "0123456789abcdef0123") {
		t.Errorf("token user name not redacted: %s", got)
	}
	if got := redact("plain text", nil); got != "plain text" {
		t.Errorf("redact(nil remote) = %q", got)
	}
}

func TestRemoteName(t *testing.T) {
	seen := map[string]bool{}
	for range 100 {
		n, err := remoteName()
		if err != nil {
			t.Fatal(err)
		}
		rest, ok := strings.CutPrefix(n, "remote_mirror_")
		if !ok || len(rest) != 10 || strings.Trim(rest, remoteNameChars) != "" || seen[n] {
			t.Fatalf("remote name %q", n)
		}
		seen[n] = true
	}
}
