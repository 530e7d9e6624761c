package session_test

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coursekit/course/labs/10-session"
)

// jsonlHiddenDiskError is an error type the hidden tests inject, to check
// that errors.As still finds it through the tainted error.
type jsonlHiddenDiskError struct{ code int }

func (e *jsonlHiddenDiskError) Error() string { return "disk error" }

// Rule 10.5.4: a write that fails without writing a byte still taints:
// the writer cannot know how much was written.
func TestLab10_5_HiddenFailOutrightStillTaints(t *testing.T) {
	f := newFakeFS(t)
	ioErr := &jsonlHiddenDiskError{code: 28}
	f.onAppend(1, fakeHook{Err: ioErr, WriteN: 0})
	s := jsonlMustOpen(t, f, jsonlPath, "missing file")

	err := fakeWaitPending(t, fakeAppend(t, s, user("a", "", "hi"), "Append(a)"), "Append(a)")
	var de *jsonlHiddenDiskError
	require.True(t, errors.As(err, &de), "Append(a) with failing AppendFile = %s; want the write error", fakeDescribe(err))
	for _, e := range []session.SessionEntry{user("b", "", "root"), user("a", "", "retry a")} {
		err := fakeWaitPending(t, fakeAppend(t, s, e, "Append("+e.ID+")"), "Append("+e.ID+")")
		jsonlRequireTainted(t, err, ioErr, "after AppendFile failed (0 bytes written), Append(\""+e.ID+"\")")
		var de2 *jsonlHiddenDiskError
		assert.True(t, errors.As(err, &de2) && de2.code == 28, "errors.As must reach the original error value")
	}
	assert.Equal(t, 1, f.appendCount(), "a tainted writer never calls AppendFile again, even if the failed write wrote nothing")
	for i := 0; i < 2; i++ {
		_, err := fakeEntries(t, s, "Entries")
		jsonlRequireTainted(t, err, ioErr, "Entries() after the failed write")
	}
}

// Rule 10.5.5: a last line of only spaces is blank, not a tail: the store
// opens appendable, says nothing, and the line it appends after the blanks
// is read back on reopening.
func TestLab10_5_HiddenBlankTailNeedsNoRepair(t *testing.T) {
	f := newFakeFS(t)
	text := jsonlFileOf(t, user("a", "", "hi")) + "\n" + " \t "
	f.setFile(jsonlPath, text)
	s := jsonlMustOpen(t, f, jsonlPath, "file ending in a blank last line")
	assert.Empty(t, s.Warnings(), "Warnings() of a file whose last line is only spaces and a tab: no tail, no warning")
	err := fakeWaitPending(t, fakeAppend(t, s, assistantText("b", "a", "yo"), "Append(b)"), "Append(b)")
	require.NoError(t, err, "Append(b) over a file ending in \" \\t \" without newline = %s; want nil: a blank last "+
		"line holds no record, so nothing needs repair", fakeDescribe(err))
	after, _ := f.file(jsonlPath)
	assert.Equal(t, text+jsonlLine(t, assistantText("b", "a", "yo")), after, "b's line follows the blank bytes")
	s2 := jsonlMustOpen(t, f, jsonlPath, "reopening after the append")
	got, err := fakeEntries(t, s2, "Entries after reopening")
	require.NoError(t, err)
	assert.Equal(t, []session.SessionEntry{user("a", "", "hi"), assistantText("b", "a", "yo")}, got)
}

// Rule 10.5.5: a store reopened after a failed half write says why it
// refuses appends; blank and CRLF lines count for the tail's line.
func TestLab10_5_HiddenWarningsAfterReopen(t *testing.T) {
	f := newFakeFS(t)
	ioErr := &jsonlHiddenDiskError{code: 5}
	f.onAppend(2, fakeHook{Err: ioErr, WriteN: 9})
	s := jsonlMustOpen(t, f, jsonlPath, "missing file")
	require.NoError(t, fakeWaitPending(t, fakeAppend(t, s, user("a", "", "hi"), "Append(a)"), "Append(a)"))
	_ = fakeWaitPending(t, fakeAppend(t, s, user("b", "", "cut"), "Append(b)"), "Append(b)")
	s2 := jsonlMustOpen(t, f, jsonlPath, "reopening the file the failed write cut")
	assert.Equal(t, []session.Warning{{Code: session.WarnUnterminatedTail, Line: 2}}, s2.Warnings(),
		"Warnings() after reopening a file whose line 2 is 9 bytes of a line")

	f = newFakeFS(t)
	f.setFile(jsonlPath, "\r\n"+strings.TrimSuffix(jsonlLine(t, user("a", "", "hi")), "\n")+"\r\n\n \n"+`{"x`)
	s3 := jsonlMustOpen(t, f, jsonlPath, "a CRLF file with blank lines and a tail")
	assert.Equal(t, []session.Warning{{Code: session.WarnUnterminatedTail, Line: 5}}, s3.Warnings())
	got, err := fakeEntries(t, s3, "Entries")
	require.NoError(t, err)
	assert.Equal(t, []string{"a"}, ids(got))
}

