package factlog_test

// Public tests of exercise 4.3, SessionLog. Run them with
//
//	go test -run Lab4_3
//
// The log writes through a fakeWriter (helpers_test.go), which records every
// call and fails the call a test chooses, half way through its line.

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	factlog "github.com/coursekit/course/labs/04-factlog"
)

// appendCall names the call Append(e) in a failure message by the entry's
// id, as "Append(b)": every message of 4.3 writes a call this way. An entry
// without an id is named as that, never as "Append()".
func appendCall(e factlog.Entry) string {
	if e.ID == "" {
		return "Append(an entry with no id)"
	}
	return "Append(" + e.ID + ")"
}

// appendOnce calls log.Append(e) and returns its error, after requiring that
// the call made at most one call to the write function. The tests of 4.3
// count the calls to tell what an Append wrote, and make the fake fail the
// call they choose: an Append that writes one entry in two calls (the line,
// then "\n") would have its mistake blamed on another rule, so it is named
// here first.
func appendOnce(t *testing.T, w *fakeWriter, log *factlog.SessionLog, e factlog.Entry) error {
	t.Helper()
	before := len(w.calls)
	err := log.Append(e)
	if n := len(w.calls) - before; n > 1 {
		require.Failf(t, "one Append, more than one write", "%s made %d calls to the write function for "+
			"one entry, %s, and returned %s. Want one call per Append, the whole line with its newline (rule 4.3.1): "+
			"the newline is the line's commit mark and goes in the same write as the line. The tests of 4.3 count the "+
			"calls to tell what each Append wrote, and make the fake fail the call they choose: with two calls per "+
			"Append, their later checks would blame other rules",
			appendCall(e), n, w.writes(before), describe(err))
	}
	return err
}

// requireTainted requires that err, what an Append of a tainted log
// returned, is a *TaintedError whose cause matches cause, and that the call
// wrote nothing: the write function still has callsBefore calls.
func requireTainted(t *testing.T, w *fakeWriter, callsBefore int, err error, cause error, what string) {
	t.Helper()
	var tainted *factlog.TaintedError
	require.ErrorAs(t, err, &tainted, "%s: error = %s; %s", what, describe(err), wantTainted(cause, err))
	assert.ErrorIs(t, err, factlog.ErrTainted, "%s: errors.Is(err, ErrTainted): a *TaintedError matches it", what)
	assert.ErrorIs(t, err, cause, "%s: error = %s; want it to carry the cause, %s, as TaintedError.Err", what,
		describe(err), describe(cause))
	assert.Equal(t, callsBefore, len(w.calls), "%s: the write function was called again, with %s. A tainted log "+
		"writes nothing, or the new line would be glued to the half line before it", what, w.writes(callsBefore))
}

// wantTainted says that an Append of a tainted log must return a
// *TaintedError, and why: a write failed, or (when cause matches
// ErrUnterminatedTail) the log was opened over a torn last line. err is
// what the Append returned instead.
func wantTainted(cause, err error) string {
	why := "once a write failed, the storage may end in half a line, so the log refuses every later append for " +
		"good, whatever the entry, and writes nothing (rule 4.3.4): a line written now would be glued to that half line"
	if errors.Is(cause, factlog.ErrUnterminatedTail) {
		why = "opened over a recovery with a tail, the storage already ends in half a line, so the log is tainted " +
			"from the start and writes nothing (rule 4.3.6): a line written now would be glued to that half line"
	}
	return "want a *TaintedError: " + why + taintComesFirst(err)
}

// taintComesFirst explains, when err is a refusal of the entry, that the
// taint is checked before the entry; it returns "" for any other error.
func taintComesFirst(err error) string {
	var dup *factlog.DuplicateIDError
	var broken *factlog.BrokenChainError
	var field *factlog.FieldError
	if errors.As(err, &dup) || errors.As(err, &broken) || errors.As(err, &field) {
		return ". Append judged the entry before it looked at the taint: check the taint first, whatever the " +
			"entry (rule 4.3.4). A tainted log that answers \"duplicate id\" or \"unknown parent\" looks as if it " +
			"still worked and only this entry were wrong; the only honest answer is that it has stopped, and why"
	}
	return ""
}

