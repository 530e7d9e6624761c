package factlog_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	factlog "github.com/coursekit/course/labs/04-factlog"
)

// Rule 4.3.1, 4.3.5: a long session writes one exact line per entry and recovers as appended.
func TestLab4_3_HiddenLongSessionRoundTrip(t *testing.T) {
	w := newFakeWriter()
	log := factlog.OpenSessionLog(w.write, factlog.Recovery{})
	var want []factlog.Entry
	parent := ""
	for i := 1; i <= 200; i++ {
		e := tool(fmt.Sprintf("t%03d", i), parent, strings.Repeat("ok ", i%7)+"\"<&>\"")
		if i%10 == 0 {
			e.ParentID = "t001" // a retry: a new branch under the first entry
		}
		require.NoError(t, appendOnce(t, w, log, e), "%s on a healthy log: want nil", appendCall(e))
		want = append(want, e)
		parent = e.ID
	}
	require.Equal(t, 200, len(w.calls), "200 appends: one write call per Append")
	for i, c := range w.calls {
		if got, wantLine := string(c), line(t, want[i])+"\n"; got != wantLine {
			t.Fatalf("write call %d = %q, want %q: EncodeEntry's bytes and \"\\n\", nothing else", i+1, got, wantLine)
		}
	}
	assert.Equal(t, want, log.Entries(), "Entries(): every entry, in append order")
	rec, err := factlog.Recover(w.stored.String())
	require.NoError(t, err, "Recover(what the log wrote): want no error")
	assert.Equal(t, want, rec.Entries, "what the log wrote recovers as what was appended")
}

// Rule 4.3.3, 4.3.4: a failure on the very first write: nothing committed, the log stops.
func TestLab4_3_HiddenFirstWriteFails(t *testing.T) {
	w := newFakeWriter()
	boom := errors.New("permission denied (fake)")
	w.failCall(1, 3, boom)
	log := factlog.OpenSessionLog(w.write, factlog.Recovery{})
	err := appendOnce(t, w, log, user("root", "", "hello"))
	var we *factlog.WriteError
	require.ErrorAs(t, err, &we, "Append(root) with a failing write: error = %s; want a *WriteError", describe(err))
	assert.Equal(t, "root", we.ID, "WriteError.ID names the entry whose write failed")
	assert.ErrorIs(t, err, boom, "Append(root) error = %s; want it to wrap the write function's error", describe(err))
	assert.Same(t, boom, we.Err, "WriteError.Err = %s; want the write function's own error %s", describe(we.Err), describe(boom))
	assert.Empty(t, log.Entries(), "the failed entry is not committed")

	for i := 0; i < 3; i++ {
		again := user(fmt.Sprintf("again%d", i), "", "hello")
		err = appendOnce(t, w, log, again)
		requireTainted(t, w, 1, err, boom, appendCall(again)+" after the first write, root's, failed")
		var cause *factlog.WriteError
		require.ErrorAs(t, err, &cause, "the *TaintedError carries the first *WriteError")
		assert.Equal(t, "root", cause.ID, "the cause is the write that failed first, every time")
	}
}

// Rule 4.3.2: many refusals in a row never taint the log or write a byte.
func TestLab4_3_HiddenRefusalsNeverTaint(t *testing.T) {
	w := newFakeWriter()
	log := factlog.OpenSessionLog(w.write, factlog.Recovery{})
	require.NoError(t, appendOnce(t, w, log, user("a", "", "hi")), "Append(root a) on an empty log: want nil")
	refused := []factlog.Entry{
		user("a", "", "same id, same root"),
		user("a", "a", "same id, under itself"),
		assistant("b", "b", "its own parent"),
		assistant("c", "z", "unknown parent"),
		{Type: factlog.TypeUser, ID: "", ParentID: "a", Text: "no id"},
		{Type: "", ID: "d", ParentID: "a", Text: "no type"},
	}
	for _, e := range refused {
		err := appendOnce(t, w, log, e)
		require.Error(t, err, "%s (%s) on a log that holds only the root a: want it refused (rule 4.3.2)",
			appendCall(e), e.Text)
		assert.NotErrorIs(t, err, factlog.ErrTainted, "%s (%s) error = %s: a refusal writes nothing, so it is not a "+
			"taint (rule 4.3.2)", appendCall(e), e.Text, describe(err))
	}
	var broken *factlog.BrokenChainError
	err := appendOnce(t, w, log, assistant("b", "b", "again"))
	require.ErrorAs(t, err, &broken, "Append(b with parent b) error = %s: an entry that names itself as "+
		"parent names an entry the log does not hold: *BrokenChainError", describe(err))
	assert.Equal(t, []string{line(t, user("a", "", "hi")) + "\n"}, w.callStrings(), "refusals write nothing")
	require.NoError(t, appendOnce(t, w, log, assistant("b", "a", "fine")), "Append(a valid child) after the refusals: want nil")
	assert.Equal(t, []string{"a", "b"}, ids(log.Entries()))
}

