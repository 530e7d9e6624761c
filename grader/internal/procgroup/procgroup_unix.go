//go:build unix

package procgroup

import (
	"errors"
	"os/exec"
	"syscall"
)

// Set starts cmd in a process group of its own, for Kill, and where the
// system can, has the kernel kill it if this process dies first.
func Set(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	dieWithParent(cmd.SysProcAttr)
}

// Kill kills the process group of cmd: the program and anything it started.
func Kill(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	if errors.Is(err, syscall.ESRCH) {
		return nil
	}
	return err
}
