package autograder_test

import (
	"github.com/coursekit/course/grader/internal/offline"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"github.com/coursekit/course/grader/autograder"
	"github.com/coursekit/course/grader/release/releasetest"
)

// The workflow as GitHub Actions reads it, parsed independently of the
// types that wrote it.
type parsedWorkflow struct {
	Name        string            `yaml:"name"`
	On          []string          `yaml:"on"`
	Permissions map[string]string `yaml:"permissions"`
	Jobs        map[string]struct {
		RunsOn string `yaml:"runs-on"`
		If     string `yaml:"if"`
		Steps  []struct {
			Name            string            `yaml:"name"`
			ID              string            `yaml:"id"`
			Uses            string            `yaml:"uses"`
			Run             string            `yaml:"run"`
			ContinueOnError bool              `yaml:"continue-on-error"`
			Env             map[string]string `yaml:"env"`
			With            map[string]string `yaml:"with"`
		} `yaml:"steps"`
	} `yaml:"jobs"`
}

func parseWorkflow(t *testing.T, c *autograder.Classroom) parsedWorkflow {
	t.Helper()
	data, err := c.Workflow()
	require.NoError(t, err)
	var wf parsedWorkflow
	dec := yaml.NewDecoder(strings.NewReader(string(data)))
	dec.KnownFields(true)
	require.NoError(t, dec.Decode(&wf), string(data))
	return wf
}

// graderStep is a command-grader step as the workflow has it.
type graderStep struct {
	id, name, command, timeout, points string
}

// checkWorkflow checks the workflow's frame and returns its grader steps.
func checkWorkflow(t *testing.T, wf parsedWorkflow) []graderStep {
	t.Helper()
	assert.Equal(t, "Autograding Tests", wf.Name, "Classroom takes scores only from this workflow name")
	assert.Contains(t, wf.On, "push")
	assert.Equal(t, map[string]string{"checks": "write", "actions": "read", "contents": "read"}, wf.Permissions)
	require.Len(t, wf.Jobs, 1, "one job, or Classroom reports wrong results")
	job, ok := wf.Jobs["run-autograding-tests"]
	require.True(t, ok, "the job's name is fixed by Classroom")
	assert.Equal(t, "ubuntu-latest", job.RunsOn)
	require.GreaterOrEqual(t, len(job.Steps), 4)

	assert.Equal(t, "actions/checkout@v4", job.Steps[0].Uses)
	assert.Equal(t, "actions/setup-go@v5", job.Steps[1].Uses)
	assert.Equal(t, map[string]string{"go-version-file": "go.mod"}, job.Steps[1].With)

	var steps []graderStep
	for _, s := range job.Steps {
		if s.Uses != "classroom-resources/autograding-command-grader@v1" {
			continue
		}
		for k := range s.With {
			assert.Contains(t, []string{"test-name", "setup-command", "command", "timeout", "max-score"}, k, "an input the command grader has")
		}
		assert.Equal(t, s.Name, s.With["test-name"])
		steps = append(steps, graderStep{s.ID, s.With["test-name"], s.With["command"], s.With["timeout"], s.With["max-score"]})
	}

	last := job.Steps[len(job.Steps)-1]
	assert.Equal(t, "classroom-resources/autograding-grading-reporter@v1", last.Uses, "the reporter comes last")
	var ids []string
	for _, s := range steps {
		ids = append(ids, s.id)
		assert.Equal(t, "${{steps."+s.id+".outputs.result}}", last.Env[strings.ToUpper(s.id)+"_RESULTS"], "the reporter reads %s's result", s.id)
	}
	assert.Len(t, last.Env, len(steps))
	assert.Equal(t, strings.Join(ids, ","), last.With["runners"])
	return steps
}

func TestWorkflowHasAStepPerExercise(t *testing.T) {
	l := lab10(t)
	steps := checkWorkflow(t, parseWorkflow(t, &autograder.Classroom{Lab: l}))

	var want []graderStep
	for _, e := range l.Exercises {
		if e.Bonus {
			continue
		}
		n := strings.TrimPrefix(e.ID, "10.")
		want = append(want, graderStep{
			id: "lab10-" + n, name: e.ID + " " + e.Name,
			command: "go test -count=1 -run '^TestLab10_" + n + "_'",
			timeout: "2", points: strconv.Itoa(e.Points),
		})
	}
	assert.Equal(t, want, steps)
}

func TestWorkflowBonusAndTimeouts(t *testing.T) {
	l := lab10(t)
	all := checkWorkflow(t, parseWorkflow(t, &autograder.Classroom{Lab: l, Bonus: true, Timeout: 90 * time.Second}))
	require.Len(t, all, len(l.Exercises), "--bonus: every exercise")
	for _, s := range all {
		assert.Equal(t, "2", s.timeout, "90s rounds up to 2 minutes")
	}
	steps := checkWorkflow(t, parseWorkflow(t, &autograder.Classroom{Lab: l, Timeout: 5 * time.Minute}))
	assert.Equal(t, "5", steps[0].timeout)

	_, err := (&autograder.Classroom{Lab: l, Timeout: -time.Second}).Workflow()
	assert.ErrorContains(t, err, "must be positive")
}

// runCommand runs a step's command as the command grader does, in a shell
// in the repository's root, here offline.
func runCommand(t *testing.T, dir, command string) (int, string) {
	t.Helper()
	return offline.Run(t, 5*time.Minute, dir, "sh", "-c", command)
}

func TestWorkflowCommandsTellSolutionFromStub(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: runs go test in workspaces")
	}
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	l := lab10(t)
	steps := checkWorkflow(t, parseWorkflow(t, &autograder.Classroom{Lab: l, Bonus: true}))
	solution := releasetest.Solution(t, l) // skips in a student release, which has none

	workspace := func(src []byte) string {
		dir := filepath.Join(t.TempDir(), "repo")
		require.NoError(t, l.WriteWorkspace(dir))
		if src != nil {
			require.NoError(t, os.WriteFile(filepath.Join(dir, "session.go"), src, 0o644))
		}
		return dir
	}
	solved, stub := workspace(solution), workspace(nil)
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			code, out := runCommand(t, solved, s.command)
			assert.Equal(t, 0, code, "the solution passes %q:\n%s", s.command, out)
			assert.NotContains(t, out, "no tests to run", "the command selects tests")
			code, out = runCommand(t, stub, s.command)
			assert.NotEqual(t, 0, code, "the stub fails %q:\n%s", s.command, out)
			ex, err := l.Exercise(strings.Fields(s.name)[0])
			require.NoError(t, err)
			for _, name := range l.PublicTests(ex.ID) {
				assert.Contains(t, out, name, "the command runs every public test of %s", ex.ID)
			}
			for _, other := range l.Exercises {
				if other.ID != ex.ID {
					assert.NotContains(t, out, other.TestPrefix, "only %s's tests", ex.ID)
				}
			}
		})
	}
}
