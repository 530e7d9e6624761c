package class

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coursekit/course/grader/report"
)

// bigSummary is the summary of the big class with lab 7.
func bigSummary(t *testing.T) *Summary {
	t.Helper()
	reports, notGraded := bigClass()
	s, err := Summarize(reports, notGraded, fixtureLab(t))
	require.NoError(t, err, "Summarize(the big class)")
	return s
}

// studentWhy is the Why cell of each row of the students' table, by name.
func studentWhy(t *testing.T, doc *node) map[string]string {
	t.Helper()
	table := doc.ID("student-table")
	require.NotNil(t, table, "the page has no #student-table")
	out := map[string]string{}
	for _, tr := range table.Rows() {
		cells := tr.Cells()
		var lines []string
		for _, div := range cells[len(cells)-1].Tag("div") {
			lines = append(lines, div.Text())
		}
		out[cells[0].Text()] = strings.Join(lines, " | ")
	}
	return out
}

// pairs is each child of a <dl>'s divs as "term value".
func pairs(dl *node) []string {
	var out []string
	for _, div := range dl.Tag("div") {
		out = append(out, div.Tag("dt")[0].Text()+" "+div.Tag("dd")[0].Text())
	}
	return out
}

func TestWriteHTML_SaysWhyEachStudentLostPoints(t *testing.T) {
	s := bigSummary(t)
	_, doc := writePage(t, s, Options{})
	why := studentWhy(t, doc)
	require.Len(t, why, bigClassSize, "a row per student")
	for _, st := range s.Students {
		w := why[visible(st.Name)]
		assert.NotEmpty(t, w, "%s's row says nothing of why it scored %v", st.Name, st.Score)
		if st.Graded && st.Score == 0 {
			assert.Regexp(t, `^(rejected before building: |build failed: )\S`, w, "%s scored 0: its row must say why", st.Name)
		}
	}
	for name, want := range map[string]string{
		`"><img src=x onerror=alert(1)>`:                                  `rejected before building: demo.go:3:2: import "os" is not allowed (student 4)`,
		"a-very-long-submission-name-of-a-student-in-section-b-fall-2026": "build failed: ./demo.go:12:5: undefined: walk (student 5)",
		`rtl\u202eexe.go`: "7.1 timed out: still running after 30s; first: TestLab7_1_B (did not end)",
		"student-09":      "7.1 1 of 2 tests failed; first: TestLab7_1_B (fail)",
		"student-10":      "7.2 1 of 2 tests failed; first: TestLab7_2_HiddenD (fail)",
		"student-14":      "every exercise passed | late penalty −30% (late by 50h0m0s; raw 20)",
		"student-16":      "every exercise passed",
		"student-39":      "not graded: submissions/student-39.zip: holds no demo.go",
	} {
		assert.Equal(t, want, why[name], "the Why cell of %s", name)
	}

	// The page and the CSV say the same of a file that did not build: one
	// function makes both.
	reports, _ := bigClass()
	for _, r := range reports {
		if r.Build.OK {
			continue
		}
		row := CSVRow(r, ids7)
		assert.Equal(t, row[len(row)-1], why[visible(r.Submission)], "the CSV's note and the page's Why of %s", r.Submission)
	}
}

func TestWriteHTML_ALateSubmissionWithinTheGracePeriodIsNotOnTime(t *testing.T) {
	_, doc := writePage(t, bigSummary(t), Options{})
	for _, tr := range doc.ID("student-table").Rows() {
		if tr.Cells()[0].Text() != "student-07" {
			continue
		}
		assert.Equal(t, "none (late by 10m0s, within the grace period)", tr.Cells()[4].Text(),
			"student-07 came 10 minutes late under a grace of 15: its late cell")
		return
	}
	t.Fatal("no row for student-07")
}

