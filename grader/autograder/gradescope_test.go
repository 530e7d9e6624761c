package autograder_test

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coursekit/course/grader/autograder"
	"github.com/coursekit/course/grader/autograder/autogradertest"
	"github.com/coursekit/course/grader/courseroot"
	"github.com/coursekit/course/grader/internal/offline"
	"github.com/coursekit/course/grader/lab"
	"github.com/coursekit/course/grader/release/releasetest"
)

func courseRoot(t *testing.T) string {
	t.Helper()
	wd, err := os.Getwd()
	require.NoError(t, err)
	root, err := courseroot.Find(wd)
	require.NoError(t, err)
	return root
}

// courseCheckout is a clean git checkout of the course as it is on disk.
func courseCheckout(t *testing.T) string {
	t.Helper()
	return autogradertest.Checkout(t, courseRoot(t))
}

func lab10(t *testing.T) *lab.Lab {
	t.Helper()
	c, err := lab.Load()
	require.NoError(t, err)
	l, err := c.Lookup("10")
	require.NoError(t, err)
	return l
}

// bundle writes the bundle g describes to dir/autograder.zip.
func bundle(t *testing.T, g *autograder.Gradescope, dir string) string {
	t.Helper()
	p := filepath.Join(dir, "autograder.zip")
	f, err := os.Create(p)
	require.NoError(t, err)
	_, err = g.Write(f)
	require.NoError(t, err)
	require.NoError(t, f.Close())
	return p
}

// entries returns each entry of the zip at p with whether it is executable.
func entries(t *testing.T, p string) map[string]bool {
	t.Helper()
	zr, err := zip.OpenReader(p)
	require.NoError(t, err)
	defer zr.Close()
	out := map[string]bool{}
	for _, f := range zr.File {
		out[f.Name] = f.Mode().Perm()&0o111 != 0
	}
	return out
}

// unzip extracts the zip at p into dir, as Gradescope unpacks a bundle
// into /autograder/source, keeping executable bits.
func unzip(t *testing.T, p, dir string) {
	t.Helper()
	zr, err := zip.OpenReader(p)
	require.NoError(t, err)
	defer zr.Close()
	for _, f := range zr.File {
		require.False(t, strings.HasPrefix(f.Name, "/") || strings.Contains(f.Name, ".."), f.Name)
		target := filepath.Join(dir, filepath.FromSlash(f.Name))
		require.NoError(t, os.MkdirAll(filepath.Dir(target), 0o755))
		rc, err := f.Open()
		require.NoError(t, err)
		data, err := io.ReadAll(rc)
		require.NoError(t, err)
		rc.Close()
		require.NoError(t, os.WriteFile(target, data, f.Mode().Perm()))
	}
}

