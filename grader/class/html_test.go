package class

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coursekit/course/grader/late"
	"github.com/coursekit/course/grader/report"
)

// writePage writes the HTML page of reports and parses it strictly.
func writePage(t *testing.T, s *Summary, opts Options) (string, *node) {
	t.Helper()
	var b bytes.Buffer
	require.NoError(t, WriteHTML(&b, s, opts), "WriteHTML")
	return b.String(), parseDOM(t, bytes.NewReader(b.Bytes()), true)
}

// classSummary is the summary of the fixture class with lab 7, plus erin,
// who handed in 26 hours late.
func classSummary(t *testing.T) *Summary {
	t.Helper()
	reports, notGraded := class()
	erin := reportOf("erin", 1, pass71(), pass72())
	policy, err := late.Parse("10%/day")
	require.NoError(t, err)
	due := time.Date(2026, 3, 1, 23, 59, 0, 0, time.UTC)
	policy.Apply(erin, due, due.Add(26*time.Hour))
	s, err := Summarize(append(reports, erin), notGraded, fixtureLab(t))
	require.NoError(t, err)
	return s
}

func TestWriteHTML_PageStructure(t *testing.T) {
	raw, doc := writePage(t, classSummary(t), Options{})

	html := doc.Tag("html")
	require.Len(t, html, 1, "one <html> element")
	assert.Equal(t, "en", html[0].Attr["lang"], "<html lang>")
	titles := doc.Tag("title")
	require.NotEmpty(t, titles)
	assert.Equal(t, "Lab 7: class report", titles[0].Text(), "the page's <title>")
	assert.Equal(t, "Lab 7: class report", doc.Tag("h1")[0].Text())

	// Self-contained: no script, no external resource, a print stylesheet.
	assert.Empty(t, doc.Tag("script"), "the page must need no script")
	assert.Empty(t, doc.Tag("link"), "the page must load no stylesheet")
	assert.Empty(t, doc.Tag("img"), "the page must load no image")
	for _, n := range doc.All(func(*node) bool { return true }) {
		for a, v := range n.Attr {
			assert.False(t, strings.HasPrefix(a, "on"), "<%s %s=%q>: no event handlers", n.Name, a, v)
			assert.NotEqual(t, "src", a, "<%s src=%q>: nothing loaded from elsewhere", n.Name, v)
			if a == "href" {
				assert.False(t, strings.HasPrefix(v, "http:") || strings.HasPrefix(v, "https:") || strings.HasPrefix(v, "//"),
					"<%s href=%q>: with the default RulesURL every link is relative", n.Name, v)
			}
		}
	}
	styles := doc.Tag("style")
	require.Len(t, styles, 1, "one inline stylesheet")
	assert.Contains(t, styles[0].Text(), "@media print", "the stylesheet has a print part")

	// Ids are unique, and every in-page link has its target.
	ids := map[string]bool{}
	for _, n := range doc.All(func(n *node) bool { return n.Attr["id"] != "" }) {
		assert.False(t, ids[n.Attr["id"]], "id %q is used twice", n.Attr["id"])
		ids[n.Attr["id"]] = true
	}
	for _, a := range doc.Tag("a") {
		if target, ok := strings.CutPrefix(a.Attr["href"], "#"); ok {
			assert.True(t, ids[target], "<a href=%q>%s</a> links to no element of the page", a.Attr["href"], a.Text())
		}
	}

	// The histogram: 10 bars, their counts as text, the SVG labelled.
	hist := doc.ID("histogram")
	require.NotNil(t, hist, "an element with id histogram")
	assert.Equal(t, "svg", hist.Name)
	assert.Equal(t, "img", hist.Attr["role"])
	for _, id := range strings.Fields(hist.Attr["aria-labelledby"]) {
		require.NotNil(t, hist.ID(id), "the histogram's aria-labelledby names %q, which is not inside it", id)
	}
	assert.Contains(t, hist.Tag("title")[0].Text(), "Score histogram")
	assert.Contains(t, hist.Tag("desc")[0].Text(), "0–2: 1;", "the histogram's description holds every count (carol scored 0)")
	bars := hist.All(func(n *node) bool { return n.Name == "rect" && n.HasClass("bar") })
	require.Len(t, bars, Bins, "one bar per bin")
	var counts []string
	for _, n := range hist.All(func(n *node) bool { return n.HasClass("count") }) {
		counts = append(counts, n.Text())
	}
	// carol 0, bob 10, erin 16 (20 less 20%), alice 20.
	assert.Equal(t, []string{"1", "0", "0", "0", "0", "1", "0", "0", "1", "1"}, counts, "the counts written above the bars")

	// The pass-rate bars, with their values as text.
	pass := doc.ID("pass-rates")
	require.NotNil(t, pass)
	assert.Equal(t, "ul", pass.Name, "the pass rates are bars of HTML, whose labels wrap")
	var values []string
	for _, n := range pass.All(func(n *node) bool { return n.HasClass("value") }) {
		values = append(values, n.Text())
	}
	assert.Equal(t, []string{"50% (2/4)", "75% (3/4)"}, values, "the pass rates next to the bars")

	// The exercise table.
	exTable := doc.ID("exercise-table")
	require.NotNil(t, exTable)
	for _, th := range exTable.Tag("thead")[0].Tag("th") {
		assert.Equal(t, "col", th.Attr["scope"], "exercise table header %q", th.Text())
	}
	rows := exTable.Rows()
	require.Len(t, rows, 2)
	assert.Equal(t, []string{"7.1", "First", "10", "2 of 4", "50%", "5"}, texts(rows[0].Cells()), "the exercise table's row of 7.1")

	// The students, by name; failed exercises marked in words, not only colour.
	students := doc.ID("student-table")
	require.NotNil(t, students)
	var names []string
	for _, tr := range students.Rows() {
		th := tr.Cells()[0]
		assert.Equal(t, "row", th.Attr["scope"])
		names = append(names, th.Text())
	}
	assert.Equal(t, []string{"alice", "bob", "carol", "dave", "erin"}, names, "the student rows")
	bob := texts(students.Rows()[1].Cells())
	assert.Equal(t, []string{"bob", "10/20", "0 ✗ failed", "10", "", "7.1 some tests failed; first: TestLab7_1_B (did not end)"}, bob,
		"bob's row: name, score, 7.1, 7.2, late, why")
	assert.True(t, students.Rows()[1].Cells()[2].HasClass("fail"))
	dave := students.Rows()[3]
	assert.True(t, dave.HasClass("not-graded"))
	assert.Equal(t, "not graded: submissions/dave: holds no session.go", dave.Cells()[len(dave.Cells())-1].Text())
	erin := texts(students.Rows()[4].Cells())
	assert.Equal(t, "−20% (late by 26h0m0s; raw 20)", erin[4], "erin's late penalty")
	assert.Equal(t, "16/20", erin[1])

	// The failed tests, linked to their rules, and the rules to the table.
	tests := doc.ID("test-table")
	require.NotNil(t, tests)
	first := tests.Rows()[0]
	assert.Equal(t, []string{"TestLab7_1_B", "7.1", "2 of 4", "50%", "0", "rule 7.1.1, rule 7.1.2"}, texts(first.Cells()), "the most failed test's row")
	links := first.Tag("a")
	require.Len(t, links, 2)
	assert.Equal(t, "#rule-7.1.1", links[0].Attr["href"])
	assert.Equal(t, "The first rule of 7.1.", links[0].Attr["title"], "the rule's text as the link's title")
	hidden := tests.Rows()[2]
	assert.Equal(t, "TestLab7_2_HiddenD hidden", hidden.Cells()[0].Text(), "a hidden test is marked")

	rule := doc.ID("rule-7.1.2")
	require.NotNil(t, rule, "the rule table's row of 7.1.2")
	assert.Equal(t, "docs/lab7-rules.md#:~:text=7.1.2", rule.Tag("a")[0].Attr["href"], "a rule links to its row of the rule table")
	assert.Contains(t, rule.Text(), "Index the entries first (rule 7.1.2).", "the hint that names the rule")
	assert.Contains(t, doc.ID("ex-7.1").Text(), "Then walk up.", "a hint that names no rule is shown under its exercise")

	broken := doc.ID("broken-rules")
	require.NotNil(t, broken)
	var brokenIDs []string
	for _, tr := range broken.Rows() {
		brokenIDs = append(brokenIDs, tr.Cells()[0].Text())
	}
	assert.Equal(t, []string{"7.1.1", "7.1.2", "7.2.1"}, brokenIDs, "the rules most often broken, ties in the table's order")

	assert.Contains(t, raw, "<!DOCTYPE html>")
}

