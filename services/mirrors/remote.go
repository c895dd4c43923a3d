package mirrors

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"net/url"
	"strings"

	"forge/services/git"
)

// Remote address rules, shared by migrations, pull mirrors and push
// mirrors. Only network URLs are accepted (no local paths, no ext::, no
// file://), and unless [migrations] ALLOW_LOCALNETWORKS is set every address
// the host resolves to must be a public one, so forge cannot be used to
// reach its own loopback, the private network or cloud metadata services.
// The check runs when a remote is added and again before every fetch or
// push, because DNS answers change.

var (
	// errInvalidURL: the address is not an http(s):// or git:// URL.
	errInvalidURL = errors.New("invalid remote URL")
	// errDisallowedHost: the host is (or resolves to) a local address.
	errDisallowedHost = errors.New("disallowed host")
	// errUnresolvable: the host name does not resolve.
	errUnresolvable = errors.New("unresolvable host")
)

// allowedSchemes are the transports a remote may use.
var allowedSchemes = map[string]bool{"http": true, "https": true, "git": true}

// parseRemote parses a remote address and, when user or password is given,
// replaces its user-info with them (Gitea's ParseRemoteAddr). The result
// carries the credentials; never show it, show git.RedactURL of it.
func parseRemote(raw, user, password string) (*url.URL, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" || strings.ContainsAny(raw, "\x00\n\r") || strings.HasPrefix(raw, "-") {
		return nil, errInvalidURL
	}
	u, err := url.Parse(raw)
	if err != nil || u.Opaque != "" || !allowedSchemes[strings.ToLower(u.Scheme)] || u.Hostname() == "" {
		return nil, errInvalidURL
	}
	u.Scheme = strings.ToLower(u.Scheme)
	if user != "" || password != "" {
		u.User = url.UserPassword(user, password)
	}
	return u, nil
}

// Resolver looks up host names (net.DefaultResolver in production).
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// hostPolicy decides which hosts forge may talk to.
type hostPolicy struct {
	allowLocal bool
	resolver   Resolver
}

// check returns errDisallowedHost when u's host is, or resolves to, any
// loopback, private, link-local, unspecified or otherwise non-public
// address, and errUnresolvable when it does not resolve.
func (p hostPolicy) check(ctx context.Context, u *url.URL) error {
	if p.allowLocal {
		return nil
	}
	host := strings.TrimSuffix(u.Hostname(), ".")
	if host == "" {
		return errInvalidURL
	}
	if strings.EqualFold(host, "localhost") || strings.HasSuffix(strings.ToLower(host), ".localhost") {
		return errDisallowedHost
	}
	var addrs []netip.Addr
	if a, err := netip.ParseAddr(host); err == nil {
		addrs = []netip.Addr{a}
	} else if looksNumeric(host) {
		// Forms such as "2130706433" or "0x7f.1" that URL parsers and
		// resolvers read as IPv4 in differing ways: refuse them.
		return errDisallowedHost
	} else {
		r := p.resolver
		if r == nil {
			r = net.DefaultResolver
		}
		addrs, err = r.LookupNetIP(ctx, "ip", host)
		if err != nil || len(addrs) == 0 {
			return errUnresolvable
		}
	}
	for _, a := range addrs {
		if !publicAddr(a) {
			return errDisallowedHost
		}
	}
	return nil
}

// looksNumeric reports whether host consists only of hex digits, dots and
// 'x' (a numeric IPv4 spelling netip does not accept).
func looksNumeric(host string) bool {
	for _, c := range strings.ToLower(host) {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c == 'x' || c == '.') {
			return false
		}
	}
	// Plain hex words like "cafe.de" are real names; require a digit first.
	return host[0] >= '0' && host[0] <= '9'
}

// nonPublic are ranges outside netip's own predicates that still reach
// this host or a private network.
var nonPublic = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),     // "this network": 0.0.0.0 reaches localhost
	netip.MustParsePrefix("100.64.0.0/10"), // carrier-grade NAT, shared address space
	netip.MustParsePrefix("192.0.0.0/24"),  // IETF protocol assignments
	netip.MustParsePrefix("198.18.0.0/15"), // benchmarking
	netip.MustParsePrefix("240.0.0.0/4"),   // reserved, and 255.255.255.255
	netip.MustParsePrefix("64:ff9b::/96"),  // NAT64: embeds an IPv4 address
	netip.MustParsePrefix("64:ff9b:1::/48"),
	netip.MustParsePrefix("2002::/16"), // 6to4: embeds an IPv4 address
}

// publicAddr reports whether a is a globally routable unicast address.
func publicAddr(a netip.Addr) bool {
	a = a.Unmap() // ::ffff:127.0.0.1 is 127.0.0.1
	if !a.IsValid() || a.IsLoopback() || a.IsPrivate() || a.IsUnspecified() ||
		a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast() || a.IsInterfaceLocalMulticast() || a.IsMulticast() {
		return false
	}
	for _, p := range nonPublic {
		if p.Contains(a) {
			return false
		}
	}
	return true
}

// redact removes the credentials of remote from text: URL user-info
// anywhere, and the password (or a token sent as user name) where git or a
// server echoed it on its own, raw or percent-encoded.
func redact(text string, remote *url.URL) string {
	if remote != nil && remote.User != nil {
		full := remote.String()
		text = strings.ReplaceAll(text, full, git.RedactURL(full))
		var secrets []string
		if pw, ok := remote.User.Password(); ok && pw != "" {
			secrets = append(secrets, pw)
		}
		if name := remote.User.Username(); len(name) >= 8 {
			secrets = append(secrets, name) // may be a token
		}
		for _, s := range secrets {
			for _, form := range []string{s, url.QueryEscape(s), url.PathEscape(s), url.UserPassword("", s).String()[1:]} {
				if len(form) >= 3 {
					text = strings.ReplaceAll(text, form, "<redacted>")
				}
			}
		}
	}
	return git.RedactURL(text)
}
