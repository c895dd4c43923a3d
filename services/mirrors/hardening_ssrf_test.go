package mirrors

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"

	"forge/services/git"
	"forge/services/store"
)

// embeddedForms are IPv6 spellings of IPv4 addresses: every one of them
// must be judged by (at least as strictly as) the IPv4 address it carries.
func embeddedForms(v4 string) []string {
	a := netip.MustParseAddr(v4).As4()
	sixToFour := [16]byte{0x20, 0x02, a[0], a[1], a[2], a[3]}
	sixToFourHost := sixToFour
	sixToFourHost[15] = 1
	return []string{
		"::ffff:" + v4,                       // IPv4-mapped
		"::" + v4,                            // IPv4-compatible (deprecated)
		"::ffff:0:" + v4,                     // SIIT IPv4-translated
		"64:ff9b::" + v4,                     // NAT64 well-known prefix
		"64:ff9b:1::" + v4,                   // NAT64 local-use prefix
		netip.AddrFrom16(sixToFour).String(), // 6to4
		netip.AddrFrom16(sixToFourHost).String(),
	}
}

func TestPublicAddrEmbeddedIPv4(t *testing.T) {
	local := []string{"127.0.0.1", "127.1.2.3", "169.254.169.254", "10.0.0.1", "172.16.5.4", "192.168.1.1", "0.0.0.0", "100.64.0.1", "224.0.0.1", "255.255.255.255"}
	for _, v4 := range local {
		for _, form := range embeddedForms(v4) {
			if publicAddr(netip.MustParseAddr(form)) {
				t.Errorf("publicAddr(%s) = true: it carries %s", form, v4)
			}
		}
	}
	for addr, want := range map[string]bool{
		// The forms that were public before.
		"::127.0.0.1":         false,
		"::169.254.169.254":   false,
		"::ffff:0:127.0.0.1":  false,
		"::ffff:0:10.0.0.1":   false,
		"::7f00:1":            false,
		"::a9fe:a9fe":         false,
		"::ffff:0:7f00:1":     false,
		"fe80::1%eth0":        false,
		"::ffff:127.0.0.1%x":  false,
		"2001:0:4136:e378::1": false, // Teredo
		"fec0::1":             false, // site-local
		"2001:db8::1":         false,
		"100::1":              false,
		// A NAT64 address is as public as the address it carries (DNS64).
		"64:ff9b::8.8.8.8":     true,
		"64:ff9b::808:808":     true,
		"64:ff9b::10.0.0.1":    false,
		"64:ff9b::7f00:1":      false,
		"64:ff9b:1::8.8.8.8":   false,
		"::ffff:8.8.8.8":       true,
		"::8.8.8.8":            false, // deprecated form: refused whatever it carries
		"::ffff:0:8.8.8.8":     false,
		"2002:808:808::1":      false, // 6to4 is deprecated: refused whatever it carries
		"2606:4700::1111":      true,
		"2a00:1450:4001::200e": true,
	} {
		if got := publicAddr(netip.MustParseAddr(addr)); got != want {
			t.Errorf("publicAddr(%s) = %v, want %v", addr, got, want)
		}
	}
}

func TestHostPolicyEmbeddedIPv4(t *testing.T) {
	ctx := context.Background()
	res := fakeResolver{}
	var names []string
	for _, v4 := range []string{"127.0.0.1", "169.254.169.254", "10.1.2.3"} {
		for i, form := range embeddedForms(v4) {
			name := strings.ReplaceAll(v4, ".", "-") + "-" + string(rune('a'+i)) + ".example"
			res[name] = []string{"93.184.216.34", form} // one bad address is enough
			names = append(names, name)
			// The literal in a URL.
			raw := "http://[" + form + "]:3000/r.git"
			u, err := parseRemote(raw, "", "")
			if err != nil {
				t.Fatalf("parseRemote(%s): %v", raw, err)
			}
			if err := (hostPolicy{resolver: res}).check(ctx, u); !errors.Is(err, errDisallowedHost) {
				t.Errorf("check(%s) = %v, want disallowed", raw, err)
			}
		}
	}
	for _, name := range names {
		u, _ := url.Parse("https://" + name + "/r.git")
		if err := (hostPolicy{resolver: res}).check(ctx, u); !errors.Is(err, errDisallowedHost) {
			t.Errorf("check(%s → %v) = %v, want disallowed", name, res[name], err)
		}
	}
}

