package cli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coursekit/course/cmd/course/internal/cli"
	"github.com/coursekit/course/grader/lab"
	"github.com/coursekit/course/grader/release/releasetest"
	"github.com/coursekit/course/labs"
)

// Fixture submissions are made from the course's own files: the stub, the
// reference solution, and a "rejected" file (the stub importing os), which
// the grader refuses before building. A rejected submission is graded, and
// fails, in no time, so the class tests use it wherever a real build is not
// the point; only the tests marked slow build and run submissions (about
// two seconds each) and -short skips them.

type sources struct{ stub, solution, rejected []byte }

func labSources(t *testing.T) sources {
	t.Helper()
	stub, err := fs.ReadFile(labs.FS, "10-session/session.go")
	require.NoError(t, err)
	l := lab10(t)
	sol := releasetest.Solution(t, l) // skips in a student release, which has none
	require.Contains(t, string(stub), "\nimport \"fmt\"\n")
	rejected := strings.Replace(string(stub), "\nimport \"fmt\"\n", "\nimport (\n\t\"fmt\"\n\t\"os\"\n)\n", 1) +
		"\nfunc init() { _ = os.Args }\n"
	return sources{stub: stub, solution: sol, rejected: []byte(rejected)}
}

func lab10(t *testing.T) *lab.Lab {
	t.Helper()
	c, err := lab.Load()
	require.NoError(t, err)
	l, err := c.Lookup("10")
	require.NoError(t, err)
	return l
}

// workspace makes a practice workspace parent/name holding src as session.go.
func workspace(t *testing.T, parent, name string, src []byte) string {
	t.Helper()
	dir := filepath.Join(parent, name)
	require.NoError(t, lab10(t).WriteWorkspace(dir))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "session.go"), src, 0o644))
	return dir
}

// loneFile writes src as parent/name.go, a submission of one file.
func loneFile(t *testing.T, parent, name string, src []byte) string {
	t.Helper()
	p := filepath.Join(parent, name+".go")
	require.NoError(t, os.WriteFile(p, src, 0o644))
	return p
}

func slow(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: builds and runs submissions")
	}
	t.Parallel()
}

// row matches one exercise row of the one-submission table.
func row(id, name, result string) *regexp.Regexp {
	return regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(id) + ` +` + name + ` +` + result + ` +(\d+)/(\d+) +(\d+)/(\d+)$`)
}

func TestGradeSolutionPasses(t *testing.T) {
	slow(t)
	src := labSources(t)
	dir := workspace(t, t.TempDir(), "alice", src.solution)
	before := snapshot(t, dir)

	r := run(t, nil, "grade", dir)
	require.Equal(t, 0, r.code, r.stderr+r.stdout)
	assert.Empty(t, r.stderr, "no progress and no error off a terminal")
	assert.NotContains(t, r.stdout, "\x1b[", "no colour off a terminal")
	assert.Regexp(t, `(?m)^EXERCISE +NAME +RESULT +TESTS +POINTS$`, r.stdout)
	for _, e := range lab10(t).Exercises {
		if e.Bonus {
			assert.NotRegexp(t, `(?m)^`+regexp.QuoteMeta(e.ID)+` `, r.stdout, "bonus exercise %s is graded only with --bonus", e.ID)
			continue
		}
		m := row(e.ID, e.Name, "pass").FindStringSubmatch(r.stdout)
		require.NotNil(t, m, "row of %s in\n%s", e.ID, r.stdout)
		assert.Equal(t, m[1], m[2], "every test of %s passed", e.ID)
		assert.Equal(t, m[3], m[4], "full points for %s", e.ID)
	}
	assert.Regexp(t, `(?m)^score 100/100 `, r.stdout)
	assert.Equal(t, before, snapshot(t, dir), "the submission is never written")
}