// Rule 4.3.1, 4.3.5: each append writes its entry's line and "\n", in one
// call; Entries lists the committed entries in order.
func TestLab4_3_AppendWritesOneLineEach(t *testing.T) {
	w := newFakeWriter()
	log := factlog.OpenSessionLog(w.write, factlog.Recovery{})
	var want []string
	for _, e := range seedTree() {
		err := appendOnce(t, w, log, e)
		require.NoError(t, err, "%s on a healthy log: want nil, the entry written and committed: it is "+
			"valid, its id is new, and it is a root or its parent is in the log", appendCall(e))
		want = append(want, line(t, e)+"\n")
	}
	assert.Equal(t, want, w.callStrings(), "one call to the write function per Append, with exactly "+
		"EncodeEntry(e) and \"\\n\": the newline is the commit mark, and earlier lines are never written again")
	assert.Equal(t, seedTree(), log.Entries(), "Entries(): the committed entries, in the order they were appended")

	rec, err := factlog.Recover(w.stored.String())
	require.NoError(t, err, "Recover(what the log wrote): want no error: every line the log writes is an entry "+
		"EncodeEntry accepted, and its \"\\n\"")
	assert.Equal(t, seedTree(), rec.Entries, "what the log wrote recovers as what was appended")
	assert.Nil(t, rec.Tail, "every line the log writes ends in \"\\n\"")
}

// Rule 4.3.2: an invalid entry, a taken id or a missing parent is refused
// before anything is written, and the log goes on.
func TestLab4_3_RefusedEntryWritesNothing(t *testing.T) {
	w := newFakeWriter()
	log := factlog.OpenSessionLog(w.write, factlog.Recovery{})
	r := user("r", "", "start")
	require.NoError(t, appendOnce(t, w, log, r), "Append(root r) on an empty log: want nil: a root needs no parent")

	err := appendOnce(t, w, log, assistant("r", "", "another r"))
	var dup *factlog.DuplicateIDError
	require.ErrorAs(t, err, &dup, "Append(a second entry with id r) error = %s; want a *DuplicateIDError: "+
		"two entries with one id would make the tree ambiguous", describe(err))
	assert.Equal(t, "r", dup.ID, "DuplicateIDError.ID names the taken id")

	err = appendOnce(t, w, log, assistant("a", "nope", "ok"))
	var broken *factlog.BrokenChainError
	require.ErrorAs(t, err, &broken, "Append(a with parent nope) error = %s; want a *BrokenChainError: the log "+
		"holds no entry nope, and writing a would put a broken chain on disk", describe(err))
	assert.Equal(t, factlog.BrokenChainError{ChildID: "a", ParentID: "nope"}, *broken, "BrokenChainError names the "+
		"entry refused and the parent the log does not hold")

	err = appendOnce(t, w, log, factlog.Entry{Type: "system", ID: "s", ParentID: "r", Text: "?"})
	var fe *factlog.FieldError
	require.ErrorAs(t, err, &fe, "Append(an entry of type \"system\") error = %s; want the *FieldError of "+
		"EncodeEntry: the type is user, assistant or tool", describe(err))

	assert.Equal(t, []string{line(t, r) + "\n"}, w.callStrings(), "after Append(r) and three refused entries, the "+
		"only write is r's line: a refused entry is refused before the write function is called")
	require.NoError(t, appendOnce(t, w, log, assistant("a", "r", "ok")), "Append(a valid child of r) after three "+
		"refusals: want nil: a refusal writes nothing, so it does not taint the log")
	assert.Equal(t, []string{"r", "a"}, ids(log.Entries()), "Entries(): refused entries are not in it")
}

