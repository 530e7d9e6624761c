package session_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coursekit/course/labs/10-session"
)

// recoverLine returns the JSON line of e, without the trailing "\n".
func recoverLine(t *testing.T, e session.SessionEntry) string {
	t.Helper()
	b, err := json.Marshal(e)
	require.NoError(t, err, "json.Marshal(%q)", e.ID)
	return string(b)
}

// recoverLineWith returns the JSON line of e with one field changed (or
// removed, when value is recoverDelete), without the trailing "\n".
func recoverLineWith(t *testing.T, e session.SessionEntry, field string, value any) string {
	t.Helper()
	v := session.EntryValue(e)
	if value == recoverDelete {
		delete(v, field)
	} else {
		v[field] = value
	}
	b, err := json.Marshal(v)
	require.NoError(t, err, "json.Marshal(%q with %s changed)", e.ID, field)
	return string(b)
}

// recoverDelete marks a field to remove in recoverLineWith.
var recoverDelete = &struct{ name string }{"delete"}

// recoverFile joins committed lines, each followed by "\n".
func recoverFile(lines ...string) string {
	var b strings.Builder
	for _, l := range lines {
		b.WriteString(l)
		b.WriteString("\n")
	}
	return b.String()
}

// recoverRequireLineError requires a *LineError at line want and returns it.
func recoverRequireLineError(t *testing.T, text string, rec session.Recovery, err error, want int, why string) *session.LineError {
	t.Helper()
	var le *session.LineError
	require.True(t, errors.As(err, &le),
		"RecoverJSONL(%q) error = %s; want a *LineError at line %d — %s", recoverShort(text), fakeDescribe(err), want, why)
	assert.Equal(t, want, le.Line, "RecoverJSONL(%q): LineError.Line — %s", recoverShort(text), why)
	assert.Empty(t, rec.Entries, "RecoverJSONL(%q) failed but returned entries %v — lab 10.4: recovery stops at the "+
		"bad line and returns no partial result", recoverShort(text), ids(rec.Entries))
	return le
}

// recoverShort shortens a text for failure messages.
func recoverShort(s string) string {
	if len(s) > 120 {
		return s[:60] + "…" + s[len(s)-50:]
	}
	return s
}

// Rule 10.4.1: every committed line (ending in "\n") becomes an entry, in order.
func TestLab10_4_CommittedLinesParsed(t *testing.T) {
	var lines []string
	for _, e := range chapterTree() {
		lines = append(lines, recoverLine(t, e))
	}
	text := recoverFile(lines...)
	rec, err := session.RecoverJSONL(text)
	require.NoError(t, err, "RecoverJSONL(the chapter's five committed lines)")
	assert.Equal(t, chapterTree(), rec.Entries,
		"each committed line decoded with json.Unmarshal and checked with ParseSessionEntry, in file order")
	assert.Empty(t, rec.Warnings, "a text ending in \"\\n\" has no unterminated tail, so no warnings")
}

// Rule 10.4.1, 10.4.4: a last line without "\n" is not parsed, even if it is
// valid JSON, and is reported as a structured warning with its line number.
func TestLab10_4_UnterminatedTailNotParsed(t *testing.T) {
	committed := recoverFile(recoverLine(t, user("a", "", "hi")), recoverLine(t, assistantText("b", "a", "yo")))
	cases := map[string]string{
		"valid-looking JSON without newline": recoverLine(t, assistantText("c", "b", "complete JSON, never committed")),
		"half a line":                        `{"type":"message","id":"c","parent`,
	}
	for name, tail := range cases {
		t.Run(name, func(t *testing.T) {
			text := committed + tail
			rec, err := session.RecoverJSONL(text)
			require.NoError(t, err, "RecoverJSONL(two committed lines + %s) must not fail: the tail was never "+
				"committed, so it is a warning, not an error", name)
			assert.Equal(t, []string{"a", "b"}, ids(rec.Entries),
				"only the lines that end in \"\\n\" are committed — lab 10.4: the tail is not parsed, whatever it looks like")
			assert.Equal(t, []session.Warning{{Code: session.WarnUnterminatedTail, Line: 3}}, rec.Warnings,
				"the unterminated tail is line 3; want exactly one warning {unterminated_tail, 3}")
		})
	}
}

// Rule 10.4.2: blank lines give no entry and no error but keep their line number.
func TestLab10_4_BlankLinesCountForLineNumbers(t *testing.T) {
	text := "\nBAD\n"
	rec, err := session.RecoverJSONL(text)
	recoverRequireLineError(t, text, rec, err, 2,
		"the chapter's example: the empty first line still counts, so BAD is line 2")

	a, b := recoverLine(t, user("a", "", "hi")), recoverLine(t, assistantText("b", "a", "yo"))
	text = recoverFile("", a, "", "  \t", b, "")
	rec, err = session.RecoverJSONL(text)
	require.NoError(t, err, "RecoverJSONL(%q): blank lines (empty or spaces/tabs) are no error", text)
	assert.Equal(t, []string{"a", "b"}, ids(rec.Entries), "blank lines give no entry")
	assert.Empty(t, rec.Warnings, "every line ends in \"\\n\": no warnings")

	text = recoverFile(a, "", "", b, "{oops")
	rec, err = session.RecoverJSONL(text)
	recoverRequireLineError(t, text, rec, err, 5,
		"a, two blank lines, b, then the bad line: its physical line number is 5")
}

