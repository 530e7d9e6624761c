package selfcheck

import (
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/coursekit/course/grader/lab"
	"github.com/coursekit/course/grader/release/releasetest"
	"github.com/coursekit/course/solutions"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestMutantsApply checks every kept mutant: it names a real exercise,
// applies cleanly to the current reference solution, and still parses, so
// that the self-check tests a mistake and not a syntax error.
func TestMutantsApply(t *testing.T) {
	cat, err := lab.Load()
	require.NoError(t, err)
	for _, l := range cat.Labs() {
		sol := releasetest.Solution(t, l) // skips in a student release, which has none
		mutants, err := LoadMutants(solutions.FS, l.Slug+"/mutants")
		require.NoError(t, err)
		require.NotEmpty(t, mutants, "lab %s keeps no mutants", l.Chapter)
		for _, m := range mutants {
			_, err := l.Exercise(m.Exercise)
			assert.NoError(t, err, "mutant %s names exercise %q", m.ID, m.Exercise)
			assert.Equal(t, l.Editable[0], m.File, "mutant %s: the file its --- a/ and +++ b/ lines name, "+
				"so that patch -p1 and git apply take it", m.ID)
			src, err := m.Apply(sol)
			if !assert.NoError(t, err, "mutant %s", m.ID) {
				continue
			}
			_, err = parser.ParseFile(token.NewFileSet(), m.ID+".go", src, 0)
			assert.NoError(t, err, "mutant %s does not parse after applying", m.ID)
		}
	}
}

// TestMutantsApplyWithGitAndPatch: every kept mutant applies to the
// reference solution with the tools a person would use, git apply and
// patch -p1, not only with the self-check's own reader (30 of lab 10's once
// named a/a/session.go, which both refuse).
func TestMutantsApplyWithGitAndPatch(t *testing.T) {
	cat, err := lab.Load()
	require.NoError(t, err)
	var tools [][]string
	if _, err := exec.LookPath("git"); err == nil {
		tools = append(tools, []string{"git", "apply", "--check"})
	}
	if _, err := exec.LookPath("patch"); err == nil {
		tools = append(tools, []string{"patch", "-p1", "--dry-run", "--force", "--quiet", "-i"})
	}
	if len(tools) == 0 {
		t.Skip("neither git nor patch is installed")
	}
	for _, l := range cat.Labs() {
		sol := releasetest.Solution(t, l) // skips in a student release, which has none
		mutants, err := LoadMutants(solutions.FS, l.Slug+"/mutants")
		require.NoError(t, err)
		dir := t.TempDir()
		require.NoError(t, os.WriteFile(filepath.Join(dir, l.Editable[0]), sol, 0o644))
		for _, m := range mutants {
			patch := filepath.Join(t.TempDir(), m.ID+".patch")
			require.NoError(t, os.WriteFile(patch, m.Patch, 0o644))
			for _, tool := range tools {
				cmd := exec.Command(tool[0], append(tool[1:], patch)...)
				cmd.Dir = dir
				out, err := cmd.CombinedOutput()
				assert.NoError(t, err, "%s %s, in a directory holding the reference %s: %s", strings.Join(tool, " "), m.ID+".patch", l.Editable[0], out)
			}
		}
	}
}

// TestMutantHeaderRefusesUnknownKeys: a header line the loader does not
// know (a stale "Race: true", a typo) is an error, never silently ignored.
func TestMutantHeaderRefusesUnknownKeys(t *testing.T) {
	diff := "diff --git a/session.go b/session.go\n--- a/session.go\n+++ b/session.go\n@@ -1,1 +1,1 @@\n-a\n+b\n"
	fsys := fstest.MapFS{
		"m/10.3-plain.patch": {Data: []byte("Exercise: 10.3\nMistake: y\nRules: 10.3.1\n\n" + diff)},
	}
	ms, err := LoadMutants(fsys, "m")
	require.NoError(t, err)
	require.Len(t, ms, 1)

	fsys["m/10.3-race.patch"] = &fstest.MapFile{Data: []byte("Exercise: 10.3\nMistake: z\nRules: 10.3.6\nRace: true\n\n" + diff)}
	_, err = LoadMutants(fsys, "m")
	var me *MutantError
	require.ErrorAs(t, err, &me, "LoadMutants with a Race: header")
	assert.Contains(t, err.Error(), `unknown header "Race"`)
}