// Rule 4.3.3, 4.3.4: a write that fails half way returns a *WriteError and
// taints the log; the next append is refused without a write.
func TestLab4_3_FailedWriteTaints(t *testing.T) {
	w := newFakeWriter()
	w.failCall(2, 10, errDiskFull)
	log := factlog.OpenSessionLog(w.write, factlog.Recovery{})
	require.NoError(t, appendOnce(t, w, log, user("r", "", "start")), "Append(r) on an empty log, whose write "+
		"succeeds (the fake fails only its second call, the next Append's): want nil")

	err := appendOnce(t, w, log, assistant("a", "r", "ok"))
	var we *factlog.WriteError
	require.ErrorAs(t, err, &we, "Append(a), whose write failed after 10 bytes, error = %s; want a *WriteError",
		describe(err))
	assert.Equal(t, "a", we.ID, "WriteError.ID names the entry whose write failed")
	assert.ErrorIs(t, err, errDiskFull, "Append(a) error = %s; want it to wrap the write function's error",
		describe(err))
	assert.Same(t, errDiskFull, we.Err, "Append(a): WriteError.Err = %s; want the very error the write function "+
		"returned (%s), not a wrapper of it: errors.Is sees through a wrapper, a reader of the field does not",
		describe(we.Err), describe(errDiskFull))
	assert.Equal(t, []string{"r"}, ids(log.Entries()), "Entries(): a's write failed, so a is not committed")

	err = appendOnce(t, w, log, user("b", "r", "are you there?"))
	requireTainted(t, w, 2, err, errDiskFull, "Append(b) after the failed write of a")
	require.ErrorAs(t, err, &we, "Append(b) error = %s; want it to carry a's *WriteError, the reason the log "+
		"stopped", describe(err))
	assert.Equal(t, "a", we.ID, "Append(b): the *WriteError it carries is a's, the reason the log stopped")
	assert.Equal(t, line(t, user("r", "", "start"))+"\n"+line(t, assistant("a", "r", "ok"))[:10], w.stored.String(),
		"the storage holds r and the first 10 bytes of a: exactly the half line the log must never write after")
}

// Rule 4.3.4: a tainted log refuses every later append for good, whatever
// the entry, even when the storage would work again.
func TestLab4_3_TaintedForGood(t *testing.T) {
	w := newFakeWriter()
	w.failCall(1, 0, errDiskFull)
	log := factlog.OpenSessionLog(w.write, factlog.Recovery{})
	err := appendOnce(t, w, log, user("r", "", "start"))
	require.ErrorIs(t, err, errDiskFull, "Append(r), whose write failed, error = %s; want it to wrap the "+
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
		err := appendOnce(t, w, log, e)
		requireTainted(t, w, 1, err, errDiskFull, appendCall(e)+" ("+e.Text+") after the failed write of r")
	}
	assert.Empty(t, log.Entries(), "Entries(): nothing was committed")
	assert.Empty(t, w.stored.String(), "the storage is as the failed write left it")
}

// Rule 4.3.5: Entries returns a new slice each time.
func TestLab4_3_EntriesIsANewSlice(t *testing.T) {
	w := newFakeWriter()
	log := factlog.OpenSessionLog(w.write, factlog.Recovery{})
	require.NoError(t, appendOnce(t, w, log, user("r", "", "start")), "Append(root r) on an empty log: want nil")
	require.NoError(t, appendOnce(t, w, log, assistant("a", "r", "ok")), "Append(a, a child of r): want nil")

	got := log.Entries()
	require.Equal(t, []string{"r", "a"}, ids(got), "Entries() after Append(r) and Append(a): the two entries, in "+
		"append order")
	got[0].Text = "rewritten by the caller"
	got[1].ID = "z"
	assert.Equal(t, []factlog.Entry{user("r", "", "start"), assistant("a", "r", "ok")}, log.Entries(),
		"changing the slice Entries() returned changed the log: a committed fact is never changed, so return a copy")
}

// Rule 4.3.6, 4.3.1: a log opened over a recovery goes on from its entries
// and writes only new lines.
func TestLab4_3_OpenGoesOnFromRecovery(t *testing.T) {
	rec, err := factlog.Recover(committed(lines(t, user("r", "", "start"), assistant("m1", "r", "ok"))...))
	require.NoError(t, err, "test setup: Recover(two committed lines) must not fail")
	w := newFakeWriter()
	log := factlog.OpenSessionLog(w.write, rec)
	assert.Equal(t, []string{"r", "m1"}, ids(log.Entries()), "Entries() of a log opened over two recovered entries")

	rec.Entries[0].Text = "changed after OpenSessionLog"
	assert.Equal(t, "start", log.Entries()[0].Text, "OpenSessionLog must copy rec.Entries: the caller's slice is "+
		"still the caller's")

	var dup *factlog.DuplicateIDError
	err = appendOnce(t, w, log, user("m1", "r", "again"))
	assert.ErrorAs(t, err, &dup, "Append(m1) when m1 was recovered: error = %s; want a *DuplicateIDError, the "+
		"recovered entries count", describe(err))
	require.NoError(t, appendOnce(t, w, log, user("m2", "m1", "next")), "Append(m2, a child of the recovered m1): "+
		"want nil: the recovered m1 counts as the parent")
	assert.Equal(t, []string{line(t, user("m2", "m1", "next")) + "\n"}, w.callStrings(),
		"the only write is m2's line: the recovered lines are in the storage already and are never written again")
	assert.Equal(t, []string{"r", "m1", "m2"}, ids(log.Entries()), "Entries(): the recovered entries, then m2")
}