func TestWriteHTML_DetailsOfEachStudent(t *testing.T) {
	s := bigSummary(t)
	raw, doc := writePage(t, s, Options{})
	details := doc.ID("details")
	require.NotNil(t, details, "the page has no #details section")
	sections := details.All(func(n *node) bool { return n.Name == "section" && n.HasClass("student") })
	require.Len(t, sections, bigClassSize, "a section of details per student")
	for i, sec := range sections {
		name := visible(s.Students[i].Name)
		folded := sec.Tag("details")
		require.Len(t, folded, 1, "%s's details: one <details>, folded on screen", name)
		_, open := folded[0].Attr["open"]
		assert.False(t, open, "%s's details are open on screen", name)
		summary := folded[0].Tag("summary")
		require.Len(t, summary, 1)
		assert.Contains(t, summary[0].Text(), name, "%s's summary names the student", name)
		copies := sec.All(func(n *node) bool { return n.HasClass("print-copy") })
		require.Len(t, copies, 1, "%s's details: a copy for print", name)
		inside := strings.TrimPrefix(folded[0].Text(), summary[0].Text())
		assert.Equal(t, strings.TrimSpace(inside), strings.TrimPrefix(copies[0].Text(), copies[0].Tag("h3")[0].Text()+" "),
			"%s: the print copy holds what the folded details hold", name)
		link := doc.All(func(n *node) bool { return n.Name == "a" && n.Attr["href"] == "#"+sec.Attr["id"] })
		assert.NotEmpty(t, link, "%s's row of the students' table links its details", name)
	}

	byName := map[string]*node{}
	for i, sec := range sections {
		byName[s.Students[i].Name] = sec.Tag("details")[0]
	}
	msg := byName["student-09"].Text()
	rows := byName["student-09"].Tag("tbody")[0].Tag("tr")
	assert.Equal(t, []string{"7.1", "First", "0/10", "1/2", "1 of 2 tests failed"}, texts(rows[0].Cells()),
		"student-09's 7.1: points, tests passed and the cause")
	assert.Equal(t, []string{"7.2", "Second", "10/10", "2/2", "passed"}, texts(rows[1].Cells()))
	assert.Contains(t, msg, "7.1, first failing test: TestLab7_1_B (fail)")
	assert.Contains(t, msg, "PathTo(b) of student 9 walks the wrong way", "the first failing test's message")
	assert.NotContains(t, msg, "=== RUN", "the test runner's framing is left out of the message")
	built := byName["a-very-long-submission-name-of-a-student-in-section-b-fall-2026"].Text()
	assert.Contains(t, built, "./demo.go:20:1: missing return", "the compiler's whole output, not only its first line")
	rejected := byName[`"><img src=x onerror=alert(1)>`].Text()
	assert.Contains(t, rejected, "What is allowed: the file may import only the packages the stub imports", "the check's hint")
	assert.Contains(t, byName["student-39"].Text(), "Not graded: submissions/student-39.zip: holds no demo.go")

	// Print opens every student: the folded details are hidden and their
	// copy shown (the browser test prints it for real).
	print := raw[strings.Index(raw, "@media print"):]
	assert.Contains(t, print, "details { display: none; }")
	assert.Contains(t, print, ".print-copy { display: block; }")
	assert.Contains(t, raw, ".print-copy { display: none; }", "on screen the copy is hidden")
}

func TestWriteHTML_StudentsComeRightAfterTheOverview(t *testing.T) {
	_, doc := writePage(t, bigSummary(t), Options{})
	var order []string
	for _, sec := range doc.Tag("main")[0].Children {
		order = append(order, sec.Attr["id"])
	}
	assert.Equal(t, []string{"overview", "students", "scores", "exercises", "tests", "time", "rules", "details"}, order,
		"the sections of the page, in order: the students' table right after the overview, the failed tests later")
}

func TestWriteHTML_RunHeader(t *testing.T) {
	_, doc := writePage(t, bigSummary(t), Options{})
	run := doc.ID("run")
	require.NotNil(t, run, "the page has no #run header")
	assert.Equal(t, "header", run.Parent.Name, "the run's facts are in the page's header")
	var terms, values []string
	for _, dt := range run.Tag("dt") {
		terms = append(terms, dt.Text())
	}
	for _, dd := range run.Tag("dd") {
		values = append(values, dd.Text())
	}
	assert.Equal(t, []string{"Graded", "Course version", "Lab", "Sandbox", "Race detector", "Flags", "Late policy", "Due date"}, terms)
	assert.Equal(t, []string{
		"2026-12-02 09:30 – 09:40 UTC",
		"v1.4.0",
		"7: A demo lab (exercises 7.1, 7.2)",
		"full (mount, pid, net, ipc, uts, user namespaces; cgroup-v2)",
		"on",
		"--sandbox strict --timeout 30s --budget 2m0s --memory 1.0GiB",
		"10%/day, grace 15m",
		"2026-12-01T23:59:00Z",
	}, values, "the run header, in text (a printout keeps it)")
	assert.Empty(t, run.All(func(n *node) bool { return n.Attr["title"] != "" }), "nothing of the header only in a tooltip")
}

