package grader

import (
	"os/exec"
	"syscall"
)

// setProcessGroup starts cmd in a process group of its own, for killGroup,
// and has the kernel kill it if the grader dies first.
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