// rebinder answers a different address on each lookup, as a DNS
// rebinding attacker's name server does.
type rebinder struct {
	mu      sync.Mutex
	answers []string
	calls   int
}

func (r *rebinder) LookupNetIP(context.Context, string, string) ([]netip.Addr, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	a := r.answers[min(r.calls, len(r.answers)-1)]
	r.calls++
	return []netip.Addr{netip.MustParseAddr(a)}, nil
}

func TestHostPolicyPinsCheckedAddresses(t *testing.T) {
	ctx := context.Background()
	u, _ := parseRemote("https://rebind.example/r.git", "bob", "pw")
	r := &rebinder{answers: []string{"93.184.216.34", "127.0.0.1"}}
	p := hostPolicy{resolver: r}
	got, err := p.remote(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	if got.URL != "https://bob:pw@rebind.example/r.git" || !slices.Equal(got.Addrs, []netip.Addr{netip.MustParseAddr("93.184.216.34")}) || r.calls != 1 {
		t.Fatalf("remote = %+v after %d lookups; want the checked address pinned after one", got, r.calls)
	}
	// The next check sees the new answer and refuses it.
	if _, err := p.remote(ctx, u); !errors.Is(err, errDisallowedHost) {
		t.Fatalf("second check: %v", err)
	}
	// ALLOW_LOCALNETWORKS: any address, still pinned to the one resolved.
	open := hostPolicy{allowLocal: true, resolver: fakeResolver{"pinned.example": {"127.0.0.1"}}}
	u, _ = parseRemote("http://pinned.example:3000/r.git", "", "")
	if got, err := open.remote(ctx, u); err != nil || !slices.Equal(got.Addrs, []netip.Addr{netip.MustParseAddr("127.0.0.1")}) {
		t.Fatalf("allowLocal remote = %+v, %v", got, err)
	}
	// An address needs no pin.
	u, _ = parseRemote("http://127.0.0.1:3000/r.git", "", "")
	if got, err := open.remote(ctx, u); err != nil || got.Addrs != nil {
		t.Fatalf("remote of an address = %+v, %v", got, err)
	}
	// Names curl would spell differently from what was checked are refused.
	for _, raw := range []string{"https://bücher.example/r.git", "https://exa%20mple.org/r.git", "https://ex\u00adample.org/"} {
		if u, err := parseRemote(raw, "", ""); err == nil {
			t.Errorf("parseRemote(%q) = %v", raw, u)
		}
	}
}

// recordingGit records the remotes the service hands to git and runs
// nothing.
type recordingGit struct {
	*git.Store
	mu      sync.Mutex
	remotes []git.Remote
}

func (g *recordingGit) record(r git.Remote) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.remotes = append(g.remotes, r)
}

func (g *recordingGit) PushMirror(_ context.Context, _ string, r git.Remote) error {
	g.record(r)
	return nil
}

func (g *recordingGit) FetchMirror(_ context.Context, _ string, r git.Remote) ([]git.RefUpdate, error) {
	g.record(r)
	return nil, nil
}