// Rule 4.3.6: a log opened over a recovery with a torn tail is tainted from
// the start.
func TestLab4_3_OpenOverATailStartsTainted(t *testing.T) {
	text := committed(line(t, user("r", "", "start"))) + `{"type":"assistant","id":"a","pa`
	rec, err := factlog.Recover(text)
	require.NoError(t, err, "test setup: Recover(%s) must not fail", short(text))
	require.NotNil(t, rec.Tail, "test setup: Recover(%s) must report the tail", short(text))

	w := newFakeWriter()
	log := factlog.OpenSessionLog(w.write, rec)
	err = appendOnce(t, w, log, assistant("b", "r", "ok"))
	requireTainted(t, w, 0, err, factlog.ErrUnterminatedTail, "Append(b) on a log opened over a torn last line")
	var tail *factlog.UnterminatedTailError
	require.ErrorAs(t, err, &tail, "Append(b) on a log opened over a torn last line: error = %s; want the "+
		"recovery's *UnterminatedTailError as the cause", describe(err))
	assert.Equal(t, 2, tail.Line, "the cause names the torn line, line 2")
	assert.Equal(t, []string{"r"}, ids(log.Entries()), "the committed entries are still readable")
}

// Rule 4.3.7: the same entry appended twice is a duplicate, like any taken
// id; refusals are checked in a fixed order; a refused entry takes no id.
func TestLab4_3_SameEntryTwiceIsADuplicate(t *testing.T) {
	w := newFakeWriter()
	log := factlog.OpenSessionLog(w.write, factlog.Recovery{})
	r := user("r", "", "start")
	require.NoError(t, appendOnce(t, w, log, r), "Append(root r) on an empty log: want nil")

	err := appendOnce(t, w, log, r)
	var dup *factlog.DuplicateIDError
	require.ErrorAs(t, err, &dup, "Append(r) twice, the very same entry: error = %s; want a "+
		"*DuplicateIDError. An append is a new fact: the log does not compare it with what it holds, it refuses the "+
		"taken id (appending it again would put two lines with id r in the file)", describe(err))
	assert.Equal(t, "r", dup.ID, "DuplicateIDError.ID names the taken id")
	assert.Equal(t, []string{line(t, r) + "\n"}, w.callStrings(), "the second Append(r) was refused, so the only "+
		"write is the first one's")

	err = appendOnce(t, w, log, assistant("r", "gone", "taken id and unknown parent"))
	require.ErrorAs(t, err, &dup, "Append(id r, parent gone) error = %s; want the *DuplicateIDError: the "+
		"checks run in the order EncodeEntry, id, parent, and the first that fails answers", describe(err))
	var fe *factlog.FieldError
	err = appendOnce(t, w, log, factlog.Entry{Type: "system", ID: "r", ParentID: "gone", Text: "invalid, taken id, unknown parent"})
	assert.ErrorAs(t, err, &fe, "Append(type system, id r, parent gone) error = %s; want EncodeEntry's "+
		"*FieldError: an entry that is not valid is refused for that first", describe(err))

	c := tool("c", "d", "child of d")
	var broken *factlog.BrokenChainError
	err = appendOnce(t, w, log, c)
	require.ErrorAs(t, err, &broken, "Append(c with parent d) before d exists: error = %s; want a "+
		"*BrokenChainError", describe(err))
	require.NoError(t, appendOnce(t, w, log, assistant("d", "r", "d")), "Append(d, a child of r): want nil")
	require.NoError(t, appendOnce(t, w, log, c), "Append(c) again, now that its parent d is there: want nil: a "+
		"refused entry took no id, so it can be appended later")
	err = appendOnce(t, w, log, c)
	require.ErrorAs(t, err, &dup, "Append(c) a third time: error = %s; want a *DuplicateIDError: now its id is "+
		"taken", describe(err))

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
	require.NoError(t, appendOnce(t, w, log, user("r", "", "start")), "Append(r) on an empty log, whose write "+
		"succeeds (the fake fails only its second call): want nil")
	first := appendOnce(t, w, log, assistant("a", "r", "ok"))
	require.Error(t, first, "Append(a), whose write the fake fails after 7 bytes: want its *WriteError")
	for _, e := range []factlog.Entry{user("b", "r", "b"), user("r", "", "dup"), {Type: "system"}} {
		err := appendOnce(t, w, log, e)
		var tainted *factlog.TaintedError
		require.ErrorAs(t, err, &tainted, "%s after the failed write of a: error = %s; %s", appendCall(e),
			describe(err), wantTainted(first, err))
		assert.Same(t, first, tainted.Err, "%s after the failed write of a: TaintedError.Err = %s; want the "+
			"very error the failed Append(a) returned (%s), the same value every time, so that "+
			"errors.Is(err, thatError) holds (rule 4.3.8)", appendCall(e), describe(tainted.Err), describe(first))
		assert.ErrorIs(t, err, first, "errors.Is(%s's error, the failed Append(a)'s error)", appendCall(e))
	}

	text := committed(line(t, user("r", "", "start"))) + `{"type":"tool","id":"t"`
	rec, err := factlog.Recover(text)
	require.NoError(t, err, "test setup: Recover(%s) must not fail", short(text))
	require.NotNil(t, rec.Tail, "test setup: Recover(%s) must report the tail", short(text))
	want := *rec.Tail
	w = newFakeWriter()
	log = factlog.OpenSessionLog(w.write, rec)
	*rec.Tail = factlog.UnterminatedTailError{Line: 99, Bytes: 1} // the caller reuses its Recovery
	for i := 0; i < 2; i++ {
		err := appendOnce(t, w, log, assistant("a", "r", "ok"))
		var tainted *factlog.TaintedError
		require.ErrorAs(t, err, &tainted, "Append(a) on a log opened over a tail: error = %s; %s", describe(err),
			wantTainted(factlog.ErrUnterminatedTail, err))
		require.IsType(t, (*factlog.UnterminatedTailError)(nil), tainted.Err, "Append(a) on a log opened over a tail: "+
			"TaintedError.Err = %s; want the *UnterminatedTailError itself, not a wrapper of it (errors.As would see "+
			"through one; TaintedError.Err is the cause)", describe(tainted.Err))
		tail := tainted.Err.(*factlog.UnterminatedTailError)
		assert.Equal(t, want, *tail, "the cause is the tail the log was opened over, line %d, %s: "+
			"OpenSessionLog keeps its own copy of rec.Tail, as it does of rec.Entries, so changing the caller's "+
			"Recovery afterwards changes nothing", want.Line, plural(want.Bytes, "byte"))
	}
	assert.Empty(t, w.callStrings(), "a log opened over a tail writes nothing")
}