// Rule 10.5.7: replaying the tree at open: an entry that is its own parent,
// a metadata id used twice after blank lines, a parent on a later CRLF
// line, and a broken tree before a tail (the tree fails the open first).
func TestLab10_5_HiddenOpenReplayErrors(t *testing.T) {
	crlf := func(es ...session.SessionEntry) string {
		var b strings.Builder
		for _, e := range es {
			b.WriteString(strings.TrimSuffix(jsonlLine(t, e), "\n") + "\r\n")
		}
		return b.String()
	}
	cases := []struct {
		name, text string
		line       int
		dup        string
		child, of  string
	}{
		{"an entry that is its own parent", jsonlFileOf(t, user("r", "", "root"), user("s", "s", "self")), 2, "", "s", "s"},
		{"a metadata id used twice", jsonlFileOf(t, user("r", "", "root"), metadata("m", "r")) + "\n\n" +
			jsonlFileOf(t, metadata("m", "r")), 5, "m", "", ""},
		{"a parent on a later CRLF line", crlf(user("r", "", "root"), assistantText("c", "p", "early"), user("p", "r", "late")), 2, "", "c", "p"},
		{"a duplicate before a tail", jsonlFileOf(t, user("r", "", "x"), user("r", "", "y")) + `{"ty`, 2, "r", "", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeFS(t)
			f.setFile(jsonlPath, tc.text)
			_, err := jsonlOpen(t, f, jsonlPath, tc.name)
			var le *session.LineError
			require.True(t, errors.As(err, &le), "OpenJSONLSessionStore over %s = %s; want a *LineError", tc.name, fakeDescribe(err))
			assert.Equal(t, tc.line, le.Line, "LineError.Line for %s", tc.name)
			if tc.dup != "" {
				var de *session.DuplicateIDError
				require.True(t, errors.As(err, &de), "want a *DuplicateIDError, got %s", fakeDescribe(err))
				assert.Equal(t, tc.dup, de.ID)
			} else {
				var mp *session.MissingParentError
				require.True(t, errors.As(err, &mp), "want a *MissingParentError, got %s", fakeDescribe(err))
				assert.Equal(t, tc.child, mp.ChildID)
				assert.Equal(t, tc.of, mp.ParentID)
			}
			assert.Equal(t, 0, f.appendCount())
		})
	}
}

// Rule 10.5.4, 10.5.8: several goroutines append and read while a write
// that fails with a typed error is in flight; every one of them gets a
// *TaintedError whose Err is that very value. Run with -race.
func TestLab10_5_HiddenManyCallersDuringFailingWrite(t *testing.T) {
	f := newFakeFS(t)
	ioErr := &jsonlHiddenDiskError{code: 122}
	gate := f.newGate()
	f.onAppend(1, fakeHook{Gate: gate, Err: ioErr})
	s := jsonlMustOpen(t, f, jsonlPath, "missing file")
	pA := fakeAppend(t, s, user("a", "", "hi"), "Append(a)")
	f.waitAppendStarted(t, 1, "Append(a)")

	const callers = 4
	errs := make(chan error, 3*callers)
	caught := newPanics(callers)
	var wg sync.WaitGroup
	for c := 0; c < callers; c++ {
		// Built here: fmt's buffer pool would order the goroutines under -race.
		first, second := user(fmt.Sprintf("r%d", c), "", "root"), user(fmt.Sprintf("s%d", c), "", "root")
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer caught.catch("Append, Entries or Wait, in one of 4 callers during a failing write,")
			p1 := s.Append(first)
			_, err := s.Entries()
			errs <- err
			p2 := s.Append(second)
			errs <- p1.Wait()
			errs <- p2.Wait()
		}()
	}
	gate.open()
	err := fakeWaitPending(t, pA, "Append(a)")
	var de *jsonlHiddenDiskError
	require.True(t, errors.As(err, &de), "Append(a) = %s; want the write error", fakeDescribe(err))
	memWaitGroup(t, &wg, caught, "callers during the failing write")
	close(errs)
	for err := range errs {
		jsonlRequireTainted(t, err, ioErr, "a call made while a's write was in flight")
	}
	assert.Equal(t, 1, f.appendCount(), "nothing reaches AppendFile after the failed write")
}

