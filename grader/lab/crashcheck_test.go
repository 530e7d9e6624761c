package lab_test

// The chapter's real test, labs/10-session/cmd/crashcheck, run the way a
// student runs it: `go run ./cmd/crashcheck` in a directory made from the
// lab. Like the proof, it runs the real go command, so -short skips it.

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coursekit/course/grader/release/releasetest"
)

func TestCrashCheckPassesOnTheSolution(t *testing.T) {
	goTool(t)
	t.Parallel()
	l := lab10(t)
	sol := releasetest.Solution(t, l) // skips in a student release, which has none
	dir := filepath.Join(t.TempDir(), "solution")
	require.NoError(t, l.WriteGradingDir(dir, sol, false))
	_, err := os.Stat(filepath.Join(dir, "cmd", "crashcheck", "main.go"))
	require.NoError(t, err, "the crash check is part of what a workspace gets")

	r := runGo(t, dir, "run", "./cmd/crashcheck", "-n", "100")
	require.Equal(t, 0, r.code, "go run ./cmd/crashcheck on the reference solution\n%s", r.tail())
	// Ids already in the pipe when the child was killed count too: at least 100.
	m := regexp.MustCompile(`all (\d+) reported ids are in the file, in the order they were committed`).FindStringSubmatch(r.stdout)
	require.NotNil(t, m, r.stdout)
	n, _ := strconv.Atoi(m[1])
	assert.GreaterOrEqual(t, n, 100)
	assert.Contains(t, r.stdout, "crashcheck: ok")
	assert.NotContains(t, r.stdout, "FAIL")
	if strings.Contains(r.stdout, "an unterminated tail") { // where the kill lands decides
		assert.Contains(t, r.stdout, "appending is refused as needing repair")
		assert.Contains(t, r.stdout, "10.7: the repaired copy takes appends again")
	}
}

func TestCrashCheckFailsOnTheStub(t *testing.T) {
	goTool(t)
	t.Parallel()
	l := lab10(t)
	dir := filepath.Join(t.TempDir(), "stub")
	require.NoError(t, l.WriteWorkspace(dir))
	r := runGo(t, dir, "run", "./cmd/crashcheck")
	assert.Equal(t, 1, r.code, "go run ./cmd/crashcheck on the stub\n%s", r.tail())
	assert.Contains(t, r.stdout, "FAIL  the child stopped after 0 committed entries")
	assert.Contains(t, r.stdout, "not implemented", "the child's reason is shown")
}
