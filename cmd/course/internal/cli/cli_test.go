package cli_test

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coursekit/course/cmd/course/internal/cli"
	"github.com/coursekit/course/grader/lab"
)

type result struct {
	code           int
	stdout, stderr string
}

// run executes the course command line in-process.
func run(t *testing.T, f *cli.Factory, args ...string) result {
	t.Helper()
	var stdout, stderr bytes.Buffer
	if f == nil {
		f = &cli.Factory{Catalog: lab.Load, BuildInfo: debug.ReadBuildInfo}
	}
	f.IO = cli.IOStreams{In: strings.NewReader(""), Out: &stdout, ErrOut: &stderr}
	code := cli.Run(f, args)
	return result{code, stdout.String(), stderr.String()}
}

// runSoon is run with a safety net: a command that blocks (on a FIFO in a
// submission, say) fails the test instead of hanging it.
func runSoon(t *testing.T, f *cli.Factory, args ...string) result {
	t.Helper()
	done := make(chan result, 1)
	go func() { done <- run(t, f, args...) }()
	select {
	case r := <-done:
		return r
	case <-time.After(time.Minute):
		t.Fatalf("course %s still runs after a minute: it must never wait on what a submission holds", strings.Join(args, " "))
		return result{}
	}
}

// snapshot returns every file and directory under dir with its content.
// A link, a FIFO or a device is recorded by its type (and a link by its
// target), never opened: a fixture may hold what would block a read.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	require.NoError(t, filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if d.IsDir() {
			out[rel+"/"] = ""
			return nil
		}
		if !d.Type().IsRegular() {
			target, _ := os.Readlink(p)
			out[rel] = d.Type().String() + " " + target
			return nil
		}
		b, err := os.ReadFile(p)
		out[rel] = string(b)
		return err
	}))
	return out
}

func TestPracticeCreatesAWorkspace(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "mylab")
	r := run(t, nil, "practice", "10", dir)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Empty(t, r.stderr)
	assert.FileExists(t, filepath.Join(dir, "session.go"))
	assert.FileExists(t, filepath.Join(dir, "go.mod"))
	info, err := lab.ReadWorkspaceInfo(dir)
	require.NoError(t, err)
	assert.Equal(t, "10", info.Chapter)

	assert.Contains(t, r.stdout, "Created "+dir+": chapter 10")
	assert.Contains(t, r.stdout, "Edit:    "+filepath.Join(dir, "session.go"))
	assert.Contains(t, r.stdout, "  cd "+dir+"\n")
	assert.Regexp(t, `(?m)^  go test -run Lab10_1 +# exercise 10\.1 \(PathTo\)$`, r.stdout)
	assert.Regexp(t, `(?m)^  go test -v -run Lab10_1 +# `, r.stdout)
	if _, err := os.Stat(filepath.Join(dir, "README.md")); err == nil {
		assert.Contains(t, r.stdout, "Read:    "+filepath.Join(dir, "README.md"), "points at the handout")
	}
}

func TestPracticeIntoAnEmptyDirectory(t *testing.T) {
	dir := t.TempDir()
	r := run(t, nil, "practice", "10", dir)
	require.Equal(t, 0, r.code, r.stderr)
	assert.FileExists(t, filepath.Join(dir, "session.go"))
}

func TestPracticeQuotesAPathWithSpaces(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "my lab")
	r := run(t, nil, "practice", "10", dir)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "  cd '"+dir+"'\n")
}

