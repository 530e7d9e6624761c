package factlog_test

// Public tests of exercise 4.3, SessionLog. Run them with
//
//	go test -run Lab4_3
//
// The log writes through a fakeWriter (helpers_test.go), which records every
// call and fails the call a test chooses, half way through its line.

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	factlog "github.com/coursekit/course/labs/04-factlog"
)

// requireTainted requires that err is a *TaintedError whose cause matches
// cause, and that the call wrote nothing.
func requireTainted(t *testing.T, w *fakeWriter, callsBefore int, err error, cause error, what string) {
	t.Helper()
	var tainted *factlog.TaintedError
	require.True(t, errors.As(err, &tainted), "%s: error = %s; want a *TaintedError. Lab 4.3: once a write failed, "+
		"the storage may end in half a line, and the log refuses every later append for good", what, describe(err))
	assert.True(t, errors.Is(err, factlog.ErrTainted), "%s: errors.Is(err, ErrTainted)", what)
	assert.True(t, errors.Is(err, cause), "%s: error = %s; want it to carry the cause, %v (TaintedError.Err)", what,
		describe(err), cause)
	assert.Len(t, w.calls, callsBefore, "%s: the write function was called again. A tainted log writes nothing, or "+
		"the new line would be glued to the half line before it: %q", what, w.callStrings())
}

// Rule 4.3.1, 4.3.5: each append writes its entry's line and "\n", in one
// call; Entries lists the committed entries in order.
func TestLab4_3_AppendWritesOneLineEach(t *testing.T) {
	w := newFakeWriter()
	log := factlog.OpenSessionLog(w.write, factlog.Recovery{})
	var want []string
	for _, e := range seedTree() {
		require.NoError(t, log.Append(e), "Append(%q) on a healthy log", e.ID)
		want = append(want, line(t, e)+"\n")
	}
	assert.Equal(t, want, w.callStrings(), "one call to the write function per Append, with exactly "+
		"EncodeEntry(e) and \"\\n\": the newline is the commit mark, and earlier lines are never written again")
	assert.Equal(t, seedTree(), log.Entries(), "Entries(): the committed entries, in the order they were appended")

	rec, err := factlog.Recover(w.stored.String())
	require.NoError(t, err, "Recover(what the log wrote)")
	assert.Equal(t, seedTree(), rec.Entries, "what the log wrote recovers as what was appended")
	assert.Nil(t, rec.Tail, "every line the log writes ends in \"\\n\"")
}

// Rule 4.3.2: an invalid entry, a taken id or a missing parent is refused
// before anything is written, and the log goes on.
func TestLab4_3_RefusedEntryWritesNothing(t *testing.T) {
	w := newFakeWriter()
	log := factlog.OpenSessionLog(w.write, factlog.Recovery{})
	require.NoError(t, log.Append(user("r", "", "start")), "Append(root r) on an empty log")

	err := log.Append(assistant("r", "", "another r"))
	var dup *factlog.DuplicateIDError
	require.True(t, errors.As(err, &dup), "Append(a second entry with id r) error = %s; want a *DuplicateIDError: "+
		"two entries with one id would make the tree ambiguous", describe(err))
	assert.Equal(t, "r", dup.ID, "DuplicateIDError.ID")

	err = log.Append(assistant("a", "nope", "ok"))
	var broken *factlog.BrokenChainError
	require.True(t, errors.As(err, &broken), "Append(a with parent nope) error = %s; want a *BrokenChainError: the log "+
		"holds no entry nope, and writing a would put a broken chain on disk", describe(err))
	assert.Equal(t, factlog.BrokenChainError{ChildID: "a", ParentID: "nope"}, *broken, "BrokenChainError fields")

	err = log.Append(factlog.Entry{Type: "system", ID: "s", ParentID: "r", Text: "?"})
	var fe *factlog.FieldError
	require.True(t, errors.As(err, &fe), "Append(an entry of type \"system\") error = %s; want the *FieldError of "+
		"EncodeEntry", describe(err))

	assert.Len(t, w.calls, 1, "a refused entry is refused before the write function is called: calls = %q", w.callStrings())
	require.NoError(t, log.Append(assistant("a", "r", "ok")), "Append(a valid child of r) after three refusals: "+
		"a refusal writes nothing, so it does not taint the log")
	assert.Equal(t, []string{"r", "a"}, ids(log.Entries()), "Entries(): refused entries are not in it")
}

