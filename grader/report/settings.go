package report

import (
	"strings"
	"time"

	"github.com/dustin/go-humanize"
)

// Settings is how a submission was graded, beside Isolation and Race: when,
// by which version of the course tool, and the choices of the command line
// that bear on its verdict. The grader sets it; a report saved before it
// existed has none.
type Settings struct {
	// Graded is when its grading began.
	Graded time.Time `json:"graded"`
	// Version is the course tool's version ("v1.4.0", or "(devel)" and a
	// revision for a tool built from a checkout); "" when it cannot be told.
	Version string `json:"version,omitempty"`
	// Sandbox is the mode asked for: strict, best or off (Isolation is
	// what the machine gave).
	Sandbox string `json:"sandbox,omitempty"`
	// Timeout bounds one run of the tests, Budget all runs of the
	// submission together (nanoseconds in JSON).
	Timeout time.Duration `json:"timeout_ns,omitempty"`
	Budget  time.Duration `json:"budget_ns,omitempty"`
	// Memory is the memory one run was allowed, in bytes, as asked for.
	Memory int64 `json:"memory,omitempty"`
	// Hidden: the lab's hidden tests were run.
	Hidden bool `json:"hidden"`
	// Bonus: the bonus exercises were graded, and count in the maximum.
	Bonus bool `json:"bonus,omitempty"`
	// PrivateTests: an instructor's own suite (--tests) ran too, as hidden tests.
	PrivateTests bool `json:"private_tests,omitempty"`
	// Exercises are the only exercises graded (--lab); empty: all of them.
	Exercises []string `json:"exercises,omitempty"`
}

// Flags are the settings as the flags of `course grade` that give them,
// one flag and its value a string: what an instructor types to grade
// another submission the same way.
func (s Settings) Flags() []string {
	var out []string
	if s.Sandbox != "" {
		out = append(out, "--sandbox "+s.Sandbox)
	}
	if s.Timeout > 0 {
		out = append(out, "--timeout "+s.Timeout.String())
	}
	if s.Budget > 0 {
		out = append(out, "--budget "+s.Budget.String())
	}
	if s.Memory > 0 {
		out = append(out, "--memory "+strings.ReplaceAll(humanize.IBytes(uint64(s.Memory)), " ", ""))
	}
	if !s.Hidden {
		out = append(out, "--no-hidden")
	}
	if s.Bonus {
		out = append(out, "--bonus")
	}
	if s.PrivateTests {
		out = append(out, "--tests DIR")
	}
	if len(s.Exercises) > 0 {
		out = append(out, "--lab "+strings.Join(s.Exercises, ","))
	}
	return out
}