// Rule 10.4.3: a committed line that is not JSON is an error with its line
// number, wrapping the JSON error.
func TestLab10_4_BadJSONLineReportsLine(t *testing.T) {
	text := recoverFile(recoverLine(t, user("a", "", "hi")), `{"type":"message","id":"b",`)
	rec, err := session.RecoverJSONL(text)
	le := recoverRequireLineError(t, text, rec, err, 2, "line 2 is cut JSON that ends in \"\\n\": a committed bad line")
	var se *json.SyntaxError
	assert.True(t, errors.As(le.Err, &se) || errors.As(err, &se),
		"the LineError for bad JSON should carry the error of json.Unmarshal (a *json.SyntaxError); got %s",
		fakeDescribe(le.Err))
}

// Rule 10.4.3: a committed line that is JSON but not a valid entry is an
// error with its line number; errors.As reaches the *FieldError with its path.
func TestLab10_4_InvalidEntryLineReportsFieldPath(t *testing.T) {
	a := recoverLine(t, user("a", "", "hi"))
	b := recoverLine(t, assistantText("b", "a", "yo"))
	cases := []struct {
		name, line, path string
	}{
		{"unknown field", recoverLineWith(t, assistantText("c", "b", "x"), "extra", true), "entry.extra"},
		{"missing timestamp", recoverLineWith(t, assistantText("c", "b", "x"), "timestamp", recoverDelete), "entry.timestamp"},
		{"empty parentId", recoverLineWith(t, assistantText("c", "b", "x"), "parentId", ""), "entry.parentId"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			text := recoverFile(a, b, tc.line)
			rec, err := session.RecoverJSONL(text)
			recoverRequireLineError(t, text, rec, err, 3, "line 3 is JSON but not a valid entry ("+tc.name+")")
			var fe *session.FieldError
			require.True(t, errors.As(err, &fe),
				"RecoverJSONL error = %s; want errors.As to reach the *FieldError of ParseSessionEntry through the *LineError",
				fakeDescribe(err))
			assert.Equal(t, tc.path, fe.Path, "FieldError.Path for %s", tc.name)
		})
	}
}

// Rule 10.4.3: recovery stops at the first bad line; it never skips it,
// even when good lines follow.
func TestLab10_4_StopsAtFirstBadLineNeverSkips(t *testing.T) {
	a := recoverLine(t, user("a", "", "hi"))
	// b lost its timestamp; c and d point into b: skipping b would leave
	// a damaged tree that looks healthy.
	badB := recoverLineWith(t, assistantToolCall("b", "a", "c1"), "timestamp", recoverDelete)
	c := recoverLine(t, toolResult("c", "b", "c1"))
	d := recoverLine(t, assistantText("d", "c", "done"))
	text := recoverFile(a, badB, c, d)
	rec, err := session.RecoverJSONL(text)
	recoverRequireLineError(t, text, rec, err, 2,
		"a bad middle line followed by good lines is still an error — lab 10.4: skipping it is forbidden")

	text = recoverFile(a, "not json", c, "also not json", d)
	rec, err = session.RecoverJSONL(text)
	recoverRequireLineError(t, text, rec, err, 2, "two bad lines: the first one (line 2) is reported")
}

// Rule 10.4.1: the empty text and a text of blank lines hold no entries and no warnings.
func TestLab10_4_EmptyText(t *testing.T) {
	for _, text := range []string{"", "\n", "\n\n \n"} {
		rec, err := session.RecoverJSONL(text)
		require.NoError(t, err, "RecoverJSONL(%q) must succeed: nothing was committed, nothing is wrong", text)
		assert.Empty(t, rec.Entries, "RecoverJSONL(%q).Entries", text)
		assert.Empty(t, rec.Warnings, "RecoverJSONL(%q).Warnings: no unterminated tail", text)
	}
}

// Rule 10.4.5: CRLF line endings parse ("\r" is JSON whitespace); "\r\n"
// alone is a blank line that keeps its number.
func TestLab10_4_CRLFLines(t *testing.T) {
	a, b := recoverLine(t, user("a", "", "hi")), recoverLine(t, assistantText("b", "a", "yo"))
	text := a + "\r\n\r\n" + b + "\r\n"
	rec, err := session.RecoverJSONL(text)
	require.NoError(t, err, "RecoverJSONL(%q): lines ending in \"\\r\\n\" are committed and \"\\r\" is JSON whitespace", text)
	assert.Equal(t, []string{"a", "b"}, ids(rec.Entries), "CRLF lines parse; \"\\r\\n\" alone is a blank line")
	assert.Empty(t, rec.Warnings)

	text = a + "\r\n\r\nBAD\r\n"
	rec, err = session.RecoverJSONL(text)
	recoverRequireLineError(t, text, rec, err, 3, "the \"\\r\\n\" blank line counts: BAD is line 3")
}

