package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coursekit/course/grader/release/releasetest"
)

func TestAutograderClassroom50WritesTheGradingFiles(t *testing.T) {
	releasetest.SkipInRelease(t, "the command makes a student release, which a release cannot make of itself")
	dir := filepath.Join(t.TempDir(), "go-fall", "autograders", "lab10")
	r := run(t, nil, "autograder", "classroom50", "--chapter", "10", "--go-version", "go1.25.4", dir)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "lab 10, public tests only")
	assert.Contains(t, r.stdout, "--runtime "+filepath.Join(dir, "runtime.json"))

	var rt map[string]string
	data, err := os.ReadFile(filepath.Join(dir, "runtime.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &rt))
	assert.Equal(t, map[string]string{"runs-on": "ubuntu-latest", "go": "1.25.4"}, rt)
	fi, err := os.Stat(filepath.Join(dir, "autograder.py"))
	require.NoError(t, err)
	assert.NotZero(t, fi.Mode().Perm()&0o100, "autograder.py is executable")
	assert.FileExists(t, filepath.Join(dir, "course", "RELEASE"), "the course tool's source is a student release")
	assert.NoDirExists(t, filepath.Join(dir, "course", "labs", "10-session", ".hidden"), "no hidden tests beside autograder.py")

	r = run(t, nil, "autograder", "classroom50", "--chapter", "10", dir)
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "autograder.py exists; use --force to replace it")

	require.NoError(t, os.WriteFile(filepath.Join(dir, "course", "stale.txt"), []byte("x"), 0o644))
	r = run(t, nil, "autograder", "classroom50", "--chapter", "10", "--bonus", "--force", dir)
	require.Equal(t, 0, r.code, r.stderr)
	script, err := os.ReadFile(filepath.Join(dir, "autograder.py"))
	require.NoError(t, err)
	assert.Contains(t, string(script), `"--bonus"`)
	assert.NoFileExists(t, filepath.Join(dir, "course", "stale.txt"), "--force makes the release anew")
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Len(t, entries, 3, "autograder.py, runtime.json, course: no temporary directory left")
}

func TestAutograderClassroom50NeverRemovesADirectoryItDidNotMake(t *testing.T) {
	dir := t.TempDir()
	mine := filepath.Join(dir, "course")
	require.NoError(t, os.MkdirAll(mine, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(mine, "notes.md"), []byte("mine"), 0o644))
	r := run(t, nil, "autograder", "classroom50", "--chapter", "10", "--force", dir)
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "is not a student release of the course; not replacing it")
	assert.FileExists(t, filepath.Join(mine, "notes.md"))
}

func TestAutograderGitHubAndGitLabWriteTheirFiles(t *testing.T) {
	for _, c := range []struct {
		platform, repo, file, want string
	}{
		{"github", "teach/course-student", ".github/workflows/grade.yml", "repository: teach/course-student\n"},
		{"gitlab", "https://gitlab.example.com/teach/course-student.git", ".gitlab-ci.yml", "COURSE_REPO: https://gitlab.example.com/teach/course-student.git\n"},
	} {
		t.Run(c.platform, func(t *testing.T) {
			ws := workspace(t, t.TempDir(), "lab10-template", labSources(t).stub)
			r := run(t, nil, "autograder", c.platform, "--course-repo", c.repo, ws)
			require.Equal(t, 0, r.code, r.stderr)
			p := filepath.Join(ws, filepath.FromSlash(c.file))
			assert.Equal(t, "Wrote "+p+": grades lab 10 with the course tool of "+c.repo+".\n", strings.SplitAfter(r.stdout, "\n")[0])
			data, err := os.ReadFile(p)
			require.NoError(t, err)
			assert.Contains(t, string(data), c.want)
			assert.Contains(t, string(data), `grade --chapter 10 --sandbox best --json -o "$REPORTS/report.json"`)

			r = run(t, nil, "autograder", c.platform, "--course-repo", c.repo, ws)
			assert.Equal(t, 2, r.code)
			assert.Contains(t, r.stderr, filepath.Base(c.file)+" exists; use --force to replace it")

			r = run(t, nil, "autograder", c.platform, "--course-repo", c.repo, "--bonus", "--timeout", "45s", "--course-ref", "v2", "--force", ws)
			require.Equal(t, 0, r.code, r.stderr)
			data, err = os.ReadFile(p)
			require.NoError(t, err)
			assert.Contains(t, string(data), "grade --chapter 10 --sandbox best --bonus --timeout 45s --json")
		})
	}
}

func TestAutograderReportConvertsAGradedReport(t *testing.T) {
	dir := t.TempDir()
	p := loneFile(t, dir, "eve", labSources(t).rejected)
	report := filepath.Join(dir, "report.json")
	r := run(t, nil, "grade", "--json", "-o", report, p)
	require.Equal(t, 1, r.code, r.stderr)

	r = run(t, nil, "autograder", "report", "--format", "markdown", report)
	require.Equal(t, 0, r.code, r.stderr)
	assert.True(t, strings.HasPrefix(r.stdout, "### Lab 10: 0 of 100 points\n"), r.stdout)
	assert.Contains(t, r.stdout, "| 10.1 | PathTo | **fail** |")

	r = run(t, nil, "autograder", "report", report)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "rejected before building")

	junit := filepath.Join(dir, "junit.xml")
	r = run(t, nil, "autograder", "report", "--format", "junit", "-o", junit, report)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Empty(t, r.stdout)
	data, err := os.ReadFile(junit)
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(string(data), "<?xml"))

	r = run(t, nil, "autograder", "report", "--format", "junit", "-o", junit, report)
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "junit.xml exists; use --force to replace it")
	r = run(t, nil, "autograder", "report", "--format", "junit", "-o", junit, "--force", report)
	assert.Equal(t, 0, r.code, r.stderr)

	class := filepath.Join(dir, "class.json")
	require.NoError(t, os.WriteFile(class, []byte(`[{"submission": "a"}]`), 0o644))
	r = run(t, nil, "autograder", "report", class)
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "holds the reports of several submissions")
	other := filepath.Join(dir, "results.json")
	require.NoError(t, os.WriteFile(other, []byte(`{"score": 1, "tests": []}`), 0o644))
	r = run(t, nil, "autograder", "report", other)
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "not a report of course grade --json")
}
