package mirrors

import (
	"context"
	"errors"
	"net/netip"
	"testing"
)

// carriedIPv4 is the test's own reading of the IPv4 addresses that a may
// lead to: itself, its IPv4-mapped form, or the IPv4 address embedded in
// the IPv4-compatible, SIIT, NAT64 (well-known and local-use /96) and
// 6to4 forms.
func carriedIPv4(a netip.Addr) []netip.Addr {
	if a.Is4() {
		return []netip.Addr{a}
	}
	b := a.As16()
	var out []netip.Addr
	last32 := netip.AddrFrom4([4]byte(b[12:16]))
	for _, p := range []string{"::/96", "::ffff:0:0/96", "::ffff:0:0:0/96", "64:ff9b::/96", "64:ff9b:1::/48"} {
		if netip.MustParsePrefix(p).Contains(a.WithZone("")) {
			out = append(out, last32)
		}
	}
	if b[0] == 0x20 && b[1] == 0x02 {
		out = append(out, netip.AddrFrom4([4]byte(b[2:6])))
	}
	return out
}

// localIPv4 reports whether a (IPv4) reaches this host or a private
// network.
func localIPv4(a netip.Addr) bool {
	return a.IsLoopback() || a.IsPrivate() || a.IsLinkLocalUnicast() || a.IsUnspecified() ||
		netip.MustParsePrefix("0.0.0.0/8").Contains(a) || netip.MustParsePrefix("100.64.0.0/10").Contains(a)
}

// leadsLocal reports whether a is, or carries, a local IPv4 address.
func leadsLocal(a netip.Addr) bool {
	for _, v4 := range carriedIPv4(a) {
		if localIPv4(v4) {
			return true
		}
	}
	return false
}

// oneAnswer resolves every name to one address (or fails when invalid).
type oneAnswer struct{ addr netip.Addr }

func (r oneAnswer) LookupNetIP(context.Context, string, string) ([]netip.Addr, error) {
	if !r.addr.IsValid() {
		return nil, errors.New("no such host")
	}
	return []netip.Addr{r.addr}, nil
}

// FuzzRemoteHost: parsing and checking remote URLs never panics, and no
// address that is or carries a loopback or private IPv4 address passes
// the host check, whether it is written in the URL or answered by DNS.
func FuzzRemoteHost(f *testing.F) {
	seeds := []struct {
		raw  string
		addr string
	}{
		{"https://example.org/o/r.git", "93.184.216.34"},
		{"http://[::127.0.0.1]:3000/r.git", ""},
		{"http://[::169.254.169.254]/latest", ""},
		{"http://[::ffff:0:127.0.0.1]/r.git", ""},
		{"http://[::ffff:127.0.0.1]/r.git", ""},
		{"http://[64:ff9b::127.0.0.1]/r.git", ""},
		{"http://[64:ff9b::8.8.8.8]/r.git", ""},
		{"http://[2002:7f00:1::]/r.git", ""},
		{"http://[fe80::1%25eth0]/r.git", ""},
		{"git://u:p@host.example:9418/r.git", "::7f00:1"},
		{"https://a:b@rebind.example/r.git", "::ffff:0:a00:1"},
		{"https://rebind.example./r.git", "64:ff9b::a9fe:a9fe"},
		{"http://2130706433/r.git", ""},
		{"http://0x7f.1/r.git", ""},
		{"http://LOCALHOST./r.git", "127.0.0.1"},
		{"https://xn--bcher-kva.example/r.git", "2606:4700::1111"},
		{"http://[::]:80/", ""},
		{"HTTP://%31%32%37.0.0.1/", ""},
	}
	for _, s := range seeds {
		var b []byte
		if s.addr != "" {
			b = netip.MustParseAddr(s.addr).AsSlice()
		}
		f.Add(s.raw, b)
	}
	f.Fuzz(func(t *testing.T, raw string, addrBytes []byte) {
		answer, _ := netip.AddrFromSlice(addrBytes)
		if answer.IsValid() && publicAddr(answer) && leadsLocal(answer) {
			t.Fatalf("publicAddr(%s) = true, but it leads to a local IPv4 address", answer)
		}
		u, err := parseRemote(raw, "user", "secret")
		if err != nil {
			return
		}
		ctx := context.Background()
		_ = redact(raw, u)
		if _, err := (hostPolicy{allowLocal: true, resolver: oneAnswer{answer}}).remote(ctx, u); err == nil && !answer.IsValid() {
			if _, lerr := netip.ParseAddr(u.Hostname()); lerr != nil {
				t.Fatalf("allowLocal remote(%s) passed a name that does not resolve", raw)
			}
		}
		remote, err := (hostPolicy{resolver: oneAnswer{answer}}).remote(ctx, u)
		if err != nil {
			return
		}
		if literal, lerr := netip.ParseAddr(u.Hostname()); lerr == nil {
			if leadsLocal(literal) || !publicAddr(literal) || remote.Addrs != nil {
				t.Fatalf("remote(%s) passed the address %s (pins %v)", raw, literal, remote.Addrs)
			}
			return
		}
		if len(remote.Addrs) == 0 {
			t.Fatalf("remote(%s) passed a name without addresses to pin", raw)
		}
		for _, a := range remote.Addrs {
			if a != answer || leadsLocal(a) || !publicAddr(a) {
				t.Fatalf("remote(%s) pinned %v (resolver answered %s)", raw, remote.Addrs, answer)
			}
		}
	})
}
