package cli_test

import (
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/text/unicode/norm"
)

func TestGradeClassText(t *testing.T) {
	slow(t)
	src := labSources(t)
	dir := t.TempDir()
	alice := workspace(t, dir, "alice", src.solution)
	eve := loneFile(t, dir, "eve", src.rejected)
	missing := filepath.Join(dir, "zed")
	table := filepath.Join(t.TempDir(), "grades.csv")

	r := run(t, nil, "grade", "--csv", table, missing, eve, alice)
	assert.Equal(t, 2, r.code, "a submission could not be graded")
	assert.Equal(t, []string{
		"SUBMISSION  10.1  10.2  10.3  10.4  10.5  10.6  SCORE    NOTE",
		"alice       pass  pass  pass  pass  pass  pass  100/100",
		"eve         FAIL  FAIL  FAIL  FAIL  FAIL  FAIL  0/100    rejected before building",
		"zed         -     -     -     -     -     -     -        not graded: " + missing + ": cannot read: no such file or directory",
		"",
		"2 graded, 1 not graded: mean 50, median 50 of 100 (lowest 0, highest 100)",
		"passed: 10.1 50% (1/2), 10.2 50% (1/2), 10.3 50% (1/2), 10.4 50% (1/2), 10.5 50% (1/2), 10.6 50% (1/2)",
	}, strings.Split(r.stdout, "\n")[:7], "the table, then the class summed up")
	assert.Regexp(t, `\ngraded 2 submissions in \d+\.\ds, 1 could not be graded\n$`, r.stdout)

	// Off a terminal: one line per submission as it finishes, then the reason for status 2.
	assert.Regexp(t, `^not graded zed: .*no such file or directory \(1 of 3\)\n`, r.stderr)
	assert.Contains(t, r.stderr, "graded alice 100/100 (")
	assert.Contains(t, r.stderr, "graded eve 0/100 (")
	assert.True(t, strings.HasSuffix(r.stderr, "(3 of 3)\ncourse grade: 1 of 3 submissions could not be graded\n"), r.stderr)

	rows := readCSV(t, table)
	require.Len(t, rows, 4)
	assert.Equal(t, []string{"submission", "10.1", "10.2", "10.3", "10.4", "10.5", "10.6", "score", "max_score", "raw_score", "late_penalty", "note"}, rows[0])
	assert.Equal(t, []string{"zed", "", "", "", "", "", "", "", "", "", "", "not graded: " + missing + ": cannot read: no such file or directory"}, rows[1],
		"written before any grading")
	byName := map[string][]string{rows[2][0]: rows[2], rows[3][0]: rows[3]}
	assert.Equal(t, []string{"alice", "15", "20", "15", "15", "20", "15", "100", "100", "", "", ""}, byName["alice"])
	assert.Equal(t, []string{"eve", "0", "0", "0", "0", "0", "0", "0", "100", "", "", `rejected before building: session.go:11: import "os" is not allowed`}, byName["eve"])
}

// A submission that is not a file or a directory (a FIFO, here) is refused
// at once with its reason, and the rest of the class is graded.
func TestGradeClassGoesOnPastAFIFO(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no FIFOs")
	}
	dir := t.TempDir()
	fifo := filepath.Join(dir, "mallory.go")
	require.NoError(t, mkfifo(fifo))
	eve := loneFile(t, dir, "eve", labSources(t).rejected)

	r := run(t, nil, "grade", fifo, eve)
	assert.Equal(t, 2, r.code, r.stderr)
	assert.Contains(t, r.stdout, "mallory     -     -     -     -     -     -     -      not graded: "+fifo+": is a named pipe (FIFO), not a directory or a regular file; it is never followed or opened")
	assert.Contains(t, r.stdout, "eve         FAIL")
	assert.Contains(t, r.stderr, "course grade: 1 of 2 submissions could not be graded")
}

func readCSV(t *testing.T, p string) [][]string {
	t.Helper()
	f, err := os.Open(p)
	require.NoError(t, err)
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	require.NoError(t, err)
	return rows
}

