package cli_test

import (
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coursekit/course/grader/lab"
)

// Which lab course grade grades against when --chapter does not say: the
// one the submissions say. These tests use files that the grader rejects
// before building (they import os), so that each is graded in no time.

// rejectedStub returns the stub of l with an import of os, which the
// grader refuses: a file of l's package that fails at once.
func rejectedStub(t *testing.T, l *lab.Lab) []byte {
	t.Helper()
	stub, err := l.Stub()
	require.NoError(t, err)
	clause := "package " + l.Package + "\n"
	require.Contains(t, string(stub), clause)
	return []byte(strings.Replace(string(stub), clause, clause+"\nimport _ \"os\"\n", 1))
}

// gradedLab returns the chapter that the report of one submission names.
func gradedLab(t *testing.T, stdout string) string {
	t.Helper()
	m := regexp.MustCompile(`(?m)^\S+  \(lab (\S+), `).FindStringSubmatch(stdout)
	require.NotNil(t, m, "no report header in:\n%s", stdout)
	return m[1]
}

func TestGradeTellsTheLabFromTheSubmission(t *testing.T) {
	c, err := lab.Load()
	require.NoError(t, err)
	require.Greater(t, len(c.Labs()), 1, "the course has several labs to choose from")
	for _, l := range c.Labs() {
		t.Run("lab "+l.Chapter, func(t *testing.T) {
			src := rejectedStub(t, l)
			dir := t.TempDir()

			// A lone file, whatever its name: its package clause says.
			lone := filepath.Join(dir, "mine.go")
			require.NoError(t, os.WriteFile(lone, src, 0o644))
			r := run(t, nil, "grade", lone)
			require.Equal(t, 1, r.code, "course grade %s: %s", lone, r.stderr)
			assert.Equal(t, l.Chapter, gradedLab(t, r.stdout), "course grade %s (a lone file of package %s)", lone, l.Package)

			// A directory holding the file the lab's students edit, and no
			// workspace file: its name and package clause say.
			sub := filepath.Join(dir, "handin")
			require.NoError(t, os.MkdirAll(filepath.Join(sub, "nested"), 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(sub, "nested", l.Editable[0]), src, 0o644))
			r = run(t, nil, "grade", sub)
			require.Equal(t, 1, r.code, "course grade %s: %s", sub, r.stderr)
			assert.Equal(t, l.Chapter, gradedLab(t, r.stdout), "course grade %s (holding nested/%s)", sub, l.Editable[0])

			// A practice workspace: its .course/workspace.json says.
			ws := filepath.Join(dir, "ws")
			require.NoError(t, l.WriteWorkspace(ws))
			require.NoError(t, os.WriteFile(filepath.Join(ws, l.Editable[0]), src, 0o644))
			r = run(t, nil, "grade", ws)
			require.Equal(t, 1, r.code, "course grade %s: %s", ws, r.stderr)
			assert.Equal(t, l.Chapter, gradedLab(t, r.stdout), "course grade %s (a workspace of lab %s)", ws, l.Chapter)
		})
	}
}

// A submission's .course/workspace.json is read only inside it: a .course
// that links to another workspace (another student's, of another lab), or
// a submission that is itself a link, is not followed to tell the lab.
func TestGradeTellsTheLabWithoutFollowingALink(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symbolic links need a privilege on Windows")
	}
	c, err := lab.Load()
	require.NoError(t, err)
	l10, err := c.Lookup("10")
	require.NoError(t, err)
	l11, err := c.Lookup("11")
	require.NoError(t, err)
	dir := t.TempDir()
	bob := filepath.Join(dir, "bob")
	require.NoError(t, l11.WriteWorkspace(bob))
	alice := filepath.Join(dir, "alice")
	require.NoError(t, os.Mkdir(alice, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(alice, "session.go"), rejectedStub(t, l10), 0o644))
	require.NoError(t, os.Symlink(filepath.Join(bob, ".course"), filepath.Join(alice, ".course")))
	carol := filepath.Join(dir, "carol")
	require.NoError(t, os.Symlink(bob, carol))
	dave := loneFile(t, dir, "dave", rejectedStub(t, l10))
	before := snapshot(t, dir)

	r := runSoon(t, nil, "grade", alice)
	require.Equal(t, 1, r.code, "course grade %s (its .course a link to a workspace of lab 11): %s", alice, r.stderr)
	assert.Equal(t, "10", gradedLab(t, r.stdout), "the package clause of its own session.go says, not the linked workspace file")

	r = runSoon(t, nil, "grade", carol, dave)
	require.Equal(t, 2, r.code, "course grade %s %s: %s", carol, dave, r.stderr)
	assert.Contains(t, r.stdout, "not graded: "+carol+": is a symbolic link, not a directory or a regular file; it is never followed or opened",
		"a submission that is a link says no lab: graded against dave's, and refused")
	assert.Contains(t, r.stderr, "course grade: 1 of 2 submissions could not be graded")
	assert.Equal(t, before, snapshot(t, dir), "the submissions are untouched")
}

