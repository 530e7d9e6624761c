package session

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
	for _, e := range []SessionEntry{user("b", "", "root"), user("a", "", "retry a")} {
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

// Rule 10.5.5: blank lines count for the tail's line; a whitespace-only tail
// also needs repair; reading still works after refused appends.
func TestLab10_5_HiddenWhitespaceTailNeedsRepair(t *testing.T) {
	f := newFakeFS(t)
	text := jsonlFileOf(t, user("a", "", "hi")) + "\n" + "  "
	f.setFile(jsonlPath, text)
	s := jsonlMustOpen(t, f, jsonlPath, "file ending in a whitespace-only tail")
	err := fakeWaitPending(t, fakeAppend(t, s, assistantText("b", "a", "yo"), "Append(b)"), "Append(b)")
	var nr *NeedsRepairError
	require.True(t, errors.As(err, &nr), "Append over a file ending in \"  \" without newline = %s; want *NeedsRepairError",
		fakeDescribe(err))
	assert.True(t, errors.Is(err, ErrNeedsRepair))
	assert.Equal(t, 3, nr.Line, "a, a blank line, then the tail on line 3")
	assert.Equal(t, jsonlPath, nr.Path)
	got, err := fakeEntries(t, s, "Entries after a refused append")
	require.NoError(t, err, "a store that needs repair still reads its committed entries")
	assert.Equal(t, []SessionEntry{user("a", "", "hi")}, got)
	assert.Equal(t, 0, f.appendCount())
	after, _ := f.file(jsonlPath)
	assert.Equal(t, text, after, "the file is never rewritten")
}

// Rule 10.5.3, 10.5.7: duplicates and orphans queued behind a blocked write
// are judged in their turn, never reach AppendFile and do not taint.
func TestLab10_5_HiddenQueuedRefusalsDoNotTaint(t *testing.T) {
	f := newFakeFS(t)
	gate := f.newGate()
	f.onAppend(1, fakeHook{Gate: gate})
	s := jsonlMustOpen(t, f, jsonlPath, "missing file")
	entries := []SessionEntry{
		user("x", "", "first"),
		user("x", "", "duplicate"),
		assistantText("y", "missing", "orphan"),
		assistantText("z", "x", "child of x"),
	}
	ps := memAppendAll(t, s, entries, "four appends")
	f.waitAppendStarted(t, 1, "Append(x)")
	gate.open()

	require.NoError(t, fakeWaitPending(t, ps[0], "Append(x)"))
	var de *DuplicateIDError
	err := fakeWaitPending(t, ps[1], "Append(x again)")
	require.True(t, errors.As(err, &de), "queued second Append(x) = %s; want *DuplicateIDError", fakeDescribe(err))
	var mp *MissingParentError
	err = fakeWaitPending(t, ps[2], "Append(y)")
	require.True(t, errors.As(err, &mp), "Append(y, parent missing) = %s; want *MissingParentError", fakeDescribe(err))
	assert.False(t, errors.Is(err, ErrTainted), "a refused append does not taint")
	err = fakeWaitPending(t, ps[3], "Append(z)")
	require.NoError(t, err, "Append(z, parent x) behind two refusals = %s; want nil", fakeDescribe(err))
	assert.Equal(t, []string{"x", "z"}, jsonlAppendedIDs(t, f), "only x and z reach AppendFile")
	got, err := fakeEntries(t, s, "Entries")
	require.NoError(t, err)
	assert.Equal(t, []SessionEntry{user("x", "", "first"), assistantText("z", "x", "child of x")}, got)
}

// Rule 10.5.6: a committed line that is JSON but not an entry fails the open
// with its line and the field path.
func TestLab10_5_HiddenOpenInvalidEntryLine(t *testing.T) {
	f := newFakeFS(t)
	bad := recoverLineWith(t, assistantText("b", "a", "yo"), "extra", 1.0)
	f.setFile(jsonlPath, "\n"+jsonlFileOf(t, user("a", "", "hi"))+bad+"\n"+jsonlFileOf(t, user("c", "", "x")))
	_, err := jsonlOpen(t, f, jsonlPath, "file with an invalid entry on line 3")
	var le *LineError
	require.True(t, errors.As(err, &le), "OpenJSONLSessionStore = %s; want *LineError", fakeDescribe(err))
	assert.Equal(t, 3, le.Line)
	var fe *FieldError
	require.True(t, errors.As(err, &fe), "want errors.As to reach the *FieldError, got %s", fakeDescribe(err))
	assert.Equal(t, "entry.extra", fe.Path)
	assert.Equal(t, 0, f.appendCount())
}

// Rule 10.5.7: Entries waits for every append called before it, in every
// round, not only when the scheduler is kind.
func TestLab10_5_HiddenEntriesWaitsRepeated(t *testing.T) {
	for round := 0; round < 30; round++ {
		f := newFakeFS(t)
		gate := f.newGate()
		f.onAppend(1, fakeHook{Gate: gate})
		s := jsonlMustOpen(t, f, jsonlPath, "missing file")
		entries := []SessionEntry{user("a", "", "hi"), assistantToolCall("b", "a", "c1"), toolResult("r", "b", "c1")}
		ps := memAppendAll(t, s, entries, "three appends")
		f.waitAppendStarted(t, 1, "first append")
		gate.open()
		got, err := s.Entries()
		require.NoError(t, err)
		require.Equal(t, entries, got, "round %d: Entries() called after three Append calls must wait for all three (lab 10.5)", round)
		memRequireCommitted(t, ps, entries, "three appends")
	}
}
