package lab_test

// A lab's teaching agent and session page (labs/NN-slug/cmd/agent and
// cmd/sessionui, where a lab has them), run the way a student runs them: in
// a directory made from the lab, with the reference solution (their tests
// all pass, none skipped, under the race detector) and with the stub (they
// say which exercise to finish). Like the proof, they run the real go
// command, so -short skips them.

import (
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coursekit/course/grader/lab"
	"github.com/coursekit/course/grader/release/releasetest"
	"github.com/coursekit/course/grader/testjson"
	"github.com/coursekit/course/labs"
)

// agentCommands are the commands a lab with a teaching agent ships.
var agentCommands = []string{"./cmd/agent", "./cmd/sessionui"}

// eachAgentLab runs check for every lab that has a teaching agent and its page.
func eachAgentLab(t *testing.T, check func(t *testing.T, l *lab.Lab)) {
	t.Helper()
	var n atomic.Int32 // the labs with an agent; the subtests run in parallel
	eachLab(t, func(t *testing.T, l *lab.Lab) {
		for _, c := range agentCommands {
			if _, err := fs.Stat(labs.FS, path.Join(l.Slug, c, "main.go")); err != nil {
				t.Skipf("lab %s has no %s", l.Chapter, c)
			}
		}
		n.Add(1)
		check(t, l)
	})
	t.Cleanup(func() {
		if n.Load() == 0 && !t.Skipped() {
			t.Error("no lab has a teaching agent to run")
		}
	})
}

func TestAgentCommandsPassTheirTestsOnTheSolution(t *testing.T) {
	eachAgentLab(t, func(t *testing.T, l *lab.Lab) {
		sol := releasetest.Solution(t, l) // skips in a student release, which has none
		dir := filepath.Join(t.TempDir(), "solution")
		require.NoError(t, l.WriteGradingDir(dir, sol, false))
		r := runGo(t, dir, append([]string{"test", "-race", "-json", "-count=1"}, agentCommands...)...)
		s, err := testjson.Summarize(strings.NewReader(r.stdout))
		require.NoError(t, err)
		require.Empty(t, s.BuildFailed, "the commands must build with the solution\n%s", r.tail())
		require.NotEmpty(t, s.Tests, "the commands have tests\n%s", r.tail())
		for _, res := range s.Tests {
			if res.Status != testjson.ActionPass {
				t.Errorf("%s %s: %s on the reference solution\n%s", res.Package, res.Name, res.Status, headLines(res.OutputText(), 30))
			}
		}
		assert.Equal(t, 0, r.code, r.tail())

		// The run check itself, as the handout's README says: budget 1200
		// compacts nothing, 300 compacts; every message is a line.
		out := runGo(t, dir, "run", "./cmd/agent")
		require.Equal(t, 0, out.code, "go run ./cmd/agent\n%s", out.tail())
		assert.Contains(t, out.stdout, "0 compactions in this run")
		session := filepath.Join(dir, ".teaching-agent", "session.jsonl")
		first, err := os.ReadFile(session)
		require.NoError(t, err)
		assert.NotContains(t, string(first), `"type":"compaction"`)
		out = runGo(t, dir, "run", "./cmd/agent", "-budget", "300")
		require.Equal(t, 0, out.code, "go run ./cmd/agent -budget 300\n%s", out.tail())
		assert.Contains(t, out.stdout, "~ compaction ")
		second, err := os.ReadFile(session)
		require.NoError(t, err)
		assert.True(t, strings.HasPrefix(string(second), string(first)), "the second run only appends")
		assert.Contains(t, string(second[len(first):]), `"type":"compaction"`)
	})
}

func TestAgentCommandsSayWhichExerciseOnTheStub(t *testing.T) {
	eachAgentLab(t, func(t *testing.T, l *lab.Lab) {
		dir := filepath.Join(t.TempDir(), "stub")
		require.NoError(t, l.WriteWorkspace(dir))
		_, err := os.Stat(filepath.Join(dir, ".gitignore"))
		require.NoError(t, err, "the workspace ignores what the agent writes")

		r := runGo(t, dir, append([]string{"test", "-json", "-count=1"}, agentCommands...)...)
		s, err := testjson.Summarize(strings.NewReader(r.stdout))
		require.NoError(t, err)
		require.Empty(t, s.BuildFailed, "the commands must build with the stub\n%s", r.tail())
		assert.Equal(t, 0, r.code, "on the stub the commands' tests skip, they do not fail\n%s", r.tail())
		assert.NotEmpty(t, s.WithStatus(testjson.ActionSkip), "tests that need the store skip on the stub")

		open := "finish exercise " + l.Chapter + ".1 first (go test -run Lab" + l.Chapter + "_1)"
		out := runGo(t, dir, "run", "./cmd/agent")
		assert.Equal(t, 1, out.code, "go run ./cmd/agent on the stub\n%s", out.tail())
		assert.Contains(t, out.stderr, open)
		out = runGo(t, dir, "run", "./cmd/sessionui", "-addr", "127.0.0.1:0", "-session", "testdata/pi/branches.jsonl")
		assert.Equal(t, 1, out.code, "go run ./cmd/sessionui on the stub, over a session\n%s", out.tail())
		assert.Contains(t, out.stderr, open)
	})
}
