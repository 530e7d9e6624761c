package grader

import (
	"errors"
	"fmt"
	"strings"

	"github.com/dustin/go-humanize"
)

// SandboxMode says how strongly student code must be confined.
type SandboxMode string

// Sandbox modes.
const (
	// SandboxStrict grades only where every run gets a private filesystem,
	// process tree and network, as a user that is not the grader's; it
	// refuses (an ErrSetup) on a machine that cannot give that.
	SandboxStrict SandboxMode = "strict"
	// SandboxBest grades with the strongest confinement the machine gives,
	// and the report says which. Below "full" the binary and the grader's
	// files may be within reach of student code: choose it knowingly.
	SandboxBest SandboxMode = "best"
	// SandboxOff runs in a process group only: for the course's own code
	// (the self-check), never for student code.
	SandboxOff SandboxMode = "off"
)

// ParseSandboxMode reads a --sandbox value.
func ParseSandboxMode(s string) (SandboxMode, error) {
	switch m := SandboxMode(s); m {
	case SandboxStrict, SandboxBest, SandboxOff:
		return m, nil
	}
	return "", fmt.Errorf("unknown sandbox mode %q (known: strict, best, off)", s)
}

// Isolation levels, strongest first.
const (
	// LevelFull: a private root holding only the binary and an empty temp
	// dir, its own PID, network, IPC and UTS namespaces, a user that is not
	// the grader's (or a user namespace whose files are all private).
	LevelFull = "full"
	// LevelPartial: a user of its own (the grader runs as root) but no
	// private filesystem: world-readable files on the machine are in reach.
	LevelPartial = "partial"
	// LevelNone: a process group of the grader's own user.
	LevelNone = "none"
)

// Default resource limits of one run of student code.
const (
	DefaultMemoryLimit  = 1 << 30
	DefaultProcessLimit = 512
	// buildMemoryLimit bounds the compiler (a crafted file can make it
	// allocate without end).
	buildMemoryLimit = 4 << 30
	// buildFileLimit bounds every file a build writes (objects, the test
	// binary, build cache entries): the course's largest is a few tens of
	// MiB.
	buildFileLimit = 256 << 20
)

// Isolation says how runs of student code were confined. It is part of
// every report, so an instructor knows what a verdict was protected by.
type Isolation struct {
	// Level is LevelFull, LevelPartial or LevelNone.
	Level string `json:"level"`
	// Name is the same in one line for people.
	Name string `json:"name"`
	// Mechanisms lists each mechanism really used, by a fixed word:
	// "mount", "pid", "net", "ipc", "uts", "user" (namespaces), "uid" (a
	// user id of its own for every run), "cgroup-v1" or "cgroup-v2"
	// (memory and process limits), "cpu" (a CPU share and a one-CPU quota
	// per run), "rlimits".
	Mechanisms []string `json:"mechanisms"`
	// MemoryLimit is the memory a run may use, in bytes (0: none).
	MemoryLimit int64 `json:"memory_limit,omitempty"`
	// ProcessLimit is how many processes and threads a run may have (0: none).
	ProcessLimit int `json:"process_limit,omitempty"`
	// Missing says what this level does not protect, one item each.
	Missing []string `json:"missing,omitempty"`
}

// Has reports whether mechanism m was used.
func (i Isolation) Has(m string) bool {
	for _, x := range i.Mechanisms {
		if x == m {
			return true
		}
	}
	return false
}

// describe fills in Name from the other fields.
func (i *Isolation) describe(tool string) {
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

// ErrSandbox marks a machine whose sandbox is weaker than the mode asked
// for. Nothing is graded there (exit status 2).
var ErrSandbox = errors.New("the sandbox this machine offers is too weak")

// SandboxError says what the machine offers and what it lacks.
type SandboxError struct {
	Offered Isolation
	Why     string // what stopped the stronger level
}

func (e *SandboxError) Error() string {
	return fmt.Sprintf("%s: grading needs a full sandbox (a private filesystem, process tree and network for every run) but here %s; %s; to grade anyway with the weaker one, which leaves %s, pass --sandbox best",
		ErrSandbox, e.Why, "the best available is "+e.Offered.Name, strings.Join(e.Offered.Missing, " and "))
}

// Is makes every SandboxError match ErrSandbox and ErrSetup.
func (e *SandboxError) Is(target error) bool { return target == ErrSandbox || target == ErrSetup }
