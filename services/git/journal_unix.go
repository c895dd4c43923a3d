//go:build unix

package git

import (
	"errors"
	"syscall"
)

// processAlive reports whether pid names a running process (EPERM: it
// exists but belongs to someone else).
func processAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
