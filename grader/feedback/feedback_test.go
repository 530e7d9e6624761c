package feedback_test

import (
	"bytes"
	"errors"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/renderer/html"

	"github.com/coursekit/course/grader/feedback"
	"github.com/coursekit/course/grader/lab"
	"github.com/coursekit/course/grader/report"
	"github.com/coursekit/course/grader/submission"
)

func guide10(t *testing.T) (*feedback.Guide, *lab.Lab) {
	t.Helper()
	c, err := lab.Load()
	require.NoError(t, err)
	l, err := c.Lookup("10")
	require.NoError(t, err)
	g, err := feedback.NewGuide(l)
	require.NoError(t, err)
	return g, l
}

// render turns Markdown into HTML as GitHub does (CommonMark, tables, bare
// URLs made links), letting raw HTML through as an LMS might: whatever a
// student chose must still come out as text.
func render(t *testing.T, md string) string {
	t.Helper()
	var b bytes.Buffer
	gm := goldmark.New(goldmark.WithExtensions(extension.GFM), goldmark.WithRendererOptions(html.WithUnsafe()))
	require.NoError(t, gm.Convert([]byte(md), &b))
	return b.String()
}

// attack is what a student's code can print in a test message, or name a
// file: HTML, a link, an image, a bare URL, an autolink, a fence that would
// close the block, an escape sequence and a bidi override.
const attack = "<script>alert(1)</script> [click](https://evil.example) ![x](https://evil.example/p.png) " +
	"https://evil.example www.evil.example <https://evil.example> evil@evil.example\n" +
	"```\n</pre><img src=x onerror=alert(1)>\n````\n\x1b[2Jpass \u202eexe.go"

func failing(name, output string, hidden bool) report.TestReport {
	return report.TestReport{Name: name, Status: report.StatusFail, Hidden: hidden, Output: output}
}

func TestWriteShowsStudentTextOnlyAsText(t *testing.T) {
	g, _ := guide10(t)
	r := &report.Report{Submission: "mallory " + attack, Lab: "10", Build: report.Build{OK: true}, MaxScore: 15,
		Exercises: []report.ExerciseReport{{ID: "10.1", Name: "PathTo", MaxPoints: 15, Scoring: "all",
			Tests: []report.TestReport{failing("TestLab10_1_CycleNamesClosingID", "    pathto_test.go:9: "+attack+"\n", false)}}}}
	r.Exercises[0].Fail(report.Cause{Kind: report.Imitated, Detail: attack})
	var b bytes.Buffer
	require.NoError(t, g.Write(&b, r))
	for _, raw := range []string{"\x1b", "\u202e"} {
		assert.NotContains(t, b.String(), raw, "control and bidi characters are escaped")
	}
	page := render(t, b.String())
	for _, bad := range []string{"<script", "<img", "<a ", "href="} {
		assert.NotContains(t, page, bad, "Write(a report quoting %q) rendered as HTML:\n%s", attack, page)
	}
	assert.Contains(t, page, "&lt;script&gt;alert(1)&lt;/script&gt;", "the message is shown, as text")
	assert.Contains(t, page, "[click](https://evil.example)")
}

func TestWriteSaysNothingOfHiddenTestsButCounts(t *testing.T) {
	g, _ := guide10(t)
	ex := report.ExerciseReport{ID: "10.1", Name: "PathTo", MaxPoints: 15, Scoring: "all", Output: "printed in a hidden run: SECRET-OUTSIDE",
		Tests: []report.TestReport{
			{Name: "TestLab10_1_ReturnsBranchRootFirst", Status: report.StatusPass},
			{Name: "TestLab10_1_HiddenMadeUpForThisTest", Status: report.StatusPass, Hidden: true},
			failing("TestLab10_1_HiddenSecretName", "hidden_test.go:3: SECRET-INPUT", true),
		}}
	ex.Fail(report.Cause{Kind: report.Race, Hidden: true, Detail: "read at hidden_test.go:7 SECRET-RACE"})
	r := &report.Report{Submission: "alice", Lab: "10", Build: report.Build{OK: true}, MaxScore: 15, Exercises: []report.ExerciseReport{ex}}
	var b bytes.Buffer
	require.NoError(t, g.Write(&b, r))
	md := b.String()
	for _, secret := range []string{"TestLab10_1_Hidden", "SECRET", "hidden_test.go"} {
		assert.NotContains(t, md, secret, "feedback names a hidden test or shows its detail:\n%s", md)
	}
	assert.Contains(t, md, "| 10.1 PathTo | **fail** | 0 of 15 | 1 of 1 | 1 of 2 |")
	assert.Contains(t, md, "Hidden tests: 1 of 2 passed.")
	assert.Contains(t, md, "Why: `hidden tests: data race (the race detector found one)`", "the public kind of a hidden run's failure")
}

