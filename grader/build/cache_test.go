package build

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coursekit/course/grader/lab"
	"github.com/coursekit/course/grader/sandbox"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// asGoLeavesIt makes dir what the go command leaves in a GOCACHE it does
// not use: a README and the directories 00 to ff, empty.
func asGoLeavesIt(t *testing.T, dir string) {
	t.Helper()
	for i := 0; i < 256; i++ {
		require.NoError(t, os.MkdirAll(filepath.Join(dir, fmt.Sprintf("%02x", i)), 0o700))
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, "README"), []byte("This directory holds cached build artifacts\n"), 0o600))
}

func TestCacheCheckLocalTakesOnlyWhatTheGoCommandMakes(t *testing.T) {
	c := &Cache{Base: filepath.Join(t.TempDir(), "gocache-x"), Shared: true}
	require.NoError(t, os.Mkdir(c.Local(), 0o700))
	assert.NoError(t, c.CheckLocal(), "CheckLocal of a new, empty directory")
	asGoLeavesIt(t, c.Local())
	assert.NoError(t, c.CheckLocal(), "CheckLocal of a README and 256 empty directories")

	for name, stray := range map[string]string{
		"an entry in a directory":     "ab/0123abcd-d",
		"a file beside README":        "trim.txt",
		"a directory of another name": "AB/",
	} {
		t.Run(name, func(t *testing.T) {
			p := filepath.Join(c.Local(), stray)
			if strings.HasSuffix(stray, "/") {
				require.NoError(t, os.Mkdir(p, 0o700))
			} else {
				require.NoError(t, os.WriteFile(p, []byte("x"), 0o600))
			}
			t.Cleanup(func() { os.Remove(p) })
			err := c.CheckLocal()
			assert.ErrorIs(t, err, ErrLocalWritten, "CheckLocal with %s in it: builds must stop sharing it", stray)
		})
	}
	require.NoError(t, os.RemoveAll(c.Local()))
	assert.ErrorIs(t, c.CheckLocal(), ErrLocalWritten, "CheckLocal of a directory that is gone: it cannot say, so it refuses")
}

func TestCacheEnvNamesLocalOnlyWhenShared(t *testing.T) {
	work := t.TempDir()
	c := &Cache{Helper: "/h", Base: filepath.Join(t.TempDir(), "gocache-x")}
	assert.Contains(t, c.Env(nil, work, false), "GOCACHE="+filepath.Join(work, "gocache"), "a build that does not share: its own GOCACHE in its work directory")
	require.NoError(t, c.Prepare(work))
	assert.DirExists(t, filepath.Join(work, "gocache"))

	c.Shared = true
	work = t.TempDir()
	assert.Contains(t, c.Env(nil, work, false), "GOCACHE="+c.Local(), "a build that shares: GOCACHE is Local")
	require.NoError(t, c.Prepare(work))
	assert.DirExists(t, c.Local())
	assert.NoDirExists(t, filepath.Join(work, "gocache"))
	assert.DirExists(t, filepath.Join(work, "gotmp"))
}

// TestBuildStopsWhenTheGoCommandWritesIntoLocal: a go command that leaves
// an entry in the shared GOCACHE (none does today, with GOCACHEPROG set)
// makes the build the grader's trouble, not a grade.
func TestBuildStopsWhenTheGoCommandWritesIntoLocal(t *testing.T) {
	cat, err := lab.Load()
	require.NoError(t, err)
	l, err := cat.Lookup("10")
	require.NoError(t, err)
	goBin := filepath.Join(t.TempDir(), "go")
	script := "#!/bin/sh\nmkdir -p \"$GOCACHE/ab\" && echo x > \"$GOCACHE/ab/0123-d\"\necho 'it did not build' >&2\nexit 1\n"
	require.NoError(t, os.WriteFile(goBin, []byte(script), 0o755))
	sb, err := sandbox.New(sandbox.Config{Mode: sandbox.Off})
	require.NoError(t, err)
	c := &Cache{Helper: "/bin/true", Base: filepath.Join(t.TempDir(), "gocache-x"), Shared: true}
	b := New(Config{Lab: l, GoBin: goBin, Sandbox: sb, Cache: c})

	work := t.TempDir()
	require.NoError(t, b.Write(work, []byte("package session\n")))
	_, rep, err := b.Build(context.Background(), work)
	assert.ErrorIs(t, err, ErrLocalWritten, "Build after the go command wrote into Local: got report %+v", rep)
}
