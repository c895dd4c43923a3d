package git

import (
	"encoding/base64"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
)

// Remote is a repository that a mirror command fetches from or pushes to.
//
// Nothing secret ever goes on git's command line, where every local user
// can read it (ps, /proc/PID/cmdline), and where git hands the URL on to
// its transport helper (git-remote-http URL URL). Credentials in URL are
// therefore taken out of the URL and given to git as an HTTP Basic
// Authorization header through the environment (GIT_CONFIG_COUNT and
// GIT_CONFIG_KEY_n/GIT_CONFIG_VALUE_n), which only forge's own user can
// read.
type Remote struct {
	// URL is an http(s):// or git:// URL, possibly with user-info, or a
	// local repository path.
	URL string
	// Addrs, when set, are the only addresses git may connect to for the
	// URL's host name: those the caller's host policy resolved and
	// accepted. Without them git resolves the name again itself, and a DNS
	// answer changed since the check (DNS rebinding) could send it to an
	// address the check would have refused. Ignored when the host is an IP
	// address (nothing to resolve). Through an HTTP proxy (http_proxy etc.
	// in forge's environment) the proxy resolves the name, and the pin is
	// the proxy's business.
	Addrs []netip.Addr
}

// remoteCall is how one git command is told about a Remote.
type remoteCall struct {
	url     string   // for the command line: no user-info
	env     []string // GIT_CONFIG_* entries: credentials and address pins
	secrets []string // for scrubbing diagnostics
}

// configEntry is one configuration value given through the environment.
type configEntry struct{ key, value string }

// call prepares r for one git command. It fails rather than run git with
// credentials it cannot keep off the command line or addresses it cannot
// pin.
func (r Remote) call() (remoteCall, error) {
	if !strings.Contains(r.URL, "://") {
		// A local path (or scp-like address): no user-info, no host.
		if len(r.Addrs) > 0 {
			return remoteCall{}, invalidf("remote address to pin without a host")
		}
		local, err := checkRemote(r.URL)
		if err != nil {
			return remoteCall{}, err
		}
		return remoteCall{url: local, secrets: []string{r.URL}}, nil
	}
	u, err := url.Parse(r.URL)
	if err != nil || u.Opaque != "" {
		return remoteCall{}, invalidf("remote URL")
	}
	var config []configEntry
	scheme := strings.ToLower(u.Scheme)
	if (scheme == "http" || scheme == "https" || scheme == "git") && u.Host == "" {
		return remoteCall{}, invalidf("remote URL")
	}
	switch scheme {
	case "http", "https":
		if auth := basicAuth(u.User); auth != "" {
			// Sent on every request of this one command, which talks to
			// this remote only: redirects are off (mirrorConfig), and so
			// with them the http-alternates of the dumb protocol.
			config = append(config, configEntry{"http.extraHeader", "Authorization: Basic " + auth})
		}
		if pin := curlResolve(u, r.Addrs); pin != "" {
			config = append(config, configEntry{"http.curloptResolve", pin})
		}
	case "git":
		// The git protocol has no authentication, and git resolves the
		// host itself with no way to pin it: connect to the checked
		// address directly (the host name is only a virtual-host hint
		// that git daemons rarely use).
		if a, ok := pinnable(u, r.Addrs); ok {
			host := hostLiteral(a[0])
			if port := u.Port(); port != "" {
				host += ":" + port
			}
			u.Host = host
		}
	default:
		// Other transports (file://, ssh:// with its user name) are
		// passed as they are, so nothing secret may be in them.
		if _, has := u.User.Password(); has || len(r.Addrs) > 0 {
			return remoteCall{}, invalidf("remote URL: credentials and address pins need http(s):// or git://")
		}
		clean, err := checkRemote(r.URL)
		if err != nil {
			return remoteCall{}, err
		}
		return remoteCall{url: clean, secrets: []string{r.URL}}, nil
	}
	u.User = nil // http(s) credentials are in the header; git:// has no use for them
	clean, err := checkRemote(u.String())
	if err != nil {
		return remoteCall{}, err
	}
	return remoteCall{url: clean, env: configEnv(config), secrets: []string{r.URL}}, nil
}

// basicAuth is the Basic credential of user-info ("" when none).
func basicAuth(ui *url.Userinfo) string {
	if ui == nil {
		return ""
	}
	name := ui.Username()
	pw, _ := ui.Password()
	if name == "" && pw == "" {
		return ""
	}
	return base64.StdEncoding.EncodeToString([]byte(name + ":" + pw))
}

// pinnable returns addrs when u's host is a name they should pin.
func pinnable(u *url.URL, addrs []netip.Addr) ([]netip.Addr, bool) {
	if len(addrs) == 0 {
		return nil, false
	}
	if _, err := netip.ParseAddr(u.Hostname()); err == nil {
		return nil, false // an address: nothing is resolved
	}
	return addrs, true
}

// curlResolve is the libcurl resolve entry "host:port:addr[,addr...]" that
// makes git connect to addrs for u's host, or "" when there is nothing to
// pin. The host is written as curl will see it in the URL (lower case,
// a trailing dot kept), or the entry would not match and curl would
// resolve the name itself.
func curlResolve(u *url.URL, addrs []netip.Addr) string {
	pins, ok := pinnable(u, addrs)
	if !ok {
		return ""
	}
	port := u.Port()
	if port == "" {
		port = "80"
		if strings.EqualFold(u.Scheme, "https") {
			port = "443"
		}
	}
	list := make([]string, len(pins))
	for i, a := range pins {
		list[i] = hostLiteral(a)
	}
	return strings.ToLower(u.Hostname()) + ":" + port + ":" + strings.Join(list, ",")
}

// hostLiteral writes a as a URL host: IPv6 in brackets, without a zone.
func hostLiteral(a netip.Addr) string {
	a = a.WithZone("")
	if a.Is6() && !a.Is4In6() {
		return "[" + a.String() + "]"
	}
	return a.Unmap().String()
}

// configEnv passes config to git (and the helpers it starts, which
// inherit the environment) without putting it on the command line.
func configEnv(config []configEntry) []string {
	if len(config) == 0 {
		return nil
	}
	env := []string{"GIT_CONFIG_COUNT=" + strconv.Itoa(len(config))}
	for i, c := range config {
		n := strconv.Itoa(i)
		env = append(env, "GIT_CONFIG_KEY_"+n+"="+c.key, "GIT_CONFIG_VALUE_"+n+"="+c.value)
	}
	return env
}
