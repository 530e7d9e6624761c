// Package autograder makes what the course needs to grade on other
// platforms: a Gradescope autograder bundle (a zip holding setup.sh,
// run_autograder and the course's source tree), a Classroom 50
// assignment's autograder.py and runtime block, and a GitHub Actions
// workflow or a GitLab CI file for a student repository made from a
// practice workspace; and the instructor's files that grade a whole class
// in shards on GitHub Actions, GitLab CI or Kubernetes (ClassCI).
package autograder

import (
	"archive/zip"
	"bytes"
	"embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"text/template"
	"time"

	"github.com/coursekit/course/grader/courseroot"
	"github.com/dustin/go-humanize"
)

// Gradescope's defaults for an autograder: 768 MB of memory for the
// container and 10 minutes for a submission. A bundle grades inside them:
// one run of student code at a time, which may use DefaultGradescopeMemory,
// all runs of a submission DefaultGradescopeBudget, and run_autograder stops course grade
// after RunAutograderLimit and reports that in results.json. The grader's
// worst case is its static check (20 s), the build (2 minutes) and the
// budget: MaxGradescopeBudget keeps it inside RunAutograderLimit.
const (
	DefaultGradescopeMemory = "512MiB"
	DefaultGradescopeBudget = 2 * time.Minute
	MaxGradescopeBudget     = 5 * time.Minute
	RunAutograderLimit      = 8 * time.Minute
)

// Names at the root of a Gradescope bundle.
const (
	SetupScript = "setup.sh"
	RunScript   = "run_autograder"
	// PrivateTestsDir is where the bundle keeps the --tests suite.
	PrivateTestsDir = "autograder-tests"
)

// DefaultGoVersion is the Go release setup.sh installs when the image has
// no go command: the one this tool was built with, if the course knows its
// archives' SHA-256 (gosums.txt), else the newest release it knows.
func DefaultGoVersion() string {
	if v := runtime.Version(); goSums[v] != nil {
		return v
	}
	vs := PinnedGoVersions()
	return vs[len(vs)-1]
}

var goReleaseName = regexp.MustCompile(`^go1\.\d+(\.\d+)?$`)

//go:embed scripts/*.tmpl
var scripts embed.FS

var templates = template.Must(template.New("").ParseFS(scripts, "scripts/*.tmpl"))

// zipTime is every entry's modification time, so that the same source
// makes the same bytes.
var zipTime = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

// Gradescope describes a Gradescope autograder bundle.
type Gradescope struct {
	// Source is the course's source tree (its module root).
	Source string
	// Chapter is the lab that submissions are graded against.
	Chapter string
	// TestsDir, if set, is an instructor's private suite: its *_test.go
	// files go into the bundle and are run as hidden tests.
	TestsDir string
	// Bonus grades the lab's bonus exercises too.
	Bonus bool
	// Timeout, if set, is each exercise's time limit in course grade
	// (--timeout); the grader's default otherwise.
	Timeout time.Duration
	// GoVersion is the release setup.sh installs when the image has no go
	// command ("go1.26.2"); DefaultGoVersion() if empty.
	GoVersion string
	// GoSHA256 is the SHA-256 of GoVersion's linux archive per arch
	// ("amd64", "arm64"), which setup.sh checks the download against; the
	// course's table (gosums.txt) if empty.
	GoSHA256 map[string]string
	// Memory is course grade's --memory, the limit of one run of student
	// code; DefaultGradescopeMemory if empty.
	Memory string
	// Budget is course grade's --budget, the time of all runs of one
	// submission; DefaultGradescopeBudget if zero.
	Budget time.Duration
	// Limit is how long run_autograder lets course grade run before it
	// stops it and reports so; RunAutograderLimit if zero.
	Limit time.Duration
	// Exclude lists paths under Source to leave out (the bundle itself,
	// when it is written inside the tree).
	Exclude []string
	// Sandbox is the grader's --sandbox mode on Gradescope's machine
	// ("strict" if empty: a machine without namespaces then fails setup.sh,
	// and the instructor decides whether "best" is good enough).
	Sandbox string
	// AllowDirty bundles a checkout with uncommitted changes to tracked
	// files, as they are on disk; without it such a checkout is refused.
	AllowDirty bool
}