func TestWriteNamesTheRuleAndTheFirstHintOfAFailingTest(t *testing.T) {
	g, l := guide10(t)
	tests, err := l.RuleTests()
	require.NoError(t, err)
	var test string
	var ruleIDs []string
	for _, rt := range tests {
		if !rt.Hidden && strings.HasPrefix(rt.Test, "TestLab10_1_") && len(rt.Rules) > 0 {
			test, ruleIDs = rt.Test, rt.Rules
			break
		}
	}
	require.NotEmpty(t, test, "lab 10 has a public test of 10.1 that names its rules")
	rules, err := l.Rules()
	require.NoError(t, err)
	hints, err := l.Hints("10.1")
	require.NoError(t, err)
	require.NotEmpty(t, hints)

	ex := report.ExerciseReport{ID: "10.1", Name: "PathTo", MaxPoints: 15, Scoring: "all", Tests: []report.TestReport{failing(test, "want x", false)}}
	ex.Fail(report.CountCause(ex.Tests))
	var b bytes.Buffer
	require.NoError(t, g.Write(&b, &report.Report{Submission: "bob", Lab: "10", Build: report.Build{OK: true}, MaxScore: 15, Exercises: []report.ExerciseReport{ex}}))
	md := b.String()
	for _, r := range rules {
		for _, id := range ruleIDs {
			if r.ID == id {
				assert.Contains(t, md, "- "+id+": ", "the rule %s of %s", id, test)
			}
		}
	}
	assert.Contains(t, md, "First hint (locate): "+strings.TrimSpace(hints[0].EN))
	assert.Contains(t, md, "`course hint 10.1`")
	assert.Contains(t, md, "```text\nwant x\n```")
}

func TestWriteShowsAtMostMaxMessages(t *testing.T) {
	g, _ := guide10(t)
	ex := report.ExerciseReport{ID: "10.1", Name: "PathTo", MaxPoints: 15, Scoring: "all"}
	for i := range feedback.MaxMessages + 2 {
		ex.Tests = append(ex.Tests, failing("TestLab10_1_T"+string(rune('A'+i)), "message of "+string(rune('A'+i)), false))
	}
	ex.Fail(report.CountCause(ex.Tests))
	var b bytes.Buffer
	require.NoError(t, g.Write(&b, &report.Report{Submission: "bob", Lab: "10", Build: report.Build{OK: true}, Exercises: []report.ExerciseReport{ex}}))
	assert.Equal(t, feedback.MaxMessages+2, strings.Count(b.String(), "### "), "every failing test is named")
	assert.Equal(t, feedback.MaxMessages, strings.Count(b.String(), "message of "), "the first MaxMessages with their messages")
}

func TestWriteOfAFileThatDidNotBuild(t *testing.T) {
	g, _ := guide10(t)
	ex := report.ExerciseReport{ID: "10.1", Name: "PathTo", MaxPoints: 15, Scoring: "all", Tests: []report.TestReport{{Name: "TestLab10_1_A", Status: report.StatusNotRun}}}
	ex.Fail(report.Cause{Kind: report.Rejected, Detail: `session.go:9: import "os" is not allowed`})
	r := &report.Report{Submission: "dave", Lab: "10", Build: report.Build{Rejected: true, Output: "session.go:9: import \"os\" is not allowed\n"},
		MaxScore: 15, Exercises: []report.ExerciseReport{ex}}
	var b bytes.Buffer
	require.NoError(t, g.Write(&b, r))
	assert.Contains(t, b.String(), "Your file was rejected before building")
	assert.Contains(t, b.String(), "```text\nsession.go:9: import \"os\" is not allowed\n```")
	assert.NotContains(t, b.String(), "## 10.1", "no section per exercise: the build says it all")
}

