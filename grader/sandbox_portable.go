//go:build !linux

package grader

import (
	"os"
	"os/exec"
)

// sandbox where there are no namespaces (macOS, the BSDs, Windows): a
// process group of the grader's own user, which SandboxStrict refuses.
type sandbox struct {
	iso Isolation
}

func newSandbox(mode SandboxMode, memory int64, procs int, _ bool) (*sandbox, error) {
	s := &sandbox{iso: Isolation{Level: LevelNone, Missing: []string{
		"the grader's own files (student code runs as the grader's user: it can read and replace the test binary)",
		"the network", "memory and process limits",
	}}}
	s.iso.describe("")
	if mode == SandboxStrict {
		return nil, &SandboxError{Offered: s.iso, Why: "this system has no Linux namespaces"}
	}
	return s, nil
}

func (s *sandbox) isolation() Isolation { return s.iso }

// launch is a command ready to start, with what must happen around it.
type launch struct {
	cmd    *exec.Cmd
	setup  func(pid int) error
	gate   *os.File
	kill   func()
	finish func(out *outcome) error
}

func (s *sandbox) prepare(j job) (*launch, error) {
	dir, env := j.Dir, j.Env
	if j.Untrusted {
		if err := os.MkdirAll(j.PrivateDir, 0o700); err != nil {
			return nil, err
		}
		dir = j.PrivateDir
		env = append(append([]string(nil), j.Env...), "HOME="+j.PrivateDir, "TMPDIR="+j.PrivateDir)
	}
	cmd := exec.Command(j.Path, j.Args...)
	cmd.Dir, cmd.Env, cmd.ExtraFiles = dir, env, j.Extra
	setProcessGroup(cmd)
	return &launch{
		cmd:    cmd,
		kill:   func() { _ = killGroup(cmd) },
		finish: func(*outcome) error { return nil },
	}, nil
}

func (s *sandbox) foreignUID() bool { return false }