// BundleSummary says what went into a bundle.
type BundleSummary struct {
	SourceFiles  int // files of the course's source tree
	PrivateTests int // files of the private suite
}

// Write writes the bundle as a zip to w: setup.sh and run_autograder at
// its root (executable), the course's source tree beside them, and the
// private suite, if any, in PrivateTestsDir.
func (g *Gradescope) Write(w io.Writer) (BundleSummary, error) {
	var sum BundleSummary
	if err := g.check(); err != nil {
		return sum, err
	}
	files, err := ListSourceTree(g.Source, g.AllowDirty, g.Exclude...)
	if err != nil {
		return sum, fmt.Errorf("source tree %s: %w", g.Source, err)
	}
	for _, f := range files {
		if f.Name == SetupScript || f.Name == RunScript || f.Name == PrivateTestsDir || strings.HasPrefix(f.Name, PrivateTestsDir+"/") {
			return sum, fmt.Errorf("source tree %s: holds %s, a name the bundle needs for itself", g.Source, f.Name)
		}
	}
	private, err := g.privateTests()
	if err != nil {
		return sum, err
	}
	setup, run, err := g.Scripts()
	if err != nil {
		return sum, err
	}

	zw := zip.NewWriter(w)
	add := func(name string, mode fs.FileMode, r func() ([]byte, error)) error {
		data, err := r()
		if err != nil {
			return err
		}
		h := &zip.FileHeader{Name: name, Method: zip.Deflate, Modified: zipTime}
		h.SetMode(mode)
		fw, err := zw.CreateHeader(h)
		if err != nil {
			return err
		}
		_, err = fw.Write(data)
		return err
	}
	bytesOf := func(b []byte) func() ([]byte, error) { return func() ([]byte, error) { return b, nil } }
	if err := add(SetupScript, 0o755, bytesOf(setup)); err != nil {
		return sum, err
	}
	if err := add(RunScript, 0o755, bytesOf(run)); err != nil {
		return sum, err
	}
	for _, f := range files {
		p := filepath.Join(g.Source, filepath.FromSlash(f.Name))
		if err := add(f.Name, normalMode(f.Mode), func() ([]byte, error) { return os.ReadFile(p) }); err != nil {
			return sum, err
		}
		sum.SourceFiles++
	}
	for _, name := range private {
		p := filepath.Join(g.TestsDir, name)
		if err := add(PrivateTestsDir+"/"+name, 0o644, func() ([]byte, error) { return os.ReadFile(p) }); err != nil {
			return sum, err
		}
		sum.PrivateTests++
	}
	return sum, zw.Close()
}

// normalMode keeps only whether a file is executable, as git does.
func normalMode(m fs.FileMode) fs.FileMode {
	if m&0o111 != 0 {
		return 0o755
	}
	return 0o644
}

func (g *Gradescope) check() error {
	if g.Source == "" {
		return errors.New("no source tree given")
	}
	if err := courseroot.Check(g.Source); err != nil {
		return fmt.Errorf("source tree %s: %w", g.Source, err)
	}
	if !safeWord.MatchString(g.Chapter) {
		return fmt.Errorf("chapter %q: not a plain name", g.Chapter)
	}
	switch g.Sandbox {
	case "", "strict", "best":
	default:
		return fmt.Errorf("sandbox %q: strict or best (a bundle never grades without a sandbox)", g.Sandbox)
	}
	if g.Timeout < 0 {
		return fmt.Errorf("timeout %s: must be positive", g.Timeout)
	}
	if g.GoVersion != "" && !goReleaseName.MatchString(g.GoVersion) {
		return fmt.Errorf("Go version %q: not a release name like go1.26.2", g.GoVersion)
	}
	if _, err := GoSHA256(g.goVersion(), g.GoSHA256); err != nil {
		return err
	}
	if g.Memory != "" {
		if n, err := humanize.ParseBytes(g.Memory); err != nil || n < 64<<20 {
			return fmt.Errorf("memory %q: want a size of at least 64MiB, such as 512MiB", g.Memory)
		}
	}
	budget := g.budget()
	if budget <= 0 || budget > MaxGradescopeBudget {
		return fmt.Errorf("budget %s: must be positive and at most %s, so that the worst case (20s check, 2m build, the budget) ends inside run_autograder's %s limit", budget, MaxGradescopeBudget, RunAutograderLimit)
	}
	if g.Timeout > budget {
		return fmt.Errorf("timeout %s: more than the budget %s", g.Timeout, budget)
	}
	return nil
}

