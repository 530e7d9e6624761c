package cli_test

import (
	"archive/zip"
	"encoding/xml"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coursekit/course/grader/autograder/autogradertest"
	"github.com/coursekit/course/grader/lab"
)

// zipNames lists the entries of the zip at p, with whether each is executable.
func zipNames(t *testing.T, p string) map[string]bool {
	t.Helper()
	zr, err := zip.OpenReader(p)
	require.NoError(t, err)
	defer zr.Close()
	out := map[string]bool{}
	for _, f := range zr.File {
		out[f.Name] = f.Mode().Perm()&0o111 != 0
	}
	return out
}

func TestAutograderGradescopeBuildsABundle(t *testing.T) {
	// A clean checkout of the course as it is on disk; the command finds
	// the course's root above its working directory.
	root := autogradertest.Checkout(t, filepath.Join("..", "..", "..", ".."))
	out := filepath.Join(t.TempDir(), "autograder.zip")
	t.Chdir(filepath.Join(root, "cmd", "course"))
	r := run(t, nil, "autograder", "gradescope", "--chapter", "10", out)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Regexp(t, `^Wrote .*autograder\.zip: setup\.sh, run_autograder and \d+ files of the course at `, r.stdout)
	assert.Contains(t, r.stdout, "Grades lab 10 (6 exercises, 100 points) with its public and hidden tests.")
	assert.Contains(t, r.stdout, "never give it to students")
	names := zipNames(t, out)
	assert.True(t, names["setup.sh"])
	assert.True(t, names["run_autograder"])
	assert.Contains(t, names, "cmd/course/main.go")

	assert.Contains(t, zipFile(t, out, "run_autograder"), `grade --chapter 10 --memory 512MiB --runs 1 --budget 2m0s --format gradescope --force -o "$results" "$AUTOGRADER_ROOT/submission"`)

	// An existing bundle is replaced only with --force.
	before, err := os.ReadFile(out)
	require.NoError(t, err)
	r = run(t, nil, "autograder", "gradescope", "--chapter", "10", "--bonus", out)
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "autograder.zip exists; use --force to replace it")
	after, err := os.ReadFile(out)
	require.NoError(t, err)
	assert.Equal(t, before, after, "the refused run left the bundle alone")
	r = run(t, nil, "autograder", "gradescope", "--chapter", "10", "--bonus", "--timeout", "20s", "--force", out)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "Grades lab 10 (7 exercises, 110 points)")
	assert.Contains(t, zipFile(t, out, "run_autograder"), "grade --chapter 10 --memory 512MiB --runs 1 --budget 2m0s --bonus --timeout 20s --format gradescope")

	// A Go release the course has no sums of, with the sums given.
	amd, arm := strings.Repeat("1", 64), strings.Repeat("2", 64)
	r = run(t, nil, "autograder", "gradescope", "--chapter", "10", "--go-version", "go1.30.1", "--go-sha256", "amd64="+amd+",arm64="+arm,
		"--memory", "384MiB", "--budget", "3m", "--force", out)
	require.Equal(t, 0, r.code, r.stderr)
	setup := zipFile(t, out, "setup.sh")
	assert.Contains(t, setup, `GO_VERSION="go1.30.1"`)
	assert.Contains(t, setup, `GO_SHA256_amd64="`+amd+`"`)
	assert.Contains(t, setup, `GO_SHA256_arm64="`+arm+`"`)
	assert.Contains(t, zipFile(t, out, "run_autograder"), "grade --chapter 10 --memory 384MiB --runs 1 --budget 3m0s --format gradescope")
}

// zipFile returns the content of entry name of the zip at p.
func zipFile(t *testing.T, p, name string) string {
	t.Helper()
	zr, err := zip.OpenReader(p)
	require.NoError(t, err)
	defer zr.Close()
	f, err := zr.Open(name)
	require.NoError(t, err)
	defer f.Close()
	data, err := io.ReadAll(f)
	require.NoError(t, err)
	return string(data)
}

func TestAutograderGradescopeLeavesItselfOutOfTheTree(t *testing.T) {
	tree := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(tree, "go.mod"), []byte("module github.com/coursekit/course\n\ngo 1.24.0\n"), 0o644))
	require.NoError(t, autogradertest.CommitAll(tree))
	out := filepath.Join(tree, "autograder.zip")
	for _, force := range []string{"--force=false", "--force"} {
		r := run(t, nil, "autograder", "gradescope", "--chapter", "10", "--source", tree, force, out)
		require.Equal(t, 0, r.code, r.stderr)
	}
	names := zipNames(t, out)
	assert.Equal(t, map[string]bool{"setup.sh": true, "run_autograder": true, "go.mod": false}, names)
	entries, err := os.ReadDir(tree)
	require.NoError(t, err)
	assert.Len(t, entries, 3, "no temporary file left behind (go.mod, .git, the bundle)")
}