func TestPracticeRefusesABadTargetAndTouchesNothing(t *testing.T) {
	for name, tc := range map[string]struct {
		setup  func(t *testing.T, parent string) string
		reason string
	}{
		"non-empty directory": {func(t *testing.T, parent string) string {
			d := filepath.Join(parent, "mylab")
			require.NoError(t, os.MkdirAll(filepath.Join(d, "notes"), 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(d, "session.go"), []byte("package session // my work\n"), 0o644))
			require.NoError(t, os.WriteFile(filepath.Join(d, "notes", "todo.txt"), []byte("finish 10.3"), 0o600))
			return d
		}, "directory is not empty"},
		"a file": {func(t *testing.T, parent string) string {
			p := filepath.Join(parent, "mylab")
			require.NoError(t, os.WriteFile(p, []byte("not a directory"), 0o644))
			return p
		}, "exists and is not a directory"},
		"missing parent": {func(t *testing.T, parent string) string {
			return filepath.Join(parent, "nope", "mylab")
		}, "parent directory does not exist: make " + filepath.Join("PARENT", "nope") + " first, or name a new directory inside one that exists"},
	} {
		t.Run(name, func(t *testing.T) {
			parent := t.TempDir()
			target := tc.setup(t, parent)
			before := snapshot(t, parent)

			r := run(t, nil, "practice", "10", target)
			assert.Equal(t, 2, r.code)
			assert.Empty(t, r.stdout)
			assert.Equal(t, "course practice: cannot create the workspace: "+target+": "+strings.ReplaceAll(tc.reason, "PARENT", parent)+"\n", r.stderr,
				"a target that cannot be used is no mistake in the command line's form: no pointer to --help")
			assert.Equal(t, before, snapshot(t, parent), "byte-identical afterwards")
		})
	}
}

func TestUsageErrors(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "mylab")
	c, err := lab.Load()
	require.NoError(t, err)
	known := strings.Join(c.Chapters(), ", ")
	for _, tc := range []struct {
		args []string
		want string // the one-line reason
		help string // the command whose help is suggested
	}{
		{[]string{"frobnicate"}, `course: unknown command "frobnicate"`, "course"},
		{[]string{"practise", "10", dir}, `course: unknown command "practise" (did you mean "practice"?)`, "course"},
		{[]string{"--bogus"}, `course: unknown flag: --bogus`, "course"},
		{[]string{"practice", "--bogus", "10", dir}, `course practice: unknown flag: --bogus`, "course practice"},
		{[]string{"practice", "-x", "10", dir}, `course practice: unknown shorthand flag: 'x' in -x`, "course practice"},
		{[]string{"practice"}, `course practice: missing arguments <chapter> and <dir>`, "course practice"},
		{[]string{"practice", "10"}, `course practice: missing argument <dir>`, "course practice"},
		{[]string{"practice", "10", dir, "extra"}, `course practice: unexpected argument "extra"`, "course practice"},
		{[]string{"practice", "99", dir}, `course practice: unknown chapter "99" (known: ` + known + `)`, "course practice"},
		{[]string{"practice", "", dir}, `course practice: unknown chapter "" (known: ` + known + `)`, "course practice"},
		{[]string{"practice", "10", ""}, `course practice: cannot create the workspace: : empty path`, "course practice"},
		{[]string{"list", "x"}, `course list: unexpected argument "x"`, "course list"},
		{[]string{"version", "--short"}, `course version: unknown flag: --short`, "course version"},
		{[]string{"version", "x"}, `course version: unexpected argument "x"`, "course version"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			r := run(t, nil, tc.args...)
			assert.Equal(t, 2, r.code)
			assert.Empty(t, r.stdout, "no usage dump")
			assert.Equal(t, tc.want+"\nRun '"+tc.help+" --help' for usage.\n", r.stderr)
			assert.NoDirExists(t, dir)
		})
	}
}

