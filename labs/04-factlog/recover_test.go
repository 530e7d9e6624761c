package factlog_test

// Public tests of exercise 4.1, Recover. Run them with
//
//	go test -run Lab4_1

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	factlog "github.com/coursekit/course/labs/04-factlog"
)

// requireLineError requires that Recover(text) failed with a *LineError at
// line want and returned no entries, and returns the error.
func requireLineError(t *testing.T, text string, rec factlog.Recovery, err error, want int, why string) *factlog.LineError {
	t.Helper()
	var le *factlog.LineError
	require.ErrorAs(t, err, &le,
		"Recover(%s) error = %s; want a *LineError for line %d, because %s", short(text), describe(err), want, why)
	assert.Equal(t, want, le.Line, "Recover(%s): LineError.Line, because %s (lines count from 1, blank ones too)",
		short(text), why)
	assert.Contains(t, err.Error(), le.Error(), "Recover(%s): the error's message must say which line it is", short(text))
	require.Empty(t, rec.Entries, "Recover(%s) failed but returned entries %v. Lab 4.1: a bad committed line stops "+
		"recovery with no partial result, so nobody can mistake a damaged history for a whole one", short(text), ids(rec.Entries))
	return le
}

// assertTail asserts that got, the Tail of Recover(text), is the tail on
// line wantLine, wantBytes long. A wrong line number is explained: how
// lines are counted, and which line the tail is on.
func assertTail(t *testing.T, text string, got *factlog.UnterminatedTailError, wantLine, wantBytes int, why string) {
	t.Helper()
	want := &factlog.UnterminatedTailError{Line: wantLine, Bytes: wantBytes}
	if got != nil && got.Line != wantLine {
		before := "no \"\\n\" at all"
		if wantLine > 1 {
			before = plural(wantLine-1, "complete line") + " before the tail (blank lines counted), each ending in \"\\n\""
		}
		why += fmt.Sprintf(". Tail.Line = %d, want %d: lines count from 1, blank ones included, and the tail is the "+
			"line after the last \"\\n\". This text has %s, so the tail is line %d (rules 4.1.2, 4.1.3)",
			got.Line, wantLine, before, wantLine)
	}
	assert.Equal(t, want, got, "Recover(%s).Tail: %s", short(text), why)
}

// Rule 4.1.1: every committed line becomes an entry, in file order.
func TestLab4_1_CommittedLinesInOrder(t *testing.T) {
	text := committed(lines(t, seedTree()...)...)
	rec, err := factlog.Recover(text)
	require.NoError(t, err, "Recover(the six committed lines of the chapter's tree): want the six entries and no "+
		"error: every line is a valid entry and ends in \"\\n\"")
	assert.Equal(t, seedTree(), rec.Entries,
		"each line ending in \"\\n\" is decoded with DecodeEntry and kept, in the order of the file")
	assert.Nil(t, rec.Tail, "Recover(%s): the text ends in \"\\n\", so there is no unterminated tail", short(text))

	rec, err = factlog.Recover("")
	require.NoError(t, err, "Recover(\"\"): an empty log is a log with nothing in it yet, not an error")
	assert.Empty(t, rec.Entries, "Recover(\"\") entries")
	assert.Nil(t, rec.Tail, "Recover(\"\"): no bytes, so no tail")
}

// Rule 4.1.2: a torn last line (no "\n") is dropped and reported as the Tail.
func TestLab4_1_UnterminatedTailDropped(t *testing.T) {
	head := committed(lines(t, user("a", "", "hi"), assistant("b", "a", "hello"))...)
	torn := `{"type":"user","id":"c","parentId":"b","te`
	text := head + torn
	rec, err := factlog.Recover(text)
	require.NoError(t, err, "Recover(%s): a torn last line is a write that never finished, not an error", short(text))
	assert.Equal(t, []string{"a", "b"}, ids(rec.Entries),
		"Recover(%s): the two committed lines are facts; the line without \"\\n\" was never committed", short(text))
	assertTail(t, text, rec.Tail, 3, len(torn), fmt.Sprintf("the dropped line is line 3 and %s long. Lab 4.1: "+
		"dropped, but never silently", plural(len(torn), "byte")))

	first := `{"type":"user","id":"r","parentId":nu`
	rec, err = factlog.Recover(first)
	require.NoError(t, err, "Recover(%s): want no error: the crash came during the very first write, so the only "+
		"line is a tail", short(first))
	assert.Empty(t, rec.Entries, "Recover(%s): nothing was committed", short(first))
	assertTail(t, first, rec.Tail, 1, len(first), fmt.Sprintf("a text without any \"\\n\" is all tail, line 1 "+
		"and %s long: not an empty log, which would hide that a write was lost", plural(len(first), "byte")))
}

