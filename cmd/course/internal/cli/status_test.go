package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coursekit/course/grader/lab"
)

// execute runs a command built with fakes, as Run would, and returns its error.
func execute(cmd *cobra.Command, args ...string) error {
	cmd.SetArgs(args)
	cmd.SetOut(io.Discard)
	cmd.SetErr(io.Discard)
	cmd.SilenceUsage, cmd.SilenceErrors = true, true
	return cmd.ExecuteContext(context.Background())
}

// statusOf runs `course status` in a demo workspace whose go test answers
// with runs, writing to out (a buffer when nil), with getenv.
func statusOf(t *testing.T, runs map[string]*goTestRun, out io.Writer, getenv func(string) string) (string, string, error) {
	t.Helper()
	dir := demoWorkspace(t)
	if out == nil {
		out = &bytes.Buffer{}
	}
	var errOut bytes.Buffer
	fake := &fakeGoTest{t: t, respond: byPattern(runs)}
	opts := &StatusOptions{IO: IOStreams{In: strings.NewReader(""), Out: out, ErrOut: &errOut},
		Catalog: demoCatalog(t, false), Getenv: getenv, GoTest: fake.goTest}
	err := execute(newCmdStatus(opts), "--dir", dir)
	return fmt.Sprint(out), dir, err
}

func TestStatusTableAndNext(t *testing.T) {
	out, dir, err := statusOf(t, map[string]*goTestRun{
		runAll: newRun().pass("TestLab7_1_A", "TestLab7_1_B").fail("TestLab7_2_A", "demo_test.go:9: want 2").exit(1),
		run73:  newRun().exit(0), // not run in the shared run: asked again
	}, nil, noEnv)
	require.NoError(t, err, "status exits 0 when it could run the tests")
	assert.Equal(t, `Lab 7: Demo  (`+dir+`)

EXERCISE  NAME           RESULT  TESTS  POINTS              HINTS
7.1       One            pass    2/2    10/10   [████████]  none yet
7.2       Two            FAIL    0/1    0/20    [░░░░░░░░]
7.3       Three (bonus)  todo    0/1    0/5     [░░░░░░░░]

Points: 10/30 (bonus 0/5)   [██████████░░░░░░░░░░] 1 of 2 exercises pass
Next: 7.2 Two — go test -run Lab7_2 (course hint 7.2 for a nudge)
`, out)
}

func TestStatusBonusIsListedLastAndNextAfterTheGradedOnes(t *testing.T) {
	// The manifest lists 7.3 first; it comes after the graded ones.
	out, _, err := statusOf(t, map[string]*goTestRun{
		runAll: newRun().pass("TestLab7_1_A", "TestLab7_1_B", "TestLab7_2_A").fail("TestLab7_3_A").exit(1),
	}, nil, noEnv)
	require.NoError(t, err)
	assert.Regexp(t, `(?m)^7\.3 +Three \(bonus\) +todo +0/1 +0/5 +\[░+\]$`, out)
	assert.NotContains(t, out, "FAIL", "an optional exercise that does not pass yet is work offered, not a failure")
	assert.Contains(t, out, "Points: 30/30 (bonus 0/5)   [████████████████████] 2 of 2 exercises pass\n")
	assert.True(t, strings.HasSuffix(out, "\nEvery graded exercise passes! Bonus: 7.3 Three — go test -run Lab7_3 (course hint 7.3 for a nudge)\n"), out)
}

func TestStatusAllPass(t *testing.T) {
	out, _, err := statusOf(t, map[string]*goTestRun{
		runAll: newRun().pass("TestLab7_1_A", "TestLab7_1_B", "TestLab7_2_A", "TestLab7_3_A").exit(0),
	}, nil, noEnv)
	require.NoError(t, err)
	assert.Contains(t, out, "Points: 30/30 (bonus 5/5)")
	assert.True(t, strings.HasSuffix(out, "\nAll exercises pass!\n"), out)
	assert.NotContains(t, out, "Next:")
}

func TestStatusBuildFailureShowsTheCompilerOnce(t *testing.T) {
	out, _, err := statusOf(t, map[string]*goTestRun{runAll: buildFailure()}, nil, noEnv)
	require.NoError(t, err)
	assert.Contains(t, out, "The code does not compile, so every exercise fails:\n"+
		"    # lab7 [lab7.test]\n    ./demo.go:3:17: declared and not used: x\n\nEXERCISE")
	assert.Equal(t, 1, strings.Count(out, "declared and not used"))
	assert.Regexp(t, `(?m)^7\.1 +One +FAIL +0/2 +0/10 `, out)
	assert.Contains(t, out, "Next: 7.1 One — ")
}

func TestStatusColourOnATerminalOnly(t *testing.T) {
	runs := map[string]*goTestRun{
		runAll: newRun().pass("TestLab7_1_A", "TestLab7_1_B").fail("TestLab7_2_A").fail("TestLab7_3_A").exit(1),
	}
	var tty termBuffer
	out, _, err := statusOf(t, runs, &tty, noEnv)
	require.NoError(t, err)
	assert.Contains(t, out, "7.1       One            \x1b[32mpass\x1b[0m    2/2    10/10   \x1b[32m[████████]\x1b[0m  \x1b[2mnone yet\x1b[0m\n", "aligned by what shows")
	assert.Contains(t, out, "\x1b[31mFAIL\x1b[0m")

	tty.Reset()
	out, _, err = statusOf(t, runs, &tty, env(map[string]string{"NO_COLOR": "1"}))
	require.NoError(t, err)
	assert.NotContains(t, out, "\x1b[")
}