func TestBundleHoldsScriptsAndTheSourceTree(t *testing.T) {
	releasetest.SkipInRelease(t, "the bundle carries the solutions and hidden tests, which a release has not")
	root := courseCheckout(t)
	private := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(private, "mine_test.go"), []byte("package session\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(private, "notes.txt"), []byte("not a test file"), 0o644))

	g := &autograder.Gradescope{Source: root, Chapter: "10", TestsDir: private}
	p := bundle(t, g, t.TempDir())
	got := entries(t, p)

	assert.True(t, got["setup.sh"], "setup.sh is executable")
	assert.True(t, got["run_autograder"], "run_autograder is executable")
	for _, want := range []string{"go.mod", "go.sum", "cmd/course/main.go", "labs/go.mod", "labs/go.sum",
		"labs/10-session/.meta/lab.json", "solutions/10-session/session.go", "autograder-tests/mine_test.go"} {
		assert.Contains(t, got, want)
	}
	assert.NotContains(t, got, "autograder-tests/notes.txt", "only what --tests would take")
	hidden := 0
	for name := range got {
		assert.False(t, strings.HasPrefix(name, ".git/"), "no .git: %s", name)
		assert.False(t, strings.HasSuffix(name, ".test"), "no test binaries: %s", name)
		assert.NotEqual(t, "course", name, "no binary ignored by .gitignore")
		if strings.HasPrefix(name, "labs/10-session/.hidden/") {
			hidden++
		}
	}
	assert.Positive(t, hidden, "the hidden tests are in the bundle")

	// The same tree makes the same bytes.
	a, err := os.ReadFile(p)
	require.NoError(t, err)
	b, err := os.ReadFile(bundle(t, g, t.TempDir()))
	require.NoError(t, err)
	assert.True(t, bytes.Equal(a, b), "bundles of the same tree differ")
}

func TestScriptsCarryTheGradingFlags(t *testing.T) {
	amd, arm := strings.Repeat("a", 64), strings.Repeat("b", 64)
	g := &autograder.Gradescope{Source: courseRoot(t), Chapter: "10", Bonus: true, TestsDir: "/private", GoVersion: "go1.25.4",
		GoSHA256: map[string]string{"amd64": amd, "arm64": arm}, Timeout: 20 * time.Second, Memory: "400MiB", Budget: 3 * time.Minute}
	setup, run, err := g.Scripts()
	require.NoError(t, err)
	assert.Contains(t, string(setup), `GO_VERSION="go1.25.4"`)
	assert.Contains(t, string(setup), `GO_SHA256_amd64="`+amd+`"`)
	assert.Contains(t, string(setup), `GO_SHA256_arm64="`+arm+`"`)
	assert.Contains(t, string(setup), `https://go.dev/dl/${GO_VERSION}.linux-${arch}.tar.gz`)
	assert.Contains(t, string(setup), `practice 10 "$warm/stub"`)
	flags := `grade --chapter 10 --memory 400MiB --runs 1 --budget 3m0s --bonus --timeout 20s --tests "$AUTOGRADER_ROOT/source/autograder-tests"`
	assert.Contains(t, string(setup), flags)
	assert.Contains(t, string(run), `timeout --kill-after=15s 480s "$AUTOGRADER_ROOT/course" `+flags+` --format gradescope --force -o "$results" "$AUTOGRADER_ROOT/submission"`)
	assert.Contains(t, string(run), `AUTOGRADER_ROOT="${AUTOGRADER_ROOT:-/autograder}"`)

	g = &autograder.Gradescope{Source: courseRoot(t), Chapter: "10"}
	setup, run, err = g.Scripts()
	require.NoError(t, err)
	assert.Contains(t, string(run), `grade --chapter 10 --memory 512MiB --runs 1 --budget 2m0s --format gradescope`,
		"within Gradescope's defaults: 768 MB for the container, 10 minutes for a submission")
	v := autograder.DefaultGoVersion()
	sums, err := autograder.GoSHA256(v, nil)
	require.NoError(t, err, "the default Go release has pinned sums")
	assert.Contains(t, string(setup), `GO_VERSION="`+v+`"`)
	assert.Contains(t, string(setup), `GO_SHA256_amd64="`+sums["amd64"]+`"`)
	assert.NotContains(t, string(run), "--bonus")
	assert.NotContains(t, string(run), "--tests")
}

func TestBundleRefusesBadInput(t *testing.T) {
	root := courseCheckout(t)
	for _, c := range []struct {
		g    autograder.Gradescope
		want string
	}{
		{autograder.Gradescope{Source: t.TempDir(), Chapter: "10"}, "holds no go.mod: not the course's source tree"},
		{autograder.Gradescope{Source: root, Chapter: "10; rm -rf /"}, "not a plain name"},
		{autograder.Gradescope{Source: root, Chapter: "10", GoVersion: "latest"}, "not a release name"},
		{autograder.Gradescope{Source: root, Chapter: "10", GoVersion: "go1.21.0"}, "no pinned SHA-256 for go1.21.0's archives: pass --go-sha256"},
		{autograder.Gradescope{Source: root, Chapter: "10", GoSHA256: map[string]string{"amd64": "abc"}}, "not a SHA-256 in hex"},
		{autograder.Gradescope{Source: root, Chapter: "10", GoSHA256: map[string]string{"386": strings.Repeat("a", 64)}}, "not an arch setup.sh installs"},
		{autograder.Gradescope{Source: root, Chapter: "10", Memory: "lots"}, `memory "lots"`},
		{autograder.Gradescope{Source: root, Chapter: "10", Budget: 6 * time.Minute}, "at most 5m0s"},
		{autograder.Gradescope{Source: root, Chapter: "10", Budget: time.Minute, Timeout: 2 * time.Minute}, "more than the budget"},
		{autograder.Gradescope{Source: root, Chapter: "10", Timeout: -time.Second}, "must be positive"},
		{autograder.Gradescope{Source: root, Chapter: "10", TestsDir: t.TempDir()}, "holds no *_test.go file"},
	} {
		_, err := c.g.Write(io.Discard)
		assert.ErrorContains(t, err, c.want)
	}

	// A tree holding a name the bundle needs for itself.
	tree := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(tree, "go.mod"), []byte("module "+courseroot.ModulePath+"\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(tree, "setup.sh"), []byte("#!/bin/sh\n"), 0o755))
	require.NoError(t, autogradertest.CommitAll(tree))
	_, err := (&autograder.Gradescope{Source: tree, Chapter: "10"}).Write(io.Discard)
	assert.ErrorContains(t, err, "holds setup.sh, a name the bundle needs for itself")
}

// The end-to-end run: build the bundle, unpack it as Gradescope does, run
// its real setup.sh (with go on PATH, so nothing is installed, and offline)
// and its real run_autograder against submissions laid out in
// $AUTOGRADER_ROOT/submission, and check each results.json against
// Gradescope's published format.

func offlineEnv(root string) []string {
	return offline.Env("AUTOGRADER_ROOT=" + root)
}

func runScript(t *testing.T, root, script string) (int, string) {
	t.Helper()
	offline.Modules(t) // setup.sh downloads nothing: it finds the modules in the cache
	ctx, cancel := context.WithTimeout(t.Context(), 8*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", script)
	cmd.Dir = root
	cmd.Env = offlineEnv(root)
	cmd.WaitDelay = 10 * time.Second
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		return ee.ExitCode(), string(out)
	case err != nil:
		t.Fatalf("bash %s: %v\n%s", script, err, out)
	}
	return 0, string(out)
}

func resultsSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	sch, err := jsonschema.NewCompiler().Compile(filepath.Join("testdata", "gradescope-results.schema.json"))
	require.NoError(t, err)
	return sch
}

// gsResults is what the checks below read of a results.json.
type gsResults struct {
	Score  float64 `json:"score"`
	Output string  `json:"output"`
	Tests  []struct {
		Score      float64 `json:"score"`
		MaxScore   float64 `json:"max_score"`
		Status     string  `json:"status"`
		Name       string  `json:"name"`
		Number     string  `json:"number"`
		Output     string  `json:"output"`
		Visibility string  `json:"visibility"`
	} `json:"tests"`
}

// readResults validates results.json under root against the schema.
func readResults(t *testing.T, sch *jsonschema.Schema, root string) gsResults {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, "results", "results.json"))
	require.NoError(t, err, "run_autograder must always leave results.json")
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	require.NoError(t, err)
	require.NoError(t, sch.Validate(inst), "results.json against Gradescope's format:\n%s", data)
	var r gsResults
	require.NoError(t, json.Unmarshal(data, &r))
	return r
}