// Rule 4.3.3, 4.3.4: a write that fails half way returns a *WriteError and
// taints the log; the next append is refused without a write.
func TestLab4_3_FailedWriteTaints(t *testing.T) {
	w := newFakeWriter()
	w.failCall(2, 10, errDiskFull)
	log := factlog.OpenSessionLog(w.write, factlog.Recovery{})
	require.NoError(t, log.Append(user("r", "", "start")), "Append(r): the first write succeeds")

	err := log.Append(assistant("a", "r", "ok"))
	var we *factlog.WriteError
	require.True(t, errors.As(err, &we), "Append(a), whose write failed after 10 bytes, error = %s; want a *WriteError",
		describe(err))
	assert.Equal(t, "a", we.ID, "WriteError.ID names the entry whose write failed")
	assert.True(t, errors.Is(err, errDiskFull), "Append(a) error = %s; want it to wrap the write function's error", describe(err))
	assert.True(t, we.Err == errDiskFull, "Append(a): WriteError.Err = %s; want the very error the write function "+
		"returned (%s), not a wrapper of it: errors.Is sees through a wrapper, a reader of the field does not",
		describe(we.Err), describe(errDiskFull))
	assert.Equal(t, []string{"r"}, ids(log.Entries()), "Entries(): a's write failed, so a is not committed")

	err = log.Append(user("b", "r", "are you there?"))
	requireTainted(t, w, 2, err, errDiskFull, "Append(b) after the failed write of a")
	assert.True(t, errors.As(err, &we) && we.ID == "a", "Append(b) error = %s; want it to carry a's *WriteError, "+
		"the reason the log stopped", describe(err))
	assert.Equal(t, line(t, user("r", "", "start"))+"\n"+line(t, assistant("a", "r", "ok"))[:10], w.stored.String(),
		"the storage holds r and the first 10 bytes of a: exactly the half line the log must never write after")
}

// Rule 4.3.4: a tainted log refuses every later append for good, whatever
// the entry, even when the storage would work again.
func TestLab4_3_TaintedForGood(t *testing.T) {
	w := newFakeWriter()
	w.failCall(1, 0, errDiskFull)
	log := factlog.OpenSessionLog(w.write, factlog.Recovery{})
	err := log.Append(user("r", "", "start"))
	require.True(t, errors.Is(err, errDiskFull), "Append(r), whose write failed, error = %s; want it to wrap the "+
		"write function's error", describe(err))

	// Call 2 and later of the fake would succeed now: the log must not try.
	later := []factlog.Entry{
		user("r", "", "the same root again"),
		user("r2", "", "a new root"),
		assistant("a", "r", "a child of the failed entry"),
		{Type: "system", ID: "", Text: "an invalid entry"},
		user("r3", "", "one more"),
	}
	for _, e := range later {
		err := log.Append(e)
		requireTainted(t, w, 1, err, errDiskFull, fmt.Sprintf("Append(entry %q) after a failed write", e.ID))
	}
	assert.Empty(t, log.Entries(), "Entries(): nothing was committed")
	assert.Empty(t, w.stored.String(), "the storage is as the failed write left it")
}

// Rule 4.3.5: Entries returns a new slice each time.
func TestLab4_3_EntriesIsANewSlice(t *testing.T) {
	w := newFakeWriter()
	log := factlog.OpenSessionLog(w.write, factlog.Recovery{})
	require.NoError(t, log.Append(user("r", "", "start")), "Append(r)")
	require.NoError(t, log.Append(assistant("a", "r", "ok")), "Append(a)")

	got := log.Entries()
	require.Len(t, got, 2, "Entries() after two appends")
	got[0].Text = "rewritten by the caller"
	got[1].ID = "z"
	assert.Equal(t, []factlog.Entry{user("r", "", "start"), assistant("a", "r", "ok")}, log.Entries(),
		"changing the slice Entries() returned changed the log: a committed fact is never changed, so return a copy")
}