func TestGradeStubFailsWithReasons(t *testing.T) {
	slow(t)
	p := loneFile(t, t.TempDir(), "bob", labSources(t).stub)

	r := run(t, nil, "grade", p)
	require.Equal(t, 1, r.code, r.stderr+r.stdout)
	assert.Equal(t, "course grade: 6 of 6 exercises failed\n", r.stderr)
	lines := strings.Split(r.stdout, "\n")
	for _, e := range lab10(t).Exercises {
		if e.Bonus {
			continue // graded only with --bonus
		}
		m := row(e.ID, e.Name, "FAIL").FindStringSubmatch(r.stdout)
		require.NotNil(t, m, "row of %s in\n%s", e.ID, r.stdout)
		assert.Equal(t, "0", m[1])
		assert.Equal(t, "0", m[3])
		for i, line := range lines { // the reason and the first failure are under the row
			if strings.HasPrefix(line, e.ID+" ") {
				require.Greater(t, len(lines), i+2)
				assert.Regexp(t, `^ +\d+ of \d+ tests failed(, \d+ not run)?$`, lines[i+1])
				assert.Regexp(t, `^ +first failure: `+e.TestPrefix+`\w+ \(fail\)$`, lines[i+2])
			}
		}
	}
	assert.Contains(t, r.stdout, "Lab 10.1: PathTo: not implemented", "the failing test's message")
	assert.NotContains(t, r.stdout, "course-grade-", "no temporary paths in the test output")
	assert.Regexp(t, `(?m)^score 0/100 `, r.stdout)
}

func TestGradeBonusOnlyWhenAskedFor(t *testing.T) {
	p := loneFile(t, t.TempDir(), "erin", labSources(t).solution)
	r := run(t, nil, "grade", "--lab", "10.7", p)
	assert.Equal(t, 2, r.code, r.stdout)
	assert.Contains(t, r.stderr, "--lab 10.7: a bonus exercise, graded only with --bonus")
}

func TestGradeBonusExercise(t *testing.T) {
	slow(t)
	src := labSources(t)
	dir := t.TempDir()
	sol := loneFile(t, dir, "frank", src.solution)
	r := run(t, nil, "grade", "--json", "--bonus", "--lab", "10.7", sol)
	require.Equal(t, 0, r.code, r.stderr+r.stdout)
	var rep map[string]any
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &rep), r.stdout)
	exercises := rep["exercises"].([]any)
	require.Len(t, exercises, 1)
	ex := exercises[0].(map[string]any)
	assert.Equal(t, "10.7", ex["id"])
	assert.Equal(t, true, ex["bonus"])
	assert.Equal(t, true, ex["passed"])
	assert.EqualValues(t, 10, rep["max_score"], "a graded bonus exercise counts in the maximum")

	stub := loneFile(t, dir, "gina", src.stub)
	r = run(t, nil, "grade", "--bonus", stub)
	require.Equal(t, 1, r.code, r.stderr+r.stdout)
	m := row("10.7", "RepairUnterminatedTail", "FAIL").FindStringSubmatch(r.stdout)
	require.NotNil(t, m, "row of 10.7 in\n%s", r.stdout)
	assert.Regexp(t, `(?m)^score 0/110 `, r.stdout, "with --bonus the maximum has the bonus points")
}

func TestGradeJSONOfOneExercise(t *testing.T) {
	slow(t)
	p := loneFile(t, t.TempDir(), "carol", labSources(t).solution)

	r := run(t, nil, "grade", "--json", "--lab", "10.3", p)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Empty(t, r.stderr)
	var rep map[string]any
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &rep), r.stdout)
	exercises, ok := rep["exercises"].([]any)
	require.True(t, ok, "exercises is a list")
	require.Len(t, exercises, 1, "--lab 10.3 grades one exercise")
	ex := exercises[0].(map[string]any)
	for _, key := range []string{"id", "name", "passed", "points", "max_points", "tests"} {
		assert.Contains(t, ex, key)
	}
	assert.Equal(t, "10.3", ex["id"])
	assert.Equal(t, "InMemorySessionStore", ex["name"])
	assert.Equal(t, true, ex["passed"])
	assert.EqualValues(t, 15, ex["points"])
	assert.EqualValues(t, 15, ex["max_points"])
	tests := ex["tests"].([]any)
	l := lab10(t)
	require.Len(t, tests, len(l.PublicTests("10.3"))+len(l.HiddenTests("10.3")), "public and hidden tests")
	hidden := 0
	for _, x := range tests {
		tr := x.(map[string]any)
		for _, key := range []string{"name", "status", "hidden"} {
			assert.Contains(t, tr, key)
		}
		assert.Equal(t, "pass", tr["status"])
		assert.NotContains(t, tr, "output", "a passed exercise's tests keep no output in the JSON report")
		if tr["hidden"] == true {
			hidden++
			assert.Contains(t, tr["name"], "Hidden")
		}
	}
	assert.Equal(t, len(l.HiddenTests("10.3")), hidden, "hidden tests run by default and marked")
	assert.EqualValues(t, 15, rep["score"])
	assert.EqualValues(t, 15, rep["max_score"])
	build := rep["build"].(map[string]any)
	assert.Equal(t, true, build["ok"])
	assert.Contains(t, build, "output")
}

