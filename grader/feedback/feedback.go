// Package feedback writes what a student is handed back of a grade, one
// Markdown file per submission for an LMS: the score, each exercise
// (passed or not, its points), the public tests that failed with their
// messages, the rule of the lab each of them checks, and the first rung of
// the exercise's hints. Of the hidden tests it says only how many passed,
// as Gradescope shows students before the grades are published: never a
// name, an output or a detail of a hidden run (see docs/grading.md, hidden
// tests). Text that a student's code chose (test messages, reasons that
// quote the file, the submission's name) is shown in code spans and fenced
// blocks, never as Markdown or HTML.
package feedback

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"

	"github.com/coursekit/course/grader/format"
	"github.com/coursekit/course/grader/lab"
	"github.com/coursekit/course/grader/report"
	"github.com/coursekit/course/grader/safetext"
	"github.com/coursekit/course/grader/submission"
)

// MaxMessages is how many failing tests of one exercise are shown with
// their messages; the others are named, with their rules.
const MaxMessages = 5

// Guide is what the lab's catalog says about its tests, for a student: the
// rules each public test checks, the rules' text, and each exercise's first
// hint. Hidden tests are not in it.
type Guide struct {
	lab       *lab.Lab
	rules     map[string]string   // rule id -> what must be true
	testRules map[string][]string // public test -> the rules its doc comment names
	firstHint map[string]lab.Hint // exercise id -> the first rung of its ladder
}

// NewGuide reads the rules, the public tests' rules and the hints of l. A
// lab without a rules file has no rules to name; a malformed one is an
// error.
func NewGuide(l *lab.Lab) (*Guide, error) {
	g := &Guide{lab: l, rules: map[string]string{}, testRules: map[string][]string{}, firstHint: map[string]lab.Hint{}}
	rules, err := l.Rules()
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	for _, r := range rules {
		g.rules[r.ID] = r.Text
	}
	tests, err := l.RuleTests()
	if err != nil {
		return nil, err
	}
	for _, t := range tests {
		if !t.Hidden {
			g.testRules[t.Test] = t.Rules
		}
	}
	for _, e := range l.Exercises {
		hints, err := l.Hints(e.ID)
		if err != nil {
			return nil, err
		}
		if len(hints) > 0 {
			g.firstHint[e.ID] = hints[0]
		}
	}
	return g, nil
}

