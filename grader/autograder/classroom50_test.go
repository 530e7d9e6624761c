package autograder_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coursekit/course/grader/autograder"
	"github.com/coursekit/course/grader/internal/offline"
	"github.com/coursekit/course/grader/release/releasetest"
)

func TestClassroom50RuntimeAsksForGo(t *testing.T) {
	data, err := (&autograder.Classroom50{Lab: lab10(t), GoVersion: "go1.25.4"}).Runtime()
	require.NoError(t, err)
	var rt map[string]any
	require.NoError(t, json.Unmarshal(data, &rt))
	assert.Equal(t, map[string]any{"runs-on": "ubuntu-latest", "go": "1.25.4"}, rt)

	_, err = (&autograder.Classroom50{Lab: lab10(t), GoVersion: "latest"}).Runtime()
	assert.ErrorContains(t, err, "not a release name")
}

func TestClassroom50ScriptCarriesTheGradingFlags(t *testing.T) {
	l := lab10(t)
	script, err := (&autograder.Classroom50{Lab: l, Bonus: true, Timeout: 20 * time.Second}).Script()
	require.NoError(t, err)
	assert.Contains(t, string(script), `GRADE_FLAGS = ["--chapter","10","--sandbox","best","--bonus","--timeout","20s"]`)
	assert.Contains(t, string(script), `["10.7 `, "bonus exercises in the fallback's entries with --bonus")
	script, err = (&autograder.Classroom50{Lab: l}).Script()
	require.NoError(t, err)
	assert.NotContains(t, string(script), `["10.7 `)
	_, err = (&autograder.Classroom50{Lab: l, Timeout: -time.Second}).Script()
	assert.ErrorContains(t, err, "must be positive")

	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("no python3")
	}
	p := filepath.Join(t.TempDir(), "autograder.py")
	require.NoError(t, os.WriteFile(p, script, 0o755))
	code, out := offline.Run(t, time.Minute, filepath.Dir(p), "python3", "-m", "py_compile", p)
	assert.Equal(t, 0, code, "autograder.py is valid Python:\n%s", out)
}

// runnerEnv is the environment Classroom 50's runner gives autograder.py,
// here offline.
func runnerEnv(extra ...string) []string {
	return offline.Env(append([]string{
		"CLASSROOM=go-fall", "ASSIGNMENT=lab10", "SUBMISSION_TAG=submit/2026-06-01T14-32-05Z-a1b2c3d",
		"COMMIT_URL=https://github.com/org/go-fall-lab10-alice/commit/a1b2c3d",
		"RELEASE_URL=https://github.com/org/go-fall-lab10-alice/releases/tag/submit%2F2026",
		"REVIEW_URL=", "USERNAME=alice", "OWNER=", "ASSIGNMENT_TYPE=individual",
		"GITHUB_ACTOR=alice", "GITHUB_ACTOR_ID=4242",
	}, extra...)...)
}

// c50Result is what the checks read of a result.json.
type c50Result struct {
	Owner    string `json:"owner"`
	Score    int    `json:"score"`
	MaxScore int    `json:"max-score"`
	Tests    []struct {
		Name     string `json:"test-name"`
		Passed   bool   `json:"passed"`
		Score    int    `json:"score"`
		MaxScore int    `json:"max-score"`
		Output   string `json:"output"`
	} `json:"tests"`
}

func classroom50Schema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	sch, err := jsonschema.NewCompiler().Compile(filepath.Join("testdata", "classroom50-result.schema.json"))
	require.NoError(t, err)
	return sch
}