func TestWriteNotGradedGivesTheReasonWithoutThePath(t *testing.T) {
	g, _ := guide10(t)
	var b bytes.Buffer
	err := &submission.Error{Path: "/srv/grading/fall/subs/heidi", Reason: "holds no session.go", Kind: submission.Missing}
	require.NoError(t, g.WriteNotGraded(&b, "heidi", err))
	assert.Contains(t, b.String(), "could not be graded: `holds no session.go`")
	assert.NotContains(t, b.String(), "/srv/grading")
	b.Reset()
	require.NoError(t, g.WriteNotGraded(&b, "ivan", errors.New("cannot tell when it was handed in\nsecond line")))
	assert.Contains(t, b.String(), "`cannot tell when it was handed in`")
}

func TestFileNamesAreSafeAndDistinct(t *testing.T) {
	in := []string{"alice", "subs/a/alice", "subs_a_alice", "Alice", "../../etc/passwd", ".hidden", "-rf", "con", "Zoë",
		"Zoe\u0308", "tab\tnew\nline\x1b[2J", "", strings.Repeat("é", 100), "nul.txt"}
	got := feedback.FileNames(in)
	require.Len(t, got, len(in))
	safe := regexp.MustCompile(`^[\p{L}\p{N}\p{M}_+@][\p{L}\p{N}\p{M}_.+@-]*\.md$`)
	seen := map[string]string{}
	for i, f := range got {
		assert.Regexp(t, safe, f, "FileNames(%q)", in[i])
		assert.LessOrEqual(t, len(f), 80+8+1+len(feedback.Ext), "FileNames(%q) = %q: too long", in[i], f)
		key := strings.ToLower(f)
		if other, ok := seen[key]; ok {
			t.Errorf("FileNames gives %q and %q the same file %q (to a file system that ignores case)", other, in[i], f)
		}
		seen[key] = in[i]
	}
	assert.Equal(t, "passwd.md", got[4][len(got[4])-len("passwd.md"):], "a path's separators become _: %q", got[4])
	assert.NotEqual(t, "con.md", got[7], "a device name on Windows")
	assert.Equal(t, "submission.md", got[11])

	again := feedback.FileNames([]string{"Alice", "alice"})
	assert.Equal(t, []string{got[3], got[0]}, again, "a name's file does not depend on the others' order")
	assert.Equal(t, []string{"bob.md"}, feedback.FileNames([]string{"bob"}), "a name that is safe stays as it is")
	assert.Equal(t, "alice-2bd806c9.md", again[1], "the example of docs/instructors.md")
}

// TestFileNamesKeepEachOwnName: students called "alice" and "Alice" get
// names with a suffix from a hash of their names; a student whose own name
// is that suffixed name keeps it, whatever the order, and the suffixed one
// is numbered instead: no student's feedback lands in another's file.
func TestFileNamesKeepEachOwnName(t *testing.T) {
	hashed := feedback.FileNames([]string{"alice", "Alice"})
	own := strings.TrimSuffix(hashed[0], feedback.Ext) // "alice-" and a hash
	require.NotEqual(t, "alice", own)
	for _, subs := range [][]string{{"alice", "Alice", own}, {own, "Alice", "alice"}} {
		got := feedback.FileNames(subs)
		byName := map[string]string{}
		for i, n := range subs {
			byName[n] = got[i]
		}
		assert.Equal(t, own+feedback.Ext, byName[own], "feedback.FileNames(%q): %q keeps its own name", subs, own)
		assert.NotEqual(t, own+feedback.Ext, byName["alice"], "feedback.FileNames(%q): alice does not take %s", subs, own+feedback.Ext)
		assert.Len(t, map[string]bool{got[0]: true, got[1]: true, got[2]: true}, 3, "feedback.FileNames(%q) = %q: distinct", subs, got)
	}
}
