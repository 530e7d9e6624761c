// Package safetext makes text that a submission chose (its name, a path, a
// test's output, a reason quoting it) safe to show: on a terminal, in a
// table, in a spreadsheet, in a CI page. Every report prints such text
// through it.
package safetext

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Printable is line made safe to print: control characters (an escape
// sequence could move the cursor and paint a fake "pass" over a failure),
// bidirectional controls (which make text read otherwise than it is
// stored) and line separators become visible \x and \u escapes; tabs and
// newlines stay.
func Printable(line string) string {
	if strings.IndexFunc(line, unsafeRune) < 0 {
		return line
	}
	var b strings.Builder
	for _, r := range line {
		switch {
		case unsafeRune(r) && r < 0x100:
			fmt.Fprintf(&b, "\\x%02x", r)
		case unsafeRune(r):
			fmt.Fprintf(&b, "\\u%04x", r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// Line is Printable that also escapes tabs, newlines and carriage returns:
// for a name or a one-line reason, which must stay one line (a submission
// named "zed\nalice  pass" would add a row to a table).
func Line(s string) string {
	s = Printable(s)
	if !strings.ContainsAny(s, "\t\n\r") {
		return s
	}
	return strings.NewReplacer("\t", `\x09`, "\n", `\x0a`, "\r", `\x0d`).Replace(s)
}

// Clip keeps the first n bytes of a line (whole runes), saying how many
// more there were.
func Clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%s… (%d more bytes)", s[:cut], len(s)-cut)
}

// unsafeRune: control characters but tab and newline (a terminal's escape
// sequences start with one), the bidirectional controls, and the line and
// paragraph separators, which break a line too.
func unsafeRune(r rune) bool {
	return r != '\t' && r != '\n' && (unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r) ||
		r == '\u2028' || r == '\u2029')
}

// FirstLine is the first line of s, without the space around it: a long
// message (a compiler's, an error's) in one line of a table or a status.
func FirstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(line)
}

// Markdown makes one line of text safe in Markdown prose or a table cell:
// spaces collapsed, control characters made visible, the characters
// Markdown would read as markup (emphasis, links, images, tables,
// headings) backslash-escaped, and <, > and & written as entities, so that
// no HTML is read. A bare URL may still be shown as a link by renderers
// that link them: put text a student chose in a CodeSpan.
func Markdown(s string) string {
	s = Printable(strings.Join(strings.Fields(s), " "))
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '&':
			b.WriteString("&amp;")
		case r == '<':
			b.WriteString("&lt;")
		case r == '>':
			b.WriteString("&gt;")
		case strings.ContainsRune("\\`*_[]|#!~", r):
			b.WriteByte('\\')
			b.WriteRune(r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// CodeSpan is s as one Markdown code span: shown as it is, never read as
// markup, HTML, a link or an image, whatever it holds. It is one line
// (Line), fenced with a run of backticks longer than any inside it.
func CodeSpan(s string) string {
	s = Line(s)
	fence := strings.Repeat("`", longestRun(s, '`')+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") || strings.HasPrefix(s, " ") && strings.HasSuffix(s, " ") {
		s = " " + s + " " // Markdown strips one space on each side
	}
	return fence + s + fence
}

// CodeBlock is s as a fenced Markdown code block with the info string info:
// every line shown as it is, with control characters made visible, and a
// fence of backticks longer than any run of them in s, so that no line of
// s can close it.
func CodeBlock(s, info string) string {
	s = strings.TrimRight(Printable(strings.ReplaceAll(s, "\r\n", "\n")), "\n")
	fence := strings.Repeat("`", max(3, longestRun(s, '`')+1))
	return fence + info + "\n" + s + "\n" + fence + "\n"
}

// longestRun is the length of the longest run of c in s.
func longestRun(s string, c byte) int {
	longest, run := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] != c {
			run = 0
			continue
		}
		run++
		longest = max(longest, run)
	}
	return longest
}