// Rule 10.4.5: a UTF-8 BOM is not stripped: the first line is a bad line (fail closed).
func TestLab10_4_BOMIsBadFirstLine(t *testing.T) {
	text := "\uFEFF" + recoverFile(recoverLine(t, user("a", "", "hi")), recoverLine(t, assistantText("b", "a", "yo")))
	rec, err := session.RecoverJSONL(text)
	recoverRequireLineError(t, text, rec, err, 1,
		"the lab decides: a UTF-8 BOM is not JSON and is not stripped, so line 1 is a committed bad line")
}

// Rule 10.4.4, 10.4.5: a last segment of only spaces, tabs and "\r" is a
// blank line, not an unterminated tail: no entry, no warning. Anything else
// after the last "\n" is a tail.
func TestLab10_4_WhitespaceOnlyTailIsBlank(t *testing.T) {
	a := recoverLine(t, user("a", "", "hi"))
	for _, tail := range []string{"  ", "\t", "\r", " \t\r "} {
		text := recoverFile(a, "") + tail
		rec, err := session.RecoverJSONL(text)
		require.NoError(t, err, "RecoverJSONL(%q)", text)
		assert.Equal(t, []string{"a"}, ids(rec.Entries), "RecoverJSONL(%q).Entries", text)
		assert.Empty(t, rec.Warnings, "RecoverJSONL(%q).Warnings = %v, want none: a last line of only spaces, tabs "+
			"and \\r holds no record, so it is a blank line like the others, not an unterminated tail (the published "+
			"chapter; lab 10.4)", text, rec.Warnings)
	}
	for _, tail := range []string{" x", "\f", "{"} {
		text := recoverFile(a, "") + tail
		rec, err := session.RecoverJSONL(text)
		require.NoError(t, err, "RecoverJSONL(%q)", text)
		assert.Equal(t, []session.Warning{{Code: session.WarnUnterminatedTail, Line: 3}}, rec.Warnings,
			"RecoverJSONL(%q): a last segment with anything but spaces, tabs and \\r in it is an unterminated tail "+
				"on line 3", text)
	}
}

// Rule 10.4.1: RecoverJSONL is pure: same text, same result; results are fresh.
func TestLab10_4_PureAndFresh(t *testing.T) {
	var lines []string
	for _, e := range chapterTree() {
		lines = append(lines, recoverLine(t, e))
	}
	text := recoverFile(lines...) + `{"type":"meta`
	first, err := session.RecoverJSONL(text)
	require.NoError(t, err, "RecoverJSONL(chapter tree + tail)")
	second, err := session.RecoverJSONL(text)
	require.NoError(t, err)
	require.Equal(t, first, second, "RecoverJSONL on the same text twice must give equal results")
	require.Equal(t, chapterTree(), first.Entries)

	first.Entries[0].ID = "changed"
	first.Entries[1].Message.(*session.AssistantMessage).Content[1].(session.ToolCall).Arguments["path"] = "/etc"
	first.Entries[2].Message.(*session.ToolResultMessage).Details.(map[string]any)["count"] = 7.0
	first.Entries[4].Value.(map[string]any)["text"] = "changed"
	first.Warnings[0].Line = 99

	third, err := session.RecoverJSONL(text)
	require.NoError(t, err)
	assert.Equal(t, chapterTree(), third.Entries,
		"changing the entries of one RecoverJSONL result changed the next result — results must be fresh values")
	assert.Equal(t, []session.Warning{{Code: session.WarnUnterminatedTail, Line: 6}}, third.Warnings)
}

// Rule 10.4.1: a committed line may be long: an agent's tool output easily
// runs to hundreds of kilobytes. (bufio.Scanner stops at 64 KiB by default:
// if you use it, give it a bigger buffer, or split the text yourself.)
func TestLab10_4_LongCommittedLineRecovers(t *testing.T) {
	big := toolResult("r", "", "c1")
	big.Message.(*session.ToolResultMessage).Content[0].Text = strings.Repeat("x", 200_000)
	text := recoverFile(recoverLine(t, big), recoverLine(t, user("u", "r", "next")))
	rec, err := session.RecoverJSONL(text)
	require.NoError(t, err, "RecoverJSONL(a 200 KB committed line, then a short one) error = %v; a long line is still one committed line (lab 10.4)", err)
	assert.Equal(t, []string{"r", "u"}, ids(rec.Entries), "both committed entries must come back, the long one first")
}