func TestGradeGradescopeResults(t *testing.T) {
	slow(t)
	dir := t.TempDir()
	sub := workspace(t, dir, "dan", labSources(t).stub)
	out := filepath.Join(dir, "results.json")

	r := run(t, nil, "grade", "--format", "gradescope", "-o", out, sub)
	assert.Equal(t, 1, r.code, r.stderr)
	assert.Empty(t, r.stdout, "the report went to -o")
	data, err := os.ReadFile(out)
	require.NoError(t, err)
	var res map[string]any
	require.NoError(t, json.Unmarshal(data, &res), string(data))
	assert.EqualValues(t, 0, res["score"])
	assert.Contains(t, res, "execution_time")
	tests := res["tests"].([]any)
	require.NotEmpty(t, tests)
	visibility := map[any]int{}
	for _, x := range tests {
		tr := x.(map[string]any)
		for _, key := range []string{"score", "max_score", "status", "name", "output", "visibility"} {
			assert.Contains(t, tr, key, "test entry %v", tr["name"])
		}
		assert.Equal(t, "failed", tr["status"])
		visibility[tr["visibility"]]++
	}
	assert.Equal(t, map[any]int{"visible": 6, "after_published": 6}, visibility,
		"one visible entry per exercise, and its hidden tests shown only once published")
	assert.EqualValues(t, 15, tests[0].(map[string]any)["max_score"])
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Len(t, entries, 2, "no temporary file left beside results.json")
}

