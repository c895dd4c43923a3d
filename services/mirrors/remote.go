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
// push, because DNS answers change; and git is then pinned to the
// addresses that passed (git.Remote.Addrs), so an answer changed between
// the check and git's connection (DNS rebinding) cannot reach anything
// else.

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
	if err != nil || u.Opaque != "" || !allowedSchemes[strings.ToLower(u.Scheme)] || u.Hostname() == "" || !plainHost(u.Hostname()) {
		return nil, errInvalidURL
	}
	u.Scheme = strings.ToLower(u.Scheme)
	if user != "" || password != "" {
		u.User = url.UserPassword(user, password)
	}
	return u, nil
}

// plainHost reports whether host is an IP address or an ASCII name of
// letters, digits, '-', '_' and '.'. Other names (internationalised ones,
// say) would reach git's libcurl in another spelling (punycode) than the
// one checked and pinned, and curl would resolve that name itself.
// Internationalised hosts are given in their xn-- form.
func plainHost(host string) bool {
	if _, err := netip.ParseAddr(host); err == nil {
		return true
	}
	for _, c := range host {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			return false
		}
	}
	return true
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

// check reports whether u may be used (see remote).
func (p hostPolicy) check(ctx context.Context, u *url.URL) error {
	_, err := p.remote(ctx, u)
	return err
}

// remote returns u for git, pinned to the addresses its host resolved to,
// after checking them: errDisallowedHost when the host is, or resolves to,
// any loopback, private, link-local, unspecified or otherwise non-public
// address, and errUnresolvable when it does not resolve. With
// ALLOW_LOCALNETWORKS every address is allowed, but the name is still
// resolved once and pinned, so that git connects where forge looked.
func (p hostPolicy) remote(ctx context.Context, u *url.URL) (git.Remote, error) {
	addrs, err := p.addrs(ctx, u)
	if err != nil {
		return git.Remote{}, err
	}
	return git.Remote{URL: u.String(), Addrs: addrs}, nil
}

// addrs checks u's host and returns the addresses to pin it to (none for
// an IP address, which nothing resolves).
func (p hostPolicy) addrs(ctx context.Context, u *url.URL) ([]netip.Addr, error) {
	host := u.Hostname()
	if host == "" {
		if p.allowLocal && u.Scheme == "" {
			return nil, nil // a local path: stored remotes of tests only; parseRemote refuses them
		}
		return nil, errInvalidURL
	}
	if a, err := netip.ParseAddr(host); err == nil {
		if !p.allowLocal && !publicAddr(a) {
			return nil, errDisallowedHost
		}
		return nil, nil
	}
	name := strings.ToLower(strings.TrimSuffix(host, "."))
	if !p.allowLocal {
		if name == "localhost" || strings.HasSuffix(name, ".localhost") {
			return nil, errDisallowedHost
		}
		if looksNumeric(name) {
			// Forms such as "2130706433" or "0x7f.1" that URL parsers
			// and resolvers read as IPv4 in differing ways: refuse them.
			return nil, errDisallowedHost
		}
	}
	r := p.resolver
	if r == nil {
		r = net.DefaultResolver
	}
	addrs, err := r.LookupNetIP(ctx, "ip", name)
	if err != nil || len(addrs) == 0 {
		return nil, errUnresolvable
	}
	for _, a := range addrs {
		if !a.IsValid() {
			return nil, errUnresolvable
		}
		if !p.allowLocal && !publicAddr(a) {
			return nil, errDisallowedHost
		}
	}
	return addrs, nil
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
	return host != "" && host[0] >= '0' && host[0] <= '9'
}

// nonPublic are ranges outside netip's own predicates that still reach
// this host or a private network, or that have no use on the Internet.
var nonPublic = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),       // "this network": 0.0.0.0 reaches localhost
	netip.MustParsePrefix("100.64.0.0/10"),   // carrier-grade NAT, shared address space
	netip.MustParsePrefix("192.0.0.0/24"),    // IETF protocol assignments
	netip.MustParsePrefix("192.0.2.0/24"),    // documentation (TEST-NET-1)
	netip.MustParsePrefix("192.88.99.0/24"),  // former 6to4 relay anycast
	netip.MustParsePrefix("198.18.0.0/15"),   // benchmarking
	netip.MustParsePrefix("198.51.100.0/24"), // documentation (TEST-NET-2)
	netip.MustParsePrefix("203.0.113.0/24"),  // documentation (TEST-NET-3)
	netip.MustParsePrefix("240.0.0.0/4"),     // reserved, and 255.255.255.255
	// IPv6 forms that embed an IPv4 address and are deprecated or
	// network-specific: refused whatever they embed. ::/96 covers
	// IPv4-compatible addresses (::127.0.0.1, which Linux's sit tunnel
	// delivers to 127.0.0.1) as well as :: and ::1.
	netip.MustParsePrefix("::/96"),
	netip.MustParsePrefix("::ffff:0:0:0/96"), // SIIT IPv4-translated (::ffff:0:a.b.c.d)
	netip.MustParsePrefix("64:ff9b:1::/48"),  // local-use NAT64: the IPv4 address may sit anywhere
	netip.MustParsePrefix("2002::/16"),       // 6to4 (deprecated)
	netip.MustParsePrefix("2001::/32"),       // Teredo: embeds obfuscated IPv4 addresses
	netip.MustParsePrefix("100::/64"),        // discard-only
	netip.MustParsePrefix("2001:db8::/32"),   // documentation
	netip.MustParsePrefix("fec0::/10"),       // site-local (deprecated, still routed on some networks)
}

// nat64 is the well-known NAT64 prefix: 64:ff9b::a.b.c.d reaches
// a.b.c.d through a NAT64 gateway. DNS64 resolvers answer with it for
// IPv4-only hosts on IPv6-only networks, so it is public exactly when the
// embedded address is.
var nat64 = netip.MustParsePrefix("64:ff9b::/96")

// publicAddr reports whether a is a globally routable unicast address. An
// address that carries an IPv4 address (IPv4-mapped, NAT64) is judged by
// that address.
func publicAddr(a netip.Addr) bool {
	a = a.WithZone("").Unmap() // ::ffff:127.0.0.1 is 127.0.0.1
	if a.Is6() && nat64.Contains(a) {
		b := a.As16()
		return publicAddr(netip.AddrFrom4([4]byte(b[12:16])))
	}
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