// Rule 4.3.6, 4.3.1: a log opened over a recovery goes on from its entries
// and writes only new lines.
func TestLab4_3_OpenGoesOnFromRecovery(t *testing.T) {
	rec, err := factlog.Recover(committed(lines(t, user("r", "", "start"), assistant("m1", "r", "ok"))...))
	require.NoError(t, err, "test setup: Recover")
	w := newFakeWriter()
	log := factlog.OpenSessionLog(w.write, rec)
	assert.Equal(t, []string{"r", "m1"}, ids(log.Entries()), "Entries() of a log opened over two recovered entries")

	rec.Entries[0].Text = "changed after OpenSessionLog"
	assert.Equal(t, "start", log.Entries()[0].Text, "OpenSessionLog must copy rec.Entries: the caller's slice is "+
		"still the caller's")

	var dup *factlog.DuplicateIDError
	assert.True(t, errors.As(log.Append(user("m1", "r", "again")), &dup), "Append(m1) when m1 was recovered: want a "+
		"*DuplicateIDError, the recovered entries count")
	require.NoError(t, log.Append(user("m2", "m1", "next")), "Append(m2, a child of the recovered m1)")
	assert.Equal(t, []string{line(t, user("m2", "m1", "next")) + "\n"}, w.callStrings(),
		"the only write is m2's line: the recovered lines are in the storage already and are never written again")
	assert.Equal(t, []string{"r", "m1", "m2"}, ids(log.Entries()), "Entries()")
}

// Rule 4.3.6: a log opened over a recovery with a torn tail is tainted from
// the start.
func TestLab4_3_OpenOverATailStartsTainted(t *testing.T) {
	text := committed(line(t, user("r", "", "start"))) + `{"type":"assistant","id":"a","pa`
	rec, err := factlog.Recover(text)
	require.NoError(t, err, "test setup: Recover")
	require.NotNil(t, rec.Tail, "test setup: Recover(%s) must report the tail", short(text))

	w := newFakeWriter()
	log := factlog.OpenSessionLog(w.write, rec)
	err = log.Append(assistant("b", "r", "ok"))
	requireTainted(t, w, 0, err, factlog.ErrUnterminatedTail, "Append(b) on a log opened over a torn last line")
	var tail *factlog.UnterminatedTailError
	require.True(t, errors.As(err, &tail), "error = %s; want the recovery's *UnterminatedTailError as the cause", describe(err))
	assert.Equal(t, 2, tail.Line, "the cause names the torn line")
	assert.Equal(t, []string{"r"}, ids(log.Entries()), "the committed entries are still readable")
}

// Rule 4.3.7: the same entry appended twice is a duplicate, like any taken
// id; refusals are checked in a fixed order; a refused entry takes no id.
func TestLab4_3_SameEntryTwiceIsADuplicate(t *testing.T) {
	w := newFakeWriter()
	log := factlog.OpenSessionLog(w.write, factlog.Recovery{})
	r := user("r", "", "start")
	require.NoError(t, log.Append(r), "Append(r) on an empty log")

	err := log.Append(r)
	var dup *factlog.DuplicateIDError
	require.True(t, errors.As(err, &dup), "Append(r) twice, the very same entry: error = %s; want a "+
		"*DuplicateIDError. An append is a new fact: the log does not compare it with what it holds, it refuses the "+
		"taken id (appending it again would put two lines with id r in the file)", describe(err))
	assert.Equal(t, "r", dup.ID, "DuplicateIDError.ID")
	assert.Len(t, w.calls, 1, "the second Append(r) wrote: calls = %q", w.callStrings())

	err = log.Append(assistant("r", "gone", "taken id and unknown parent"))
	require.True(t, errors.As(err, &dup), "Append(id r, parent gone) error = %s; want the *DuplicateIDError: the "+
		"checks run in the order EncodeEntry, id, parent, and the first that fails answers", describe(err))
	var fe *factlog.FieldError
	err = log.Append(factlog.Entry{Type: "system", ID: "r", ParentID: "gone", Text: "invalid, taken id, unknown parent"})
	assert.True(t, errors.As(err, &fe), "Append(type system, id r, parent gone) error = %s; want EncodeEntry's "+
		"*FieldError: an entry that is not valid is refused for that first", describe(err))

	c := tool("c", "d", "child of d")
	var broken *factlog.BrokenChainError
	require.True(t, errors.As(log.Append(c), &broken), "Append(c with parent d) before d exists: want a *BrokenChainError")
	require.NoError(t, log.Append(assistant("d", "r", "d")), "Append(d)")
	require.NoError(t, log.Append(c), "Append(c) again, now that its parent d is there: a refused entry took no id, "+
		"so it can be appended later")
	require.True(t, errors.As(log.Append(c), &dup), "Append(c) a third time: now its id is taken")

	assert.Equal(t, []string{"r", "d", "c"}, ids(log.Entries()), "Entries(): each id once, in append order")
	assert.Equal(t, []string{line(t, r) + "\n", line(t, assistant("d", "r", "d")) + "\n", line(t, c) + "\n"},
		w.callStrings(), "one write per committed entry, none for a refusal")
}