func TestGradeUsageErrors(t *testing.T) {
	src := labSources(t)
	dir := t.TempDir()
	a := loneFile(t, dir, "a", src.stub)
	b := workspace(t, dir, "b", src.stub)
	empty := filepath.Join(dir, "empty")
	require.NoError(t, os.Mkdir(empty, 0o755))
	notes := filepath.Join(dir, "notes.txt")
	require.NoError(t, os.WriteFile(notes, []byte("x"), 0o644))
	missing := filepath.Join(dir, "missing")
	times := filepath.Join(dir, "times.csv")
	require.NoError(t, os.WriteFile(times, []byte("submission,submitted_at\na,2026-12-01T10:00:00Z\n"), 0o644))
	before := snapshot(t, dir)
	catalog, err := lab.Load()
	require.NoError(t, err)
	files := strings.Join(catalog.EditableNames(), " or ")

	for _, tc := range []struct {
		args  []string
		want  string
		input bool // the form is right, what it names cannot be used: no pointer to --help
	}{
		{[]string{}, "missing argument <submission> (or --from a saved --json report)", false},
		{[]string{"--due", "2026-12-01T00:00:00Z", a}, "--due and --times say when work was due and handed in: they need --late POLICY", false},
		{[]string{"--late", "10%/day", a}, "--late needs --times: a CSV file of submission,submitted_at (an LMS export, a platform's push events) or gradescope (Gradescope's submission metadata)", false},
		{[]string{"--late", "10%/day", "--times", times, a}, "--late needs --due, the due date as an RFC 3339 time such as 2026-12-01T23:59:00Z (only --times gradescope reads it from Gradescope)", false},
		{[]string{"--late", "10%/day", "--times", times, "--due", "tomorrow", a}, `--due "tomorrow": want an RFC 3339 time such as 2026-12-01T23:59:00Z or 2026-12-01T23:59:00+08:00`, false},
		{[]string{"--from", missing, "--times", times}, "--from " + missing + ": only --format text, json or junit, --csv (with --roster), --html and --feedback take a saved report", false},
		{[]string{"--late", "10%/day", "--times", missing, "--due", "2026-12-01T00:00:00Z", a}, "--times: open " + missing + ": no such file or directory", true},
		{[]string{"--from", missing, a}, "--from " + missing + " reads a saved report: give no submissions (got " + a + ")", false},
		{[]string{"-o", notes, a}, "-o " + notes + ": the file exists; use --force to overwrite it", true},
		{[]string{"--html", notes, a}, "--html " + notes + ": the file exists; use --force to overwrite it", true},
		{[]string{"--html", filepath.Join(b, "class.html"), b}, "--html " + filepath.Join(b, "class.html") + ": is inside submission " + b + ", and grading never writes a submission", true},
		{[]string{"--format", "xml", a}, `unknown --format "xml" (known: text, json, gradescope, junit, classroom50)`, false},
		{[]string{"--json", "--format", "gradescope", a}, "--json and --format gradescope contradict each other", false},
		{[]string{"--timeout", "0s", a}, "--timeout 0s: must be positive", false},
		{[]string{"--timeout", "soon", a}, `invalid argument "soon" for "--timeout" flag: time: invalid duration "soon"`, false},
		{[]string{"--jobs", "0", a, b}, "--jobs 0: must be at least 1", false},
		{[]string{"--runs", "0", a}, "--runs 0: must be at least 1", false},
		{[]string{"--lab", "10.9", a}, `--lab: chapter 10 has no exercise "10.9" (known: 10.1, 10.2, 10.3, 10.4, 10.5, 10.6, 10.7)`, false},
		{[]string{"--chapter", "99", a}, `unknown chapter "99" (known: ` + strings.Join(catalog.Chapters(), ", ") + `)`, false},
		{[]string{"--bogus", a}, "unknown flag: --bogus", false},
		{[]string{"--format", "gradescope", a, b}, "--format gradescope grades one submission (results.json is per submission), not 2", false},
		{[]string{missing}, missing + ": cannot read: no such file or directory", true},
		// No lab finds its file: the message names every lab's.
		{[]string{empty}, empty + ": holds no " + files, true},
		{[]string{notes}, notes + ": not a workspace directory, a " + files + ", or a .zip/.tar.gz archive", true},
		{[]string{"-o", filepath.Join(missing, "r.json"), a}, "-o " + filepath.Join(missing, "r.json") + ": directory " + missing + " does not exist", true},
		{[]string{"-o", dir, a}, "-o " + dir + ": is a directory", true},
		{[]string{"-o", filepath.Join(b, "report.txt"), b}, "-o " + filepath.Join(b, "report.txt") + ": is inside submission " + b + ", and grading never writes a submission", true},
		{[]string{"--csv", a, a}, "--csv " + a + ": is inside submission " + a + ", and grading never writes a submission", true},
		{[]string{"--tests", missing, a}, "--tests " + missing + ": no such file or directory", true},
		{[]string{"--tests", notes, a}, "--tests " + notes + ": not a directory", true},
		{[]string{"--tests", empty, a}, "--tests " + empty + ": no test functions found in *_test.go files", true},
		{[]string{"--sandbox", "none", a}, `--sandbox: unknown sandbox mode "none" (known: strict, best, off)`, false},
		{[]string{"--memory", "lots", a}, `--memory "lots": want a size of at least 64MiB, such as 512MiB or 2GiB`, false},
		{[]string{"--memory", "1MiB", a}, `--memory "1MiB": want a size of at least 64MiB, such as 512MiB or 2GiB`, false},
		{[]string{"--timeout", "1m", "--budget", "30s", a}, "--budget 30s: must be at least --timeout (1m0s)", false},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			r := run(t, nil, append([]string{"grade"}, tc.args...)...)
			assert.Equal(t, 2, r.code)
			assert.Empty(t, r.stdout)
			help := "Run 'course grade --help' for usage.\n"
			if tc.input {
				help = ""
			}
			assert.Equal(t, "course grade: "+tc.want+"\n"+help, r.stderr)
		})
	}
	assert.Equal(t, before, snapshot(t, dir), "nothing written anywhere")
}

