// Package factlog is chapter 4's lab, the one-day track: a history of facts
// that survives a crash. It is kept as JSONL, one entry a line, only ever
// appended to; it is a tree, not a list; and its writer stops for good the
// moment a write fails.
//
// This is the reference solution of session.go.
package factlog

import (
	"slices"
	"strings"
)

// ---- 4.1 ------------------------------------------------------------------

// Recover reads the text of a log. A line counts only once it ends in "\n":
// a last line without one was never committed, so it is not parsed; it comes
// back as the Recovery's Tail. Blank lines are skipped but counted. The first
// committed line that DecodeEntry refuses stops recovery with a *LineError
// naming its 1-based line, and no entries at all.
func Recover(text string) (Recovery, error) {
	// Split leaves one more piece than there are "\n": every piece but the
	// last ended in a newline and was committed; the last did not.
	lines := strings.Split(text, "\n")
	committed, tail := lines[:len(lines)-1], lines[len(lines)-1]
	var rec Recovery
	for i, line := range committed {
		if strings.Trim(line, " \t\r") == "" {
			continue // blank: nothing to parse, but it keeps its number
		}
		e, err := DecodeEntry([]byte(line))
		if err != nil {
			// Skipping it would hide a fact that later lines may follow.
			return Recovery{}, &LineError{Line: i + 1, Err: err}
		}
		rec.Entries = append(rec.Entries, e)
	}
	if tail != "" {
		rec.Tail = &UnterminatedTailError{Line: len(lines), Bytes: len(tail)}
	}
	return rec, nil
}

// ---- 4.2 ------------------------------------------------------------------

// PathTo returns the active path that ends at leafID: the entries from its
// root down to it, root first, in a new slice. An unknown leafID is an
// *UnknownIDError; a parent that is not there is a *BrokenChainError naming
// the child and the parent; a chain that comes back on itself is a
// *CycleError. Only the chain from leafID to its root is checked.
func PathTo(entries []Entry, leafID string) ([]Entry, error) {
	index := make(map[string]int, len(entries))
	for i, e := range entries {
		if _, ok := index[e.ID]; !ok {
			index[e.ID] = i
		}
	}
	i, ok := index[leafID]
	if !ok {
		return nil, &UnknownIDError{ID: leafID}
	}
	seen := map[string]bool{}
	var path []Entry // leaf first while walking up
	for {
		e := entries[i]
		if seen[e.ID] {
			return nil, &CycleError{ID: e.ID}
		}
		seen[e.ID] = true
		path = append(path, e)
		if e.IsRoot() {
			break
		}
		if i, ok = index[e.ParentID]; !ok {
			return nil, &BrokenChainError{ChildID: e.ID, ParentID: e.ParentID}
		}
	}
	slices.Reverse(path)
	return path, nil
}

// ---- 4.3 ------------------------------------------------------------------

// SessionLog appends entries to a log through a WriteFunc, one line each,
// and never writes anything else. After a failed write it is tainted and
// refuses every later append for good. One goroutine uses it at a time.
type SessionLog struct {
	write   WriteFunc
	entries []Entry
	ids     map[string]bool
	// tainted is why the log stopped for good, or nil while it writes.
	tainted error
}

// OpenSessionLog returns a log that goes on from rec: its entries are the
// log's committed entries so far, and new lines go through write. If rec has
// a Tail, the storage ends in half a line: the log is tainted from the start.
func OpenSessionLog(write WriteFunc, rec Recovery) *SessionLog {
	l := &SessionLog{write: write, entries: slices.Clone(rec.Entries), ids: map[string]bool{}}
	for _, e := range l.entries {
		l.ids[e.ID] = true
	}
	if rec.Tail != nil {
		tail := *rec.Tail
		l.tainted = &tail
	}
	return l
}

