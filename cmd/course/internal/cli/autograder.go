package cli

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/coursekit/course/grader"
	"github.com/coursekit/course/grader/autograder"
	"github.com/coursekit/course/grader/lab"
)

// NewCmdAutograder returns `course autograder`, whose subcommands make what
// Gradescope and GitHub Classroom need to grade the course.
func NewCmdAutograder(f *Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "autograder <platform>",
		Short: "Make an autograder for Gradescope or GitHub Classroom",
		Long: `Make what a grading platform needs to grade a lab at scale, one container
per student:

  course autograder gradescope autograder.zip   a Gradescope autograder bundle
  course autograder classroom mylab             a GitHub Classroom workflow

See docs/instructors.md.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return nil
			}
			msg := fmt.Sprintf("unknown platform %q (known: gradescope, classroom)", args[0])
			return usageError(errors.New(msg))
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return cmd.Help()
		},
	}
	cmd.AddCommand(NewCmdAutograderGradescope(f), NewCmdAutograderClassroom(f))
	return cmd
}

// GradescopeBundleOptions are the inputs of `course autograder gradescope`.
type GradescopeBundleOptions struct {
	IO      IOStreams
	Catalog func() (*lab.Catalog, error)
	Getwd   func() (string, error)

	Output     string // the zip to write
	Source     string // the course's source tree; found from the working directory if empty
	TestsDir   string // a private suite to put in the bundle
	Bonus      bool
	Chapter    string
	GoVersion  string
	Timeout    time.Duration // per run, passed on to course grade
	Sandbox    string        // passed on to course grade: strict or best
	AllowDirty bool          // bundle a checkout with uncommitted changes
}

// NewCmdAutograderGradescope returns `course autograder gradescope <out.zip>`.
func NewCmdAutograderGradescope(f *Factory) *cobra.Command {
	opts := &GradescopeBundleOptions{IO: f.IO, Catalog: f.Catalog, Getwd: os.Getwd}
	cmd := &cobra.Command{
		Use:   "gradescope [flags] <out.zip>",
		Short: "Build a Gradescope autograder bundle",
		Long: `Build a Gradescope autograder bundle: a zip holding setup.sh, run_autograder
and the course's source tree, to upload as the autograder of a Gradescope
programming assignment.

setup.sh (run once, when Gradescope builds the image) installs Go if the
image has none, builds the course tool, downloads the modules grading needs
and grades the stub once to warm the build cache. run_autograder (run for
every submission) grades /autograder/submission with the public and hidden
tests and writes /autograder/results/results.json: one entry per exercise,
and the hidden tests' details visible to students only once the grades are
published. AUTOGRADER_ROOT (default /autograder) moves all of it, for a
trial run on your own machine.

The source tree is exactly the files git tracks (git ls-files), from
--source or from the course's module root above the working directory; a
checkout with uncommitted changes to them is refused unless --allow-dirty.
It holds the hidden tests: never give the bundle to students.

run_autograder grades with --sandbox strict unless you pass --sandbox best:
setup.sh installs bubblewrap and grades the stub once, and fails, saying
why, if Gradescope's machine cannot give every run a full sandbox.`,
		Example: `  course autograder gradescope --chapter {chapter} autograder.zip
  course autograder gradescope --chapter {chapter} --tests ~/private-tests --bonus autograder.zip`,
		Args: positional("<out.zip>"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Output = args[0]
			return runAutograderGradescope(opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.Source, "source", "", "the course's source tree `DIR` (default: the module root above the working directory)")
	fl.StringVar(&opts.TestsDir, "tests", "", "put the *_test.go files of `DIR` (a private suite) in the bundle, run as hidden tests")
	fl.BoolVar(&opts.Bonus, "bonus", false, "also grade the bonus exercises (see course list)")
	fl.StringVar(&opts.Chapter, "chapter", "", "the lab's `CHAPTER`, which the bundle grades (required when the course has several labs)")
	fl.DurationVar(&opts.Timeout, "timeout", grader.DefaultTimeout, "time limit of one run of the tests when run_autograder grades")
	fl.StringVar(&opts.GoVersion, "go-version", autograder.DefaultGoVersion(), "the Go `RELEASE` setup.sh installs when the image has no go command")
	fl.StringVar(&opts.Sandbox, "sandbox", "strict", "the `MODE` run_autograder grades with: strict, or best to accept a weaker sandbox (see docs/grading.md)")
	fl.BoolVar(&opts.AllowDirty, "allow-dirty", false, "bundle the tracked files as they are on disk even if they differ from the last commit")
	return cmd
}

func runAutograderGradescope(opts *GradescopeBundleOptions) error {
	catalog, err := opts.Catalog()
	if err != nil {
		return cannotGrade(err)
	}
	l, err := pickLab(catalog, opts.Chapter, nil)
	if err != nil {
		return usageError(err)
	}
	source := opts.Source
	if source == "" {
		wd, err := opts.Getwd()
		if err != nil {
			return usageError(err)
		}
		if source, err = autograder.FindCourseRoot(wd); err != nil {
			return usageError(fmt.Errorf("%w; name it with --source DIR", err))
		}
	} else if err := autograder.IsCourseRoot(source); err != nil {
		return usageError(fmt.Errorf("--source %s: %w", source, err))
	}
	if opts.Timeout <= 0 {
		return usageError(fmt.Errorf("--timeout %s: must be positive", opts.Timeout))
	}
	if opts.TestsDir != "" {
		if fi, err := os.Stat(opts.TestsDir); err != nil || !fi.IsDir() {
			return usageError(fmt.Errorf("--tests %s: not a directory", opts.TestsDir))
		}
	}
	if fi, err := os.Stat(opts.Output); err == nil && fi.IsDir() {
		return usageError(fmt.Errorf("%s: is a directory", opts.Output))
	}
	if parent := filepath.Dir(filepath.Clean(opts.Output)); !isDir(parent) {
		return usageError(fmt.Errorf("%s: directory %s does not exist", opts.Output, parent))
	}

	b := &autograder.Gradescope{
		Source: source, Chapter: l.Chapter, TestsDir: opts.TestsDir, Bonus: opts.Bonus, GoVersion: opts.GoVersion,
		Sandbox: opts.Sandbox, AllowDirty: opts.AllowDirty,
	}
	if opts.Timeout != grader.DefaultTimeout {
		b.Timeout = opts.Timeout
	}
	var sum autograder.BundleSummary
	err = writeAtomic(opts.Output, func(w io.Writer, tmp string) error {
		// The bundle may be written inside the tree it packs: leave it out.
		b.Exclude = []string{opts.Output, tmp}
		var err error
		sum, err = b.Write(w)
		return err
	})
	if err != nil {
		return cannotGrade(err)
	}

	points, n := 0, 0
	for _, e := range l.Exercises {
		if !e.Bonus || opts.Bonus {
			points += e.Points
			n++
		}
	}
	out := opts.IO.Out
	fmt.Fprintf(out, "Wrote %s: setup.sh, run_autograder and %d files of the course at %s.\n", opts.Output, sum.SourceFiles, source)
	tests := "public and hidden tests"
	if sum.PrivateTests > 0 {
		tests += fmt.Sprintf(", and %d private test files from %s", sum.PrivateTests, opts.TestsDir)
	}
	fmt.Fprintf(out, "Grades lab %s (%d exercises, %d points) with its %s.\n\n", l.Chapter, n, points, tests)
	fmt.Fprintln(out, "Upload it as the autograder of a Gradescope programming assignment; it holds")
	fmt.Fprintln(out, "the hidden tests, so never give it to students. See docs/instructors.md.")
	return nil
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

// ClassroomOptions are the inputs of `course autograder classroom`.
type ClassroomOptions struct {
	IO      IOStreams
	Catalog func() (*lab.Catalog, error)

	Dir     string // the practice workspace that becomes the template repository
	Bonus   bool
	Chapter string
	Timeout time.Duration
	Force   bool
}

// NewCmdAutograderClassroom returns `course autograder classroom <dir>`.
func NewCmdAutograderClassroom(f *Factory) *cobra.Command {
	opts := &ClassroomOptions{IO: f.IO, Catalog: f.Catalog}
	cmd := &cobra.Command{
		Use:   "classroom [flags] <dir>",
		Short: "Write a GitHub Classroom autograding workflow into a practice workspace",
		Long: `Write .github/workflows/classroom.yml into <dir>, a practice workspace
(made by 'course practice') that becomes the template repository of a GitHub
Classroom assignment. On every push, the workflow runs one step per
exercise, 'go test -count=1 -run ^<test prefix>' worth the exercise's
points and limited to --timeout, and GitHub Classroom's reporter adds the
points up.

The steps run the workspace's public tests only: a student repository cannot
hold tests its student may not see. Grade the hidden tests with Gradescope or
'course grade'. See docs/instructors.md.`,
		Example: `  course practice {chapter} template
  course autograder classroom template`,
		Args: positional("<dir>"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Dir = args[0]
			return runAutograderClassroom(opts)
		},
	}
	fl := cmd.Flags()
	fl.BoolVar(&opts.Bonus, "bonus", false, "add a step for each bonus exercise (see course list)")
	fl.StringVar(&opts.Chapter, "chapter", "", "the lab's `CHAPTER` (default: what the workspace says)")
	fl.DurationVar(&opts.Timeout, "timeout", autograder.DefaultClassroomTimeout, "time limit of one exercise's step, in whole minutes")
	fl.BoolVar(&opts.Force, "force", false, "replace an existing workflow file")
	return cmd
}

func runAutograderClassroom(opts *ClassroomOptions) error {
	if !isDir(opts.Dir) {
		return usageError(fmt.Errorf("%s: not a directory; make a practice workspace with 'course practice'", opts.Dir))
	}
	if _, err := os.Stat(filepath.Join(opts.Dir, "go.mod")); err != nil {
		return usageError(fmt.Errorf("%s: not a practice workspace (no go.mod); make one with 'course practice'", opts.Dir))
	}
	if opts.Timeout <= 0 {
		return usageError(fmt.Errorf("--timeout %s: must be positive", opts.Timeout))
	}
	catalog, err := opts.Catalog()
	if err != nil {
		return cannotGrade(err)
	}
	l, err := pickLab(catalog, opts.Chapter, []string{opts.Dir})
	if err != nil {
		return usageError(err)
	}
	c := &autograder.Classroom{Lab: l, Bonus: opts.Bonus, Timeout: opts.Timeout}
	steps, err := c.Steps()
	if err != nil {
		return usageError(err)
	}
	data, err := c.Workflow()
	if err != nil {
		return failure(err)
	}

	p := filepath.Join(opts.Dir, filepath.FromSlash(autograder.WorkflowPath))
	if _, err := os.Stat(p); err == nil && !opts.Force {
		return usageError(fmt.Errorf("%s exists; use --force to replace it", p))
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return usageError(err)
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return failure(err)
	}
	if err := writeFileAtomic(p, func(w io.Writer) error { _, err := w.Write(data); return err }); err != nil {
		return failure(err)
	}

	points := 0
	for _, s := range steps {
		points += s.Points
	}
	out := opts.IO.Out
	fmt.Fprintf(out, "Wrote %s: %d exercises of lab %s, %d points, %d minutes each at most.\n\n",
		p, len(steps), l.Chapter, points, steps[0].Minutes)
	fmt.Fprintf(out, "Push %s to GitHub as a template repository and make it the starter code of\n", opts.Dir)
	fmt.Fprintln(out, "a GitHub Classroom assignment; every push of a student runs the workflow.")
	fmt.Fprintln(out, "See docs/instructors.md.")
	return nil
}