// Rule 10.5.2: after the writer stopped, invalid entries of other kinds
// (an unknown field, an empty id, a nil message) are still rejected at call
// time with their *FieldError; valid ones get the stop reason.
func TestLab10_5_HiddenInvalidEntriesAfterStop(t *testing.T) {
	f := newFakeFS(t)
	ioErr := &jsonlHiddenDiskError{code: 28}
	f.onAppend(1, fakeHook{Err: ioErr, WriteHalf: true})
	s := jsonlMustOpen(t, f, jsonlPath, "missing file")
	_ = fakeWaitPending(t, fakeAppend(t, s, user("a", "", "hi"), "Append(a)"), "Append(a)")

	noID := user("", "", "no id")
	noMessage := user("m", "", "x")
	noMessage.Message = nil
	badValue := metadata("k", "")
	badValue.Value = map[string]any{"n": 1}
	for path, e := range map[string]session.SessionEntry{"entry.id": noID, "entry.message": noMessage, "entry.value.n": badValue} {
		p := fakeAppend(t, s, e, "Append(invalid)")
		require.True(t, fakeIsDone(p), "Append(entry invalid at %s) on a tainted store is not completed at once", path)
		err := fakeWaitPending(t, p, "invalid append")
		var fe *session.FieldError
		require.True(t, errors.As(err, &fe), "Append(entry invalid at %s) on a tainted store = %s; want its *FieldError", path, fakeDescribe(err))
		assert.Equal(t, path, fe.Path)
	}
	err := fakeWaitPending(t, fakeAppend(t, s, user("v", "", "valid"), "Append(v)"), "Append(v)")
	jsonlRequireTainted(t, err, ioErr, "Append(valid v) on the tainted store")
	assert.Equal(t, 1, f.appendCount())
}

// Rule 10.5.3, 10.5.8: duplicates and orphans queued behind a blocked write
// are judged in their turn, never reach AppendFile and do not taint.
func TestLab10_5_HiddenQueuedRefusalsDoNotTaint(t *testing.T) {
	f := newFakeFS(t)
	gate := f.newGate()
	f.onAppend(1, fakeHook{Gate: gate})
	s := jsonlMustOpen(t, f, jsonlPath, "missing file")
	entries := []session.SessionEntry{
		user("x", "", "first"),
		user("x", "", "duplicate"),
		assistantText("y", "missing", "orphan"),
		assistantText("z", "x", "child of x"),
	}
	ps := memAppendAll(t, s, entries, "four appends")
	f.waitAppendStarted(t, 1, "Append(x)")
	gate.open()

	require.NoError(t, fakeWaitPending(t, ps[0], "Append(x)"))
	var de *session.DuplicateIDError
	err := fakeWaitPending(t, ps[1], "Append(x again)")
	require.True(t, errors.As(err, &de), "queued second Append(x) = %s; want *DuplicateIDError", fakeDescribe(err))
	var mp *session.MissingParentError
	err = fakeWaitPending(t, ps[2], "Append(y)")
	require.True(t, errors.As(err, &mp), "Append(y, parent missing) = %s; want *MissingParentError", fakeDescribe(err))
	assert.False(t, errors.Is(err, session.ErrTainted), "a refused append does not taint")
	err = fakeWaitPending(t, ps[3], "Append(z)")
	require.NoError(t, err, "Append(z, parent x) behind two refusals = %s; want nil", fakeDescribe(err))
	assert.Equal(t, []string{"x", "z"}, jsonlAppendedIDs(t, f), "only x and z reach AppendFile")
	got, err := fakeEntries(t, s, "Entries")
	require.NoError(t, err)
	assert.Equal(t, []session.SessionEntry{user("x", "", "first"), assistantText("z", "x", "child of x")}, got)
}

// Rule 10.5.6: a committed line that is JSON but not an entry fails the open
// with its line and the field path.
func TestLab10_5_HiddenOpenInvalidEntryLine(t *testing.T) {
	f := newFakeFS(t)
	bad := recoverLineWith(t, assistantText("b", "a", "yo"), "extra", 1.0)
	f.setFile(jsonlPath, "\n"+jsonlFileOf(t, user("a", "", "hi"))+bad+"\n"+jsonlFileOf(t, user("c", "", "x")))
	_, err := jsonlOpen(t, f, jsonlPath, "file with an invalid entry on line 3")
	var le *session.LineError
	require.True(t, errors.As(err, &le), "OpenJSONLSessionStore = %s; want *LineError", fakeDescribe(err))
	assert.Equal(t, 3, le.Line)
	var fe *session.FieldError
	require.True(t, errors.As(err, &fe), "want errors.As to reach the *FieldError, got %s", fakeDescribe(err))
	assert.Equal(t, "entry.extra", fe.Path)
	assert.Equal(t, 0, f.appendCount())
}

// Rule 10.5.8: Entries waits for every append called before it, in every
// round, not only when the scheduler is kind.
func TestLab10_5_HiddenEntriesWaitsRepeated(t *testing.T) {
	for round := 0; round < 30; round++ {
		f := newFakeFS(t)
		gate := f.newGate()
		f.onAppend(1, fakeHook{Gate: gate})
		s := jsonlMustOpen(t, f, jsonlPath, "missing file")
		entries := []session.SessionEntry{user("a", "", "hi"), assistantToolCall("b", "a", "c1"), toolResult("r", "b", "c1")}
		ps := memAppendAll(t, s, entries, "three appends")
		f.waitAppendStarted(t, 1, "first append")
		gate.open()
		got, err := s.Entries()
		require.NoError(t, err)
		require.Equal(t, entries, got, "round %d: Entries() called after three Append calls must wait for all three (lab 10.5)", round)
		memRequireCommitted(t, ps, entries, "three appends")
	}
}