// Rule 4.3.2: a root has no parent to check: a log holds as many roots as
// are appended to it (a new conversation in the same file), and children of
// each.
func TestLab4_3_SeveralRootsAreFine(t *testing.T) {
	rec, err := factlog.Recover(committed(lines(t, user("r", "", "first conversation"), assistant("a", "r", "ok"))...))
	require.NoError(t, err, "test setup: Recover(two committed lines) must not fail")
	w := newFakeWriter()
	log := factlog.OpenSessionLog(w.write, rec)
	for _, e := range []factlog.Entry{
		user("r2", "", "a second conversation, a second root"),
		assistant("b", "r2", "a child of the second root"),
		user("r3", "", "a third root"),
		assistant("c", "a", "back under the first root"),
	} {
		err := appendOnce(t, w, log, e)
		assert.NoError(t, err, "%s (%s) on a log that holds the root r = %s; want nil: a root (ParentID \"\") has "+
			"no parent to look for, and a log may hold several roots (rule 4.2.5 walks each chain to its own)",
			appendCall(e), e.Text, describe(err))
	}
	assert.Equal(t, []string{"r", "a", "r2", "b", "r3", "c"}, ids(log.Entries()), "Entries(): every root and child, in order")
	assert.Len(t, w.callStrings(), 4, "four appends, four writes")
}