// Rule 4.1.2: the newline is the commit mark, so a last line that is valid
// JSON, or only spaces, is still a tail.
func TestLab4_1_CompleteLookingTailDropped(t *testing.T) {
	head := committed(line(t, user("a", "", "hi")))
	whole := line(t, assistant("b", "a", "hello"))
	rec, err := factlog.Recover(head + whole)
	require.NoError(t, err, "Recover(%s): want no error: the committed line is valid, and what follows the last "+
		"\"\\n\" is a tail, which is never decoded", short(head+whole))
	assert.Equal(t, []string{"a"}, ids(rec.Entries), "Recover(%s): the last line is a valid entry but has no \"\\n\": "+
		"the writer may have been about to add more to it, so it is not a fact yet", short(head+whole))
	assertTail(t, head+whole, rec.Tail, 2, len(whole), "do not parse the tail to decide whether it is whole")

	rec, err = factlog.Recover(head + "  ")
	require.NoError(t, err, "Recover(%s): want no error: two spaces after the last \"\\n\" are a tail, not a "+
		"line to decode", short(head+"  "))
	assert.Equal(t, []string{"a"}, ids(rec.Entries), "Recover(%s)", short(head+"  "))
	assertTail(t, head+"  ", rec.Tail, 2, 2, "two spaces after the last newline are still bytes that were never committed")
}

// Rule 4.1.4: a bad committed line is an error naming its line, with its
// cause, and no entries.
func TestLab4_1_BadCommittedLineNamesItsLine(t *testing.T) {
	good := lines(t, user("a", "", "hi"), assistant("b", "a", "hello"), user("c", "b", "bye"))
	noText := `{"type":"assistant","id":"b","parentId":"a"}`
	text := committed(good[0], noText, good[2])
	rec, err := factlog.Recover(text)
	requireLineError(t, text, rec, err, 2, "line 2 has no \"text\" field")
	var fe *factlog.FieldError
	require.ErrorAs(t, err, &fe, "Recover(%s) error = %s; want the *FieldError from DecodeEntry inside the "+
		"*LineError, as its Err", short(text), describe(err))
	assert.Equal(t, "text", fe.Field, "Recover(%s): FieldError.Field", short(text))

	// A torn line that was followed by a newline is not a tail: it was
	// committed, and it is damaged.
	text = committed(good[0], good[1], `{"type":"user","id":"c","par`)
	rec, err = factlog.Recover(text)
	requireLineError(t, text, rec, err, 3, "line 3 ends in \"\\n\" but is not JSON: a committed line that is damaged "+
		"is corruption, not an unfinished write")
	var syntax *json.SyntaxError
	assert.ErrorAs(t, err, &syntax, "Recover(%s) error = %s; want the *json.SyntaxError inside the *LineError",
		short(text), describe(err))
}

// Rule 4.1.3: blank lines are skipped but keep their numbers; CRLF line
// ends recover like LF.
func TestLab4_1_BlankLinesKeepTheirNumber(t *testing.T) {
	a, b := line(t, user("a", "", "hi")), line(t, assistant("b", "a", "hello"))
	text := "\n" + a + "\n  \n\t\r\n" + b + "\r\n"
	rec, err := factlog.Recover(text)
	require.NoError(t, err, "Recover(%s): blank lines (spaces, tabs, \\r) are skipped, and a \\r before the \\n is "+
		"JSON whitespace", short(text))
	assert.Equal(t, []string{"a", "b"}, ids(rec.Entries), "Recover(%s): the blank lines are skipped", short(text))
	assert.Nil(t, rec.Tail, "Recover(%s): it ends in \"\\n\"", short(text))

	text = "\n\n" + a + "\n\n" + "not json\n" + b + "\n"
	rec, err = factlog.Recover(text)
	requireLineError(t, text, rec, err, 5, "two blank lines, a, a blank line: the bad line is the fifth line of the file, "+
		"where an editor shows it")

	torn := `{"type":"assistant"`
	text = "\n" + a + "\n\n" + torn
	rec, err = factlog.Recover(text)
	require.NoError(t, err, "Recover(%s): want no error: a blank line, a, a blank line, then a torn last line, "+
		"which is a tail and never decoded", short(text))
	assert.Equal(t, []string{"a"}, ids(rec.Entries), "Recover(%s): a is the only committed entry", short(text))
	assertTail(t, text, rec.Tail, 4, len(torn), "a blank line, a, a blank line, then the tail on line 4")
}