func TestGradeClassJSONIsAnArray(t *testing.T) {
	src := labSources(t)
	dir := t.TempDir()
	a := loneFile(t, dir, "a", src.rejected)
	b := workspace(t, dir, "b", src.rejected)

	r := run(t, nil, "grade", "--json", b, a)
	assert.Equal(t, 1, r.code, r.stderr)
	var reps []map[string]any
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &reps), r.stdout)
	require.Len(t, reps, 2)
	assert.Equal(t, "a", reps[0]["submission"], "sorted by name")
	assert.Equal(t, "b", reps[1]["submission"])
	for _, rep := range reps {
		assert.EqualValues(t, 0, rep["score"])
		assert.EqualValues(t, 100, rep["max_score"])
		assert.Len(t, rep["exercises"], 6)
		assert.Equal(t, true, rep["build"].(map[string]any)["rejected"])
	}
	assert.Regexp(t, `graded 2 submissions in \d+\.\ds\ncourse grade: 2 of 2 submissions failed some exercise\n$`, r.stderr)
}

func TestGradeClassJSONNamesWhatCouldNotBeGraded(t *testing.T) {
	dir := t.TempDir()
	a := loneFile(t, dir, "a", labSources(t).rejected)
	empty := filepath.Join(dir, "empty")
	require.NoError(t, os.Mkdir(empty, 0o755))

	r := run(t, nil, "grade", "--json", a, empty)
	assert.Equal(t, 2, r.code, r.stderr)
	var reps []map[string]any
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &reps), r.stdout)
	require.Len(t, reps, 2)
	assert.Equal(t, map[string]any{"submission": "empty", "path": empty, "error": empty + ": holds no session.go"}, reps[1])
}

func TestGradeExistingCSVIsRefusedWithoutForce(t *testing.T) {
	dir := t.TempDir()
	sub := loneFile(t, dir, "a", labSources(t).rejected)
	table := filepath.Join(dir, "grades.csv")
	require.NoError(t, os.WriteFile(table, []byte("the instructor's own notes\n"), 0o600))

	r := run(t, nil, "grade", "--csv", table, sub)
	assert.Equal(t, 2, r.code)
	assert.Empty(t, r.stdout, "nothing graded")
	assert.Equal(t, "course grade: --csv "+table+": the file exists; use --force to overwrite it\n", r.stderr)
	data, err := os.ReadFile(table)
	require.NoError(t, err)
	assert.Equal(t, "the instructor's own notes\n", string(data))

	r = run(t, nil, "grade", "--csv", table, "--force", sub)
	assert.Equal(t, 1, r.code, r.stderr)
	assert.Equal(t, [][]string{
		{"submission", "10.1", "10.2", "10.3", "10.4", "10.5", "10.6", "score", "max_score", "raw_score", "late_penalty", "note"},
		{"a", "0", "0", "0", "0", "0", "0", "0", "100", "", "", `rejected before building: session.go:11: import "os" is not allowed`},
	}, readCSV(t, table))
}

func TestGradeCSVOfSomeExercises(t *testing.T) {
	dir := t.TempDir()
	sub := loneFile(t, dir, "a", labSources(t).rejected)
	table := filepath.Join(dir, "grades.csv")

	r := run(t, nil, "grade", "--csv", table, "--lab", "10.5", "--lab", "10.2", sub)
	assert.Equal(t, 1, r.code, r.stderr)
	assert.Equal(t, [][]string{
		{"submission", "10.2", "10.5", "score", "max_score", "raw_score", "late_penalty", "note"},
		{"a", "0", "0", "0", "40", "", "", `rejected before building: session.go:11: import "os" is not allowed`},
	}, readCSV(t, table), "the lab's order, whatever the flags' order")
	assert.Regexp(t, `(?m)^10\.2 +ParseSessionEntry +FAIL +0/\d+ +0/20$`, r.stdout)
	assert.NotContains(t, r.stdout, "10.1")
}