// TestSyncRebinding: each push and fetch hands git the addresses its own
// check accepted; a name that rebinds to a local address is refused.
func TestSyncRebinding(t *testing.T) {
	f := newFixture(t, false)
	rec := &recordingGit{Store: f.git}
	f.srv.git = rec
	r := &rebinder{answers: []string{"93.184.216.34", "127.0.0.1"}}
	f.srv.hosts.resolver = r
	srcRec, _ := f.source("src")
	pm := &store.PushMirror{RepoID: srcRec.ID, RemoteName: "remote_mirror_r", RemoteSealed: f.srv.box.Seal([]byte("https://bob:pw@rebind.example/x.git"))}
	if err := f.st.CreatePushMirror(f.ctx, pm); err != nil {
		t.Fatal(err)
	}
	if err := f.srv.push(f.ctx, srcRec, pm); err != nil {
		t.Fatal(err)
	}
	if err := f.srv.push(f.ctx, srcRec, pm); err == nil || !strings.Contains(err.Error(), "disallowed host") {
		t.Fatalf("push after rebinding to 127.0.0.1: %v", err)
	}
	want := []git.Remote{{URL: "https://bob:pw@rebind.example/x.git", Addrs: []netip.Addr{netip.MustParseAddr("93.184.216.34")}}}
	if len(rec.remotes) != 1 || rec.remotes[0].URL != want[0].URL || !slices.Equal(rec.remotes[0].Addrs, want[0].Addrs) {
		t.Fatalf("git was given %+v, want %+v", rec.remotes, want)
	}

	r.calls = 0
	mirror, _ := f.repo("mirror", true)
	m := &store.Mirror{RepoID: mirror.ID, RemoteSealed: f.srv.box.Seal([]byte("https://rebind.example/x.git"))}
	if err := f.srv.fetch(f.ctx, mirror, m); err != nil {
		t.Fatal(err)
	}
	if err := f.srv.fetch(f.ctx, mirror, m); err == nil {
		t.Fatal("fetch after rebinding to 127.0.0.1 passed")
	}
	if len(rec.remotes) != 2 || !slices.Equal(rec.remotes[1].Addrs, want[0].Addrs) {
		t.Fatalf("git was given %+v", rec.remotes)
	}
}

// TestSyncConnectsToPinnedAddress: with ALLOW_LOCALNETWORKS a name that
// only the service's resolver knows (pinned.invalid → 127.0.0.1) is
// reached by the real git, so git used the pin; the credentials arrive as
// Basic auth.
func TestSyncConnectsToPinnedAddress(t *testing.T) {
	f := newFixture(t, true)
	f.srv.hosts.resolver = fakeResolver{"pinned.invalid": {"127.0.0.1"}}
	var mu sync.Mutex
	var seen []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u, p, _ := r.BasicAuth()
		mu.Lock()
		seen = append(seen, r.Host+" "+u+":"+p)
		mu.Unlock()
		http.NotFound(w, r)
	}))
	defer srv.Close()
	port := srv.URL[strings.LastIndex(srv.URL, ":")+1:]
	srcRec, _ := f.source("src")
	pm := &store.PushMirror{RepoID: srcRec.ID, RemoteName: "remote_mirror_p",
		RemoteSealed: f.srv.box.Seal([]byte("http://bob:hunter2-pw@pinned.invalid:" + port + "/x.git"))}
	if err := f.st.CreatePushMirror(f.ctx, pm); err != nil {
		t.Fatal(err)
	}
	err := f.srv.push(f.ctx, srcRec, pm)
	if err == nil || strings.Contains(err.Error(), "hunter2") || strings.Contains(err.Error(), "resolve") {
		t.Fatalf("push to a 404 server: %v", err)
	}
	mirror, _ := f.repo("mirror", true)
	mpath, _ := f.git.RepoPath(f.owner.Name, "mirror")
	if err := f.git.Init(f.ctx, mpath, "main"); err != nil {
		t.Fatal(err)
	}
	m := &store.Mirror{RepoID: mirror.ID, RemoteSealed: f.srv.box.Seal([]byte("http://bob:hunter2-pw@pinned.invalid:" + port + "/y.git"))}
	if err := f.srv.fetch(f.ctx, mirror, m); err == nil || strings.Contains(err.Error(), "resolve") {
		t.Fatalf("fetch from a 404 server: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) < 2 {
		t.Fatalf("requests reaching the server: %q", seen)
	}
	for _, s := range seen {
		if s != "pinned.invalid:"+port+" bob:hunter2-pw" {
			t.Fatalf("request %q, want host pinned.invalid:%s with bob's credentials", s, port)
		}
	}
}
