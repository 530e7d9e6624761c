//go:build unix

package submission

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// readSoon is Read with a safety net: a read that blocks (on a
// FIFO, say) fails the test instead of hanging it.
func readSoon(t *testing.T, p string) (*Submission, error) {
	t.Helper()
	type result struct {
		sub *Submission
		err error
	}
	done := make(chan result, 1)
	go func() {
		sub, err := Read(p, []string{"session.go"})
		done <- result{sub, err}
	}()
	select {
	case r := <-done:
		return r.sub, r.err
	case <-time.After(10 * time.Second):
		t.Fatalf("Read(%s) still blocks after 10s: it must never wait on what it reads", p)
		return nil, nil
	}
}

// A submission is a directory or a regular file, never followed through a
// link and never opened if it is anything else: a FIFO would block the
// grader forever, a device could be endless.
func TestReadSubmissionRefusesWhatIsNotAFileOrADirectory(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "real.go")
	require.NoError(t, os.WriteFile(real, []byte("package session\n"), 0o644))
	realDir := filepath.Join(dir, "workspace")
	require.NoError(t, os.Mkdir(realDir, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(realDir, "session.go"), []byte("package session\n"), 0o644))

	fifo := filepath.Join(dir, "fifo.go")
	require.NoError(t, syscall.Mkfifo(fifo, 0o644))
	fileLink := filepath.Join(dir, "link.go")
	require.NoError(t, os.Symlink(real, fileLink))
	dirLink := filepath.Join(dir, "linked-workspace")
	require.NoError(t, os.Symlink(realDir, dirLink))

	for _, c := range []struct{ path, reason string }{
		{fifo, "is a named pipe (FIFO), not a directory or a regular file"},
		{fileLink, "is a symbolic link, not a directory or a regular file"},
		{dirLink, "is a symbolic link, not a directory or a regular file"},
		{"/dev/zero", "is a device, not a directory or a regular file"},
	} {
		_, err := readSoon(t, c.path)
		var se *Error
		require.ErrorAs(t, err, &se, "Read(%s)", c.path)
		assert.ErrorIs(t, err, ErrBad)
		assert.Contains(t, se.Reason, c.reason, "Read(%s)", c.path)
	}
}

// Inside a workspace, a session.go that is a FIFO or a link is not the
// student's file: it is passed over, never opened.
func TestReadSubmissionPassesOverSpecialFilesInADirectory(t *testing.T) {
	for name, make := range map[string]func(p string) error{
		"fifo": func(p string) error { return syscall.Mkfifo(p, 0o644) },
		"link": func(p string) error { return os.Symlink("/etc/passwd", p) },
	} {
		dir := filepath.Join(t.TempDir(), name)
		require.NoError(t, os.Mkdir(dir, 0o755))
		require.NoError(t, make(filepath.Join(dir, "session.go")))
		_, err := readSoon(t, dir)
		assert.ErrorContains(t, err, "holds no session.go", "a workspace whose session.go is a %s", name)
	}
}

func TestReadSubmissionRefusesAHugeTree(t *testing.T) {
	defer func(n int) { maxDirEntries = n }(maxDirEntries)
	maxDirEntries = 10
	dir := t.TempDir()
	for i := 0; i < 12; i++ {
		require.NoError(t, os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%d", i)), nil, 0o644))
	}
	_, err := readSoon(t, dir)
	assert.ErrorContains(t, err, "holds more than 10 files and directories")
}
