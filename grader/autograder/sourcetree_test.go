package autograder

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestGitignorePatterns(t *testing.T) {
	cases := []struct {
		pattern, base, path string
		dir, want           bool
	}{
		{"*.test", "", "grader.test", false, true},
		{"*.test", "", "grader/lab/lab.test", false, true},
		{"*.test", "", "grader/lab.test.go", false, false},
		{"/course", "", "course", false, true},
		{"/course", "", "cmd/course", true, false},
		{"course", "", "cmd/course", true, true},
		{"/mylab/", "", "mylab", true, true},
		{"/mylab/", "", "mylab", false, false},
		{"build/", "", "a/build", true, true},
		{"docs/*.md", "", "docs/grading.md", false, true},
		{"docs/*.md", "", "docs/guide/lab10.md", false, false},
		{"**/testdata", "", "grader/testjson/testdata", true, true},
		{"**/testdata", "", "testdata", true, true},
		{"a/**/b", "", "a/b", false, true},
		{"a/**/b", "", "a/x/y/b", false, true},
		{"out/**", "", "out/x/y", false, true},
		{"out/**", "", "out", true, false},
		{"file?.go", "", "file1.go", false, true},
		{"file[0-9].go", "", "file7.go", false, true},
		{"file[!0-9].go", "", "file7.go", false, false},
		{`\#notes`, "", "#notes", false, true},
		{"*.log", "labs", "labs/x/a.log", false, true},
		{"*.log", "labs", "a.log", false, false},
		{"/only", "labs", "labs/only", false, true},
		{"/only", "labs", "labs/x/only", false, false},
	}
	for _, c := range cases {
		dir := t.TempDir()
		p := filepath.Join(dir, ".gitignore")
		require.NoError(t, os.WriteFile(p, []byte("# a comment\n\n"+c.pattern+"\n"), 0o644))
		rules, err := readGitignore(p, c.base)
		require.NoError(t, err)
		require.Len(t, rules, 1, c.pattern)
		assert.Equal(t, c.want, ignored(rules, c.path, c.dir), "%q (in %q) on %q, dir=%v", c.pattern, c.base, c.path, c.dir)
	}
}

func TestGitignoreLastMatchWins(t *testing.T) {
	p := filepath.Join(t.TempDir(), ".gitignore")
	require.NoError(t, os.WriteFile(p, []byte("*.out\n!keep.out\n"), 0o644))
	rules, err := readGitignore(p, "")
	require.NoError(t, err)
	assert.True(t, ignored(rules, "a.out", false))
	assert.False(t, ignored(rules, "keep.out", false))
}

func write(t *testing.T, root, name, content string, mode os.FileMode) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(name))
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, os.WriteFile(p, []byte(content), mode))
}

func TestListSourceTreeTakesWhatGitWouldTrack(t *testing.T) {
	root := t.TempDir()
	write(t, root, "go.mod", "module "+CourseModule+"\n", 0o644)
	write(t, root, ".gitignore", "/course\n*.test\n/mylab/\n", 0o644)
	write(t, root, "course", "binary", 0o755)
	write(t, root, "cmd/course/main.go", "package main", 0o644)
	write(t, root, "cmd/course/course", "not at the root: kept", 0o644)
	write(t, root, "grader/grader.test", "binary", 0o755)
	write(t, root, "mylab/session.go", "a student's", 0o644)
	write(t, root, ".git/HEAD", "ref", 0o644)
	write(t, root, ".ci/run", "#!/bin/sh", 0o755)
	write(t, root, "labs/.gitignore", "*.tmp\n", 0o644)
	write(t, root, "labs/x.tmp", "", 0o644)
	write(t, root, "x.tmp", "only labs/ ignores it", 0o644)
	write(t, root, "labs/10-session/.hidden/h_test.go", "package session", 0o644)
	write(t, root, "out.zip", "the bundle being written", 0o644)
	require.NoError(t, os.Symlink("go.mod", filepath.Join(root, "link")))

	files, err := ListSourceTree(root, filepath.Join(root, "out.zip"))
	require.NoError(t, err)
	got := map[string]os.FileMode{}
	for _, f := range files {
		got[f.Name] = f.Mode
	}
	assert.Equal(t, map[string]os.FileMode{
		".ci/run":                           0o755,
		".gitignore":                        0o644,
		"cmd/course/course":                 0o644,
		"cmd/course/main.go":                0o644,
		"go.mod":                            0o644,
		"labs/.gitignore":                   0o644,
		"labs/10-session/.hidden/h_test.go": 0o644,
		"x.tmp":                             0o644,
	}, got)
	for i := 1; i < len(files); i++ {
		assert.Less(t, files[i-1].Name, files[i].Name, "sorted")
	}
}

func TestFindCourseRoot(t *testing.T) {
	root := t.TempDir()
	write(t, root, "go.mod", "module "+CourseModule+"\n\ngo 1.24.0\n", 0o644)
	write(t, root, "labs/go.mod", "module "+CourseModule+"/labs\n", 0o644)
	write(t, root, "labs/10-session/session.go", "package session", 0o644)

	got, err := FindCourseRoot(filepath.Join(root, "labs", "10-session"))
	require.NoError(t, err)
	want, _ := filepath.Abs(root)
	assert.Equal(t, want, got, "labs/go.mod is another module: keep walking up")

	_, err = FindCourseRoot(t.TempDir())
	assert.ErrorIs(t, err, ErrNoCourseRoot)

	err = IsCourseRoot(filepath.Join(root, "labs"))
	assert.ErrorContains(t, err, `is module "github.com/coursekit/course/labs", not the course`)
}