// Rule 4.3.6: the recovery's entries are copied and count; only new lines are written.
func TestLab4_3_HiddenOpenOverRecoveredTree(t *testing.T) {
	text := committed(lines(t, seedTree()...)...)
	rec, err := factlog.Recover(text)
	require.NoError(t, err, "test setup: Recover(the chapter's tree) must not fail")
	w := newFakeWriter()
	log := factlog.OpenSessionLog(w.write, rec)
	rec.Entries[5] = user("zz", "", "replaced after open")
	assert.Equal(t, seedTree(), log.Entries(), "OpenSessionLog keeps its own copy of the recovered entries")
	var dup *factlog.DuplicateIDError
	assert.ErrorAs(t, appendOnce(t, w, log, user("m4b", "m3b", "again")), &dup, "m4b was recovered: a duplicate")
	require.NoError(t, appendOnce(t, w, log, assistant("m5b", "m4b", "next")), "a child of the recovered leaf: want nil")
	require.NoError(t, appendOnce(t, w, log, assistant("m4a", "m3a", "back on the old branch")), "a child on the old branch: want nil")
	assert.Equal(t, []string{line(t, assistant("m5b", "m4b", "next")) + "\n",
		line(t, assistant("m4a", "m3a", "back on the old branch")) + "\n"}, w.callStrings(),
		"only the two new lines are written")
}

// Rule 4.3.6, 4.3.4: opened over a tail, the log stays tainted whatever is appended.
func TestLab4_3_HiddenTailTaintsEveryAppend(t *testing.T) {
	rec, err := factlog.Recover("\n" + committed(line(t, user("r", "", "start"))) + "\n" + " ")
	require.NoError(t, err, "test setup: Recover must not fail")
	require.NotNil(t, rec.Tail, "test setup: Recover must report the one-space tail")
	w := newFakeWriter()
	log := factlog.OpenSessionLog(w.write, rec)
	for _, e := range []factlog.Entry{user("a", "r", "x"), user("r", "", "dup"), user("b", "", "root")} {
		err := appendOnce(t, w, log, e)
		requireTainted(t, w, 0, err, factlog.ErrUnterminatedTail, appendCall(e)+" over a one-space tail")
		var tail *factlog.UnterminatedTailError
		require.ErrorAs(t, err, &tail, "%s over a one-space tail: the cause is the tail", appendCall(e))
		assert.Equal(t, factlog.UnterminatedTailError{Line: 4, Bytes: 1}, *tail, "the cause is the recovery's tail")
	}
	assert.Equal(t, []string{"r"}, ids(log.Entries()))
}

// Rule 4.3.7: a recovered entry appended again, an entry that repeats an id
// with other content, and one that is its own parent with a taken id, are
// all duplicates; a refused entry can come back once its parent exists.
func TestLab4_3_HiddenRepeatedAppendsAreRefused(t *testing.T) {
	rec, err := factlog.Recover(committed(lines(t, seedTree()...)...))
	require.NoError(t, err, "test setup: Recover(the chapter's tree) must not fail")
	w := newFakeWriter()
	log := factlog.OpenSessionLog(w.write, rec)
	var dup *factlog.DuplicateIDError
	for _, e := range []factlog.Entry{
		seedTree()[3],                      // m3a, exactly as recovered
		tool("m2", "m1", "other content"),  // a taken id, another entry
		user("m1", "m1", "its own parent"), // a taken id whose parent is itself
		assistant("m4b", "zz", "taken id, unknown parent"),
	} {
		err := appendOnce(t, w, log, e)
		require.ErrorAs(t, err, &dup, "%s (%s) when %s was recovered: error = %s; want a *DuplicateIDError "+
			"(rule 4.3.7)", appendCall(e), e.Text, e.ID, describe(err))
		assert.Equal(t, e.ID, dup.ID, "DuplicateIDError.ID names the taken id")
	}
	var fe *factlog.FieldError
	assert.ErrorAs(t, appendOnce(t, w, log, factlog.Entry{Type: "bot", ID: "m1", ParentID: "r"}), &fe,
		"an invalid entry with a taken id is refused as invalid first")

	late := assistant("n2", "n1", "waits for n1")
	var broken *factlog.BrokenChainError
	require.ErrorAs(t, appendOnce(t, w, log, late), &broken, "Append(n2 with parent n1) before n1: a *BrokenChainError")
	require.ErrorAs(t, appendOnce(t, w, log, late), &broken, "refused twice: still no n1")
	require.NoError(t, appendOnce(t, w, log, user("n1", "m4b", "n1")), "Append(n1, a child of m4b): want nil")
	require.NoError(t, appendOnce(t, w, log, late), "n2 took no id when it was refused: want nil now")
	require.ErrorAs(t, appendOnce(t, w, log, late), &dup, "Append(n2) once more: its id is taken now")
	assert.Equal(t, []string{line(t, user("n1", "m4b", "n1")) + "\n", line(t, late) + "\n"}, w.callStrings(),
		"only n1 and n2 were written")
}