func texts(nodes []*node) []string {
	out := make([]string, len(nodes))
	for i, n := range nodes {
		out[i] = n.Text()
	}
	return out
}

func TestWriteHTML_EscapesWhatSubmissionsSay(t *testing.T) {
	evil := []string{
		"<script>alert(1)</script>",
		`"><img src=x onerror=alert(1)>`,
		"rtl\u202eexe.go",
	}
	var reports []*report.Report
	for _, name := range evil {
		r := reportOf(name, 1, fail71(report.StatusFail), pass72())
		r.Exercises[0].Tests[1].Name = "TestLab7_1_B</td><script>x()</script>"
		r.Exercises[0].Fail(report.Cause{Kind: report.TimedOut, Limit: int64(30 * time.Second)},
			report.Cause{Kind: report.Imitated, Detail: "<b>bold</b> & </table>"})
		reports = append(reports, r)
	}
	s, err := Summarize(reports, map[string]string{"<i>dave</i>": "<a href=javascript:alert(1)>why</a>"}, nil)
	require.NoError(t, err)
	raw, doc := writePage(t, s, Options{})

	assert.NotContains(t, raw, "<script>alert", "WriteHTML must escape a name, not run it")
	assert.NotContains(t, raw, "\u202e", "a bidi override from a name must not reach the page")
	assert.Empty(t, doc.Tag("script"), "no <script> element, whatever the names")
	assert.Empty(t, doc.Tag("img"), "no <img> element, whatever the names")
	assert.Empty(t, doc.Tag("b"), "no <b> element from a reason")
	assert.Empty(t, doc.Tag("i"), "no <i> element from a name")
	for _, a := range doc.Tag("a") {
		assert.NotContains(t, a.Attr["href"], "javascript", "a link from a reason")
	}

	var names []string
	for _, tr := range doc.ID("student-table").Rows() {
		names = append(names, tr.Cells()[0].Text())
	}
	assert.Equal(t, []string{`"><img src=x onerror=alert(1)>`, "<i>dave</i>", "<script>alert(1)</script>", `rtl\u202eexe.go`}, names,
		"the names appear as text, the bidi override as an escape")
	assert.Contains(t, doc.ID("not-graded").Text(), "<a href=javascript:alert(1)>why</a>", "the reason appears as text")
	assert.Contains(t, doc.ID("timed-out").Text(), "timed out: still running after 30s")
	assert.Contains(t, doc.ID("test-table").Text(), "TestLab7_1_B</td><script>x()</script>")
}