// Regrades: --update replaces the rows of the submissions given and keeps
// the others; --only-failed grades only those that were not full marks.
func TestGradeRegradesIntoTheCSV(t *testing.T) {
	slow(t)
	src := labSources(t)
	dir := t.TempDir()
	alice := loneFile(t, dir, "alice", src.solution)
	bob := loneFile(t, dir, "bob", src.stub)
	carol := loneFile(t, dir, "carol", src.solution)
	table := filepath.Join(t.TempDir(), "grades.csv")

	r := run(t, nil, "grade", "--lab", "10.1", "--csv", table, alice, bob, carol)
	require.Equal(t, 1, r.code, r.stderr)
	before := readCSV(t, table)

	r = run(t, nil, "grade", "--lab", "10.1", "--csv", table, bob)
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "--csv "+table+": the file exists; use --force to overwrite it", "a second run never overwrites the table by accident")

	require.NoError(t, os.WriteFile(bob, src.solution, 0o644)) // bob fixes his file
	page := filepath.Join(t.TempDir(), "report.html")
	r = run(t, nil, "grade", "--lab", "10.1", "--csv", table, "--update", "--only-failed", "--html", page, alice, bob, carol)
	require.Equal(t, 0, r.code, r.stderr+r.stdout)
	assert.Contains(t, r.stderr, "regrading 1 of 3: 2 had full marks in "+table)
	// The summary is of the whole table, and says what the rest covers.
	assert.Contains(t, r.stdout, "whole table "+table+": 3 rows, 3 with a score: mean 15, median 15 of 15 (lowest 15, highest 15), 3 full marks\n"+
		"this run regraded 1 of them; the lines below are about the 1 submission regraded only\n1 graded: ",
		"grade --update --only-failed: the summary must describe the whole table, not only the regraded submission")
	html, err := os.ReadFile(page)
	require.NoError(t, err)
	assert.Contains(t, string(html), `<dl id="whole" class="figures">`, "the page's overview has the whole table's figures")
	assert.Contains(t, string(html), "the 1 submission regraded in this run, of the 3 rows of "+table, "the page's header says what it covers")
	assert.Contains(t, r.stderr, "graded bob 15/15", "only bob is graded again")
	assert.NotContains(t, r.stderr, "graded alice")
	after := readCSV(t, table)
	require.Len(t, after, len(before), "rows are replaced, not added")
	assert.Equal(t, before[0], after[0])
	for i, row := range before[1:] {
		switch row[0] {
		case "bob":
			assert.Equal(t, []string{"bob", "0", "0", "15", "", "", ""}, row, "bob's first grade")
			assert.Equal(t, []string{"bob", "15", "15", "15", "", "", ""}, after[1+i], "bob's row is replaced in place")
		default:
			assert.Equal(t, row, after[1+i], "%s's row stays as it was", row[0])
		}
	}

	r = run(t, nil, "grade", "--lab", "10.2", "--csv", table, "--update", bob)
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "the file was written for other exercises", "a table of other exercises is refused, never mixed")
	assert.Equal(t, after, readCSV(t, table), "a refused regrade leaves the table alone")
}

// --roster: a row for every student, with the roster's columns.
func TestGradeRosterGivesEveryStudentARow(t *testing.T) {
	slow(t)
	src := labSources(t)
	dir := t.TempDir()
	alice := loneFile(t, dir, "alice", src.solution)
	zoe := loneFile(t, dir, "zoe", src.stub)
	roster := filepath.Join(dir, "roster.csv")
	require.NoError(t, os.WriteFile(roster, []byte("Submission,student_id,email\nalice,1001,alice@uni.edu\nbob,1002,bob@uni.edu\n"), 0o644))
	table := filepath.Join(t.TempDir(), "grades.csv")

	r := run(t, nil, "grade", "--lab", "10.1", "--csv", table, "--roster", roster, alice, zoe)
	require.Equal(t, 1, r.code, r.stderr)
	assert.Contains(t, r.stderr, "warning: not in the roster, so without a student's id: zoe")
	assert.Contains(t, r.stderr, `no submission from 1 of the roster (a row each, noted "no submission"): bob`)
	assert.Equal(t, [][]string{
		{"submission", "student_id", "email", "10.1", "score", "max_score", "raw_score", "late_penalty", "note"},
		{"alice", "1001", "alice@uni.edu", "15", "15", "15", "", "", ""},
		{"zoe", "", "", "0", "0", "15", "", "", ""},
		{"bob", "1002", "bob@uni.edu", "", "", "", "", "", "no submission"},
	}, sortedCSV(readCSV(t, table), 2))
}

// sortedCSV sorts the graded rows (after the header, before the first of
// the rows written at the end) by name: they come as grading finishes.
func sortedCSV(rows [][]string, graded int) [][]string {
	sort.Slice(rows[1:1+graded], func(i, j int) bool { return rows[1+i][0] < rows[1+j][0] })
	return rows
}

