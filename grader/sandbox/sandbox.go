// Package sandbox confines runs of student code: a private filesystem,
// process tree and network, a user id of its own, memory, process and CPU
// limits, and every process gone when the run ends (Linux with bubblewrap
// and cgroups; weaker levels elsewhere, which a report names). It also
// bounds the toolchain's builds. It knows nothing of labs or verdicts: it
// runs a Job and says what happened (Outcome).
package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/coursekit/course/grader/report"
	"github.com/dustin/go-humanize"
)

// Mode says how strongly student code must be confined.
type Mode string

// Sandbox modes.
const (
	// Strict grades only where every run gets a private filesystem,
	// process tree and network, as a user that is not the grader's; it
	// refuses (an ErrSetup) on a machine that cannot give that.
	Strict Mode = "strict"
	// Best grades with the strongest confinement the machine gives,
	// and the report says which. Below "full" the binary and the grader's
	// files may be within reach of student code: choose it knowingly.
	Best Mode = "best"
	// Off runs in a process group only: for the course's own code
	// (the self-check), never for student code.
	Off Mode = "off"
)

// ParseMode reads a --sandbox value.
func ParseMode(s string) (Mode, error) {
	switch m := Mode(s); m {
	case Strict, Best, Off:
		return m, nil
	}
	return "", fmt.Errorf("unknown sandbox mode %q (known: strict, best, off)", s)
}

// Default resource limits of one run of student code.
const (
	DefaultMemoryLimit  = 1 << 30
	DefaultProcessLimit = 512
	// BuildMemoryLimit bounds the compiler (a crafted file can make it
	// allocate without end).
	BuildMemoryLimit = 4 << 30
	// buildFileLimit bounds every file a build writes (objects, the test
	// binary, build cache entries): the course's largest is a few tens of
	// MiB.
	buildFileLimit = 256 << 20
)

// describe fills in i.Name from its other fields.
func describe(i *report.Isolation, tool string) {
	var ns, rest []string
	for _, m := range i.Mechanisms {
		switch m {
		case "mount", "pid", "net", "ipc", "uts", "user":
			ns = append(ns, m)
		case "uid":
			rest = append(rest, "a uid of its own per run")
		case "cgroup-v1", "cgroup-v2":
			rest = append(rest, fmt.Sprintf("%s (memory %s, %d processes)", strings.Replace(m, "-", " ", 1),
				humanize.IBytes(uint64(i.MemoryLimit)), i.ProcessLimit))
		case "cpu":
			rest = append(rest, "one CPU per run")
		case "rlimits":
			rest = append(rest, "rlimits")
		}
	}
	var parts []string
	if len(ns) > 0 {
		s := strings.Join(ns, ", ") + " namespaces"
		if tool != "" {
			s = tool + " (" + s + ")"
		}
		parts = append(parts, s)
	}
	parts = append(parts, rest...)
	if len(parts) == 0 {
		parts = []string{"process group only"}
	}
	i.Name = i.Level + ": " + strings.Join(parts, ", ")
}

// ErrTooWeak marks a machine whose sandbox is weaker than the mode asked
// for. Nothing is graded there (exit status 2).
var ErrTooWeak = errors.New("the sandbox this machine offers is too weak")

// Error says what the machine offers and what it lacks.
type Error struct {
	Offered report.Isolation
	Why     string // what stopped the stronger level
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s: grading needs a full sandbox (a private filesystem, process tree and network for every run) but here %s; %s; to grade anyway with the weaker one, which leaves %s, pass --sandbox best",
		ErrTooWeak, e.Why, "the best available is "+e.Offered.Name, strings.Join(e.Offered.Missing, " and "))
}

// ErrSetup marks a grading machine that is not ready: no C compiler, no
// sh, a temporary directory a run cannot reach, the lab's modules missing.
// Grading there would fail every student for the machine's fault, so
// nothing is graded (exit status 2).
var ErrSetup = errors.New("the grading machine is not ready")

// Is makes every Error match ErrTooWeak and ErrSetup.
func (e *Error) Is(target error) bool {
	return target == ErrTooWeak || target == ErrSetup
}

// Config says how strongly to confine, and with which limits.
type Config struct {
	Mode      Mode  // Strict if empty
	Memory    int64 // one run's memory, in bytes; DefaultMemoryLimit if zero
	Processes int   // one run's processes and threads; DefaultProcessLimit if zero
	// NoBubblewrap confines as on a machine without bubblewrap (tests of
	// the weaker levels).
	NoBubblewrap bool
}

// CheckReachable makes sure that the user runs of student code are started
// as can reach dir (every directory above it must let others pass), so
// that a run is never started where it cannot work.
func (s *Sandbox) CheckReachable(dir string) error {
	if !s.ForeignUID() {
		return nil
	}
	if dir == "" {
		dir = os.TempDir()
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	for d := abs; ; d = filepath.Dir(d) {
		info, err := os.Stat(d)
		if err != nil {
			return err
		}
		if info.Mode().Perm()&0o001 == 0 {
			return fmt.Errorf("%w: student code runs as an unprivileged user, who cannot pass through %s (mode %v); grade with a temporary directory others can traverse", ErrSetup, d, info.Mode().Perm())
		}
		if d == filepath.Dir(d) {
			return nil
		}
	}
}