// --times git is no more: a committer time is the student's to write, and
// reading a submission's .git outside the sandbox let a FIFO as .git/HEAD
// hang a class run. It is refused before any submission is looked at.
func TestGradeTimesGitIsAUsageError(t *testing.T) {
	dir := t.TempDir()
	ws := workspace(t, dir, "mallory", labSources(t).stub)
	require.NoError(t, os.Mkdir(filepath.Join(ws, ".git"), 0o755))
	if err := mkfifo(filepath.Join(ws, ".git", "HEAD")); err != nil {
		require.NoError(t, os.WriteFile(filepath.Join(ws, ".git", "HEAD"), []byte("ref: refs/heads/main\n"), 0o644))
	}
	saved := filepath.Join(dir, "class.json")
	require.NoError(t, os.WriteFile(saved, []byte("[]"), 0o644))
	before := snapshot(t, dir)
	want := "course grade: --times git is no more: a commit's time is whatever the student's machine wrote; " +
		"give the times a platform recorded, a CSV file of submission,submitted_at (an LMS export, GitHub or GitLab push events) or --times gradescope\n" +
		"Run 'course grade --help' for usage.\n"
	for _, args := range [][]string{
		{"--late", "10%/day", "--due", "2026-12-01T00:00:00Z", "--times", "git", ws},
		{"--times", "git", ws},
		{"--from", saved, "--times", "git"},
	} {
		r := runSoon(t, nil, append([]string{"grade"}, args...)...)
		assert.Equal(t, 2, r.code, "course grade %s: exit status", strings.Join(args, " "))
		assert.Empty(t, r.stdout, "course grade %s", strings.Join(args, " "))
		assert.Equal(t, want, r.stderr, "course grade %s: one line that says where times come from", strings.Join(args, " "))
	}
	assert.Equal(t, before, snapshot(t, dir), "the submission is untouched")
}

func TestGradeWithoutAGoCommand(t *testing.T) {
	sub := loneFile(t, t.TempDir(), "a", labSources(t).stub)
	t.Setenv("PATH", "")
	t.Setenv("GOROOT", "")
	r := run(t, nil, "grade", sub)
	assert.Equal(t, 2, r.code)
	assert.Equal(t, "course grade: the go command was not found\n", r.stderr, "one line, no pointer to --help")
}

func TestGradeGradescopeExplainsAnUnreadableSubmission(t *testing.T) {
	catalog, err := lab.Load()
	require.NoError(t, err)
	for _, tc := range []struct {
		chapter string // as run_autograder passes it, or none
		missing string // what the submission is said to lack
	}{
		{"10", "session.go"},
		{"11", "store.go"},
		{"", strings.Join(catalog.EditableNames(), " or ")},
	} {
		dir := t.TempDir()
		empty := filepath.Join(dir, "submission")
		require.NoError(t, os.Mkdir(empty, 0o755))
		out := filepath.Join(dir, "results.json")
		args := []string{"grade", "--format", "gradescope", "-o", out, empty}
		if tc.chapter != "" {
			args = append(args, "--chapter", tc.chapter)
		}

		r := run(t, nil, args...)
		assert.Equal(t, 2, r.code, "course %v", args)
		assert.Equal(t, "course grade: "+empty+": holds no "+tc.missing+"\n", r.stderr, "course %v", args)
		data, err := os.ReadFile(out)
		require.NoError(t, err, "course %v: the student sees why in Gradescope", args)
		var res map[string]any
		require.NoError(t, json.Unmarshal(data, &res))
		assert.EqualValues(t, 0, res["score"])
		assert.Equal(t, "Your submission holds no "+tc.missing+".\nUpload your "+tc.missing+", or a .zip holding it.", res["output"],
			"course %v: results.json", args)
	}
}

