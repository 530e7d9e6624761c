package atomicfile

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestWriteReplacesWholeAndLeavesNoTemporaryFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "table.csv")
	require.NoError(t, os.WriteFile(p, []byte("old"), 0o644))
	require.NoError(t, Write(p, []byte("new content"), 0o600))
	data, err := os.ReadFile(p)
	require.NoError(t, err)
	assert.Equal(t, "new content", string(data))
	fi, err := os.Stat(p)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Len(t, entries, 1, "Write left %v", entries)
}

func TestWriteIntoAMissingDirectoryFailsAndChangesNothing(t *testing.T) {
	err := Write(filepath.Join(t.TempDir(), "no", "such", "file"), []byte("x"), 0o644)
	assert.Error(t, err)
}