func TestAutograderGradescopeRefusesADirtyCheckout(t *testing.T) {
	tree := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(tree, "go.mod"), []byte("module github.com/coursekit/course\n\ngo 1.24.0\n"), 0o644))
	require.NoError(t, autogradertest.CommitAll(tree))
	require.NoError(t, os.WriteFile(filepath.Join(tree, "go.mod"), []byte("module github.com/coursekit/course\n\ngo 1.25.0\n"), 0o644))
	// Untracked files never go into a bundle, and do not make it dirty.
	require.NoError(t, os.WriteFile(filepath.Join(tree, "grades.csv"), []byte("alice,100\n"), 0o644))
	out := filepath.Join(t.TempDir(), "autograder.zip")

	r := run(t, nil, "autograder", "gradescope", "--chapter", "10", "--source", tree, out)
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "uncommitted changes: go.mod")
	assert.Contains(t, r.stderr, "--allow-dirty")
	assert.NoFileExists(t, out)

	r = run(t, nil, "autograder", "gradescope", "--chapter", "10", "--allow-dirty", "--sandbox", "best", "--source", tree, out)
	require.Equal(t, 0, r.code, r.stderr)
	names := zipNames(t, out)
	assert.Equal(t, map[string]bool{"setup.sh": true, "run_autograder": true, "go.mod": false}, names, "never grades.csv")
	assert.Contains(t, zipFile(t, out, "run_autograder"), "--sandbox best")
}

func TestAutograderUsageErrors(t *testing.T) {
	dir := t.TempDir()
	notCourse := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(notCourse, "go.mod"), []byte("module example.com/other\n"), 0o644))
	ws := workspace(t, t.TempDir(), "ws", labSources(t).stub)
	gradescope := []string{"autograder", "gradescope", "--chapter", "10"}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"autograder", "moodle"}, `unknown platform "moodle" (known: gradescope, classroom50, github, gitlab)`},
		{[]string{"autograder", "classroom", ws}, "GitHub Classroom was discontinued: use classroom50 (Classroom 50, its successor) or github"},
		{[]string{"autograder", "gradescope"}, "missing argument <out.zip>"},
		{append(gradescope, "--source", notCourse, filepath.Join(dir, "a.zip")), `is module "example.com/other", not the course`},
		{append(gradescope, "--source", dir, filepath.Join(dir, "a.zip")), "--source " + dir},
		{append(gradescope, filepath.Join(dir, "no", "a.zip")), "does not exist"},
		{append(gradescope, dir), "is a directory"},
		{append(gradescope, "--tests", filepath.Join(dir, "none"), filepath.Join(dir, "a.zip")), "--tests"},
		{[]string{"autograder", "gradescope", "--chapter", "99", filepath.Join(dir, "a.zip")}, `99`},
		{append(gradescope, "--go-version", "1.26", filepath.Join(dir, "a.zip")), "not a release name"},
		{append(gradescope, "--timeout", "0s", filepath.Join(dir, "a.zip")), "--timeout 0s: must be positive"},
		{append(gradescope, "--go-version", "go1.21.0", filepath.Join(dir, "a.zip")), "no pinned SHA-256 for go1.21.0's archives: pass --go-sha256"},
		{append(gradescope, "--go-sha256", "amd64=xyz", filepath.Join(dir, "a.zip")), "not a SHA-256 in hex"},
		{append(gradescope, "--budget", "9m", filepath.Join(dir, "a.zip")), "at most 5m0s"},
		{append(gradescope, "--memory", "lots", filepath.Join(dir, "a.zip")), `memory "lots"`},
		{[]string{"autograder", "classroom50"}, "missing argument <dir>"},
		{[]string{"autograder", "classroom50", "--chapter", "10", "--timeout", "0s", dir}, "--timeout 0s: must be positive"},
		{[]string{"autograder", "classroom50", "--chapter", "10", "--go-version", "1.26", dir}, "not a release name"},
		{[]string{"autograder", "classroom50", "--chapter", "10", filepath.Join(ws, "go.mod")}, "not a directory"},
		{[]string{"autograder", "github", "--course-repo", "a/b"}, "missing argument <dir>"},
		{[]string{"autograder", "github", "--course-repo", "a/b", filepath.Join(dir, "missing")}, "not a directory"},
		{[]string{"autograder", "github", "--course-repo", "a/b", dir}, "not a practice workspace (no go.mod)"},
		{[]string{"autograder", "github", ws}, "--course-repo is required"},
		{[]string{"autograder", "github", "--course-repo", "https://github.com/a/b", ws}, "not OWNER/NAME"},
		{[]string{"autograder", "github", "--course-repo", "a/b", "--course-ref", "$(id)", ws}, "not a branch or tag name"},
		{[]string{"autograder", "gitlab", "--course-repo", "a/b", ws}, "not a git URL"},
		{[]string{"autograder", "gitlab", "--course-repo", "https://x/a.git", "--timeout", "0s", ws}, "--timeout 0s: must be positive"},
		{[]string{"autograder", "report", filepath.Join(dir, "missing.json")}, "missing.json"},
		{[]string{"autograder", "report", "--format", "html", filepath.Join(dir, "missing.json")}, `unknown --format "html"`},
	} {
		r := run(t, nil, c.args...)
		assert.Equal(t, 2, r.code, "%v: %s", c.args, r.stdout)
		assert.Contains(t, r.stderr, c.want, "%v", c.args)
		assert.Empty(t, r.stdout, "%v", c.args)
	}
	_, err := os.Stat(filepath.Join(dir, "a.zip"))
	assert.ErrorIs(t, err, os.ErrNotExist, "nothing written on a usage error")
}