func TestSchemaRejectsWhatGradescopeWouldNot(t *testing.T) {
	sch := resultsSchema(t)
	for _, bad := range []string{
		`{"tests": []}`, // no score anywhere
		`{"score": 1, "tests": [{"score": 1, "status": "ok"}]}`,
		`{"score": 1, "tests": [{"score": 1, "visibility": "later"}]}`,
		`{"score": 1, "visibilty": "visible"}`,
		`{"score": 1, "output_format": "markdown"}`,
		`{"score": "1"}`,
	} {
		inst, err := jsonschema.UnmarshalJSON(strings.NewReader(bad))
		require.NoError(t, err)
		assert.Error(t, sch.Validate(inst), bad)
	}
	good := `{"score": 44.0, "execution_time": 136, "output": "x", "visibility": "after_due_date", "stdout_visibility": "visible",
	  "extra_data": {}, "tests": [{"score": 2.0, "max_score": 2.0, "status": "passed", "name": "n", "number": "1.1", "output": "o",
	  "tags": ["a"], "visibility": "visible", "extra_data": {}}], "leaderboard": [{"name": "Accuracy", "value": 0.9}, {"name": "Time", "value": 15.1, "order": "asc"}]}`
	inst, err := jsonschema.UnmarshalJSON(strings.NewReader(good))
	require.NoError(t, err)
	assert.NoError(t, sch.Validate(inst))
}

