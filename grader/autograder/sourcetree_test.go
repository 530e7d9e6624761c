package autograder

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coursekit/course/grader/autograder/autogradertest"
	"github.com/coursekit/course/grader/courseroot"
)

func write(t *testing.T, root, name, content string, mode os.FileMode) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(name))
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, os.WriteFile(p, []byte(content), mode))
}

func gitRepo(t *testing.T, root string) {
	t.Helper()
	require.NoError(t, autogradertest.CommitAll(root))
}

func TestListSourceTreeTakesExactlyWhatGitTracks(t *testing.T) {
	root := t.TempDir()
	write(t, root, "go.mod", "module "+courseroot.ModulePath+"\n", 0o644)
	write(t, root, ".gitignore", "/course\n", 0o644)
	write(t, root, "cmd/course/main.go", "package main", 0o644)
	write(t, root, ".ci/run", "#!/bin/sh", 0o755)
	write(t, root, "labs/10-session/.hidden/h_test.go", "package session", 0o644)
	gitRepo(t, root)
	// What an instructor leaves in the course's directory and never commits.
	write(t, root, "grades.csv", "alice,100", 0o644)
	write(t, root, "submissions/alice/session.go", "a student's", 0o644)
	write(t, root, "course", "binary", 0o755)
	write(t, root, "notes.md", "not ignored, but not tracked either", 0o644)

	files, err := ListSourceTree(root, false, filepath.Join(root, "out.zip"))
	require.NoError(t, err)
	got := map[string]os.FileMode{}
	for _, f := range files {
		got[f.Name] = f.Mode
	}
	assert.Equal(t, map[string]os.FileMode{
		".ci/run":                           0o755,
		".gitignore":                        0o644,
		"cmd/course/main.go":                0o644,
		"go.mod":                            0o644,
		"labs/10-session/.hidden/h_test.go": 0o644,
	}, got, "ListSourceTree must list the tracked files only, never grades.csv, submissions/ or notes.md")
}

func TestListSourceTreeRefusesADirtyCheckout(t *testing.T) {
	root := t.TempDir()
	write(t, root, "go.mod", "module "+courseroot.ModulePath+"\n", 0o644)
	write(t, root, "labs/x.go", "package x", 0o644)
	gitRepo(t, root)
	write(t, root, "labs/x.go", "package x // changed", 0o644)

	_, err := ListSourceTree(root, false)
	require.ErrorIs(t, err, ErrDirtyTree, "a tracked file changed since the last commit")
	assert.ErrorContains(t, err, "labs/x.go")
	assert.ErrorContains(t, err, "--allow-dirty")

	files, err := ListSourceTree(root, true)
	require.NoError(t, err, "with allowDirty the files are taken as they are on disk")
	assert.Len(t, files, 2)
}

func TestListSourceTreeRefusesWhatIsNotACheckout(t *testing.T) {
	root := t.TempDir()
	write(t, root, "go.mod", "module "+courseroot.ModulePath+"\n", 0o644)
	_, err := ListSourceTree(root, false)
	assert.ErrorContains(t, err, "is not a git checkout")
}

func TestListSourceTreeRefusesATrackedSymlink(t *testing.T) {
	root := t.TempDir()
	write(t, root, "go.mod", "module "+courseroot.ModulePath+"\n", 0o644)
	require.NoError(t, os.Symlink("go.mod", filepath.Join(root, "link")))
	gitRepo(t, root)
	_, err := ListSourceTree(root, false)
	assert.ErrorContains(t, err, "link: git tracks it as mode 120000")
}
