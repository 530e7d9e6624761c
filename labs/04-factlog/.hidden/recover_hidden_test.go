package factlog_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	factlog "github.com/coursekit/course/labs/04-factlog"
)

// Rule 4.1.1, 4.1.3: a long log with blank lines and CRLF recovers whole, in order.
func TestLab4_1_HiddenLongLogInOrder(t *testing.T) {
	var b strings.Builder
	var want []factlog.Entry
	parent := ""
	for i := 1; i <= 40; i++ {
		e := user(fmt.Sprintf("e%02d", i), parent, fmt.Sprintf("turn %d: \"quoted\", 名字, \\n", i))
		if i%2 == 0 {
			e.Type = factlog.TypeAssistant
		}
		want = append(want, e)
		parent = e.ID
		b.WriteString(line(t, e))
		switch i % 5 {
		case 0:
			b.WriteString("\r\n\n")
		case 3:
			b.WriteString("\n \t\n")
		default:
			b.WriteString("\n")
		}
	}
	rec, err := factlog.Recover(b.String())
	require.NoError(t, err, "Recover(40 entries with blank lines and CRLF line ends): want no error: every committed line is blank or a valid entry")
	assert.Equal(t, want, rec.Entries, "every committed line, in file order, each whole")
	assert.Nil(t, rec.Tail, "the text ends in \"\\n\"")
}

// Rule 4.1.2: a text without any newline is all tail; newlines only are an
// empty log.
func TestLab4_1_HiddenTailOnly(t *testing.T) {
	whole := line(t, user("a", "", "hi"))
	rec, err := factlog.Recover(whole)
	require.NoError(t, err, "Recover(%s): want no error: a text without \"\\n\" is all tail, never decoded", short(whole))
	assert.Empty(t, rec.Entries, "Recover(%s): a log whose only line has no \"\\n\" has no committed entry", short(whole))
	assertTail(t, whole, rec.Tail, 1, len(whole), "a text without \"\\n\" is all tail, on line 1")

	rec, err = factlog.Recover("\n\n\n")
	require.NoError(t, err, "Recover(three blank lines): want no error: blank lines are skipped")
	assert.Empty(t, rec.Entries, "Recover(three blank lines)")
	assert.Nil(t, rec.Tail, "Recover(three blank lines): it ends in \"\\n\", so no tail")

	rec, err = factlog.Recover(committed(whole) + "\t")
	require.NoError(t, err, "Recover(a line and a tab): want no error: the tab is a tail")
	assert.Equal(t, []string{"a"}, ids(rec.Entries))
	assertTail(t, committed(whole)+"\t", rec.Tail, 2, 1, "a tab after the last newline is a tail")
}

// Rule 4.1.4: a bad line deep in a long log is named by its own number.
func TestLab4_1_HiddenBadLineDeepInLog(t *testing.T) {
	var all []string
	parent := ""
	for i := 1; i <= 30; i++ {
		id := fmt.Sprintf("e%d", i)
		all = append(all, line(t, user(id, parent, id)))
		parent = id
	}
	all[20] = `{"type":"system","id":"e21","parentId":"e20","text":"x"}`
	text := committed(all...)
	rec, err := factlog.Recover(text)
	requireLineError(t, text, rec, err, 21, "line 21 has type \"system\"")
	var fe *factlog.FieldError
	require.ErrorAs(t, err, &fe, "Recover: want the *FieldError inside the *LineError, got %s", describe(err))
	assert.Equal(t, "type", fe.Field)
}