// Late penalties from a CSV of submission times and from Gradescope's
// metadata.
func TestGradeLatePenalties(t *testing.T) {
	slow(t)
	src := labSources(t)
	dir := t.TempDir()
	alice := loneFile(t, dir, "alice", src.solution)
	bob := loneFile(t, dir, "bob", src.solution)
	times := filepath.Join(dir, "times.csv")
	require.NoError(t, os.WriteFile(times, []byte("submission,submitted_at\nalice,2026-12-01T10:00:00Z\n"), 0o644))
	table := filepath.Join(t.TempDir(), "grades.csv")

	r := run(t, nil, "grade", "--lab", "10.1", "--late", "10%/day, 0 after 3 days", "--due", "2026-11-30T23:59:00Z",
		"--times", times, "--csv", table, alice, bob)
	assert.Equal(t, 2, r.code, "bob's time is not in the file: he cannot be graded")
	assert.Regexp(t, `(?m)^alice +pass +13\.5/15 +late 10h1m0s: -10%$`, r.stdout)
	assert.Regexp(t, `(?m)^bob +- +- +not graded: cannot tell when it was handed in, so not whether it is late: .*times.csv has no row for bob$`, r.stdout)
	rows := readCSV(t, table)
	byName := map[string][]string{rows[1][0]: rows[1], rows[2][0]: rows[2]}
	assert.Equal(t, []string{"alice", "15", "13.5", "15", "15", "10%", ""}, byName["alice"],
		"the exercise's points as graded, then the score after the penalty, the raw score and the penalty in their columns")

	// Gradescope: the due date and the time from its metadata.
	meta := filepath.Join(dir, "submission_metadata.json")
	require.NoError(t, os.WriteFile(meta, []byte(`{"created_at": "2026-12-01T12:00:00Z", "assignment": {"due_date": "2026-12-01T00:00:00Z"}, "users": [{"assignment": {"due_date": "2026-12-02T00:00:00Z"}}]}`), 0o644))
	out := filepath.Join(t.TempDir(), "results.json")
	r = run(t, nil, "grade", "--lab", "10.1", "--late", "10%/day", "--times", "gradescope="+meta, "--format", "gradescope", "-o", out, alice)
	require.Equal(t, 0, r.code, r.stderr)
	var res struct {
		Score float64 `json:"score"`
	}
	data, err := os.ReadFile(out)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &res))
	assert.Equal(t, 15.0, res.Score, "the student's extension (due 12-02) makes 12-01 12:00 on time")
}

// A class report page, then the same from the saved --json.
func TestGradeClassHTMLAndFromJSON(t *testing.T) {
	slow(t)
	src := labSources(t)
	dir := t.TempDir()
	alice := loneFile(t, dir, "alice", src.solution)
	bob := loneFile(t, dir, "bob", src.stub)
	out := t.TempDir()
	saved, page := filepath.Join(out, "class.json"), filepath.Join(out, "class.html")

	r := run(t, nil, "grade", "--lab", "10.1", "--json", "-o", saved, "--html", page, alice, bob)
	require.Equal(t, 1, r.code, r.stderr)
	assert.Contains(t, r.stderr, "2 graded: mean 7.5, median 7.5 of 15", "a class run ends with the class summed up, on stderr beside --json")
	html, err := os.ReadFile(page)
	require.NoError(t, err)
	assert.Contains(t, string(html), "<svg", "the page draws its charts inline")
	assert.Contains(t, string(html), "bob")
	assert.NotContains(t, string(html), "<script", "no script")

	again := filepath.Join(out, "again.html")
	r = run(t, nil, "grade", "--from", saved, "--html", again)
	require.Equal(t, 1, r.code, "the exit status of the run that made the report: bob failed\n"+r.stderr)
	assert.Contains(t, r.stderr, "course grade: 1 of 2 submissions in "+saved+" failed some exercise")
	assert.Regexp(t, `(?m)^alice +pass +15/15$`, r.stdout)
	assert.Contains(t, r.stdout, "2 graded: mean 7.5, median 7.5 of 15")
	second, err := os.ReadFile(again)
	require.NoError(t, err)
	assert.Equal(t, string(html), string(second), "the page made from the saved report is the page made while grading")

	table := filepath.Join(out, "grades.csv")
	r = run(t, nil, "grade", "--from", saved, "--csv", table)
	require.Equal(t, 1, r.code, r.stderr)
	assert.Equal(t, [][]string{
		{"submission", "10.1", "score", "max_score", "raw_score", "late_penalty", "note"},
		{"alice", "15", "15", "15", "", "", ""},
		{"bob", "0", "0", "15", "", "", ""},
	}, readCSV(t, table), "the table from the saved report, as grading writes it")

	r = run(t, nil, "grade", "--from", saved, "--format", "junit")
	require.Equal(t, 1, r.code, r.stderr)
	assert.Equal(t, 2, strings.Count(r.stdout, "<testsuite "), "one suite per submission in one file")
	assert.Contains(t, r.stdout, `<testsuite name="bob"`)
}

