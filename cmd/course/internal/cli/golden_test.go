package cli_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coursekit/course/grader/class"
	classpkg "github.com/coursekit/course/grader/class"
	"github.com/coursekit/course/grader/format"
	"github.com/coursekit/course/grader/release/releasetest"
	"github.com/coursekit/course/grader/report"
)

// update rewrites the golden files: go test ./cmd/course/internal/cli -run Golden -update
var update = flag.Bool("update", false, "rewrite the golden files of TestGolden…")

// goldenClass is a saved class report (course grade --json) of nine
// submissions of lab 10: a solution, the stub, a mutant with an exercise
// scored per test, a rejected file, one whose build fails, a race (one in
// the hidden tests), a timeout, a name with a diacritic, and one not
// graded; late penalties on two. Its times are fixed and its outputs cut
// short, so that every format made of it is the same on every machine.
const goldenClass = "testdata/golden/class.json"

// readGoldenClass reads the reports of the saved class, and the names and
// reasons of the submissions it could not grade.
func readGoldenClass(t *testing.T) ([]*report.Report, map[string]string) {
	t.Helper()
	f, err := os.Open(goldenClass)
	require.NoError(t, err)
	defer f.Close()
	reports, notGraded, err := classpkg.ReadJSON(f)
	require.NoError(t, err)
	return reports, notGraded
}

// golden compares got with the golden file name, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	p := filepath.Join("testdata", "golden", name)
	if *update {
		require.NoError(t, os.WriteFile(p, got, 0o644))
		return
	}
	want, err := os.ReadFile(p)
	require.NoError(t, err, "no golden file %s: run go test -run Golden -update, then read the diff", p)
	assert.Equal(t, string(want), string(got), "%s differs from its golden file: every format must stay what it was", p)
}

// classFormats are the formats course grade --from writes of a class: the
// golden file of each, its flags, and the file it writes (if any) in dir.
func classFormats(dir string) []struct {
	name string
	args []string
	file string
} {
	return []struct {
		name string
		args []string
		file string
	}{
		{"from.txt", nil, ""},
		{"from.json", []string{"--json"}, ""},
		{"from.junit.xml", []string{"--format", "junit"}, ""},
		{"from.csv", []string{"--csv", filepath.Join(dir, "grades.csv")}, filepath.Join(dir, "grades.csv")},
		{"from.html", []string{"--html", filepath.Join(dir, "report.html")}, filepath.Join(dir, "report.html")},
	}
}

// gradeFrom runs course grade --from from with args, and returns what it
// printed and wrote to file, as the golden files keep it.
func gradeFrom(t *testing.T, from string, args []string, file string) string {
	t.Helper()
	r := run(t, nil, append([]string{"grade", "--from", from}, args...)...)
	out := "exit status " + strconv.Itoa(r.code) + "\n--- stdout\n" + r.stdout + "--- stderr\n" + r.stderr
	if file != "" {
		data, err := os.ReadFile(file)
		require.NoError(t, err)
		require.NoError(t, os.Remove(file))
		out += "--- " + filepath.Base(file) + "\n" + string(data)
	}
	return out
}

// TestGoldenClassOutputs: what course grade --from makes of the saved class
// report, in every format it writes (text and its summary, CSV, JUnit,
// JSON, HTML).
func TestGoldenClassOutputs(t *testing.T) {
	releasetest.SkipInRelease(t, "the golden files name hidden tests")
	for _, tc := range classFormats(t.TempDir()) {
		t.Run(tc.name, func(t *testing.T) {
			golden(t, tc.name, []byte(gradeFrom(t, goldenClass, tc.args, tc.file)))
		})
	}
}

// TestGoldenClassOutputsFromATrimmedReport: a saved report without the
// output of the passed exercises' tests (what course grade --json keeps:
// of a correct submission a seventh of what it was) makes every other
// format exactly as the whole report does: nothing --from needs was
// dropped.
func TestGoldenClassOutputsFromATrimmedReport(t *testing.T) {
	releasetest.SkipInRelease(t, "the golden files name hidden tests")
	reports, notGraded := readGoldenClass(t)
	var results []classpkg.Result
	for _, r := range reports {
		for i := range r.Exercises {
			r.Exercises[i].KeepFailureOutputOnly()
		}
		results = append(results, classpkg.Result{Name: r.Submission, Path: r.Path, Report: r})
	}
	for name, why := range notGraded {
		results = append(results, classpkg.Result{Name: name, Err: errors.New(why)})
	}
	classpkg.Sort(results)
	var b bytes.Buffer
	require.NoError(t, classpkg.WriteJSON(&b, results))
	whole, err := os.Stat(goldenClass)
	require.NoError(t, err)
	assert.Less(t, b.Len(), int(whole.Size())*2/3, "the trimmed report is %d bytes, the whole one %d", b.Len(), whole.Size())
	dir := t.TempDir()
	trimmed := filepath.Join(dir, "trimmed.json")
	require.NoError(t, os.WriteFile(trimmed, b.Bytes(), 0o644))

	for _, tc := range classFormats(dir) {
		if tc.name == "from.json" {
			continue // the JSON is what was trimmed
		}
		t.Run(tc.name, func(t *testing.T) {
			want, err := os.ReadFile(filepath.Join("testdata", "golden", tc.name))
			require.NoError(t, err)
			got := strings.ReplaceAll(gradeFrom(t, trimmed, tc.args, tc.file), trimmed, goldenClass)
			assert.Equal(t, string(want), got, "course grade --from %s %s: not what the whole report makes", trimmed, strings.Join(tc.args, " "))
		})
	}
}

// TestGoldenReportFormats: each report of the saved class in every format
// of one submission (text, JUnit, Gradescope, Classroom 50, the
// Markdown summary, the CSV row); JSON is from.json's.
func TestGoldenReportFormats(t *testing.T) {
	releasetest.SkipInRelease(t, "the golden files name hidden tests")
	reports, _ := readGoldenClass(t)
	require.Len(t, reports, 8)
	ids := []string{"10.1", "10.2", "10.3", "10.4", "10.5", "10.6"}
	env := map[string]string{"CLASSROOM": "go-fall", "ASSIGNMENT": "lab10", "ASSIGNMENT_TYPE": "individual",
		"USERNAME": "student", "SUBMISSION_TAG": "submit/1", "COMMIT_URL": "https://example.com/c/1",
		"RELEASE_URL": "https://example.com/r/1", "REVIEW_URL": "https://example.com/p/1"}
	graded := time.Date(2026, 12, 2, 9, 30, 0, 0, time.UTC)
	for _, r := range reports {
		t.Run(r.Submission, func(t *testing.T) {
			var b bytes.Buffer
			require.NoError(t, format.WriteText(&b, r, format.Style{}))
			golden(t, r.Submission+".txt", b.Bytes())

			x, err := format.JUnit(r)
			require.NoError(t, err)
			golden(t, r.Submission+".junit.xml", x)

			b.Reset()
			require.NoError(t, format.WriteJSON(&b, format.Gradescope(r)))
			golden(t, r.Submission+".gradescope.json", b.Bytes())

			c50, err := format.Classroom50(r, func(k string) string { return env[k] }, graded)
			require.NoError(t, err)
			data, err := json.MarshalIndent(c50, "", "  ")
			require.NoError(t, err)
			golden(t, r.Submission+".classroom50.json", append(data, '\n'))

			b.Reset()
			require.NoError(t, format.WriteMarkdown(&b, r))
			golden(t, r.Submission+".md", b.Bytes())

			golden(t, r.Submission+".csv", []byte(strings.Join(class.CSVRow(r, ids), "\t")+"\n"))
		})
	}
}