// TestGradeGradescopeGradesTheOnlyGoFileOfAnUpload: Gradescope keeps an
// upload named alice.go in /autograder/submission; the directory is graded
// as that file, as the command line grades a lone file of any name. Two Go
// files there are an error that names them, in results.json too.
func TestGradeGradescopeGradesTheOnlyGoFileOfAnUpload(t *testing.T) {
	src := labSources(t)
	gradescope := func(files map[string][]byte) (result, map[string]any) {
		dir := t.TempDir()
		upload := filepath.Join(dir, "submission")
		require.NoError(t, os.Mkdir(upload, 0o755))
		for name, data := range files {
			require.NoError(t, os.WriteFile(filepath.Join(upload, name), data, 0o644))
		}
		out := filepath.Join(dir, "results.json")
		r := run(t, nil, "grade", "--chapter", "10", "--format", "gradescope", "-o", out, upload)
		data, err := os.ReadFile(out)
		require.NoError(t, err, "course grade --format gradescope -o %s %s: %s", out, upload, r.stderr)
		var res map[string]any
		require.NoError(t, json.Unmarshal(data, &res), string(data))
		return r, res
	}

	// A rejected file is graded at once, and is graded: not "holds no session.go".
	r, res := gradescope(map[string][]byte{"alice.go": src.rejected})
	assert.Equal(t, 1, r.code, r.stderr)
	assert.Contains(t, res["output"], `import "os" is not allowed`, "alice.go was read and checked")
	assert.NotEmpty(t, res["tests"], "an entry per exercise")

	r, res = gradescope(map[string][]byte{"alice.go": src.rejected, "helper.go": src.stub})
	assert.Equal(t, 2, r.code)
	const why = "holds no session.go, and 2 other .go files that could be it (alice.go, helper.go): name the one to grade session.go, or hand it in alone"
	assert.Contains(t, r.stderr, why)
	assert.Contains(t, res["output"], "Your submission "+why+".", "the student sees why in results.json")

	if testing.Short() {
		return
	}
	r, res = gradescope(map[string][]byte{"alice.go": src.solution})
	assert.Equal(t, 0, r.code, r.stderr)
	assert.EqualValues(t, 100, res["score"], "the reference solution uploaded as alice.go")
}

// ttyBuffer is a stream that says it is a terminal. Its lock makes it
// safe for the progress bar's writes.
type ttyBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *ttyBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *ttyBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func (*ttyBuffer) IsTerminal() bool { return true }

func runTTY(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut ttyBuffer
	f := &cli.Factory{Catalog: lab.Load, BuildInfo: debug.ReadBuildInfo,
		IO: cli.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}}
	code = cli.Run(f, args)
	return code, out.String(), errOut.String()
}

func TestGradeOnATerminal(t *testing.T) {
	dir := t.TempDir()
	src := labSources(t)
	a := loneFile(t, dir, "a", src.rejected)
	b := loneFile(t, dir, "b", src.rejected)

	t.Setenv("NO_COLOR", "")
	code, stdout, stderr := runTTY(t, "grade", a, b)
	assert.Equal(t, 1, code)
	assert.Contains(t, stdout, "a           \x1b[31mFAIL\x1b[0m  \x1b[31mFAIL\x1b[0m", "coloured, and aligned by what shows")
	assert.Contains(t, stderr, "grading", "a progress bar")
	assert.Contains(t, stderr, "/2)", "counting submissions")
	assert.True(t, strings.HasSuffix(stderr, " \rcourse grade: 2 of 2 submissions failed some exercise\n"), "the bar is cleared: %q", stderr)
	assert.NotContains(t, stderr, "graded a", "no per-submission lines on a terminal")

	code, stdout, _ = runTTY(t, "grade", a)
	assert.Equal(t, 1, code)
	assert.Contains(t, stdout, "\x1b[31mFAIL\x1b[0m")

	t.Setenv("NO_COLOR", "1")
	code, stdout, stderr = runTTY(t, "grade", a, b)
	assert.Equal(t, 1, code)
	assert.NotContains(t, stdout, "\x1b[", "NO_COLOR")
	assert.Contains(t, stdout, "a           FAIL  FAIL")
	assert.Contains(t, stderr, "grading", "NO_COLOR keeps the progress bar")

	t.Setenv("NO_COLOR", "")
	out := filepath.Join(dir, "report.txt")
	code, stdout, _ = runTTY(t, "grade", "-o", out, a)
	assert.Equal(t, 1, code)
	assert.Empty(t, stdout)
	data, err := os.ReadFile(out)
	require.NoError(t, err)
	assert.NotContains(t, string(data), "\x1b[", "no colour in a file")
}

