//go:build !linux

package sandbox

import (
	"os"
	"os/exec"

	"github.com/coursekit/course/grader/internal/procgroup"
	"github.com/coursekit/course/grader/report"
)

// sandbox where there are no namespaces (macOS, the BSDs, Windows): a
// process group of the grader's own user, which Strict refuses.
type Sandbox struct {
	iso report.Isolation
}

// New finds the strongest confinement this machine gives and, in Strict
// mode, refuses anything below LevelFull.
func New(c Config) (*Sandbox, error) {
	if c.Mode == "" {
		c.Mode = Strict
	}
	if c.Memory <= 0 {
		c.Memory = DefaultMemoryLimit
	}
	if c.Processes <= 0 {
		c.Processes = DefaultProcessLimit
	}
	mode := c.Mode
	s := &Sandbox{iso: report.Isolation{Level: report.LevelNone, Missing: []string{
		"the grader's own files (student code runs as the grader's user: it can read and replace the test binary)",
		"the network", "memory and process limits",
	}}}
	describe(&s.iso, "")
	if mode == Strict {
		return nil, &Error{Offered: s.iso, Why: "this system has no Linux namespaces"}
	}
	return s, nil
}

// Admit reads what a run of bin needs from outside the sandbox: here,
// where runs are not confined, nothing.
func (s *Sandbox) Admit(bin string) error { return nil }

// Isolation says how this sandbox confines runs.
func (s *Sandbox) Isolation() report.Isolation { return s.iso }

func (s *Sandbox) prepare(j Job) (*launch, error) {
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
	procgroup.Set(cmd)
	return &launch{
		cmd:    cmd,
		kill:   func() { _ = procgroup.Kill(cmd) },
		finish: func(*Outcome) error { return nil },
	}, nil
}

// ForeignUID reports whether runs of student code are of other users than
// the grader's: never here.
func (s *Sandbox) ForeignUID() bool { return false }