// TestOnlyUsageErrorsPointToHelp: exit status 2 comes with "Run '... --help'
// for usage" only when the command line's form is wrong (a flag, a value,
// an argument); when it names something that cannot be used (a file that
// exists or does not, a directory that is not a workspace), the one line
// says what to change, and --help would tell nothing more.
func TestOnlyUsageErrorsPointToHelp(t *testing.T) {
	dir := t.TempDir()
	exists := filepath.Join(dir, "notes.txt")
	require.NoError(t, os.WriteFile(exists, []byte("x"), 0o644))
	sub := filepath.Join(dir, "alice.go")
	require.NoError(t, os.WriteFile(sub, []byte("package session\n"), 0o644))
	missing := filepath.Join(dir, "missing")
	for _, tc := range []struct {
		args  []string
		usage bool
	}{
		{[]string{"grade", "--timeout", "0s", sub}, true},
		{[]string{"grade", "--format", "xml", sub}, true},
		{[]string{"tree"}, true},
		{[]string{"hint", "10.1", "--lang", "fr"}, true},
		{[]string{"grade", "-o", exists, sub}, false},
		{[]string{"grade", "--csv", filepath.Join(missing, "g.csv"), sub}, false},
		{[]string{"grade", "--late", "10%/day", "--due", "2026-12-01T00:00:00Z", "--times", missing, sub}, false},
		{[]string{"grade", "--from", missing}, false},
		{[]string{"practice", "10", dir}, false},
		{[]string{"tree", missing}, false},
		{[]string{"hint", "10.1", "--dir", missing}, false},
		{[]string{"autograder", "report", missing}, false},
	} {
		r := run(t, nil, tc.args...)
		assert.Equal(t, 2, r.code, "course %s: %s", strings.Join(tc.args, " "), r.stderr)
		assert.Equal(t, tc.usage, strings.Contains(r.stderr, "--help' for usage."), "course %s printed\n%s", strings.Join(tc.args, " "), r.stderr)
		assert.Equal(t, 1+bool2int(tc.usage), strings.Count(r.stderr, "\n"), "course %s: one line, and the pointer to --help only for usage", strings.Join(tc.args, " "))
	}
}

func bool2int(b bool) int {
	if b {
		return 1
	}
	return 0
}

func TestFailureWhileRunningIsExitStatus1(t *testing.T) {
	broken := errors.New("labs/10-session/.meta/lab.json: broken")
	f := &cli.Factory{Catalog: func() (*lab.Catalog, error) { return nil, broken }}
	for _, args := range [][]string{{"list"}, {"practice", "10", filepath.Join(t.TempDir(), "x")}} {
		r := run(t, f, args...)
		assert.Equal(t, 1, r.code, args)
		assert.Equal(t, "course "+args[0]+": "+broken.Error()+"\n", r.stderr, "no usage hint: the command line was fine")
	}
}

func TestExitErrorUnwraps(t *testing.T) {
	inner := &lab.UnknownChapterError{Chapter: "9"}
	err := error(&cli.ExitError{Code: cli.ExitUsage, Err: inner})
	var uc *lab.UnknownChapterError
	assert.ErrorAs(t, err, &uc)
	assert.Equal(t, inner.Error(), err.Error())
}

func TestHelpEverywhere(t *testing.T) {
	for _, args := range [][]string{
		{}, {"--help"}, {"-h"}, {"help"}, {"help", "practice"},
		{"practice", "--help"}, {"list", "--help"}, {"version", "--help"},
		{"completion", "--help"}, {"completion", "bash", "--help"},
	} {
		r := run(t, nil, args...)
		assert.Equal(t, 0, r.code, args)
		assert.Contains(t, r.stdout, "Usage:", args)
		assert.Empty(t, r.stderr, args)
	}
	c, err := lab.Load()
	require.NoError(t, err)
	r := run(t, nil, "practice", "--help")
	assert.Contains(t, r.stdout, "course practice <chapter> <dir>")
	assert.Contains(t, r.stdout, "course practice "+c.Chapters()[0]+" mylab", "the example is of the course's first lab")
}

func TestCompletionIsKept(t *testing.T) {
	r := run(t, nil, "completion", "bash")
	assert.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "bash completion")
	r = run(t, nil, "__complete", "pr")
	assert.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "practice")
}

