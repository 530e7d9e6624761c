//go:build linux

package grader

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/coursekit/course/grader/report"
	"github.com/coursekit/course/grader/sandbox"
	"github.com/coursekit/course/grader/submission"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// assertNoProcessLeft fails if any process still runs from the grader's
// work directory (bubblewrap names the binary's path there) or carries one
// of the markers (a fixture's child names its marker). Not by user id:
// other fixtures and test binaries of the course, running at the same
// time, grade with the same pool of ids.
func assertNoProcessLeft(t *testing.T, work string, markers ...string) {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	require.NoError(t, err)
	for _, e := range entries {
		status, err := os.ReadFile(filepath.Join("/proc", e.Name(), "status"))
		if err != nil || strings.Contains(string(status), "\nState:\tZ") {
			continue // gone, or a zombie waiting for its parent: runs nothing
		}
		cmdline, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		cl := strings.ReplaceAll(string(cmdline), "\x00", " ")
		if strings.Contains(cl, work) || slices.ContainsFunc(markers, func(m string) bool { return strings.Contains(cl, m) }) {
			t.Errorf("process %s is still running after grading: %s", e.Name(), cl)
		}
	}
}

// assertNothingWritten fails if a file of one of the user ids runs get is
// anywhere in the machine's shared temporary directories: student code
// writes only inside its run, which goes with it.
func assertNothingWritten(t *testing.T) {
	t.Helper()
	for _, dir := range []string{"/tmp", "/var/tmp", "/dev/shm"} {
		_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			info, err := d.Info()
			if err != nil {
				return nil
			}
			if st, ok := info.Sys().(*syscall.Stat_t); ok && st.Uid >= sandbox.UIDBase && st.Uid < sandbox.UIDBase+sandbox.UIDCount {
				t.Errorf("%s was written by student code (uid %d) and is still there", p, st.Uid)
			}
			return nil
		})
	}
}

// Without bubblewrap, the strict sandbox refuses to grade and says why and
// what the weaker level would leave open; "best" grades with that level,
// and the report names each mechanism it really used.
func TestWeakerSandboxIsRefusedUnlessAskedFor(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: grades submissions")
	}
	if os.Geteuid() != 0 {
		t.Skip("the level without bubblewrap (a uid of its own per run) needs the grader to run as root")
	}
	l := testLab(t)
	work := reachableTempDir(t)
	_, err := New(Options{Lab: l, TempDir: work, noBubblewrap: true})
	var se *sandbox.Error
	require.ErrorAs(t, err, &se, "New(strict, no bubblewrap) must refuse")
	assert.ErrorIs(t, err, sandbox.ErrSetup, "nothing can be graded: exit status 2")
	assert.Contains(t, err.Error(), "bubblewrap was turned off")
	assert.Contains(t, err.Error(), "world-readable files on the machine", "the refusal says what the weaker level leaves open")
	assert.Contains(t, err.Error(), "--sandbox best")
	assert.Equal(t, report.LevelPartial, se.Offered.Level)

	g, err := New(Options{Lab: l, Hidden: true, TempDir: work, Sandbox: sandbox.Best, Memory: 256 << 20, noBubblewrap: true})
	require.NoError(t, err)
	iso := g.Isolation()
	assert.Equal(t, report.LevelPartial, iso.Level)
	assert.True(t, iso.Has("uid"), "as root: a uid of its own per run: %s", iso.Name)
	assert.True(t, iso.Has("rlimits"), iso.Name)
	assert.False(t, iso.Has("mount"), "no private filesystem without bubblewrap: %s", iso.Name)
	assert.NotEmpty(t, iso.Missing)

	// It still grades right, leaves no process and cleans up after the run.
	marker := fmt.Sprintf("course-partial-%d", os.Getpid())
	// Nor can the nonce, the tests' list or the report be reached there.
	src := withInit(t, solutionSource(t), []string{"bytes"}, reachForTheReport+fmt.Sprintf(`_ = fio.AppendFile("/tmp/%s", []byte("left behind"))`, marker))
	rep, err := g.Grade(context.Background(), &submission.Submission{Name: "partial", Path: "partial", Files: map[string][]byte{"session.go": src}})
	require.NoError(t, err)
	assert.Equal(t, float64(rep.MaxScore), rep.Score, textReport(rep))
	assert.Equal(t, report.LevelPartial, rep.Isolation.Level)
	assert.NoFileExists(t, filepath.Join("/tmp", marker), "a run without a private filesystem: what it wrote in /tmp is removed after it")
	assertNoProcessLeft(t, work)
	assertNothingWritten(t)
}
