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
	"github.com/coursekit/course/grader/atomicfile"
	"github.com/coursekit/course/grader/autograder"
	"github.com/coursekit/course/grader/courseroot"
	"github.com/coursekit/course/grader/lab"
)

// NewCmdAutograder returns `course autograder`, whose subcommands make what
// Gradescope, Classroom 50, GitHub Actions and GitLab CI need to grade the
// course.
func NewCmdAutograder(f *Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "autograder <platform>",
		Short: "Make an autograder for Gradescope, Classroom 50, GitHub Actions or GitLab CI",
		Long: `Make what a grading platform needs to grade a lab at scale, one container
or CI job per submission:

  course autograder gradescope autograder.zip     a Gradescope autograder bundle
  course autograder classroom50 CLASSROOM/autograders/ASSIGNMENT
                                                  a Classroom 50 assignment's autograder.py
  course autograder github --course-repo OWNER/NAME mylab
                                                  a GitHub Actions workflow for a student repository
  course autograder gitlab --course-repo URL mylab
                                                  a GitLab CI pipeline for a student repository
  course autograder report report.json            a graded report as Markdown, JUnit or text (for CI jobs)

None of them replaces an existing file unless told --force.
GitHub Classroom was discontinued: its successor is Classroom 50.
See docs/instructors.md.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return nil
			}
			if args[0] == "classroom" {
				return usageError(errors.New("GitHub Classroom was discontinued: use classroom50 (Classroom 50, its successor) or github (a plain GitHub Actions workflow)"))
			}
			msg := fmt.Sprintf("unknown platform %q (known: gradescope, classroom50, github, gitlab)", args[0])
			return usageError(errors.New(msg))
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return cmd.Help()
		},
	}
	cmd.AddCommand(NewCmdAutograderGradescope(f), NewCmdAutograderClassroom50(f),
		NewCmdAutograderCI(f, "github"), NewCmdAutograderCI(f, "gitlab"), NewCmdAutograderReport(f))
	return cmd
}

// refuseOverwrite is the rule of every command that writes files: an
// existing file is replaced only with --force.
func refuseOverwrite(force bool, paths ...string) error {
	if force {
		return nil
	}
	for _, p := range paths {
		if _, err := os.Lstat(p); err == nil {
			return inputError(fmt.Errorf("%s exists; use --force to replace it", p))
		} else if !errors.Is(err, fs.ErrNotExist) {
			return inputError(err)
		}
	}
	return nil
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
	GoSHA256   map[string]string // arch to the SHA-256 of GoVersion's archive; the course's table if empty
	Timeout    time.Duration     // per run, passed on to course grade
	Budget     time.Duration     // per submission, passed on to course grade
	Memory     string            // per run, passed on to course grade
	Sandbox    string            // passed on to course grade: strict or best
	AllowDirty bool              // bundle a checkout with uncommitted changes
	Force      bool              // replace an existing bundle
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
image has none, only if the archive's SHA-256 is the one pinned in the
bundle (the course's table of Go releases, or --go-sha256), builds the
course tool, downloads the modules grading needs and grades the stub once
to warm the build cache. run_autograder (run for
every submission) grades /autograder/submission with the public and hidden
tests and writes /autograder/results/results.json: one entry per exercise,
and the hidden tests' details visible to students only once the grades are
published. AUTOGRADER_ROOT (default /autograder) moves all of it, for a
trial run on your own machine.

The source tree is exactly the files git tracks (git ls-files), from
--source or from the course's module root above the working directory; a
checkout with uncommitted changes to them is refused unless --allow-dirty.
It holds the hidden tests: never give the bundle to students. An existing
bundle is replaced only with --force.

run_autograder keeps within Gradescope's defaults (768 MB, 10 minutes): one
run of student code may use --memory (512MiB), a submission's runs --budget
(2m, at most 5m), and course grade is stopped after 8 minutes with a
results.json that says so.

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
	fl.StringToStringVar(&opts.GoSHA256, "go-sha256", nil, "the SHA-256 of --go-version's linux archives, `ARCH=HEX,...` (amd64, arm64), for a release the course has none of")
	fl.DurationVar(&opts.Budget, "budget", autograder.DefaultGradescopeBudget, "time limit of all runs of one submission (at most 5m, inside Gradescope's 10 minutes)")
	fl.StringVar(&opts.Memory, "memory", autograder.DefaultGradescopeMemory, "memory limit of one run (`SIZE`; Gradescope's container has 768 MB by default)")
	fl.StringVar(&opts.Sandbox, "sandbox", "strict", "the `MODE` run_autograder grades with: strict, or best to accept a weaker sandbox (see docs/grading.md)")
	fl.BoolVar(&opts.AllowDirty, "allow-dirty", false, "bundle the tracked files as they are on disk even if they differ from the last commit")
	fl.BoolVar(&opts.Force, "force", false, "replace an existing bundle")
	return cmd
}

func runAutograderGradescope(opts *GradescopeBundleOptions) error {
	l, err := labOf(opts.Catalog, opts.Chapter, nil)
	if err != nil {
		return err
	}
	source, err := courseSource(opts.Source, opts.Getwd, courseroot.Find)
	if err != nil {
		return err
	}
	if opts.Source != "" {
		if err := courseroot.Check(source); err != nil {
			return inputError(fmt.Errorf("--source %s: %w", source, err))
		}
	}
	if opts.Timeout <= 0 {
		return usageError(fmt.Errorf("--timeout %s: must be positive", opts.Timeout))
	}
	if opts.TestsDir != "" {
		if fi, err := os.Stat(opts.TestsDir); err != nil || !fi.IsDir() {
			return inputError(fmt.Errorf("--tests %s: not a directory", opts.TestsDir))
		}
	}
	if fi, err := os.Stat(opts.Output); err == nil && fi.IsDir() {
		return inputError(fmt.Errorf("%s: is a directory", opts.Output))
	}
	if parent := filepath.Dir(filepath.Clean(opts.Output)); !isDir(parent) {
		return inputError(fmt.Errorf("%s: directory %s does not exist", opts.Output, parent))
	}
	if err := refuseOverwrite(opts.Force, opts.Output); err != nil {
		return err
	}

	b := &autograder.Gradescope{
		Source: source, Chapter: l.Chapter, TestsDir: opts.TestsDir, Bonus: opts.Bonus, GoVersion: opts.GoVersion,
		GoSHA256: opts.GoSHA256, Budget: opts.Budget, Memory: opts.Memory,
		Sandbox: opts.Sandbox, AllowDirty: opts.AllowDirty,
	}
	if opts.Timeout != grader.DefaultTimeout {
		b.Timeout = opts.Timeout
	}
	if _, _, err := b.Scripts(); err != nil {
		return usageError(err)
	}
	var sum autograder.BundleSummary
	err = atomicfile.WriteFunc(opts.Output, 0o644, func(w io.Writer, tmp string) error {
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

// courseSource is --source, or else the course's source tree that find
// finds from the working directory.
func courseSource(given string, getwd func() (string, error), find func(string) (string, error)) (string, error) {
	if given != "" {
		return given, nil
	}
	wd, err := getwd()
	if err != nil {
		return "", inputError(err)
	}
	source, err := find(wd)
	if err != nil {
		return "", inputError(fmt.Errorf("%w; name it with --source DIR", err))
	}
	return source, nil
}