func TestWriteHTML_RunHeaderOfReportsThatDisagree(t *testing.T) {
	reports, notGraded := class()
	reports[1].Settings = bigClassReport("x", 0).Settings
	reports[2].Settings = bigClassReport("y", 3).Settings
	reports[2].Settings.Version = "v1.5.0"
	s, err := Summarize(reports, notGraded, fixtureLab(t))
	require.NoError(t, err)
	_, doc := writePage(t, s, Options{})
	values := map[string]string{}
	for _, div := range doc.ID("run").Children {
		values[div.Tag("dt")[0].Text()] = div.Tag("dd")[0].Text()
	}
	assert.Equal(t, "v1.4.0 (1 of 3); v1.5.0 (1 of 3); not recorded in 1 of 3 reports (saved before settings were recorded)", values["Course version"],
		"reports of two versions and one saved before versions were recorded")
	assert.Equal(t, "2026-12-02 09:30 UTC; not recorded in 1 of 3 reports", values["Graded"])
	assert.Equal(t, "none", values["Late policy"])
	assert.Equal(t, "none given", values["Due date"])
}

func TestWriteHTML_AfterARegradeSaysWhatItCovers(t *testing.T) {
	s := bigSummary(t)
	s.Whole = &Whole{File: "grades.csv", Rows: 300, Scored: 298, FullMarks: 120, Regraded: 41, MaxScore: 20,
		Score: Stats{N: 298, Mean: 15.5, Median: 20, Min: 0, Max: 20}}
	_, doc := writePage(t, s, Options{})
	whole := doc.ID("whole")
	require.NotNil(t, whole, "after a regrade the overview has the whole table's figures")
	assert.Equal(t, []string{"Rows 300", "With a score 298", "Mean 15.5", "Median 20", "Lowest 0", "Highest 20", "Full marks 120", "Out of 20"}, pairs(whole))
	assert.Contains(t, doc.ID("whole-note").Text(), "everything after them is about the 41 regraded in this run only")
	assert.Contains(t, pairs(doc.ID("run")), "Covers the 41 submissions regraded in this run, of the 300 rows of grades.csv (see the overview)")
}

func TestWriteHTML_DetailsEscapeWhatSubmissionsPrint(t *testing.T) {
	reports, notGraded := bigClass()
	reports[1].Exercises[1].Tests[1].Output = "=== RUN   TestLab7_2_C\n    x_test.go:1: </pre><script>alert(2)</script>\x1b[2J\n"
	reports[1].Exercises[1].Tests[1].Status = report.StatusFail
	reports[1].Exercises[1].Fail(report.CountCause(reports[1].Exercises[1].Tests))
	reports[5].Build.Output = "./demo.go:1: <b>bold</b> & </table>\u202e\n"
	s, err := Summarize(reports, notGraded, nil)
	require.NoError(t, err)
	raw, doc := writePage(t, s, Options{})
	assert.Empty(t, doc.Tag("script"), "a test's output must not become a <script>")
	assert.Empty(t, doc.Tag("b"), "a compiler's output must not become markup")
	assert.NotContains(t, raw, "\x1b", "control characters are shown as escapes")
	assert.NotContains(t, raw, "\u202e", "bidi overrides are shown as escapes")
	assert.Contains(t, doc.ID("details").Text(), `</pre><script>alert(2)</script>\x1b[2J`, "the output is shown as text")
	assert.Contains(t, doc.ID("details").Text(), `./demo.go:1: <b>bold</b> & </table>\u202e`)
}
