package grader

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// loggingGo is a go command that writes each of its argument lists to a
// log, one a line, then runs the real one.
func loggingGo(t *testing.T) (bin, log string) {
	t.Helper()
	real, err := exec.LookPath("go")
	require.NoError(t, err)
	dir := t.TempDir()
	bin, log = filepath.Join(dir, "go"), filepath.Join(dir, "calls.log")
	script := "#!/bin/sh\necho \"$*\" >> '" + log + "'\nexec '" + real + "' \"$@\"\n"
	require.NoError(t, os.WriteFile(bin, []byte(script), 0o755))
	return bin, log
}

func calls(t *testing.T, log string) []string {
	data, err := os.ReadFile(log)
	if os.IsNotExist(err) {
		return nil
	}
	require.NoError(t, err)
	return strings.Split(strings.TrimSpace(string(data)), "\n")
}

// TestSetupIsAskedOnceUntilItCanHaveChanged: the set-up asks the go
// command (and checks that the lab builds) the first time; a second grader
// with the same toolchain, course and settings asks nothing; once the
// toolchain changes, it asks again.
func TestSetupIsAskedOnceUntilItCanHaveChanged(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the set-up check")
	}
	goBin, log := loggingGo(t)
	opts := Options{Lab: testLab(t), GoBin: goBin, Exercises: []string{"10.1"}, TempDir: reachableTempDir(t)}
	newSandboxedGrader(t, opts)
	first := calls(t, log)
	require.NotEmpty(t, first, "the first grader asked the go command nothing")
	assert.True(t, strings.Contains(strings.Join(first, "\n"), "list -test -deps -export"), "the first grader did not check that the lab builds: %q", first)

	require.NoError(t, os.Remove(log))
	newSandboxedGrader(t, opts)
	assert.Empty(t, calls(t, log), "a second grader with the same toolchain and course asked the go command again")

	// (A file the answer names gone is grader/setup's own test: the real
	// helpers are shared with every grader running beside this one.)
	// Another toolchain (the go command's file changed): asked again.
	f, err := os.OpenFile(goBin, os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.WriteString("# another toolchain\n")
	require.NoError(t, err)
	require.NoError(t, f.Close())
	newSandboxedGrader(t, opts)
	assert.NotEmpty(t, calls(t, log), "the go command changed, and the set-up did not ask again")
}
