//go:build unix

package lab_test

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coursekit/course/grader/lab"
)

// A submission's .course/workspace.json is the student's to make: a link
// to /dev/zero, a FIFO or a huge file is refused at once, never followed,
// waited on or read whole (a class run would otherwise run out of memory
// or hang).
func TestReadWorkspaceInfoRefusesWhatIsNotASmallRegularFile(t *testing.T) {
	for _, tc := range []struct {
		name string
		make func(p string) error
		want string
	}{
		{"a link to /dev/zero", func(p string) error { return os.Symlink("/dev/zero", p) }, "is a symbolic link, not a regular file"},
		{"a FIFO", func(p string) error { return syscall.Mkfifo(p, 0o644) }, "is a named pipe (FIFO), not a regular file"},
		{"a huge file", func(p string) error { return os.WriteFile(p, []byte(strings.Repeat(" ", 65<<10)), 0o644) }, "is larger than 64 KiB"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			p := filepath.Join(dir, filepath.FromSlash(lab.WorkspaceInfoPath))
			require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
			require.NoError(t, tc.make(p))
			_, err := lab.ReadWorkspaceInfo(dir)
			require.Error(t, err, "ReadWorkspaceInfo over %s", tc.name)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

// A submission's .course is the student's to make too: a link to another
// workspace's .course (another student's, one of another lab) is refused,
// never followed out of the submission to tell its lab.
func TestReadWorkspaceInfoRefusesALinkedCourseDirectory(t *testing.T) {
	other := t.TempDir()
	info := filepath.Join(other, filepath.FromSlash(lab.WorkspaceInfoPath))
	require.NoError(t, os.MkdirAll(filepath.Dir(info), 0o755))
	require.NoError(t, os.WriteFile(info, []byte(`{"chapter":"11","slug":"11-agentstore"}`+"\n"), 0o644))
	dir := t.TempDir()
	link := filepath.Join(dir, ".course")
	require.NoError(t, os.Symlink(filepath.Dir(info), link))

	got, err := lab.ReadWorkspaceInfo(dir)
	var fe *lab.FileTypeError
	require.ErrorAs(t, err, &fe, "ReadWorkspaceInfo through a linked .course = %+v, %v; want a *lab.FileTypeError", got, err)
	assert.EqualError(t, err, link+" is a symbolic link, not a directory")
	target, err := os.Readlink(link)
	require.NoError(t, err)
	assert.Equal(t, filepath.Dir(info), target, "the submission is untouched")
}
