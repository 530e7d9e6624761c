package grader

import (
	"context"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coursekit/course/grader/submission"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestBuildsLeaveNothingInTheSharedCache: a build that makes the compiler
// write 64 MiB of static data (the static wall is down, as if a literal
// had slipped past it) leaves nothing of it in any directory that outlives
// the grade: not the grader's build cache, not the go command's (the one
// grading builds share is left as the go command makes it), not the
// temporary directory.
func TestBuildsLeaveNothingInTheSharedCache(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a submission with 64 MiB of static data")
	}
	l := testLab(t)
	work, err := os.MkdirTemp("", "course-cache-*")
	require.NoError(t, err)
	require.NoError(t, os.Chmod(work, 0o711))
	t.Cleanup(func() { os.RemoveAll(work) })
	g := newSandboxedGrader(t, Options{Lab: l, Exercises: []string{"10.1"}, SkipPolicy: true, TempDir: work})

	dir := filepath.Join(t.TempDir(), "sub")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	src := string(solutionSource(t)) + "\nvar courseHuge = []byte{64 << 20: 1}\n\nfunc init() { _ = courseHuge[0] }\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "session.go"), []byte(src), 0o444))
	sub, err := submission.Read(dir, l.Editable)
	require.NoError(t, err)

	out, err := exec.Command(g.goBin, "env", "GOCACHE").Output()
	require.NoError(t, err)
	goCache := strings.TrimSpace(string(out))
	start := time.Now()
	rep, err := g.Grade(context.Background(), sub)
	require.NoError(t, err)
	require.True(t, rep.Build.OK, "the build of 64 MiB of data failed:\n%s", rep.Build.Output)

	cache := g.builder.Cache()
	require.True(t, cache.Shared, "the set-up found that builds cannot share the go command's own cache directory %s: every build makes its own", cache.Local())
	assert.NoError(t, cache.CheckLocal(), "after a build")
	for _, d := range []string{cache.Base, cache.Local(), goCache, os.TempDir()} {
		_ = filepath.WalkDir(d, func(p string, e fs.DirEntry, err error) error {
			if err != nil || e.IsDir() {
				return nil
			}
			if fi, err := e.Info(); err == nil && fi.Size() >= 48<<20 && !fi.ModTime().Before(start) {
				t.Errorf("%s (%d MiB, written during the grade) outlived it", p, fi.Size()>>20)
			}
			return nil
		})
	}
	entries, err := os.ReadDir(work)
	require.NoError(t, err)
	assert.Empty(t, entries, "the grade's work directory is gone with it")
}
