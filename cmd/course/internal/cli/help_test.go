package cli

import (
	"bytes"
	"errors"
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coursekit/course/grader/lab"
)

// helpOf runs `course <path...> --help` with catalog and returns what it
// printed.
func helpOf(t *testing.T, catalog func() (*lab.Catalog, error), path ...string) string {
	t.Helper()
	var stdout, stderr bytes.Buffer
	f := &Factory{IO: IOStreams{In: strings.NewReader(""), Out: &stdout, ErrOut: &stderr}, Catalog: catalog}
	code := Run(f, append(path, "--help"))
	require.Equal(t, ExitOK, code, "course %v --help: %s", path, stderr.String())
	return stdout.String()
}

// commandPaths lists every command below root as the words that call it.
func commandPaths(root *cobra.Command) [][]string {
	var out [][]string
	var walk func(c *cobra.Command, path []string)
	walk = func(c *cobra.Command, path []string) {
		out = append(out, path)
		for _, sub := range c.Commands() {
			walk(sub, append(append([]string(nil), path...), sub.Name()))
		}
	}
	walk(root, nil)
	return out
}

func TestHelpTextsNameALabOfTheCatalog(t *testing.T) {
	paths := commandPaths(NewCmdRoot(&Factory{Catalog: lab.Load}))
	require.Greater(t, len(paths), 10, "the commands were found")
	placeholders := []string{phChapter, phExercise, phBonus, phRun, phFile, phFiles}
	for _, path := range paths {
		out := helpOf(t, demoCatalog(t, false), path...)
		for _, ph := range placeholders {
			assert.NotContains(t, out, ph, "course %v --help: every placeholder is filled in", path)
		}
	}

	// The examples are of the catalog's first lab, whatever it is: lab 7,
	// whose first graded exercise is 7.1 (its manifest lists the bonus
	// exercise 7.3 first) and whose file is demo.go.
	assert.Contains(t, helpOf(t, demoCatalog(t, false), "practice"), "  course practice 7 mylab\n")
	assert.Contains(t, helpOf(t, demoCatalog(t, false), "hint"), "  course hint 7.1 --all\n", "the first graded exercise")
	assert.Contains(t, helpOf(t, demoCatalog(t, false), "watch"), "'course watch 7.3'", "the bonus exercise")
	assert.Contains(t, helpOf(t, demoCatalog(t, false), "test"), "'go test -run Lab7_1'")
	assert.Contains(t, helpOf(t, demoCatalog(t, false), "grade"), "The file of each\nlab: demo.go in chapter 7.\n")

	// The real course: its first chapter.
	c, err := lab.Load()
	require.NoError(t, err)
	first := c.Labs()[0]
	assert.Contains(t, helpOf(t, lab.Load), "'course practice "+first.Chapter+" mylab'")
	assert.Contains(t, helpOf(t, lab.Load, "grade"), "course grade --lab "+first.Exercises[0].ID+" alice.zip")
	assert.Contains(t, helpOf(t, lab.Load, "grade"), "course grade --chapter "+first.Chapter+" alice.go")
	for _, l := range c.Labs() {
		assert.Regexp(t, `lab: .*`+regexp.QuoteMeta(l.Editable[0])+` in chapters? (\S+, )*(\S+ and )?`+l.Chapter+`\b`,
			helpOf(t, lab.Load, "grade"), "course grade --help names the file of lab %s", l.Chapter)
	}
}

func TestHelpWithoutACatalogSaysWhatGoesWhere(t *testing.T) {
	broken := func() (*lab.Catalog, error) { return nil, errors.New("no labs") }
	out := helpOf(t, broken, "practice")
	assert.Contains(t, out, "  course practice N mylab\n", "a placeholder a person can read")
	assert.Contains(t, helpOf(t, broken, "hint"), "  course hint N.M\n")
}
