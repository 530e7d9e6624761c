package lab_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/coursekit/course/grader/lab"
	"github.com/coursekit/course/grader/release/releasetest"
	"github.com/coursekit/course/labs"
)

// lab4Without44 is the optional 4.4 as a student leaves it who did not do
// it: the reference solution's 4.4 section is replaced by this one.
const lab4Without44 = `// ---- 4.4 (optional) ----

func Reduce(state State, ev Event) State { return state }

type Kernel struct{}

func NewKernel(subscribers ...func(State)) *Kernel { return &Kernel{} }

func (k *Kernel) Run(queue []Event) (State, error) { return State{}, ErrNotImplemented }
`

// TestProofLab4HandoutCommandsSkipTheOptionalExercise follows lab 4's
// handout with a student who did 4.1 to 4.3 and not the optional 4.4: the
// command it gives for the graded exercises passes, and `go test ./...`
// fails, as the handout warns, until 4.4 is done.
func TestProofLab4HandoutCommandsSkipTheOptionalExercise(t *testing.T) {
	goTool(t)
	t.Parallel()
	c, err := lab.Load()
	require.NoError(t, err)
	l, err := c.Lookup("4")
	require.NoError(t, err)
	sol := string(releasetest.Solution(t, l)) // skips in a student release, which has none
	for _, name := range []string{"README.md", "README.zh.md"} {
		handout, err := fs.ReadFile(labs.FS, l.Slug+"/"+name)
		require.NoError(t, err)
		for _, cmd := range []string{"go test -skip Lab4_4 ", "go test ./... "} {
			require.Contains(t, string(handout), cmd, "labs/%s/%s: the command its Getting started gives", l.Slug, name)
		}
	}

	at := strings.Index(sol, "// ---- 4.4")
	require.GreaterOrEqual(t, at, 0, "the reference solution's section line of 4.4")
	ws := filepath.Join(t.TempDir(), "mylab")
	require.NoError(t, l.WriteWorkspace(ws))
	require.NoError(t, os.WriteFile(filepath.Join(ws, l.Editable[0]), []byte(sol[:at]+lab4Without44), 0o644))

	if r := runGo(t, ws, "test", "-skip", "Lab4_4"); r.code != 0 {
		t.Errorf("go test -skip Lab4_4 where 4.1 to 4.3 are done and 4.4 is not: exit %d, want 0\n%s", r.code, r.tail())
	}
	if r := runGo(t, ws, "test", "./..."); r.code != 1 {
		t.Errorf("go test ./... where 4.4 is not done: exit %d, want 1, the FAIL the handout warns of\n%s", r.code, r.tail())
	}
}