func (g *Gradescope) goVersion() string {
	if g.GoVersion == "" {
		return DefaultGoVersion()
	}
	return g.GoVersion
}

func (g *Gradescope) limit() time.Duration {
	if g.Limit <= 0 {
		return RunAutograderLimit
	}
	return max(g.Limit, time.Second)
}

func (g *Gradescope) budget() time.Duration {
	if g.Budget == 0 {
		return DefaultGradescopeBudget
	}
	return g.Budget
}

var safeWord = regexp.MustCompile(`^[A-Za-z0-9._-]+$`)

// privateTests lists the *_test.go files directly in TestsDir, as
// `course grade --tests` would take them.
func (g *Gradescope) privateTests() ([]string, error) {
	if g.TestsDir == "" {
		return nil, nil
	}
	entries, err := os.ReadDir(g.TestsDir)
	if err != nil {
		return nil, fmt.Errorf("--tests: %w", err)
	}
	var names []string
	for _, e := range entries {
		n := e.Name()
		if e.Type().IsRegular() && strings.HasSuffix(n, "_test.go") && !strings.HasPrefix(n, ".") && !strings.HasPrefix(n, "_") {
			names = append(names, n)
		}
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("--tests %s: holds no *_test.go file", g.TestsDir)
	}
	return names, nil
}

// Scripts returns the bundle's setup.sh and run_autograder.
func (g *Gradescope) Scripts() (setup, run []byte, err error) {
	if err := g.check(); err != nil {
		return nil, nil, err
	}
	memory := g.Memory
	if memory == "" {
		memory = DefaultGradescopeMemory
	}
	// One run at a time: two runs of --memory each would not fit in the
	// container's 768 MB.
	flags := []string{"--chapter", g.Chapter, "--memory", memory, "--runs", "1", "--budget", g.budget().String()}
	if g.Bonus {
		flags = append(flags, "--bonus")
	}
	if g.Timeout > 0 {
		flags = append(flags, "--timeout", g.Timeout.String())
	}
	if g.TestsDir != "" {
		flags = append(flags, "--tests", `"$AUTOGRADER_ROOT/source/`+PrivateTestsDir+`"`)
	}
	if g.Sandbox != "" && g.Sandbox != "strict" {
		flags = append(flags, "--sandbox", g.Sandbox)
	}
	sums, err := GoSHA256(g.goVersion(), g.GoSHA256)
	if err != nil {
		return nil, nil, err
	}
	data := struct {
		GoVersion, Chapter, GradeFlags, SHA256AMD64, SHA256ARM64 string
		LimitSeconds                                             int
	}{
		GoVersion: g.goVersion(), Chapter: g.Chapter, GradeFlags: strings.Join(flags, " "),
		SHA256AMD64: sums["amd64"], SHA256ARM64: sums["arm64"], LimitSeconds: int(g.limit() / time.Second),
	}
	var s, r bytes.Buffer
	if err := templates.ExecuteTemplate(&s, "setup.sh.tmpl", data); err != nil {
		return nil, nil, err
	}
	if err := templates.ExecuteTemplate(&r, "run_autograder.tmpl", data); err != nil {
		return nil, nil, err
	}
	return s.Bytes(), r.Bytes(), nil
}
