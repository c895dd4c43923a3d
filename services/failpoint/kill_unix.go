//go:build unix

package failpoint

import "syscall"

func kill() {
	syscall.Kill(syscall.Getpid(), syscall.SIGKILL)
	select {} // the signal is delivered asynchronously; never continue
}
