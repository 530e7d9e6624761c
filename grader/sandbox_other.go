//go:build !unix

package grader

import "os/exec"

func setProcessGroup(*exec.Cmd) {}

// killGroup kills the program itself: without process groups, anything it
// started may outlive it.
func killGroup(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	return cmd.Process.Kill()
}
