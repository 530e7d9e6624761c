//go:build unix

package cachedir

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The checker's program is used only from a directory, and as a file, that
// this user owns and no one else may write: one planted in a shared /tmp
// would decide what student code may do.
func TestOwnedByUsRefusesWhatOthersControl(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.Chmod(dir, 0o700))
	assert.NoError(t, Owned(dir, true))

	open := filepath.Join(dir, "open")
	require.NoError(t, os.Mkdir(open, 0o700))
	require.NoError(t, os.Chmod(open, 0o777))
	assert.ErrorContains(t, Owned(open, true), "others may write to it", "a world-writable directory")

	file := filepath.Join(dir, "checker")
	require.NoError(t, os.WriteFile(file, []byte("x"), 0o755))
	assert.NoError(t, Owned(file, false))
	assert.ErrorContains(t, Owned(file, true), "it is a", "a file where a directory is expected")

	link := filepath.Join(dir, "link")
	require.NoError(t, os.Symlink(file, link))
	assert.Error(t, Owned(link, false), "a link is not followed")

	if os.Geteuid() == 0 {
		theirs := filepath.Join(dir, "theirs")
		require.NoError(t, os.Mkdir(theirs, 0o700))
		require.NoError(t, os.Chown(theirs, 65534, 65534))
		assert.ErrorContains(t, Owned(theirs, true), "belongs to uid 65534", "a directory of another user")
	}
}