func TestRunAutograderInAGradescopeLayout(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds the course and grades submissions")
	}
	releasetest.SkipInRelease(t, "grading needs the hidden tests and the solution, which a release has not")
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	l := lab10(t)
	sch := resultsSchema(t)
	private := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(private, "private_test.go"),
		[]byte("package session_test\n\nimport \"testing\"\n\nfunc TestLab10_1_PrivateSuiteRuns(t *testing.T) {}\n"), 0o644))

	root := t.TempDir()
	zipPath := bundle(t, &autograder.Gradescope{Source: courseCheckout(t), Chapter: "10", TestsDir: private}, t.TempDir())
	unzip(t, zipPath, filepath.Join(root, "source"))

	code, out := runScript(t, root, filepath.Join(root, "source", "setup.sh"))
	require.Equal(t, 0, code, out)
	assert.Contains(t, out, "setup.sh: the autograder is ready")
	fi, err := os.Stat(filepath.Join(root, "course"))
	require.NoError(t, err, "setup.sh builds the course tool")
	assert.Equal(t, os.FileMode(0o700), fi.Mode().Perm())
	fi, err = os.Stat(filepath.Join(root, "source", "labs", "10-session", ".hidden"))
	require.NoError(t, err)
	assert.Zero(t, fi.Mode().Perm()&0o077, "only root may read the hidden tests")

	stub, err := os.ReadFile(filepath.Join(courseRoot(t), "labs", "10-session", "session.go"))
	require.NoError(t, err)
	solution, err := l.Solution()
	require.NoError(t, err)

	// submit lays out a fresh submission and results directory and runs
	// the real run_autograder.
	submit := func(t *testing.T, lay func(sub string)) gsResults {
		for _, d := range []string{"submission", "results"} {
			require.NoError(t, os.RemoveAll(filepath.Join(root, d)))
		}
		sub := filepath.Join(root, "submission")
		lay(sub)
		code, out := runScript(t, root, filepath.Join(root, "source", "run_autograder"))
		require.Equal(t, 0, code, "run_autograder ends with 0 whenever results.json is written\n%s", out)
		return readResults(t, sch, root)
	}
	graded := func(t *testing.T, r gsResults, passed bool) {
		t.Helper()
		byNumber := map[string]int{}
		for i, tc := range r.Tests {
			byNumber[tc.Number] = i
			assert.NotEmpty(t, tc.Name)
			assert.NotEmpty(t, tc.Output)
		}
		want, total := "failed", 0
		if passed {
			want = "passed"
		}
		for _, e := range l.Exercises {
			if e.Bonus {
				assert.NotContains(t, byNumber, e.ID, "bonus exercises only with --bonus")
				continue
			}
			total += e.Points
			i, ok := byNumber[e.ID]
			require.True(t, ok, "an entry for exercise %s", e.ID)
			tc := r.Tests[i]
			assert.Equal(t, e.ID+" "+e.Name, tc.Name)
			assert.Equal(t, float64(e.Points), tc.MaxScore)
			assert.Equal(t, want, tc.Status, e.ID)
			assert.Equal(t, "visible", tc.Visibility)
			h, ok := byNumber[e.ID+".h"]
			require.True(t, ok, "a hidden-tests entry for exercise %s", e.ID)
			assert.Equal(t, "after_published", r.Tests[h].Visibility, "hidden tests' details wait for publishing")
			assert.Zero(t, r.Tests[h].MaxScore)
			for _, name := range l.HiddenTests(e.ID) {
				assert.NotContains(t, tc.Output, name, "a visible entry never names a hidden test")
				assert.Contains(t, r.Tests[h].Output, name)
			}
		}
		if passed {
			assert.Equal(t, float64(total), r.Score)
		} else {
			assert.Zero(t, r.Score)
		}
		h := r.Tests[byNumber["10.1.h"]]
		if passed {
			assert.Contains(t, h.Output, "TestLab10_1_PrivateSuiteRuns: pass", "the bundled private suite runs as hidden tests")
		} else {
			// An exercise whose public tests fail has failed: its hidden
			// tests are not run.
			assert.Contains(t, h.Output, "TestLab10_1_PrivateSuiteRuns: not run")
		}
	}

	t.Run("solution as a lone session.go", func(t *testing.T) {
		r := submit(t, func(sub string) {
			require.NoError(t, os.MkdirAll(sub, 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(sub, "session.go"), solution, 0o644))
		})
		graded(t, r, true)
	})
	t.Run("stub in a whole workspace", func(t *testing.T) {
		r := submit(t, func(sub string) {
			require.NoError(t, l.WriteWorkspace(sub))
			require.NoError(t, os.WriteFile(filepath.Join(sub, "session.go"), stub, 0o644))
		})
		graded(t, r, false)
	})
	t.Run("no session.go", func(t *testing.T) {
		r := submit(t, func(sub string) {
			require.NoError(t, os.MkdirAll(sub, 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(sub, "main.go"), []byte("package main\n"), 0o644))
		})
		assert.Zero(t, r.Score)
		assert.Contains(t, r.Output, "main.go is graded as session.go", "an upload of another name is the lab's file")
		assert.Contains(t, r.Output, "main.go:1: package main: the file must be in package session", "the student is told what to fix, in the file as they named it")
	})
	t.Run("no Go file", func(t *testing.T) {
		r := submit(t, func(sub string) {
			require.NoError(t, os.MkdirAll(sub, 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(sub, "notes.txt"), []byte("hello\n"), 0o644))
		})
		assert.Zero(t, r.Score)
		assert.Empty(t, r.Tests)
		assert.Contains(t, r.Output, "no session.go", "the student is told what to fix")
	})
	t.Run("the grader itself fails", func(t *testing.T) {
		bin := filepath.Join(root, "course")
		require.NoError(t, os.Rename(bin, bin+".away"))
		defer func() { require.NoError(t, os.Rename(bin+".away", bin)) }()
		r := submit(t, func(sub string) {
			require.NoError(t, os.MkdirAll(sub, 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(sub, "session.go"), solution, 0o644))
		})
		assert.Zero(t, r.Score)
		assert.Contains(t, r.Output, "could not grade this submission", "a visible message, not a missing results.json")
	})
}
