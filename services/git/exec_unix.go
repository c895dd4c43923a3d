//go:build unix

package git

import (
	"os/exec"
	"syscall"
)

// killProcessGroup runs git in its own process group and, on cancellation,
// kills the whole group so helpers git spawned (pack-objects, index-pack,
// remote helpers) do not outlive the request.
func killProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
