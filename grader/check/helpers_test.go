package check

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/coursekit/course/grader/lab"
	"github.com/coursekit/course/grader/release/releasetest"
)

// testLab is lab 10, whose file the checks below are written against.
func testLab(t testing.TB) *lab.Lab {
	t.Helper()
	cat, err := lab.Load()
	require.NoError(t, err)
	l, err := cat.Lookup("10")
	require.NoError(t, err)
	return l
}

func stubSource(t testing.TB) []byte {
	t.Helper()
	src, err := testLab(t).Stub()
	require.NoError(t, err)
	return src
}

// solutionSource is lab 10's reference solution; in a student release,
// which has none, it skips t.
func solutionSource(t testing.TB) []byte {
	t.Helper()
	return releasetest.Solution(t, testLab(t))
}
