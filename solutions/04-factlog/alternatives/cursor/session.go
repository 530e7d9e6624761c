// Package factlog is chapter 4's lab, the one-day track: a history of facts
// that survives a crash. It is kept as JSONL, one entry a line, only ever
// appended to; it is a tree, not a list; and its writer stops for good the
// moment a write fails.
//
// This alternative solution walks the text with a byte cursor (no splitting),
// keeps the session log's refusal reason as its only state flag, and lets the
// kernel validate the whole queue before it plans the order of application.
package factlog

import (
	"fmt"
	"strings"
)

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
	var found []Entry
	lineNo := 0
	rest := text
	for len(rest) > 0 {
		lineNo++
		nl := strings.IndexByte(rest, '\n')
		if nl < 0 {
			// Never committed: report it, never decode it.
			return Recovery{
				Entries: found,
				Tail:    &UnterminatedTailError{Line: lineNo, Bytes: len(rest)},
			}, nil
		}
		body := rest[:nl]
		rest = rest[nl+1:]
		if strings.Trim(body, " \t\r") == "" {
			continue
		}
		e, err := DecodeEntry([]byte(body))
		if err != nil {
			return Recovery{}, &LineError{Line: lineNo, Err: err}
		}
		found = append(found, e)
	}
	return Recovery{Entries: found}, nil
}

// ---- 4.2 ------------------------------------------------------------------

// PathTo returns the active path that ends at leafID: the entries from its
// root down to it, root first, in a new slice. An unknown leafID is an
// *UnknownIDError; a parent that is not there is a *BrokenChainError naming
// the child and the parent; a chain that comes back on itself is a
// *CycleError. Only the chain from leafID to its root is checked.
func PathTo(entries []Entry, leafID string) ([]Entry, error) {
	// Index positions, not copies: the path is built from entries at the end.
	pos := make(map[string]int, len(entries))
	for i, e := range entries {
		if _, taken := pos[e.ID]; !taken {
			pos[e.ID] = i
		}
	}
	at, ok := pos[leafID]
	if !ok {
		return nil, &UnknownIDError{ID: leafID}
	}
	// Walk up, collecting positions leaf first; depth records where each id
	// was met, so meeting it again closes a cycle.
	depth := map[string]int{}
	var up []int
	for {
		cur := entries[at]
		if _, again := depth[cur.ID]; again {
			return nil, &CycleError{ID: cur.ID}
		}
		depth[cur.ID] = len(up)
		up = append(up, at)
		if cur.ParentID == "" {
			break
		}
		next, ok := pos[cur.ParentID]
		if !ok {
			return nil, &BrokenChainError{ChildID: cur.ID, ParentID: cur.ParentID}
		}
		at = next
	}
	path := make([]Entry, len(up))
	for i, p := range up {
		path[len(up)-1-i] = entries[p]
	}
	return path, nil
}

// ---- 4.3 ------------------------------------------------------------------

// SessionLog appends entries to a log through a WriteFunc, one line each,
// and never writes anything else. After a failed write it is tainted and
// refuses every later append for good. One goroutine uses it at a time.
type SessionLog struct {
	write   WriteFunc
	entries []Entry
	known   map[string]struct{}
	// stopped is nil while the log is healthy; once set it is the reason
	// every later Append is refused, and it is never cleared.
	stopped error
}

// OpenSessionLog returns a log that goes on from rec: its entries are the
// log's committed entries so far, and new lines go through write. If rec has
// a Tail, the storage ends in half a line: the log is tainted from the start.
func OpenSessionLog(write WriteFunc, rec Recovery) *SessionLog {
	l := &SessionLog{
		write:   write,
		entries: append([]Entry(nil), rec.Entries...),
		known:   make(map[string]struct{}, len(rec.Entries)),
	}
	for _, e := range rec.Entries {
		l.known[e.ID] = struct{}{}
	}
	if rec.Tail != nil {
		tail := *rec.Tail // the log's own copy: rec stays the caller's
		l.stopped = &tail
	}
	return l
}

// Append writes e as one line: EncodeEntry's bytes and "\n", in one call to
// the write function. An invalid entry, a taken id (*DuplicateIDError) or a
// parent the log does not hold (*BrokenChainError) is refused before
// anything is written. A failed write returns a *WriteError and taints the
// log: every later call returns a *TaintedError and writes nothing.
func (l *SessionLog) Append(e Entry) error {
	if l.stopped != nil {
		return &TaintedError{Err: l.stopped}
	}
	encoded, err := EncodeEntry(e)
	if err != nil {
		return err
	}
	if _, taken := l.known[e.ID]; taken {
		return &DuplicateIDError{ID: e.ID}
	}
	if e.ParentID != "" {
		if _, there := l.known[e.ParentID]; !there {
			return &BrokenChainError{ChildID: e.ID, ParentID: e.ParentID}
		}
	}
	buf := make([]byte, 0, len(encoded)+1)
	buf = append(append(buf, encoded...), '\n')
	if err := l.write(buf); err != nil {
		werr := &WriteError{ID: e.ID, Err: err}
		l.stopped = werr
		return werr
	}
	l.entries = append(l.entries, e)
	l.known[e.ID] = struct{}{}
	return nil
}

// Entries returns the committed entries, in the order they were appended,
// in a new slice.
func (l *SessionLog) Entries() []Entry {
	out := make([]Entry, len(l.entries))
	copy(out, l.entries)
	return out
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
		return state
	}
	if ev.RunID != state.RunID || state.Status != StatusRunning {
		return state
	}
	switch ev.Kind {
	case EventDelta:
		next := state.Clone() // a fresh array: appending cannot reach state's
		next.Deltas = append(next.Deltas, ev.Text)
		return next
	case EventToolStart, EventToolEnd:
		if ev.Kind == EventToolStart && state.Tools[ev.ToolID] == ToolDone {
			return state // a start that arrives after the end changes nothing
		}
		next := state.Clone()
		if next.Tools == nil {
			next.Tools = map[string]ToolStatus{}
		}
		if ev.Kind == EventToolStart {
			next.Tools[ev.ToolID] = ToolRunning
		} else {
			next.Tools[ev.ToolID] = ToolDone
		}
		return next
	case EventEnd:
		next := state.Clone()
		next.Status = StatusDone
		return next
	case EventAbort:
		next := state.Clone()
		next.Status = StatusAborted
		return next
	}
	return state
}

// Kernel holds the state of the runs and the subscribers that watch it.
type Kernel struct {
	state       State
	subscribers []func(State)
}

// NewKernel returns a kernel in the zero (idle) state that tells
// subscribers, in this order, after every Run.
func NewKernel(subscribers ...func(State)) *Kernel {
	subs := make([]func(State), len(subscribers))
	copy(subs, subscribers)
	return &Kernel{subscribers: subs}
}

// knownKind reports whether k is one of the event kinds Reduce follows.
func knownKind(k EventKind) bool {
	switch k {
	case EventStart, EventDelta, EventToolStart, EventToolEnd, EventEnd, EventAbort:
		return true
	}
	return false
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
		if !knownKind(ev.Kind) {
			return State{}, &UnknownEventError{Index: i, Kind: ev.Kind}
		}
	}
	s := k.state
	// Two passes over the caller's queue, which stays as it is.
	for pass := 0; pass < 2; pass++ {
		for _, ev := range queue {
			if (ev.Kind == EventAbort) == (pass == 0) {
				s = Reduce(s, ev)
			}
		}
	}
	k.state = s
	for _, sub := range k.subscribers {
		sub(s.Clone())
	}
	return s.Clone(), nil
}