// gradeWithContext runs the course command line with ctx, as a signal
// would cancel it, and returns its error.
func gradeWithContext(ctx context.Context, stderr *cancelOnWrite, args ...string) error {
	f := &cli.Factory{Catalog: lab.Load, BuildInfo: debug.ReadBuildInfo,
		IO: cli.IOStreams{In: strings.NewReader(""), Out: &bytes.Buffer{}, ErrOut: stderr}}
	root := cli.NewCmdRoot(f)
	root.SetArgs(args)
	return root.ExecuteContext(ctx)
}

// cancelOnWrite cancels a context when it is first written to, as a
// person pressing Ctrl-C after the first submission is graded.
type cancelOnWrite struct {
	mu     sync.Mutex
	buf    bytes.Buffer
	cancel context.CancelFunc
}

func (w *cancelOnWrite) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.cancel != nil {
		w.cancel()
	}
	return w.buf.Write(p)
}

func TestGradeInterruptedBeforeStarting(t *testing.T) {
	dir := t.TempDir()
	src := labSources(t)
	table := filepath.Join(dir, "grades.csv")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := gradeWithContext(ctx, &cancelOnWrite{}, "grade", "--csv", table,
		loneFile(t, dir, "a", src.stub), loneFile(t, dir, "b", src.stub), loneFile(t, dir, "c", src.stub))
	var ee *cli.ExitError
	require.ErrorAs(t, err, &ee)
	assert.Equal(t, 2, ee.Code)
	assert.Equal(t, "interrupted after 0 of 3 submissions", ee.Error())
	assert.Len(t, readCSV(t, table), 1, "the header only")
}

func TestGradeInterruptedKeepsWhatWasGraded(t *testing.T) {
	slow(t)
	dir := t.TempDir()
	src := labSources(t)
	table := filepath.Join(dir, "grades.csv")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stderr := &cancelOnWrite{cancel: cancel}
	// One at a time: the first finishes, the second is running when the
	// first's progress line cancels, the third never starts. The three
	// files differ, so that none takes the report of an identical one.
	file := func(name string) string {
		return loneFile(t, dir, name, append(slices.Clone(src.solution), "\n// "+name+"\n"...))
	}
	err := gradeWithContext(ctx, stderr, "grade", "--jobs", "1", "--csv", table, file("a"), file("b"), file("c"))
	var ee *cli.ExitError
	require.True(t, errors.As(err, &ee), "%v", err)
	assert.Equal(t, 2, ee.Code)
	assert.Equal(t, "interrupted after 1 of 3 submissions", ee.Error())
	rows := readCSV(t, table)
	require.Len(t, rows, 2)
	assert.Equal(t, []string{"a", "15", "20", "15", "15", "20", "15", "100", "100", "", "", ""}, rows[1])
	assert.Equal(t, "graded a 100/100 (1 of 3)\n", stderr.buf.String())
}

func TestGradeWarnsWhenTheSandboxIsNotFull(t *testing.T) {
	slow(t)
	p := loneFile(t, t.TempDir(), "carol", labSources(t).solution)

	r := run(t, nil, "grade", "--sandbox", "off", "--lab", "10.1", p)
	require.Equal(t, 0, r.code, r.stderr+r.stdout)
	assert.Regexp(t, `^warning: grading with isolation none: [^;\n]*; not protected: the grader's own user and files; `, r.stderr,
		"grade --sandbox off must say on stderr what the verdict is not protected from")
	assert.Contains(t, r.stdout, "isolation: none", "the report names the level too")
}