func TestGradeChapterOverridesWhatTheSubmissionSays(t *testing.T) {
	c, err := lab.Load()
	require.NoError(t, err)
	first, last := c.Labs()[0], c.Labs()[len(c.Labs())-1]
	p := loneFile(t, t.TempDir(), "a", rejectedStub(t, first))
	r := run(t, nil, "grade", "--chapter", last.Chapter, p)
	require.Equal(t, 1, r.code, r.stderr)
	assert.Equal(t, last.Chapter, gradedLab(t, r.stdout))
	assert.Contains(t, r.stdout, "the file must be in package "+last.Package, "graded against the lab named, which refuses it")
}

func TestGradeAsksForTheChapterWhenTheLabCannotBeTold(t *testing.T) {
	c, err := lab.Load()
	require.NoError(t, err)
	known := "name the lab with --chapter (known: " + strings.Join(c.Chapters(), ", ") + ")"
	dir := t.TempDir()
	mainFile := loneFile(t, dir, "main", []byte("package main\n\nfunc main() {}\n"))
	noClause := loneFile(t, dir, "broken", []byte("this is not Go\n"))
	labA, labB := c.Labs()[0], c.Labs()[1]
	a := loneFile(t, dir, "a", rejectedStub(t, labA))
	b := loneFile(t, dir, "b", rejectedStub(t, labB))
	missing := filepath.Join(dir, "missing.go")
	empty := filepath.Join(dir, "empty")
	require.NoError(t, os.Mkdir(empty, 0o755))

	for _, tc := range []struct {
		args []string
		want string // the one line on stderr
	}{
		{[]string{mainFile}, "cannot tell the lab of " + mainFile + ": it is package main, which is no lab's (the labs: "},
		{[]string{noClause}, "cannot tell the lab of " + noClause + ": it has no package clause"},
		{[]string{mainFile, noClause}, "(and 1 more submissions whose lab cannot be told)"},
		{[]string{a, b}, "the submissions are of different labs (chapter " + labA.Chapter + ": " + a + "; chapter " + labB.Chapter + ": " + b + "), so grade each lab apart"},
	} {
		r := run(t, nil, append([]string{"grade"}, tc.args...)...)
		assert.Equal(t, 2, r.code, "course grade %v", tc.args)
		assert.Empty(t, r.stdout, "course grade %v", tc.args)
		assert.Contains(t, r.stderr, tc.want, "course grade %v", tc.args)
		assert.True(t, strings.HasSuffix(r.stderr, ": "+known+"\nRun 'course grade --help' for usage.\n"),
			"course grade %v: one line that names the chapters and --chapter, then the pointer to help; got %q", tc.args, r.stderr)
	}

	// A path that cannot be read is the likelier mistake: it is reported
	// first, and is not a mistake on the command line.
	for _, args := range [][]string{{missing}, {missing, mainFile}, {mainFile, missing}} {
		r := run(t, nil, append([]string{"grade"}, args...)...)
		assert.Equal(t, 2, r.code, "course grade %v", args)
		assert.Equal(t, "course grade: "+missing+": cannot read: no such file or directory\n", r.stderr, "course grade %v", args)
	}
	r := run(t, nil, "grade", empty)
	assert.Equal(t, 2, r.code)
	assert.Equal(t, "course grade: "+empty+": holds no "+strings.Join(c.EditableNames(), " or ")+"\n", r.stderr,
		"no lab finds its file: the message names every lab's")
}

func TestGradeOfOneLabGradesWhatNoLabCouldRead(t *testing.T) {
	// One submission says its lab; the others are graded against it, and
	// the unreadable one is a row that says why.
	dir := t.TempDir()
	a := loneFile(t, dir, "a", labSources(t).rejected)
	missing := filepath.Join(dir, "missing.go")
	r := run(t, nil, "grade", a, missing)
	assert.Equal(t, 2, r.code, r.stderr)
	assert.Contains(t, r.stdout, "missing")
	assert.Contains(t, r.stdout, "cannot read: no such file or directory")
}
