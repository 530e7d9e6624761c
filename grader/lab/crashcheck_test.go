package lab_test

// The chapters' real test, a lab's cmd/crashcheck (labs/NN-slug/cmd/crashcheck,
// where a lab has one), run the way a student runs it: `go run
// ./cmd/crashcheck` in a directory made from the lab. Like the proof, it
// runs the real go command, so -short skips it.

import (
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coursekit/course/grader/lab"
	"github.com/coursekit/course/grader/release/releasetest"
	"github.com/coursekit/course/labs"
)

// eachCrashCheck runs check for every lab that has a crash check.
func eachCrashCheck(t *testing.T, check func(t *testing.T, l *lab.Lab)) {
	t.Helper()
	var n atomic.Int32 // the labs with a crash check; the subtests run in parallel
	eachLab(t, func(t *testing.T, l *lab.Lab) {
		if _, err := fs.Stat(labs.FS, path.Join(l.Slug, "cmd", "crashcheck", "main.go")); err != nil {
			t.Skipf("lab %s has no cmd/crashcheck", l.Chapter)
		}
		n.Add(1)
		check(t, l)
	})
	t.Cleanup(func() {
		if n.Load() == 0 && !t.Skipped() {
			t.Error("no lab has a crash check to run")
		}
	})
}

func TestCrashCheckPassesOnTheSolution(t *testing.T) {
	eachCrashCheck(t, func(t *testing.T, l *lab.Lab) {
		sol := releasetest.Solution(t, l) // skips in a student release, which has none
		dir := filepath.Join(t.TempDir(), "solution")
		require.NoError(t, l.WriteGradingDir(dir, sol, false))
		_, err := os.Stat(filepath.Join(dir, "cmd", "crashcheck", "main.go"))
		require.NoError(t, err, "the crash check is part of what a workspace gets")

		r := runGo(t, dir, "run", "./cmd/crashcheck", "-n", "100")
		require.Equal(t, 0, r.code, "go run ./cmd/crashcheck -n 100 on the reference solution of lab %s\n%s", l.Chapter, r.tail())
		assert.Contains(t, r.stdout, "crashcheck: ok")
		assert.NotContains(t, r.stdout, "FAIL")
		if l.Chapter != "10" {
			return
		}
		// Ids already in the pipe when the child was killed count too: at least 100.
		m := regexp.MustCompile(`all (\d+) reported ids are in the file, in the order they were committed`).FindStringSubmatch(r.stdout)
		require.NotNil(t, m, r.stdout)
		n, _ := strconv.Atoi(m[1])
		assert.GreaterOrEqual(t, n, 100)
		if strings.Contains(r.stdout, "an unterminated tail") { // where the kill lands decides
			assert.Contains(t, r.stdout, "appending is refused as needing repair")
			assert.Contains(t, r.stdout, "10.7: the repaired copy takes appends again")
		}
	})
}

func TestCrashCheckFailsOnTheStub(t *testing.T) {
	eachCrashCheck(t, func(t *testing.T, l *lab.Lab) {
		dir := filepath.Join(t.TempDir(), "stub")
		require.NoError(t, l.WriteWorkspace(dir))
		r := runGo(t, dir, "run", "./cmd/crashcheck")
		assert.Equal(t, 1, r.code, "go run ./cmd/crashcheck on the stub of lab %s\n%s", l.Chapter, r.tail())
		assert.Contains(t, r.stdout, "  FAIL  ", "a line of the report says what failed")
		assert.Contains(t, r.stdout, "not implemented", "the child's reason is shown")
		if l.Chapter == "10" {
			assert.Contains(t, r.stdout, "FAIL  the child stopped after 0 committed entries")
		}
	})
}
