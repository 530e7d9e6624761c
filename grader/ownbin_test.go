package grader

import (
	"context"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/coursekit/course/grader/report"
	"github.com/coursekit/course/grader/submission"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestOwnCodeBinaryIsKeptAndStudentCodeIsNot: a build of the course's own
// code keeps its test binary under a name made of everything the build
// reads, so grading the same files again neither compiles nor links, and a
// changed file is built anew; a build of student code keeps nothing there.
func TestOwnCodeBinaryIsKeptAndStudentCodeIsNot(t *testing.T) {
	if testing.Short() {
		t.Skip("builds submissions")
	}
	t.Parallel()
	l := testLab(t)
	dir := t.TempDir()
	grade := func(g *Grader, src []byte) *report.Report {
		t.Helper()
		rep, err := g.Grade(context.Background(), &submission.Submission{Name: "own", Path: "own", Files: map[string][]byte{"session.go": src}})
		require.NoError(t, err)
		require.True(t, rep.Build.OK, rep.Build.Output)
		return rep
	}
	src := solutionSource(t)

	own := newSandboxedGrader(t, Options{Lab: l, Exercises: []string{"10.1"}, SkipPolicy: true, OwnCode: true, ownBinDir: dir})
	first := grade(own, src)
	assert.Positive(t, first.Build.Seconds, "the first build of these files compiles and links")
	kept := keptSince(t, dir, time.Time{})
	again := grade(own, src)
	assert.Zero(t, again.Build.Seconds, "the same files graded again take the kept binary: no go command runs")
	assert.Equal(t, first.Score, again.Score)
	assert.Equal(t, slices.Sorted(maps.Keys(kept)), slices.Sorted(maps.Keys(keptSince(t, dir, time.Time{}))), "nothing new is kept for the same files")

	changed := grade(own, append(src, "\nvar courseOwnBinaryTestChanged = 1\n"...))
	assert.Positive(t, changed.Build.Seconds, "a changed file is built anew")
	assert.Len(t, keptSince(t, dir, time.Time{}), len(kept)+1, "and kept under a name of its own")

	student := newSandboxedGrader(t, Options{Lab: l, Exercises: []string{"10.1"}, SkipPolicy: true, ownBinDir: dir})
	start := time.Now()
	rep := grade(student, src)
	assert.Positive(t, rep.Build.Seconds, "a student's file is built even when the course kept a binary of the same files")
	for name, mod := range keptSince(t, dir, start) {
		t.Errorf("a student's build kept %s (written %s): student code keeps nothing", name, mod)
	}
}

// keptSince lists the kept binaries of dir written at or after t.
func keptSince(t *testing.T, dir string, since time.Time) map[string]time.Time {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	out := map[string]time.Time{}
	for _, e := range entries {
		if fi, err := e.Info(); err == nil && filepath.Ext(e.Name()) == ".test" && !fi.ModTime().Before(since) {
			out[e.Name()] = fi.ModTime()
		}
	}
	return out
}