// Rule 4.3.8: a failure on the third write; every later cause is that very
// *WriteError; a tail's cause is the log's own copy even when the caller
// overwrites its recovery.
func TestLab4_3_HiddenCauseIsTheFirstErrorItself(t *testing.T) {
	w := newFakeWriter()
	w.failCall(3, 0, errors.New("quota exceeded (fake)"))
	log := factlog.OpenSessionLog(w.write, factlog.Recovery{})
	require.NoError(t, appendOnce(t, w, log, user("a", "", "1")), "Append(root a): want nil")
	require.NoError(t, appendOnce(t, w, log, user("b", "a", "2")), "Append(b): want nil")
	first := appendOnce(t, w, log, user("c", "b", "3"))
	var we *factlog.WriteError
	require.ErrorAs(t, first, &we, "Append(c), whose write fails: want a *WriteError")
	for i := 0; i < 4; i++ {
		err := appendOnce(t, w, log, user(fmt.Sprintf("x%d", i), "a", "later"))
		var te *factlog.TaintedError
		require.ErrorAs(t, err, &te, "Append(x%d) after the failed write of c: error = %s; %s", i, describe(err),
			wantTainted(first, err))
		assert.Same(t, first, te.Err, "TaintedError.Err = %s; want the failed Append's own error %s", describe(te.Err), describe(first))
	}

	rec, err := factlog.Recover("\n\n" + committed(line(t, user("r", "", "s"))) + "{")
	require.NoError(t, err, "test setup: Recover must not fail")
	require.NotNil(t, rec.Tail, "test setup: Recover must report the tail")
	w = newFakeWriter()
	log = factlog.OpenSessionLog(w.write, rec)
	rec.Tail.Line, rec.Tail.Bytes = 1, 1000
	var te *factlog.TaintedError
	err = appendOnce(t, w, log, user("a", "r", "x"))
	require.ErrorAs(t, err, &te, "Append(a) over a tail: error = %s; %s", describe(err),
		wantTainted(factlog.ErrUnterminatedTail, err))
	require.IsType(t, (*factlog.UnterminatedTailError)(nil), te.Err, "TaintedError.Err = %s; want the *UnterminatedTailError itself", describe(te.Err))
	tail := te.Err.(*factlog.UnterminatedTailError)
	assert.Equal(t, factlog.UnterminatedTailError{Line: 4, Bytes: 1}, *tail, "the tail the log was opened over")
}

// Rule 4.3.2: roots can come at any point of a log, one after the other,
// between refusals.
func TestLab4_3_HiddenRootsAnywhere(t *testing.T) {
	w := newFakeWriter()
	log := factlog.OpenSessionLog(w.write, factlog.Recovery{})
	require.NoError(t, appendOnce(t, w, log, user("a", "", "first root")), "Append(root a): want nil")
	require.NoError(t, appendOnce(t, w, log, user("b", "", "second root, right after the first")), "Append(root b): want nil: a second root is fine")
	var broken *factlog.BrokenChainError
	require.ErrorAs(t, appendOnce(t, w, log, user("c", "nope", "unknown parent")), &broken, "Append(c with parent nope): a *BrokenChainError")
	require.NoError(t, appendOnce(t, w, log, user("c", "", "third root, after a refusal")), "a root after a refusal: want nil")
	require.NoError(t, appendOnce(t, w, log, assistant("d", "b", "a child of the second root")), "Append(d, a child of b): want nil")
	assert.Equal(t, []string{"a", "b", "c", "d"}, ids(log.Entries()), "Entries(): the three roots and d, in order")
}