// Rule 4.1.2: a tail's length is counted in bytes, not characters: a torn
// write can stop anywhere in a line of any language, even inside a
// character.
func TestLab4_1_TailLengthInBytes(t *testing.T) {
	head := committed(line(t, user("a", "", "你好")))
	for _, torn := range []string{
		`{"type":"assistant","id":"b","parentId":"a","text":"名字`,
		"é",
		"\xe5\x90", // the first two of the three bytes of 名: the write stopped inside it
	} {
		rec, err := factlog.Recover(head + torn)
		require.NoError(t, err, "Recover(%s): want no error: one committed line and a tail, which is never decoded",
			short(head+torn))
		assertTail(t, head+torn, rec.Tail, 2, len(torn), fmt.Sprintf("the tail is %s long (%s); Bytes counts "+
			"bytes, len(tail), the way a file's size does, never runes", plural(len(torn), "byte"),
			plural(len([]rune(torn)), "character")))
	}
}

// Rule 4.1.3: blank means only spaces, tabs and "\r": a line of any other
// white space (a vertical tab, a form feed, a no-break space, an
// ideographic space) is committed and not an entry, so it is a bad line.
func TestLab4_1_OnlySpacesTabsAndCRAreBlank(t *testing.T) {
	a, b := line(t, user("a", "", "hi")), line(t, assistant("b", "a", "hello"))
	for _, ws := range []string{"\v", "\f", "\u00a0", "\u3000", " \u0085 "} {
		text := committed(a, ws, b)
		rec, err := factlog.Recover(text)
		le := requireLineError(t, text, rec, err, 2, fmt.Sprintf("line 2 is %q: white space to unicode.IsSpace, "+
			"but not a blank line as the chapter defines one (only spaces, tabs and \\r), so it is a committed line "+
			"that DecodeEntry refuses. strings.TrimSpace would skip it: trim only \" \\t\\r\"", ws))
		assert.Error(t, le.Err, "Recover(%s): the *LineError carries DecodeEntry's error", short(text))
	}
}

// Rule 4.1.1: a committed line may be of any length: a tool result of
// 100 KiB is one line like any other (bufio.Scanner's default limit, 64 KiB,
// is not the log's).
func TestLab4_1_LongLinesAreWhole(t *testing.T) {
	long := tool("t", "a", strings.Repeat("0123456789", 10_000)+" the end")
	longZH := assistant("z", "t", strings.Repeat("长", 30_000))
	entries := []factlog.Entry{user("a", "", "cat big.log"), long, longZH, user("u", "z", "thanks")}
	text := committed(lines(t, entries...)...)
	rec, err := factlog.Recover(text)
	require.NoError(t, err, "Recover(4 committed lines, two of them %d and %d bytes long) = %s; want no error: a line "+
		"is as long as its entry, and bufio.Scanner's default 64 KiB limit is not a rule of the log",
		len(line(t, long)), len(line(t, longZH)), describe(err))
	assert.Equal(t, entries, rec.Entries, "Recover(4 committed lines, two of them over 64 KiB): every entry, whole")
	assert.Nil(t, rec.Tail, "the text ends in \"\\n\"")
}

// Rule 4.1.4: the *LineError's Err is the very error DecodeEntry returned
// for the line, not a wrapper around it (errors.As would see through a
// wrapper, a reader of LineError.Err would not).
func TestLab4_1_LineErrorHoldsTheDecodeError(t *testing.T) {
	a := line(t, user("a", "", "hi"))
	for _, bad := range []string{
		`{"type":"assistant","id":"b","parentId":"a"}`,
		`{"type":"user","id":"b","par`,
		`{"type":"system","id":"b","parentId":"a","text":"x"}`,
	} {
		text := committed(a, bad)
		rec, err := factlog.Recover(text)
		le := requireLineError(t, text, rec, err, 2, "line 2 is not a valid entry")
		_, want := factlog.DecodeEntry([]byte(bad))
		assert.Equal(t, want, le.Err, "Recover(%s): LineError.Err = %s; want exactly what DecodeEntry(line 2) "+
			"returns, %s: the field holds the cause itself. Wrapping it again (fmt.Errorf(\"...: %%w\", err)) "+
			"passes errors.As but hands a reader of Err a different value", short(text), describe(le.Err), describe(want))
	}
}