// Rule 4.3.8: the cause a *TaintedError carries is exact: the very
// *WriteError the failed Append returned, or the log's own copy of the
// recovery's tail.
func TestLab4_3_TaintCauseIsExact(t *testing.T) {
	w := newFakeWriter()
	w.failCall(2, 7, errDiskFull)
	log := factlog.OpenSessionLog(w.write, factlog.Recovery{})
	require.NoError(t, log.Append(user("r", "", "start")), "Append(r)")
	first := log.Append(assistant("a", "r", "ok"))
	require.Error(t, first, "Append(a), whose write fails")
	for _, e := range []factlog.Entry{user("b", "r", "b"), user("r", "", "dup"), {Type: "system"}} {
		err := log.Append(e)
		var tainted *factlog.TaintedError
		require.True(t, errors.As(err, &tainted), "Append(%q) after the failed write of a: error = %s; want a "+
			"*TaintedError", e.ID, describe(err))
		assert.True(t, tainted.Err == first, "Append(%q) after the failed write: TaintedError.Err = %s; want the "+
			"very error the failed Append(a) returned (%s), the same value every time, so that "+
			"errors.Is(err, thatError) holds", e.ID, describe(tainted.Err), describe(first))
		assert.True(t, errors.Is(err, first), "errors.Is(Append(%q)'s error, the failed Append(a)'s error)", e.ID)
	}

	text := committed(line(t, user("r", "", "start"))) + `{"type":"tool","id":"t"`
	rec, err := factlog.Recover(text)
	require.NoError(t, err, "test setup: Recover")
	require.NotNil(t, rec.Tail, "test setup: Recover must report the tail")
	want := *rec.Tail
	w = newFakeWriter()
	log = factlog.OpenSessionLog(w.write, rec)
	*rec.Tail = factlog.UnterminatedTailError{Line: 99, Bytes: 1} // the caller reuses its Recovery
	for i := 0; i < 2; i++ {
		err := log.Append(assistant("a", "r", "ok"))
		var tainted *factlog.TaintedError
		require.True(t, errors.As(err, &tainted), "Append on a log opened over a tail: error = %s; want a *TaintedError", describe(err))
		tail, ok := tainted.Err.(*factlog.UnterminatedTailError)
		require.True(t, ok, "Append on a log opened over a tail: TaintedError.Err = %s; want the *UnterminatedTailError "+
			"itself, not a wrapper of it (errors.As would see through one; TaintedError.Err is the cause)", describe(tainted.Err))
		assert.Equal(t, want, *tail, "the cause is the tail the log was opened over, line %d, %d bytes: "+
			"OpenSessionLog keeps its own copy of rec.Tail, as it does of rec.Entries, so changing the caller's "+
			"Recovery afterwards changes nothing", want.Line, want.Bytes)
	}
	assert.Empty(t, w.calls, "a log opened over a tail writes nothing")
}

// Rule 4.3.2: a root has no parent to check: a log holds as many roots as
// are appended to it (a new conversation in the same file), and children of
// each.
func TestLab4_3_SeveralRootsAreFine(t *testing.T) {
	rec, err := factlog.Recover(committed(lines(t, user("r", "", "first conversation"), assistant("a", "r", "ok"))...))
	require.NoError(t, err, "test setup: Recover")
	w := newFakeWriter()
	log := factlog.OpenSessionLog(w.write, rec)
	for _, e := range []factlog.Entry{
		user("r2", "", "a second conversation, a second root"),
		assistant("b", "r2", "a child of the second root"),
		user("r3", "", "a third root"),
		assistant("c", "a", "back under the first root"),
	} {
		err := log.Append(e)
		assert.NoError(t, err, "Append(%+v) on a log that holds the root r = %s; want nil: a root (ParentID \"\") has "+
			"no parent to look for, and a log may hold several roots (rule 4.2.5 walks each chain to its own)", e, describe(err))
	}
	assert.Equal(t, []string{"r", "a", "r2", "b", "r3", "c"}, ids(log.Entries()), "Entries(): every root and child, in order")
	assert.Len(t, w.calls, 4, "four appends, four writes: %q", w.callStrings())
}
