//go:build !unix

package grader

import (
	"os/exec"
	"time"
)

// sandbox where there are no process groups (Windows): the program itself is
// killed on timeout; anything it started may outlive it.
type sandbox struct{}

func newSandbox(bool) *sandbox { return &sandbox{} }

func (s *sandbox) runUID() int { return -1 }

func (s *sandbox) start(mk func() *exec.Cmd) (*exec.Cmd, Isolation, error) {
	cmd := mk()
	return cmd, Isolation{Name: "none (process only)"}, cmd.Start()
}

func (s *sandbox) limit(*exec.Cmd, time.Duration) {}

func killGroup(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	return cmd.Process.Kill()
}
