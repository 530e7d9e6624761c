package session_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coursekit/course/labs/10-session"
)

// Rule 10.4.2, 10.4.4: blank lines before the tail count for its line number.
func TestLab10_4_HiddenTailLineCountsBlankLines(t *testing.T) {
	a := recoverLine(t, user("a", "", "hi"))
	text := recoverFile("", a, "", "\t", "") + recoverLine(t, assistantText("b", "a", "yo"))
	rec, err := session.RecoverJSONL(text)
	require.NoError(t, err, "RecoverJSONL(%q)", text)
	assert.Equal(t, []string{"a"}, ids(rec.Entries))
	assert.Equal(t, []session.Warning{{Code: session.WarnUnterminatedTail, Line: 6}}, rec.Warnings,
		"five committed lines (four of them blank), then the tail: it is line 6")

	text = "\n\n\n" + `{"id":` + "\n"
	rec, err = session.RecoverJSONL(text)
	recoverRequireLineError(t, text, rec, err, 4, "three blank lines, then the bad line 4")
}

// Rule 10.4.3: a bad line deep in a file is reported with its own number and
// field path, even with many good lines after it.
func TestLab10_4_HiddenBadLineDeepInFile(t *testing.T) {
	var lines []string
	parent := ""
	for i := 1; i <= 20; i++ {
		id := fmt.Sprintf("e%d", i)
		lines = append(lines, recoverLine(t, user(id, parent, id)))
		parent = id
	}
	lines = append(lines, recoverLineWith(t, user("e21", "e20", "x"), "timestamp", "1"))
	for i := 22; i <= 30; i++ {
		lines = append(lines, recoverLine(t, user(fmt.Sprintf("e%d", i), fmt.Sprintf("e%d", i-1), "x")))
	}
	text := recoverFile(lines...)
	rec, err := session.RecoverJSONL(text)
	recoverRequireLineError(t, text, rec, err, 21, "line 21 has a string timestamp")
	var fe *session.FieldError
	require.True(t, errors.As(err, &fe), "want the *FieldError behind the LineError, got %s", fakeDescribe(err))
	assert.Equal(t, "entry.timestamp", fe.Path)

	text = recoverFile(lines[0], `[1,2,3]`, lines[1])
	rec, err = session.RecoverJSONL(text)
	recoverRequireLineError(t, text, rec, err, 2, "line 2 is a JSON list, not an object")
	require.True(t, errors.As(err, &fe), "want the *FieldError behind the LineError, got %s", fakeDescribe(err))
	assert.Equal(t, "entry", fe.Path)
}

// Rule 10.4.3, 10.4.4: a committed bad line is an error even when an
// unterminated tail follows it.
func TestLab10_4_HiddenBadLineBeforeTailIsError(t *testing.T) {
	text := recoverFile(recoverLine(t, user("a", "", "hi")), "null") + `{"type":"message"`
	rec, err := session.RecoverJSONL(text)
	recoverRequireLineError(t, text, rec, err, 2,
		"line 2 (null) is committed and not an entry; the tail after it does not turn the error into a warning")
	assert.Empty(t, rec.Warnings, "a failed recovery returns no warnings either")
}

// Rule 10.4.5: a CRLF tail without "\n" is a warning; a BOM on a later line is
// a bad line like any other non-JSON.
func TestLab10_4_HiddenCRLFTailAndLateBOM(t *testing.T) {
	a := recoverLine(t, user("a", "", "hi"))
	b := recoverLine(t, assistantText("b", "a", "yo"))
	text := a + "\r\n" + b + "\r"
	rec, err := session.RecoverJSONL(text)
	require.NoError(t, err, "RecoverJSONL(%q)", text)
	assert.Equal(t, []string{"a"}, ids(rec.Entries), "b ends in \"\\r\" only: not committed")
	assert.Equal(t, []session.Warning{{Code: session.WarnUnterminatedTail, Line: 2}}, rec.Warnings)

	text = recoverFile(a, "\uFEFF"+b)
	rec, err = session.RecoverJSONL(text)
	recoverRequireLineError(t, text, rec, err, 2, "a BOM is never stripped: line 2 starts with one")
}

// Rule 10.4.2: only spaces, tabs and \r make a blank line; a form feed, a
// vertical tab or a no-break space is a bad committed line.
func TestLab10_4_HiddenOtherWhitespaceIsBad(t *testing.T) {
	a := recoverLine(t, user("a", "", "hi"))
	for _, blank := range []string{"\f", "\v", "\u00a0"} {
		text := recoverFile(a, blank)
		rec, err := session.RecoverJSONL(text)
		recoverRequireLineError(t, text, rec, err, 2, "only spaces, tabs and \\r make a blank line")
	}
}

// Rule 10.4.4, 10.4.5: blank tails after CRLF lines, after blank lines and
// after nothing at all give no warning; a no-break space is not blank.
func TestLab10_4_HiddenBlankTails(t *testing.T) {
	a := recoverLine(t, user("a", "", "hi"))
	b := recoverLine(t, assistantText("b", "a", "yo"))
	for text, want := range map[string][]string{
		a + "\r\n" + b + "\r\n" + "\r":         {"a", "b"},
		recoverFile("", a, "", "\t") + "   \t": {"a"},
		"\t \r":                                {},
		recoverFile(a, b) + " ":                {"a", "b"},
	} {
		rec, err := session.RecoverJSONL(text)
		require.NoError(t, err, "RecoverJSONL(%q)", text)
		assert.Empty(t, rec.Warnings, "RecoverJSONL(%q): a blank last segment is no tail", text)
		assert.Equal(t, want, ids(rec.Entries), "RecoverJSONL(%q).Entries", text)
	}
	text := recoverFile(a, "") + "\u00a0"
	rec, err := session.RecoverJSONL(text)
	require.NoError(t, err, "RecoverJSONL(%q)", text)
	assert.Equal(t, []session.Warning{{Code: session.WarnUnterminatedTail, Line: 3}}, rec.Warnings,
		"RecoverJSONL(%q): U+00A0 is not a blank character here, so the tail on line 3 is unterminated", text)
}
