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
		require.NoError(t, log.Append(e), "Append(%q)", e.ID)
		want = append(want, e)
		parent = e.ID
	}
	require.Len(t, w.calls, 200, "one write call per Append")
	for i, c := range w.calls {
		if got, wantLine := string(c), line(t, want[i])+"\n"; got != wantLine {
			t.Fatalf("write call %d = %q, want %q: EncodeEntry's bytes and \"\\n\", nothing else", i+1, got, wantLine)
		}
	}
	assert.Equal(t, want, log.Entries())
	rec, err := factlog.Recover(w.stored.String())
	require.NoError(t, err)
	assert.Equal(t, want, rec.Entries)
}

// Rule 4.3.3, 4.3.4: a failure on the very first write: nothing committed, the log stops.
func TestLab4_3_HiddenFirstWriteFails(t *testing.T) {
	w := newFakeWriter()
	boom := errors.New("permission denied (fake)")
	w.failCall(1, 3, boom)
	log := factlog.OpenSessionLog(w.write, factlog.Recovery{})
	err := log.Append(user("root", "", "hello"))
	var we *factlog.WriteError
	require.True(t, errors.As(err, &we), "Append(root) with a failing write: error = %s; want a *WriteError", describe(err))
	assert.Equal(t, "root", we.ID)
	assert.True(t, errors.Is(err, boom))
	assert.Empty(t, log.Entries(), "the failed entry is not committed")

	for i := 0; i < 3; i++ {
		err = log.Append(user(fmt.Sprintf("again%d", i), "", "hello"))
		requireTainted(t, w, 1, err, boom, "Append after the first write failed")
		var cause *factlog.WriteError
		require.True(t, errors.As(err, &cause), "the *TaintedError carries the first *WriteError")
		assert.Equal(t, "root", cause.ID, "the cause is the write that failed first, every time")
	}
}

// Rule 4.3.2: many refusals in a row never taint the log or write a byte.
func TestLab4_3_HiddenRefusalsNeverTaint(t *testing.T) {
	w := newFakeWriter()
	log := factlog.OpenSessionLog(w.write, factlog.Recovery{})
	require.NoError(t, log.Append(user("a", "", "hi")))
	refused := []factlog.Entry{
		user("a", "", "same id, same root"),
		user("a", "a", "same id, under itself"),
		assistant("b", "b", "its own parent"),
		assistant("c", "z", "unknown parent"),
		{Type: factlog.TypeUser, ID: "", ParentID: "a", Text: "no id"},
		{Type: "", ID: "d", ParentID: "a", Text: "no type"},
	}
	for _, e := range refused {
		err := log.Append(e)
		require.Error(t, err, "Append(%+v) must be refused", e)
		assert.False(t, errors.Is(err, factlog.ErrTainted), "Append(%+v) error = %s: a refusal is not a taint", e, describe(err))
	}
	var broken *factlog.BrokenChainError
	require.True(t, errors.As(log.Append(assistant("b", "b", "again")), &broken), "an entry that names itself as "+
		"parent names an entry the log does not hold: *BrokenChainError")
	assert.Len(t, w.calls, 1, "refusals write nothing: %q", w.callStrings())
	require.NoError(t, log.Append(assistant("b", "a", "fine")), "Append(a valid child) after the refusals")
	assert.Equal(t, []string{"a", "b"}, ids(log.Entries()))
}

// Rule 4.3.6: the recovery's entries are copied and count; only new lines are written.
func TestLab4_3_HiddenOpenOverRecoveredTree(t *testing.T) {
	text := committed(lines(t, seedTree()...)...)
	rec, err := factlog.Recover(text)
	require.NoError(t, err)
	w := newFakeWriter()
	log := factlog.OpenSessionLog(w.write, rec)
	rec.Entries[5] = user("zz", "", "replaced after open")
	assert.Equal(t, seedTree(), log.Entries(), "OpenSessionLog keeps its own copy of the recovered entries")
	var dup *factlog.DuplicateIDError
	assert.True(t, errors.As(log.Append(user("m4b", "m3b", "again")), &dup), "m4b was recovered: a duplicate")
	require.NoError(t, log.Append(assistant("m5b", "m4b", "next")), "a child of the recovered leaf")
	require.NoError(t, log.Append(assistant("m4a", "m3a", "back on the old branch")), "a child on the old branch")
	assert.Equal(t, []string{line(t, assistant("m5b", "m4b", "next")) + "\n",
		line(t, assistant("m4a", "m3a", "back on the old branch")) + "\n"}, w.callStrings(),
		"only the two new lines are written")
}

// Rule 4.3.6, 4.3.4: opened over a tail, the log stays tainted whatever is appended.
func TestLab4_3_HiddenTailTaintsEveryAppend(t *testing.T) {
	rec, err := factlog.Recover("\n" + committed(line(t, user("r", "", "start"))) + "\n" + " ")
	require.NoError(t, err)
	require.NotNil(t, rec.Tail)
	w := newFakeWriter()
	log := factlog.OpenSessionLog(w.write, rec)
	for _, e := range []factlog.Entry{user("a", "r", "x"), user("r", "", "dup"), user("b", "", "root")} {
		err := log.Append(e)
		requireTainted(t, w, 0, err, factlog.ErrUnterminatedTail, "Append("+e.ID+") over a one-space tail")
		var tail *factlog.UnterminatedTailError
		require.True(t, errors.As(err, &tail))
		assert.Equal(t, factlog.UnterminatedTailError{Line: 4, Bytes: 1}, *tail, "the cause is the recovery's tail")
	}
	assert.Equal(t, []string{"r"}, ids(log.Entries()))
}