// The end-to-end run: the assignment's files as the command writes them
// (autograder.py beside a student release of the course), a student's
// checkout, and autograder.py run by python3 in it, as Classroom 50's
// runner does, offline; each result.json is checked against the schema
// written from Classroom 50's documented contract.
func TestClassroom50AutograderGradesACheckout(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds the course tool and grades submissions")
	}
	releasetest.SkipInRelease(t, "a release cannot make a release of itself")
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("no python3")
	}
	l := lab10(t)
	sch := classroom50Schema(t)
	bundle := t.TempDir()
	c := &autograder.Classroom50{Lab: l}
	script, err := c.Script()
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(bundle, autograder.Classroom50Script), script, 0o755))
	copyTree(t, sharedRelease(t), filepath.Join(bundle, autograder.Classroom50Source))
	solution := releasetest.Solution(t, l)
	runnerTemp := t.TempDir()
	// One module cache for the runs, empty before the first: the first
	// proves autograder.py fetches what it needs; the others find it there.
	modules := freshModules(t)

	grade := func(t *testing.T, lay func(dir string)) (c50Result, string) {
		t.Helper()
		checkout := filepath.Join(t.TempDir(), "go-fall-lab10-alice")
		lay(checkout)
		// A result.json the student committed is never the one published.
		require.NoError(t, os.WriteFile(filepath.Join(checkout, "result.json"), []byte(`{"score": 100}`), 0o644))
		env := runnerEnv(append(slices.Clone(modules), "RUNNER_TEMP="+runnerTemp)...)
		code, out := runIn(t, checkout, env, "python3", filepath.Join(bundle, autograder.Classroom50Script))
		require.Equal(t, 0, code, "autograder.py exits 0 whenever it wrote result.json:\n%s", out)
		data, err := os.ReadFile(filepath.Join(checkout, "result.json"))
		require.NoError(t, err)
		inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
		require.NoError(t, err)
		require.NoError(t, sch.Validate(inst), "result.json against the contract:\n%s", data)
		var r c50Result
		require.NoError(t, json.Unmarshal(data, &r))
		return r, out
	}
	total := 0
	for _, e := range l.Exercises {
		if !e.Bonus {
			total += e.Points
		}
	}

	t.Run("the solution", func(t *testing.T) {
		r, _ := grade(t, func(dir string) {
			require.NoError(t, l.WriteWorkspace(dir))
			require.NoError(t, os.WriteFile(filepath.Join(dir, "session.go"), solution, 0o644))
		})
		assert.Equal(t, "alice", r.Owner)
		assert.Equal(t, total, r.Score)
		assert.Equal(t, total, r.MaxScore)
		for _, tc := range r.Tests {
			assert.True(t, tc.Passed, tc.Name)
		}
	})
	t.Run("the stub", func(t *testing.T) {
		r, _ := grade(t, func(dir string) { require.NoError(t, l.WriteWorkspace(dir)) })
		assert.Zero(t, r.Score)
		assert.Equal(t, total, r.MaxScore)
		require.NotEmpty(t, r.Tests)
		for _, tc := range r.Tests {
			assert.False(t, tc.Passed, tc.Name)
			assert.NotEmpty(t, tc.Output, "the student sees why")
		}
		for _, e := range l.Exercises {
			for _, h := range l.HiddenTests(e.ID) {
				for _, tc := range r.Tests {
					assert.NotContains(t, tc.Output, h, "the release has no hidden tests")
				}
			}
		}
	})
	t.Run("no session.go", func(t *testing.T) {
		r, out := grade(t, func(dir string) {
			require.NoError(t, os.MkdirAll(dir, 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("hello\n"), 0o644))
		})
		assert.Zero(t, r.Score)
		assert.Equal(t, total, r.MaxScore)
		require.NotEmpty(t, r.Tests)
		assert.Contains(t, r.Tests[0].Output, "Your submission could not be graded", out)
		assert.Contains(t, r.Tests[0].Output, "session.go")
	})
	t.Run("outside the runner", func(t *testing.T) {
		checkout := t.TempDir()
		code, out := runIn(t, checkout, runnerEnv("CLASSROOM=", "RUNNER_TEMP="+runnerTemp), "python3", filepath.Join(bundle, autograder.Classroom50Script))
		assert.Equal(t, 1, code, "no identity, no result to collect:\n%s", out)
		assert.Contains(t, out, "CLASSROOM not set")
		assert.NoFileExists(t, filepath.Join(checkout, "result.json"))
	})
	t.Run("a course tool that does not build", func(t *testing.T) {
		broken := t.TempDir()
		require.NoError(t, os.WriteFile(filepath.Join(broken, autograder.Classroom50Script), script, 0o755))
		require.NoError(t, os.MkdirAll(filepath.Join(broken, autograder.Classroom50Source), 0o755))
		checkout := t.TempDir()
		code, out := runIn(t, checkout, runnerEnv("RUNNER_TEMP="+t.TempDir()), "python3", filepath.Join(broken, autograder.Classroom50Script))
		assert.Equal(t, 1, code, "an infrastructure error, for the runner to record as one:\n%s", out)
		assert.Contains(t, out, "building the course tool failed")
		assert.NoFileExists(t, filepath.Join(checkout, "result.json"))
	})
}

// runIn runs name with args in dir with env, for at most 8 minutes, and
// returns its exit status and output.
func runIn(t *testing.T, dir string, env []string, name string, args ...string) (int, string) {
	t.Helper()
	offline.Modules(t)
	ctx, cancel := contextWithTimeout(t, 8*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = env
	cmd.WaitDelay = 10 * time.Second
	var b bytes.Buffer
	cmd.Stdout, cmd.Stderr = &b, &b
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode(), b.String()
	}
	require.NoError(t, err, "%s %s", name, strings.Join(args, " "))
	return 0, b.String()
}

func contextWithTimeout(t *testing.T, d time.Duration) (context.Context, context.CancelFunc) {
	return context.WithTimeout(t.Context(), d)
}

// freshModules is an environment in which the go command starts with an
// empty module cache and downloads from a proxy made of this machine's
// module cache, offline: a script that grades without downloading the
// modules of the tool and of the lab first fails there, as it would on a
// new CI machine, since grading itself never downloads anything. (The
// scripts build with -trimpath, so the build cache still knows the tool.)
func freshModules(t *testing.T) []string {
	t.Helper()
	offline.Modules(t) // the proxy below must hold them all
	out, err := exec.Command("go", "env", "GOMODCACHE").Output()
	require.NoError(t, err)
	proxy := filepath.Join(strings.TrimSpace(string(out)), "cache", "download")
	require.DirExists(t, proxy)
	return []string{"GOMODCACHE=" + t.TempDir(), "GOPROXY=file://" + proxy, "GOSUMDB=off", "GOFLAGS=-mod=mod -modcacherw"}
}
