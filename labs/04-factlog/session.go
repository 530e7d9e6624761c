// Package factlog is chapter 4's lab, the one-day track: a history of facts
// that survives a crash. It is kept as JSONL, one entry a line, only ever
// appended to; it is a tree, not a list; and its writer stops for good the
// moment a write fails.
//
// This is the one file you edit. Every function below has its final
// signature; replace each body, exercise by exercise, until
// `go test -run Lab4_<n>` passes. The handout (README.md) explains each one.
package factlog

import "fmt"

// notImplemented is the error of a function you have not written yet.
func notImplemented(exercise, name string) error {
	return fmt.Errorf("Lab %s: %s: %w", exercise, name, ErrNotImplemented)
}

// ---- 4.1 ------------------------------------------------------------------

// Recover reads the text of a log. A line counts only once it ends in "\n":
// a last line without one was never committed, so it is not parsed; it comes
// back as the Recovery's Tail. Blank lines are skipped but counted. The first
// committed line that DecodeEntry refuses stops recovery with a *LineError
// naming its 1-based line, and no entries at all.
func Recover(text string) (Recovery, error) {
	return Recovery{}, notImplemented("4.1", "Recover")
}

// ---- 4.2 ------------------------------------------------------------------

// PathTo returns the active path that ends at leafID: the entries from its
// root down to it, root first, in a new slice. An unknown leafID is an
// *UnknownIDError; a parent that is not there is a *BrokenChainError naming
// the child and the parent; a chain that comes back on itself is a
// *CycleError. Only the chain from leafID to its root is checked.
func PathTo(entries []Entry, leafID string) ([]Entry, error) {
	return nil, notImplemented("4.2", "PathTo")
}

// ---- 4.3 ------------------------------------------------------------------

// SessionLog appends entries to a log through a WriteFunc, one line each,
// and never writes anything else. After a failed write it is tainted and
// refuses every later append for good. One goroutine uses it at a time.
type SessionLog struct {
	// Add the fields you need.
}

// OpenSessionLog returns a log that goes on from rec: its entries are the
// log's committed entries so far, and new lines go through write. If rec has
// a Tail, the storage ends in half a line: the log is tainted from the start.
func OpenSessionLog(write WriteFunc, rec Recovery) *SessionLog {
	return &SessionLog{}
}

// Append writes e as one line: EncodeEntry's bytes and "\n", in one call to
// the write function. An invalid entry, a taken id (*DuplicateIDError) or a
// parent the log does not hold (*BrokenChainError) is refused before
// anything is written. A failed write returns a *WriteError and taints the
// log: every later call returns a *TaintedError and writes nothing.
func (l *SessionLog) Append(e Entry) error {
	return notImplemented("4.3", "SessionLog.Append")
}

// Entries returns the committed entries, in the order they were appended,
// in a new slice.
func (l *SessionLog) Entries() []Entry {
	return nil
}

// ---- 4.4 (optional) -------------------------------------------------------

// Reduce returns the state after ev, and never changes state: its Deltas and
// Tools stay as they were. A start of a newer run begins that run afresh;
// any other event that is not of the current, running run is ignored, and
// so is a tool_start of a tool that is already done.
func Reduce(state State, ev Event) State {
	return state // Lab 4.4: not implemented
}

// Kernel holds the state of the runs and the subscribers that watch it.
type Kernel struct {
	// Add the fields you need.
}

// NewKernel returns a kernel in the zero (idle) state that tells
// subscribers, in this order, after every Run.
func NewKernel(subscribers ...func(State)) *Kernel {
	return &Kernel{}
}

// Run applies a queue of events with Reduce: first every abort in it, in
// queue order, then the other events in their order. Then it keeps the new
// state, gives every subscriber its own copy of it, once, and returns
// another copy and a nil error: an ignored event or an aborted run is not an
// error. An event of an unknown kind is an *UnknownEventError, returned with
// the zero State; then nothing of the queue is applied and no subscriber is
// told.
func (k *Kernel) Run(queue []Event) (State, error) {
	return State{}, notImplemented("4.4", "Kernel.Run")
}
