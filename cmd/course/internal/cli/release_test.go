package cli_test

import (
	"os"
	"path/filepath"
	"runtime/debug"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coursekit/course/cmd/course/internal/cli"
	"github.com/coursekit/course/grader/lab"
	"github.com/coursekit/course/grader/release"
	"github.com/coursekit/course/grader/release/releasetest"
	"github.com/coursekit/course/labs"
)

// courseCopy is a copy of the course source to make releases of; in a
// release, which is no source, the test skips.
func courseCopy(t *testing.T) string {
	t.Helper()
	releasetest.SkipInRelease(t, "a release is not a source to make a release of")
	return releasetest.CopySource(t)
}

func TestReleaseWritesAStudentRelease(t *testing.T) {
	src := courseCopy(t)
	dir := filepath.Join(t.TempDir(), "student")
	r := run(t, nil, "release", "--source", src, dir)
	require.Equal(t, cli.ExitOK, r.code, r.stderr)
	assert.Empty(t, r.stderr)
	assert.Contains(t, r.stdout, "Created the student release "+dir)
	for _, want := range []string{"solutions/", "labs/10-session/.hidden/", "hidden tests: only grading runs them",
		"docs/grading.md", ".ci/", "Made for the release:", "docs/lab10-rules.md", release.Marker} {
		assert.Contains(t, r.stdout, want)
	}
	assert.FileExists(t, filepath.Join(dir, release.Marker))
	assert.FileExists(t, filepath.Join(dir, "cmd", "course", "main.go"))
	assert.NoDirExists(t, filepath.Join(dir, "solutions", "10-session"))
	assert.NoDirExists(t, filepath.Join(dir, "labs", "10-session", lab.HiddenDir))
}

func TestReleaseFindsTheSourceFromTheWorkingDirectory(t *testing.T) {
	src := courseCopy(t)
	t.Chdir(filepath.Join(src, "grader", "lab"))
	dir := filepath.Join(t.TempDir(), "student")
	r := run(t, nil, "release", dir)
	require.Equal(t, cli.ExitOK, r.code, r.stderr)
	assert.Contains(t, r.stdout, "files from "+src)
}

func TestReleaseRefusesAndWritesNothing(t *testing.T) {
	src := courseCopy(t)
	full := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(full, "mine"), []byte("keep"), 0o644))
	elsewhere := t.TempDir()
	for name, tc := range map[string]struct {
		chdir string
		args  []string
		want  string
	}{
		"no dir":            {"", []string{"release", "--source", src}, "missing argument <dir>"},
		"two dirs":          {"", []string{"release", "--source", src, "a", "b"}, `unexpected argument "b"`},
		"non-empty target":  {"", []string{"release", "--source", src, full}, "cannot create the release: " + full + ": directory is not empty"},
		"inside the source": {"", []string{"release", "--source", src, filepath.Join(src, "dist")}, "is inside the course's source tree"},
		"not the course":    {"", []string{"release", "--source", elsewhere, filepath.Join(t.TempDir(), "r")}, "not the course's source tree"},
		"no source found":   {elsewhere, []string{"release", filepath.Join(t.TempDir(), "r")}, "pass --source"},
	} {
		t.Run(name, func(t *testing.T) {
			if tc.chdir != "" {
				t.Chdir(tc.chdir)
			}
			r := run(t, nil, tc.args...)
			assert.Equal(t, cli.ExitUsage, r.code)
			assert.Contains(t, r.stderr, tc.want)
			assert.Empty(t, r.stdout)
		})
	}
	entries, err := os.ReadDir(full)
	require.NoError(t, err)
	assert.Len(t, entries, 1, "the non-empty target is as it was")
	assert.NoDirExists(t, filepath.Join(src, "dist"))
}

func TestReleaseReportsALeakAndWritesNothing(t *testing.T) {
	src := courseCopy(t)
	cat, err := lab.LoadFS(os.DirFS(filepath.Join(src, "labs")), os.DirFS(filepath.Join(src, "solutions")))
	require.NoError(t, err)
	l, err := cat.Lookup("10")
	require.NoError(t, err)
	hidden := l.HiddenTests(l.Exercises[0].ID)
	require.NotEmpty(t, hidden)
	require.NoError(t, os.WriteFile(filepath.Join(src, "docs", "guide", "tip.md"), []byte("Run "+hidden[0]+" to see.\n"), 0o644))

	parent := t.TempDir()
	r := run(t, nil, "release", "--source", src, filepath.Join(parent, "student"))
	assert.Equal(t, cli.ExitFailure, r.code)
	assert.Contains(t, r.stderr, "docs/guide/tip.md: the name of hidden test "+hidden[0])
	assert.Contains(t, r.stderr, "nothing was written")
	entries, err := os.ReadDir(parent)
	require.NoError(t, err)
	assert.Empty(t, entries)
}

func TestSelfcheckInAStudentReleaseExits2(t *testing.T) {
	// A release's catalog: the labs, and a solutions module with no files.
	f := &cli.Factory{BuildInfo: debug.ReadBuildInfo, Catalog: func() (*lab.Catalog, error) {
		return lab.LoadFS(labs.FS, fstest.MapFS{})
	}}
	for _, args := range [][]string{{"selfcheck"}, {"selfcheck", "10"}} {
		r := run(t, f, args...)
		assert.Equal(t, cli.ExitUsage, r.code, args)
		assert.Contains(t, r.stderr, "not available in a student release")
		assert.NotContains(t, r.stderr, "--help", "not the command line's fault")
		assert.Empty(t, r.stdout)
	}
}