func TestWriteHTML_ATestWithoutARuleLinksItsExercise(t *testing.T) {
	reports, notGraded := class()
	reports[0].Exercises[1].Tests = append(reports[0].Exercises[1].Tests, report.TestReport{Name: "TestLab7_2_Mine", Status: report.StatusFail, Hidden: true})
	s, err := Summarize(reports, notGraded, fixtureLab(t))
	require.NoError(t, err)
	_, doc := writePage(t, s, Options{})
	for _, tr := range doc.ID("test-table").Rows() {
		if tr.Cells()[0].Text() != "TestLab7_2_Mine hidden" {
			continue
		}
		a := tr.Tag("a")
		require.Len(t, a, 1)
		assert.Equal(t, "#ex-7.2", a[0].Attr["href"], "an instructor's test, whose rule cannot be told, links to its exercise's rules")
		require.NotNil(t, doc.ID("ex-7.2"))
		return
	}
	t.Fatalf("WriteHTML: no row for TestLab7_2_Mine in the failed tests")
}

func TestWriteHTML_RulesURL(t *testing.T) {
	s := classSummary(t)
	_, doc := writePage(t, s, Options{RulesURL: "https://example.edu/course/blob/main/docs/lab{lab}-rules.md"})
	a := doc.ID("rule-7.2.1").Tag("a")[0]
	assert.Equal(t, "https://example.edu/course/blob/main/docs/lab7-rules.md#:~:text=7.2.1", a.Attr["href"],
		"WriteHTML(RulesURL with {lab}): a rule's link")

	_, doc = writePage(t, s, Options{RulesURL: "rules.html#table"})
	assert.Equal(t, "rules.html#table", doc.ID("rule-7.2.1").Tag("a")[0].Attr["href"],
		"WriteHTML(RulesURL with a fragment): the link is kept as it is")

	for _, bad := range []string{"javascript:alert(1)", "data:text/html,hi", "%zz"} {
		err := WriteHTML(&bytes.Buffer{}, s, Options{RulesURL: bad})
		assert.Error(t, err, "WriteHTML(RulesURL %q) should refuse it", bad)
	}
}