// Append writes e as one line: EncodeEntry's bytes and "\n", in one call to
// the write function. An invalid entry, a taken id (*DuplicateIDError) or a
// parent the log does not hold (*BrokenChainError) is refused before
// anything is written. A failed write returns a *WriteError and taints the
// log: every later call returns a *TaintedError and writes nothing.
func (l *SessionLog) Append(e Entry) error {
	if l.tainted != nil {
		return &TaintedError{Err: l.tainted}
	}
	line, err := EncodeEntry(e)
	if err != nil {
		return err
	}
	if l.ids[e.ID] {
		return &DuplicateIDError{ID: e.ID}
	}
	if !e.IsRoot() && !l.ids[e.ParentID] {
		return &BrokenChainError{ChildID: e.ID, ParentID: e.ParentID}
	}
	if err := l.write(append(line, '\n')); err != nil {
		// Any prefix of the line may be in the storage now. Another line
		// after it would turn that half line into a committed bad one.
		l.tainted = &WriteError{ID: e.ID, Err: err}
		return l.tainted
	}
	l.entries = append(l.entries, e)
	l.ids[e.ID] = true
	return nil
}

// Entries returns the committed entries, in the order they were appended,
// in a new slice.
func (l *SessionLog) Entries() []Entry {
	return slices.Clone(l.entries)
}

// ---- 4.4 (optional) -------------------------------------------------------

// Reduce returns the state after ev, and never changes state: its Deltas and
// Tools stay as they were. A start of a newer run begins that run afresh;
// any other event that is not of the current, running run is ignored, and
// so is a tool_start of a tool that is already done.
func Reduce(state State, ev Event) State {
	if ev.Kind == EventStart {
		if ev.RunID > state.RunID {
			return State{RunID: ev.RunID, Status: StatusRunning}
		}
		return state // a late start of an earlier (or this) run
	}
	if ev.RunID != state.RunID || state.Status != StatusRunning {
		return state // late, early, or after the run ended
	}
	next := state.Clone() // copy on write: state stays a valid snapshot
	switch ev.Kind {
	case EventDelta:
		next.Deltas = append(next.Deltas, ev.Text)
	case EventToolStart, EventToolEnd:
		if ev.Kind == EventToolStart && state.Tools[ev.ToolID] == ToolDone {
			return state // the end is the fact: a late start does not reopen the tool
		}
		status := ToolRunning
		if ev.Kind == EventToolEnd {
			status = ToolDone
		}
		if next.Tools == nil {
			next.Tools = map[string]ToolStatus{}
		}
		next.Tools[ev.ToolID] = status
	case EventEnd:
		next.Status = StatusDone
	case EventAbort:
		next.Status = StatusAborted
	default:
		return state
	}
	return next
}

// Kernel holds the state of the runs and the subscribers that watch it.
type Kernel struct {
	state       State
	subscribers []func(State)
}

// NewKernel returns a kernel in the zero (idle) state that tells
// subscribers, in this order, after every Run.
func NewKernel(subscribers ...func(State)) *Kernel {
	return &Kernel{subscribers: slices.Clone(subscribers)}
}

// Run applies a queue of events with Reduce: first every abort in it, in
// queue order, then the other events in their order. Then it keeps the new
// state, gives every subscriber its own copy of it, once, and returns
// another copy and a nil error: an ignored event or an aborted run is not an
// error. An event of an unknown kind is an *UnknownEventError, returned with
// the zero State; then nothing of the queue is applied and no subscriber is
// told.
func (k *Kernel) Run(queue []Event) (State, error) {
	for i, ev := range queue {
		switch ev.Kind {
		case EventStart, EventDelta, EventToolStart, EventToolEnd, EventEnd, EventAbort:
		default:
			return State{}, &UnknownEventError{Index: i, Kind: ev.Kind}
		}
	}
	state := k.state
	for _, ev := range queue { // a cancel overtakes what is queued
		if ev.Kind == EventAbort {
			state = Reduce(state, ev)
		}
	}
	for _, ev := range queue {
		if ev.Kind != EventAbort {
			state = Reduce(state, ev)
		}
	}
	k.state = state
	for _, tell := range k.subscribers {
		tell(state.Clone()) // never the kernel's own slice or map
	}
	return state.Clone(), nil
}
