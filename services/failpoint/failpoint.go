// Package failpoint lets crash tests stop the process at a chosen moment.
//
// Test-only: a failpoint does nothing unless the environment variable
// FORGE_FAILPOINT, read once when the process starts, names it. Production
// deployments never set it.
package failpoint

import "os"

// armed is the failpoint named by FORGE_FAILPOINT at start-up ("" = none).
var armed = os.Getenv("FORGE_FAILPOINT")

// Hit kills the process with SIGKILL (no deferred functions, no flushing,
// exactly like `kill -9`) when name is the armed failpoint.
func Hit(name string) {
	if armed == "" || armed != name {
		return
	}
	if p, err := os.FindProcess(os.Getpid()); err == nil {
		p.Kill() // SIGKILL on unix
	}
	select {} // the signal is asynchronous; never run past the failpoint
}
