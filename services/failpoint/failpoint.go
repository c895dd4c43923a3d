// Package failpoint lets crash tests kill forge at a chosen moment.
//
// A test starts `forge serve` with FORGE_FAILPOINT=<name>; when the code
// reaches failpoint.Hit(<name>) the process kills itself with SIGKILL, as a
// power cut or an OOM kill would, so no deferred cleanup runs. Without the
// variable Hit costs one comparison with an empty string.
package failpoint

import (
	"os"
	"sync/atomic"
)

// EnvVar names the failpoint to trigger. It is read once, at start-up.
const EnvVar = "FORGE_FAILPOINT"

var armed = os.Getenv(EnvVar)

// hits counts the passes through an armed failpoint; the variable may be
// written "<name>@<n>" to crash on the n-th pass instead of the first.
var hits atomic.Int64

// Hit kills the process if name is the armed failpoint.
func Hit(name string) {
	if armed == "" {
		return
	}
	want, n := parse(armed)
	if want != name {
		return
	}
	if hits.Add(1) < n {
		return
	}
	kill()
}

// parse splits "<name>@<n>" (n >= 1; default 1).
func parse(v string) (string, int64) {
	for i := len(v) - 1; i >= 0; i-- {
		if v[i] == '@' {
			var n int64
			for _, c := range v[i+1:] {
				if c < '0' || c > '9' {
					return v, 1
				}
				n = n*10 + int64(c-'0')
			}
			if n < 1 {
				n = 1
			}
			return v[:i], n
		}
	}
	return v, 1
}