// A path or a name that a submission chose reaches the terminal escaped
// and on one line: in the one-line error of a single grade, in the class
// table and in the progress lines.
func TestGradeEscapesNamesTheSubmissionChose(t *testing.T) {
	dir := t.TempDir()
	evil := filepath.Join(dir, "x\x1b[2J\x1b[31mFAKE")
	require.NoError(t, os.Mkdir(evil, 0o755))
	r := run(t, nil, "grade", "--chapter", "10", evil)
	assert.Equal(t, 2, r.code)
	assert.NotContains(t, r.stderr, "\x1b", "an escape sequence in a path is shown escaped")
	assert.Contains(t, r.stderr, `x\x1b[2J\x1b[31mFAKE: holds no session.go`)

	slow(t)
	src := labSources(t)
	fake := loneFile(t, dir, "zed\nalice       pass", src.stub)
	other := loneFile(t, dir, "bob", src.stub)
	r = run(t, nil, "grade", "--lab", "10.1", fake, other)
	require.Equal(t, 1, r.code, r.stderr)
	assert.NotRegexp(t, `(?m)^alice`, r.stdout, "a newline in a name never starts a row of its own")
	assert.Contains(t, r.stdout, `zed\x0aalice       pass`)
	assert.NotRegexp(t, `(?m)^alice`, r.stderr)
}

// Two names that read the same once escaped ("bob\nalice" and the literal
// "bob\x0aalice") would be one row to a reader and one key to --update:
// both are named by their paths instead.
func TestGradeNamesThatReadTheSameAreToldApart(t *testing.T) {
	for _, pair := range [][2]string{
		{"bob\nalice", `bob\x0aalice`}, // a line break, and its escape
		{"Zo\u00eb", "Zoe\u0308"},      // composed, and decomposed as a macOS folder is
	} {
		dir := t.TempDir()
		for _, name := range pair {
			require.NoError(t, os.Mkdir(filepath.Join(dir, name), 0o755)) // holds no session.go: not graded, no build
		}
		table := filepath.Join(t.TempDir(), "grades.csv")
		r := run(t, nil, "grade", "--chapter", "10", "--csv", table, filepath.Join(dir, pair[0]), filepath.Join(dir, pair[1]))
		assert.Equal(t, 2, r.code, r.stderr)
		rows := readCSV(t, table)
		require.Len(t, rows, 3)
		assert.NotEqual(t, norm.NFC.String(rows[1][0]), norm.NFC.String(rows[2][0]), "%q: two rows, two names that read differently", pair)
		for _, row := range rows[1:] {
			assert.Contains(t, row[0], dir, "named by its path: %q", row[0])
		}
	}
}

// An output file whose directory is a link to a submission would be
// written inside it: refused, nothing written.
func TestGradeRefusesAnOutputThroughALinkIntoASubmission(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "subs", "alice")
	require.NoError(t, os.MkdirAll(sub, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(sub, "session.go"), labSources(t).stub, 0o644))
	link := filepath.Join(dir, "lnk")
	require.NoError(t, os.Symlink(sub, link))
	before := snapshot(t, sub)
	for _, flag := range []string{"--csv", "-o", "--html"} {
		r := run(t, nil, "grade", "--chapter", "10", flag, filepath.Join(link, "out"), sub)
		assert.Equal(t, 2, r.code, "%s through a link into the submission: %s", flag, r.stderr)
		assert.Contains(t, r.stderr, "is inside submission", flag)
	}
	assert.Equal(t, before, snapshot(t, sub), "nothing written into the submission")
}