func TestWriteHTML_WithoutTheLab(t *testing.T) {
	reports, notGraded := class()
	s, err := Summarize(reports, notGraded, nil)
	require.NoError(t, err)
	_, doc := writePage(t, s, Options{Title: "Spring class"})
	assert.Equal(t, "Spring class", doc.Tag("title")[0].Text())
	assert.Nil(t, doc.ID("rules"), "without the lab there are no rules to show")
	a := doc.ID("test-table").Rows()[0].Tag("a")
	require.Len(t, a, 1)
	assert.Equal(t, "docs/lab7-rules.md", a[0].Attr["href"], "without the lab a failed test links to the rule table itself")
}

func TestWriteHTML_HintsInChinese(t *testing.T) {
	_, doc := writePage(t, classSummary(t), Options{Lang: "zh"})
	assert.Contains(t, doc.ID("rule-7.1.2").Text(), "先建索引（规则 7.1.2）。", "WriteHTML(Lang zh): the Chinese hint")
	assert.Contains(t, doc.ID("ex-7.1").Text(), "Then walk up.", "WriteHTML(Lang zh): a hint without Chinese text in English")
}

func TestWriteHTML_NothingGraded(t *testing.T) {
	s, err := Summarize(nil, map[string]string{"a": "no session.go"}, nil)
	require.NoError(t, err)
	_, doc := writePage(t, s, Options{})
	assert.Nil(t, doc.ID("histogram"), "no histogram of no score")
	assert.Contains(t, doc.ID("scores").Text(), "No submission was graded.")
	assert.Len(t, doc.ID("student-table").Rows(), 1)
}

func TestWriteHTML_IsDeterministic(t *testing.T) {
	s := classSummary(t)
	var first bytes.Buffer
	require.NoError(t, WriteHTML(&first, s, Options{}))
	for range 5 {
		var again bytes.Buffer
		require.NoError(t, WriteHTML(&again, s, Options{}))
		require.Equal(t, first.String(), again.String(), "WriteHTML wrote another page for the same summary")
	}
}

func TestWriteHTML_RefusesNoSummary(t *testing.T) {
	assert.Error(t, WriteHTML(&bytes.Buffer{}, nil, Options{}), "WriteHTML(nil summary)")
}