func TestListIsAnAlignedTable(t *testing.T) {
	r := run(t, nil, "list")
	require.Equal(t, 0, r.code, r.stderr)
	lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
	header := lines[0]
	assert.Regexp(t, `^CHAPTER +EXERCISE +NAME +POINTS +PUBLIC TESTS +HIDDEN TESTS +GRADED$`, header)

	c, err := lab.Load()
	require.NoError(t, err)
	cols := []string{"EXERCISE", "NAME", "POINTS", "PUBLIC TESTS", "HIDDEN TESTS", "GRADED"}
	// A name may have single spaces in it ("PathToLeaf and BuildContext").
	row := regexp.MustCompile(`^(\S+) +(\S+) +(\S+(?: \S+)*) +(\d+) +(\d+) +(\d+|-) +(always|bonus)$`)
	i := 1
	for _, l := range c.Labs() { // every lab, in the catalog's order
		_, solErr := l.Solution()
		for _, e := range l.Exercises {
			require.Less(t, i, len(lines), "course list ends before exercise %s:\n%s", e.ID, r.stdout)
			line := lines[i]
			m := row.FindStringSubmatch(line)
			require.NotNil(t, m, "row %d of course list: %q", i, line)
			assert.Equal(t, []string{l.Chapter, e.ID, e.Name}, m[1:4])
			assert.Equal(t, []string{
				strconv.Itoa(e.Points), strconv.Itoa(len(l.PublicTests(e.ID))), hiddenCount(l, e.ID, solErr),
			}, m[4:7], "the numbers of %s", e.ID)
			assert.Equal(t, e.Bonus, m[7] == "bonus", "GRADED of %s", e.ID)
			for _, col := range cols { // every column starts under its heading
				at := strings.Index(header, col)
				assert.NotEqual(t, ' ', rune(line[at]), "row %d column %s", i, col)
				assert.Equal(t, ' ', rune(line[at-1]), "row %d column %s", i, col)
			}
			i++
		}
	}
	assert.Len(t, lines, i, "course list: a header and one row per exercise of every lab:\n%s", r.stdout)
}

func TestVersion(t *testing.T) {
	for name, tc := range map[string]struct {
		info func() (*debug.BuildInfo, bool)
		want string
	}{
		"release": {func() (*debug.BuildInfo, bool) {
			return &debug.BuildInfo{GoVersion: "go1.24.3", Main: debug.Module{Path: "github.com/coursekit/course", Version: "v1.2.3"},
				Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "0123abcd"}, {Key: "vcs.modified", Value: "false"}}}, true
		}, "course v1.2.3\nrevision 0123abcd\nbuilt with go1.24.3 "},
		"modified checkout": {func() (*debug.BuildInfo, bool) {
			return &debug.BuildInfo{GoVersion: "go1.25.0", Main: debug.Module{Version: "(devel)"},
				Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "fedcba98"}, {Key: "vcs.modified", Value: "true"}}}, true
		}, "course (devel)\nrevision fedcba98 (modified)\nbuilt with go1.25.0 "},
		"no build info": {func() (*debug.BuildInfo, bool) { return nil, false }, "course (devel)\nbuilt with go"},
	} {
		t.Run(name, func(t *testing.T) {
			r := run(t, &cli.Factory{BuildInfo: tc.info}, "version")
			require.Equal(t, 0, r.code, r.stderr)
			assert.True(t, strings.HasPrefix(r.stdout, tc.want), r.stdout)
			assert.Regexp(t, `built with go\S+ \w+/\w+\n$`, r.stdout)
		})
	}
}

func TestMainUsesTheRealStreams(t *testing.T) {
	var out, errOut bytes.Buffer
	code := cli.Main([]string{"version"}, strings.NewReader(""), &out, &errOut)
	assert.Equal(t, 0, code)
	assert.True(t, strings.HasPrefix(out.String(), "course "), out.String())
	assert.Empty(t, errOut.String())

	out.Reset()
	code = cli.Main(nil, strings.NewReader(""), &out, &errOut)
	assert.Equal(t, 0, code, "nil args mean no arguments, not the test binary's")
	assert.Contains(t, out.String(), "Usage:")
}

// hiddenCount is what `course list` shows for the hidden tests: their number,
// or "-" in a student release, which has none of them to count.
func hiddenCount(l *lab.Lab, id string, solErr error) string {
	if errors.Is(solErr, lab.ErrNoSolution) {
		return "-"
	}
	return strconv.Itoa(len(l.HiddenTests(id)))
}
