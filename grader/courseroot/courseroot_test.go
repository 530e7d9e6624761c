package courseroot

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func write(t *testing.T, root, name, content string, mode os.FileMode) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(name))
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, os.WriteFile(p, []byte(content), mode))
}

func TestFind(t *testing.T) {
	root := t.TempDir()
	write(t, root, "go.mod", "module "+ModulePath+"\n\ngo 1.24.0\n", 0o644)
	write(t, root, "labs/go.mod", "module "+ModulePath+"/labs\n", 0o644)
	write(t, root, "labs/10-session/session.go", "package session", 0o644)

	got, err := Find(filepath.Join(root, "labs", "10-session"))
	require.NoError(t, err)
	want, _ := filepath.Abs(root)
	assert.Equal(t, want, got, "labs/go.mod is another module: keep walking up")

	_, err = Find(t.TempDir())
	assert.ErrorIs(t, err, ErrNotFound)

	err = Check(filepath.Join(root, "labs"))
	assert.ErrorContains(t, err, `is module "github.com/coursekit/course/labs", not the course`)
}