// Write writes the feedback on r, a report of the guide's lab, as Markdown.
func (g *Guide) Write(w io.Writer, r *report.Report) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# Lab %s feedback: %s\n\n", safetext.Markdown(r.Lab), safetext.CodeSpan(r.Submission))
	fmt.Fprintf(&b, "**Score: %s of %d.**\n\n", report.FormatPoints(r.Score), r.MaxScore)
	if d := r.Late.Describe(); d != "" {
		fmt.Fprintf(&b, "Handed in %s.\n\n", safetext.Markdown(d))
	}
	if !r.Build.OK {
		what := "did not build"
		if r.Build.Rejected {
			what = "was rejected before building: it breaks a rule of what a lab file may do"
		}
		fmt.Fprintf(&b, "Your file %s, so no test ran:\n\n%s\n", what, safetext.CodeBlock(clipLines(r.Build.Output, 30), "text"))
	}
	b.WriteString("| Exercise | Result | Points | Public tests passed | Hidden tests passed |\n")
	b.WriteString("| --- | --- | --- | --- | --- |\n")
	for _, ex := range r.Exercises {
		verdict := "pass"
		if !ex.Passed {
			verdict = "**fail**"
		}
		hidden, hiddenPassed := ex.HiddenCount()
		hiddenCell := "none"
		if hidden > 0 {
			hiddenCell = fmt.Sprintf("%d of %d", hiddenPassed, hidden)
		}
		public := len(ex.Tests) - hidden
		fmt.Fprintf(&b, "| %s %s | %s | %s of %d | %d of %d | %s |\n", safetext.Markdown(ex.ID), safetext.Markdown(ex.Name), verdict,
			report.FormatPoints(ex.Points), ex.MaxPoints, ex.TestsPassed()-hiddenPassed, public, hiddenCell)
	}
	if r.Build.OK {
		for _, ex := range r.Exercises {
			if !ex.Passed {
				g.writeExercise(&b, ex)
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeExercise writes the section of a failed exercise: why, each failing
// public test with its rules (the first MaxMessages with their messages),
// the hidden tests' count, and the first hint.
func (g *Guide) writeExercise(b *strings.Builder, ex report.ExerciseReport) {
	fmt.Fprintf(b, "\n## %s %s: failed, %s of %d points\n\n", safetext.Markdown(ex.ID), safetext.Markdown(ex.Name),
		report.FormatPoints(ex.Points), ex.MaxPoints)
	if ex.Reason != "" && !ex.OnlyCounts() {
		// Reason is what may be shown at once; it can quote the file.
		fmt.Fprintf(b, "Why: %s\n\n", safetext.CodeSpan(ex.Reason))
	}
	shown := 0
	for _, t := range ex.Tests {
		if t.Hidden || t.Status == report.StatusPass || t.Status == report.StatusNotRun {
			continue
		}
		fmt.Fprintf(b, "### %s: %s\n\n", safetext.CodeSpan(t.Name), safetext.Markdown(t.Status))
		g.writeRules(b, t.Name)
		if shown < MaxMessages {
			b.WriteString(safetext.CodeBlock(format.FailureExcerpt(t.Output), "text") + "\n")
		}
		shown++
	}
	if shown > MaxMessages {
		fmt.Fprintf(b, "The messages of the first %d failing tests are shown; run the others in your workspace (`go test -v -run NAME`).\n\n", MaxMessages)
	}
	if notRun := countPublic(ex.Tests, report.StatusNotRun); notRun > 0 {
		fmt.Fprintf(b, "%d public tests did not run.\n\n", notRun)
	}
	if hidden, passed := ex.HiddenCount(); hidden > 0 {
		fmt.Fprintf(b, "Hidden tests: %d of %d passed.\n\n", passed, hidden)
	}
	if h, ok := g.firstHint[ex.ID]; ok {
		name := "First hint"
		if h.Rung.Key != "" {
			name += " (" + h.Rung.EN + ")"
		}
		// The hints are the course's own Markdown, as course hint shows them.
		fmt.Fprintf(b, "%s: %s\n\nThe next rungs: `course hint %s` in your workspace.\n", name, strings.TrimSpace(h.EN), ex.ID)
	}
}

// writeRules names the rules a public test checks, with their text.
func (g *Guide) writeRules(b *strings.Builder, test string) {
	ids := g.testRules[test]
	if len(ids) == 0 {
		return
	}
	word := "Rule"
	if len(ids) > 1 {
		word = "Rules"
	}
	fmt.Fprintf(b, "%s it checks:\n\n", word)
	for _, id := range ids {
		text, ok := g.rules[id]
		if !ok {
			fmt.Fprintf(b, "- %s\n", safetext.Markdown(id))
			continue
		}
		fmt.Fprintf(b, "- %s: %s\n", safetext.Markdown(id), safetext.Markdown(text))
	}
	b.WriteString("\n")
}

// WriteNotGraded writes the feedback of a submission named name that could
// not be graded, for err: the reason, and what to hand in.
func (g *Guide) WriteNotGraded(w io.Writer, name string, err error) error {
	reason := safetext.FirstLine(err.Error())
	var se *submission.Error
	if errors.As(err, &se) {
		reason = se.Reason // not the instructor's path to it
	}
	what := "your " + strings.Join(g.lab.Editable, " and ") + ", or a .zip or .tar.gz archive holding it"
	if len(g.lab.Editable) == 1 {
		what = "your " + g.lab.Editable[0] + " (alone, under any name ending in .go), or a .zip or .tar.gz archive holding it"
	}
	_, werr := fmt.Fprintf(w, "# Lab %s feedback: %s\n\n**Not graded.** Your submission could not be graded: %s\n\nHand in %s.\n",
		safetext.Markdown(g.lab.Chapter), safetext.CodeSpan(name), safetext.CodeSpan(reason), safetext.Markdown(what))
	return werr
}

// countPublic counts the public tests of a status.
func countPublic(tests []report.TestReport, status string) int {
	n := 0
	for _, t := range tests {
		if !t.Hidden && t.Status == status {
			n++
		}
	}
	return n
}

// clipLines keeps the first n lines of s, saying how many more there were.
func clipLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) <= n {
		return strings.Join(lines, "\n")
	}
	return strings.Join(lines[:n], "\n") + fmt.Sprintf("\n… (%d more lines)", len(lines)-n)
}
