package report

import "slices"

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
func (i Isolation) Has(m string) bool { return slices.Contains(i.Mechanisms, m) }