// Rule 4.1.4: every kind of bad committed line is an error, never skipped.
func TestLab4_1_HiddenEveryBadLineIsAnError(t *testing.T) {
	a := line(t, user("a", "", "hi"))
	bad := []string{
		`null`,
		`[1,2]`,
		`"a string"`,
		`{"type":"user","id":"b","parentId":"a","text":"x","extra":1}`,
		`{"type":"user","id":"b","parentId":"a","text":"x"} {"type":"user","id":"c","parentId":"b","text":"y"}`,
		`{"type":"user","id":"","parentId":"a","text":"x"}`,
		`{"type":"user","id":"b","parentId":"","text":"x"}`,
		`{"type":"user","id":"b","text":"x"}`,
		`{"type":"user","id":"b","parentId":"a","te`,
	}
	for _, l := range bad {
		text := committed(a, l, a)
		rec, err := factlog.Recover(text)
		requireLineError(t, text, rec, err, 2, "line 2 is not a valid entry: "+l)
	}
}

// Rule 4.1.4, 4.1.2: a bad committed line is an error even when a tail follows.
func TestLab4_1_HiddenBadLineBeforeTail(t *testing.T) {
	text := committed(line(t, user("a", "", "hi")), "", "{oops}") + line(t, user("b", "a", "x"))
	rec, err := factlog.Recover(text)
	requireLineError(t, text, rec, err, 3, "line 3 is committed and not JSON; the tail on line 4 does not excuse it")
	assert.Nil(t, rec.Tail, "Recover failed: no partial result, no tail either")
}

// Rule 4.1.2: a torn tail cut inside a four-byte character, after blank
// lines, is counted in bytes on its physical line.
func TestLab4_1_HiddenTailBytesInsideAnEmoji(t *testing.T) {
	torn := `{"type":"user","id":"b","parentId":"a","text":"ship it 🚀🚀` + "\xf0\x9f\x9a"
	text := "\n" + committed(line(t, user("a", "", "ok 👍"))) + "\n" + torn
	rec, err := factlog.Recover(text)
	require.NoError(t, err, "Recover(%s): want no error: the torn line is a tail, never decoded", short(text))
	assertTail(t, text, rec.Tail, 4, len(torn), fmt.Sprintf("line 4, %s (not %s)", plural(len(torn), "byte"),
		plural(len([]rune(torn)), "rune")))
}

// Rule 4.1.3: a no-break space between tabs is not blank: the line is
// committed and bad, and named by its physical number.
func TestLab4_1_HiddenNoBreakSpaceIsABadLine(t *testing.T) {
	a := line(t, user("a", "", "hi"))
	text := "\n \t\n" + committed(a) + "\t\u00a0\t\n" + committed(line(t, user("b", "a", "x")))
	rec, err := factlog.Recover(text)
	requireLineError(t, text, rec, err, 4, "line 4 is a tab, a no-break space and a tab: not only spaces, tabs and \\r")
}

// Rule 4.1.1, 4.1.2: a committed line of a megabyte is an entry like any
// other, and a tail after it is still a tail.
func TestLab4_1_HiddenMegabyteLine(t *testing.T) {
	big := tool("t", "", strings.Repeat("x", 1<<20))
	torn := `{"type":"user","id":"u"`
	text := committed(line(t, big)) + torn
	rec, err := factlog.Recover(text)
	require.NoError(t, err, "Recover(a committed line of 1 MiB and a tail) = %s; want no error: a line is as long as its entry", describe(err))
	assert.Equal(t, []factlog.Entry{big}, rec.Entries, "the 1 MiB entry, whole")
	assertTail(t, text, rec.Tail, 2, len(torn), "the line after the megabyte line, never decoded")
}

// Rule 4.1.4: after blank lines, the *LineError's Err is DecodeEntry's
// syntax error itself.
func TestLab4_1_HiddenLineErrorIsTheSyntaxErrorItself(t *testing.T) {
	bad := `{"type":"user",,}`
	text := "\r\n" + committed(line(t, user("a", "", "hi")), bad)
	rec, err := factlog.Recover(text)
	le := requireLineError(t, text, rec, err, 3, "line 3 is not JSON")
	_, want := factlog.DecodeEntry([]byte(bad))
	assert.Equal(t, want, le.Err, "LineError.Err = %s; want DecodeEntry's own error %s", describe(le.Err), describe(want))
}