// TestStatusShowsTheRungReached: the HINTS column says how far up the
// ladder course hint has taken the student in each exercise with hints.
func TestStatusShowsTheRungReached(t *testing.T) {
	dir := demoWorkspace(t)
	for i, want := range []string{"1/4 locate", "2/4 signature", "3/4 pseudocode", "4/4 local code", "4/4 local code"} {
		require.NoError(t, hintIn(t, dir, noEnv, "7.1").err, "course hint 7.1, call %d", i+1)
		var out bytes.Buffer
		fake := &fakeGoTest{t: t, respond: byPattern(map[string]*goTestRun{
			runAll: newRun().pass("TestLab7_1_A", "TestLab7_1_B").fail("TestLab7_2_A").fail("TestLab7_3_A").exit(1),
		})}
		opts := &StatusOptions{IO: IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &bytes.Buffer{}},
			Catalog: demoCatalog(t, false), Getenv: noEnv, GoTest: fake.goTest}
		require.NoError(t, execute(newCmdStatus(opts), "--dir", dir))
		assert.Regexp(t, `(?m)^7\.1 +One +pass +2/2 +10/10 +\[█+\]  `+regexp.QuoteMeta(want)+`$`, out.String(), "after %d calls of course hint 7.1", i+1)
		assert.Regexp(t, `(?m)^7\.2 +Two +FAIL +0/1 +0/20 +\[░+\]$`, out.String(), "7.2 has no hints: no HINTS cell")
	}
}

func TestStatusCannotRunGo(t *testing.T) {
	noGo := &goTestRun{err: errors.New(`cannot run go test: exec: "go": executable file not found in $PATH`)}
	_, _, err := statusOf(t, map[string]*goTestRun{runAll: noGo}, nil, noEnv)
	var ee *ExitError
	require.ErrorAs(t, err, &ee)
	assert.Equal(t, ExitUsage, ee.Code)
	assert.True(t, ee.NoHelp)
	assert.Equal(t, noGo.err.Error(), ee.Error())
}

func TestStatusUsage(t *testing.T) {
	var stdout, stderr bytes.Buffer
	f := &Factory{IO: IOStreams{In: strings.NewReader(""), Out: &stdout, ErrOut: &stderr}, Catalog: lab.Load, BuildInfo: debug.ReadBuildInfo}
	assert.Equal(t, ExitUsage, Run(f, []string{"status", "extra"}))
	assert.Equal(t, "course status: unexpected argument \"extra\"\nRun 'course status --help' for usage.\n", stderr.String())
}

// TestStatusOfAFreshWorkspace runs the real go test on a workspace that
// `course practice` made: the stub passes nothing.
func TestStatusOfAFreshWorkspace(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: runs go test on a workspace")
	}
	dir := filepath.Join(t.TempDir(), "mylab")
	var stdout, stderr bytes.Buffer
	f := &Factory{IO: IOStreams{In: strings.NewReader(""), Out: &stdout, ErrOut: &stderr}, Catalog: lab.Load, BuildInfo: debug.ReadBuildInfo}
	require.Equal(t, ExitOK, Run(f, []string{"practice", "10", dir}), stderr.String())
	t.Setenv("GOFLAGS", "-mod=mod")
	t.Setenv("GOPROXY", "off")
	t.Setenv("NO_COLOR", "")
	stdout.Reset()

	// From a directory inside the workspace, as a student may.
	sub := filepath.Join(dir, "notes")
	require.NoError(t, os.Mkdir(sub, 0o755))
	code := Run(f, []string{"status", "--dir", sub})
	out := stdout.String()
	require.Equal(t, ExitOK, code, stderr.String()+out)
	assert.Empty(t, stderr.String(), "no progress off a terminal")

	c, err := lab.Load()
	require.NoError(t, err)
	l, err := c.Lookup("10")
	require.NoError(t, err)
	graded, points := 0, 0
	for _, e := range l.Exercises {
		n := len(l.PublicTests(e.ID))
		require.NotZero(t, n)
		name, verdict := regexp.QuoteMeta(e.Name), "FAIL"
		if e.Bonus {
			name, verdict = name+` \(bonus\)`, "todo"
		} else {
			graded++
			points += e.Points
		}
		assert.Regexp(t, fmt.Sprintf(`(?m)^%s +%s +%s +0/%d +0/%d +\[░+\]  none yet$`, regexp.QuoteMeta(e.ID), name, verdict, n, e.Points), out,
			"every exercise has hints, and no rung was climbed yet")
	}
	assert.Contains(t, out, fmt.Sprintf("Points: 0/%d", points))
	assert.Contains(t, out, fmt.Sprintf("0 of %d exercises pass\n", graded))
	first := l.Exercises[0]
	assert.Contains(t, out, fmt.Sprintf("Next: %s %s — go test -run %s (course hint %s for a nudge)\n", first.ID, first.Name, runPattern(first), first.ID))
	assert.NotContains(t, out, "does not compile")
}

func TestStatusInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // Ctrl-C
	fake := &fakeGoTest{t: t, respond: byPattern(map[string]*goTestRun{runAll: newRun().exit(1)})}
	var out bytes.Buffer
	opts := &StatusOptions{IO: IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &bytes.Buffer{}},
		Catalog: demoCatalog(t, false), Getenv: noEnv, GoTest: fake.goTest, Dir: demoWorkspace(t)}
	err := runStatus(ctx, opts)
	assert.Equal(t, ExitUsage, exitCode(t, err))
	assert.EqualError(t, err, "interrupted")
	assert.Empty(t, out.String())
}
