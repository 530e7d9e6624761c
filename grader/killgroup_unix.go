//go:build unix

package grader

import (
	"errors"
	"os/exec"
	"syscall"
)

// killGroup kills the process group of cmd: the program and anything it started.
func killGroup(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	if errors.Is(err, syscall.ESRCH) {
		return nil
	}
	return err
}