func TestAutograderGradescopeNeedsTheChapterOfACourseOfSeveralLabs(t *testing.T) {
	c, err := lab.Load()
	require.NoError(t, err)
	require.Greater(t, len(c.Labs()), 1, "the course has several labs")
	out := filepath.Join(t.TempDir(), "autograder.zip")
	r := run(t, nil, "autograder", "gradescope", out)
	assert.Equal(t, 2, r.code)
	assert.Empty(t, r.stdout)
	assert.Equal(t, "course autograder gradescope: the course has "+strconv.Itoa(len(c.Labs()))+" labs: "+
		"name the lab with --chapter (known: "+strings.Join(c.Chapters(), ", ")+")\n"+
		"Run 'course autograder gradescope --help' for usage.\n", r.stderr)
	assert.NoFileExists(t, out)
}

// junitDoc is what the checks read of a JUnit report.
type junitDoc struct {
	XMLName  xml.Name `xml:"testsuites"`
	Name     string   `xml:"name,attr"`
	Tests    int      `xml:"tests,attr"`
	Failures int      `xml:"failures,attr"`
	Errors   int      `xml:"errors,attr"`
	Suites   []struct {
		Name     string `xml:"name,attr"`
		Tests    int    `xml:"tests,attr"`
		Failures int    `xml:"failures,attr"`
		Errors   int    `xml:"errors,attr"`
	} `xml:"testsuite"`
}

func TestGradeJUnitOfARejectedFile(t *testing.T) {
	p := loneFile(t, t.TempDir(), "eve", labSources(t).rejected)
	r := run(t, nil, "grade", "--format", "junit", p)
	require.Equal(t, 1, r.code, r.stderr)
	var doc junitDoc
	require.NoError(t, xml.Unmarshal([]byte(r.stdout), &doc), r.stdout)
	assert.Equal(t, "eve", doc.Name)
	require.Len(t, doc.Suites, 6)
	assert.Equal(t, "10.1 PathTo", doc.Suites[0].Name)
	for _, s := range doc.Suites {
		assert.Equal(t, 1, s.Errors, "%s has one error: the rejected file, which ran no test", s.Name)
	}
	assert.Equal(t, 6, doc.Errors)

	out := filepath.Join(t.TempDir(), "eve.xml")
	r = run(t, nil, "grade", "--format", "junit", "-o", out, p)
	require.Equal(t, 1, r.code, r.stderr)
	assert.Empty(t, r.stdout)
	data, err := os.ReadFile(out)
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(string(data), "<?xml"))
}

// A class in JUnit: one file, a suite per submission, each rejected file's
// verdict an <error> (no test ran), the people's summary on stderr.
func TestGradeJUnitOfAClass(t *testing.T) {
	dir := t.TempDir()
	src := labSources(t)
	r := run(t, nil, "grade", "--format", "junit", loneFile(t, dir, "a", src.rejected), loneFile(t, dir, "b", src.rejected))
	require.Equal(t, 1, r.code, r.stderr)
	var doc struct {
		Suites []struct {
			Name   string `xml:"name,attr"`
			Errors int    `xml:"errors,attr"`
		} `xml:"testsuite"`
	}
	require.NoError(t, xml.Unmarshal([]byte(r.stdout), &doc), r.stdout)
	require.Len(t, doc.Suites, 2, "one suite per submission")
	assert.Equal(t, "a", doc.Suites[0].Name)
	assert.Equal(t, "b", doc.Suites[1].Name)
	for _, s := range doc.Suites {
		assert.Positive(t, s.Errors, "%s was rejected before building: its verdict is an error, not a failure", s.Name)
	}
	assert.Contains(t, r.stderr, "2 graded: mean 0, median 0 of 100", "the summary goes to stderr beside the XML")
}

func TestGradeJUnitOfTheSolution(t *testing.T) {
	slow(t)
	p := loneFile(t, t.TempDir(), "alice", labSources(t).solution)
	r := run(t, nil, "grade", "--format", "junit", p)
	require.Equal(t, 0, r.code, r.stderr+r.stdout)
	var doc junitDoc
	require.NoError(t, xml.Unmarshal([]byte(r.stdout), &doc), r.stdout)
	require.Len(t, doc.Suites, 6)
	assert.Zero(t, doc.Failures)
	total := 0
	for _, e := range lab10(t).Exercises {
		if !e.Bonus {
			total += len(lab10(t).PublicTests(e.ID)) + len(lab10(t).HiddenTests(e.ID))
		}
	}
	assert.Equal(t, total, doc.Tests, "one test case per public and hidden test")
}
