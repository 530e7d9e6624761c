package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/coursekit/course/grader"
	"github.com/coursekit/course/grader/autograder"
	"github.com/coursekit/course/grader/format"
	"github.com/coursekit/course/grader/lab"
	"github.com/coursekit/course/grader/release"
	"github.com/coursekit/course/grader/report"
)

// Classroom50Options are the inputs of `course autograder classroom50`.
type Classroom50Options struct {
	IO      IOStreams
	Catalog func() (*lab.Catalog, error)
	Getwd   func() (string, error)

	Dir       string // the assignment's directory, CLASSROOM/autograders/ASSIGNMENT
	Source    string // the course's source tree; found from the working directory if empty
	Chapter   string
	Bonus     bool
	Timeout   time.Duration
	GoVersion string
	Force     bool
}

// NewCmdAutograderClassroom50 returns `course autograder classroom50 <dir>`.
func NewCmdAutograderClassroom50(f *Factory) *cobra.Command {
	opts := &Classroom50Options{IO: f.IO, Catalog: f.Catalog, Getwd: os.Getwd}
	cmd := &cobra.Command{
		Use:   "classroom50 [flags] <dir>",
		Short: "Write a Classroom 50 assignment's autograder.py and runtime block",
		Long: `Write the grading files of a Classroom 50 assignment of one lab into <dir>,
the assignment's directory CLASSROOM/autograders/ASSIGNMENT/ in your
classroom50 repository:

  autograder.py   run by Classroom 50's runner for every submission, in the
                  student's checkout: it builds the course tool from course/
                  and writes ./result.json (schema classroom50/result/v1)
                  with 'course grade --format classroom50'
  course/         a student release of the course (no solutions, no hidden
                  tests), which the runner bundles beside autograder.py
  runtime.json    the assignment's runtime block (runs-on and the Go
                  release): pass it to 'gh teacher assignment add --runtime'

The student's repository is the practice workspace ('course practice'). The
autograder runs the public tests only: whatever it runs is in reach of the
student's own workflow. Grade the hidden tests with Gradescope or 'course
grade'. See docs/instructors.md.`,
		Example: `  course autograder classroom50 --chapter {chapter} ~/classroom50/go-fall/autograders/lab{chapter}`,
		Args:    positional("<dir>"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Dir = args[0]
			return runAutograderClassroom50(opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.Chapter, "chapter", "", "the lab's `CHAPTER` (required when the course has several labs)")
	fl.StringVar(&opts.Source, "source", "", "the course's source tree `DIR` (default: the module root above the working directory)")
	fl.BoolVar(&opts.Bonus, "bonus", false, "also grade the bonus exercises (see course list)")
	fl.DurationVar(&opts.Timeout, "timeout", grader.DefaultTimeout, "time limit of one run of the tests")
	fl.StringVar(&opts.GoVersion, "go-version", autograder.DefaultGoVersion(), "the Go `RELEASE` of the runtime block")
	fl.BoolVar(&opts.Force, "force", false, "replace existing grading files")
	return cmd
}

func runAutograderClassroom50(opts *Classroom50Options) error {
	if opts.Timeout <= 0 {
		return usageError(fmt.Errorf("--timeout %s: must be positive", opts.Timeout))
	}
	l, err := labOf(opts.Catalog, opts.Chapter, nil)
	if err != nil {
		return err
	}
	source, err := courseSource(opts.Source, opts.Getwd, release.FindSource)
	if err != nil {
		return err
	}
	c := &autograder.Classroom50{Lab: l, Bonus: opts.Bonus, GoVersion: opts.GoVersion}
	if opts.Timeout != grader.DefaultTimeout {
		c.Timeout = opts.Timeout
	}
	script, err := c.Script()
	if err != nil {
		return usageError(err)
	}
	runtime, err := c.Runtime()
	if err != nil {
		return usageError(err)
	}
	if fi, err := os.Stat(opts.Dir); err == nil && !fi.IsDir() {
		return inputError(fmt.Errorf("%s: not a directory", opts.Dir))
	}
	scriptPath := filepath.Join(opts.Dir, autograder.Classroom50Script)
	runtimePath := filepath.Join(opts.Dir, autograder.Classroom50Runtime)
	sourcePath := filepath.Join(opts.Dir, autograder.Classroom50Source)
	if err := refuseOverwrite(opts.Force, scriptPath, runtimePath, sourcePath); err != nil {
		return err
	}
	if isDir(sourcePath) && !release.InRelease(sourcePath) {
		return inputError(fmt.Errorf("%s is not a student release of the course; not replacing it", sourcePath))
	}
	if err := os.MkdirAll(opts.Dir, 0o755); err != nil {
		return failure(err)
	}
	// The release is made beside the old one, then put in its place.
	fresh, err := os.MkdirTemp(opts.Dir, ".course-new-")
	if err != nil {
		return failure(err)
	}
	defer os.RemoveAll(fresh)
	res, err := release.Make(source, fresh)
	if err != nil {
		return cannotGrade(fmt.Errorf("making the student release: %w", err))
	}
	if err := os.RemoveAll(sourcePath); err != nil {
		return failure(err)
	}
	if err := os.Rename(fresh, sourcePath); err != nil {
		return failure(err)
	}
	for _, f := range []struct {
		path string
		data []byte
		mode os.FileMode
	}{{scriptPath, script, 0o755}, {runtimePath, runtime, 0o644}} {
		if err := writeFileAtomic(f.path, func(w io.Writer) error { _, err := w.Write(f.data); return err }); err != nil {
			return failure(err)
		}
		if err := os.Chmod(f.path, f.mode); err != nil {
			return failure(err)
		}
	}

	out := opts.IO.Out
	fmt.Fprintf(out, "Wrote %s, %s and %s (a student release, %d files): lab %s, public tests only.\n\n",
		scriptPath, runtimePath, sourcePath, len(res.Files), l.Chapter)
	fmt.Fprintln(out, "Commit them to your classroom50 repository and give the assignment the runtime:")
	fmt.Fprintf(out, "  gh teacher assignment add ... --runtime %s\n", runtimePath)
	fmt.Fprintln(out, "Its template repository is a practice workspace: 'course practice "+l.Chapter+" DIR'. See docs/instructors.md.")
	return nil
}

// CIOptions are the inputs of `course autograder github` and `gitlab`.
type CIOptions struct {
	IO      IOStreams
	Catalog func() (*lab.Catalog, error)

	Platform   string // github or gitlab
	Dir        string // the practice workspace that becomes the students' repository
	Chapter    string
	Bonus      bool
	Timeout    time.Duration
	CourseRepo string
	CourseRef  string
	GoVersion  string
	Force      bool
}

// NewCmdAutograderCI returns `course autograder github <dir>` or `course
// autograder gitlab <dir>`, as platform says.
func NewCmdAutograderCI(f *Factory, platform string) *cobra.Command {
	opts := &CIOptions{IO: f.IO, Catalog: f.Catalog, Platform: platform}
	what, file, repo := "GitHub Actions workflow", autograder.GitHubWorkflowPath, "`OWNER/NAME` of the course's student release on GitHub"
	long := `Write .github/workflows/grade.yml into <dir>, a practice workspace (made by
'course practice') that becomes the students' repository or its template.
On every push, the workflow checks out the repository and the course's
student release (--course-repo, a public repository made with 'course
release'), builds the course tool with Go's module cache, grades the
repository with 'course grade', writes the exercise table to the job's
summary, uploads report.json and junit.xml as artifacts, and fails unless
every exercise passed. Every action is pinned to a full commit SHA, and the
job's token may only read the repository.`
	if platform == "gitlab" {
		what, file, repo = "GitLab CI pipeline", autograder.GitLabCIPath, "git `URL` of the course's student release"
		long = `Write .gitlab-ci.yml into <dir>, a practice workspace (made by 'course
practice') that becomes the students' project or its template. On every
push, one job in Go's official image clones the course's student release
(--course-repo, made with 'course release'), builds the course tool (its
modules cached in the project), grades the repository with 'course grade',
prints the exercise table, keeps report.json and junit.xml as artifacts
(junit.xml as a JUnit report, shown in merge requests), and fails unless
every exercise passed.`
	}
	long += `

It runs the public tests only: the student's repository cannot hold tests
its student may not see. Grade the hidden tests with Gradescope or 'course
grade'. See docs/instructors.md.`
	cmd := &cobra.Command{
		Use:     platform + " [flags] <dir>",
		Short:   "Write a " + what + " that grades a student repository",
		Long:    long,
		Example: "  course practice {chapter} template\n  course autograder " + platform + " --course-repo " + map[bool]string{true: "https://gitlab.example.com/teach/course-student.git", false: "teach/course-student"}[platform == "gitlab"] + " template",
		Args:    positional("<dir>"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Dir = args[0]
			return runAutograderCI(opts, file)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.CourseRepo, "course-repo", "", "the "+repo+" (required)")
	fl.StringVar(&opts.CourseRef, "course-ref", "main", "the branch or tag of --course-repo")
	fl.StringVar(&opts.Chapter, "chapter", "", "the lab's `CHAPTER` (default: what the workspace says)")
	fl.BoolVar(&opts.Bonus, "bonus", false, "also grade the bonus exercises (see course list)")
	fl.DurationVar(&opts.Timeout, "timeout", grader.DefaultTimeout, "time limit of one run of the tests")
	if platform == "gitlab" {
		fl.StringVar(&opts.GoVersion, "go-version", autograder.DefaultGoVersion(), "the Go `RELEASE` of the job's image (golang:VERSION)")
	}
	fl.BoolVar(&opts.Force, "force", false, "replace an existing file")
	return cmd
}

func runAutograderCI(opts *CIOptions, file string) error {
	if !isDir(opts.Dir) {
		return inputError(fmt.Errorf("%s: not a directory; make a practice workspace with 'course practice'", opts.Dir))
	}
	if _, err := os.Stat(filepath.Join(opts.Dir, "go.mod")); err != nil {
		return inputError(fmt.Errorf("%s: not a practice workspace (no go.mod); make one with 'course practice'", opts.Dir))
	}
	if opts.Timeout <= 0 {
		return usageError(fmt.Errorf("--timeout %s: must be positive", opts.Timeout))
	}
	if opts.CourseRepo == "" {
		return usageError(errors.New("--course-repo is required: the repository of the course's student release, where the job gets the course tool"))
	}
	l, err := labOf(opts.Catalog, opts.Chapter, []string{opts.Dir})
	if err != nil {
		return err
	}
	c := &autograder.CI{Lab: l, Bonus: opts.Bonus, CourseRepo: opts.CourseRepo, CourseRef: opts.CourseRef, GoVersion: opts.GoVersion}
	if opts.Timeout != grader.DefaultTimeout {
		c.Timeout = opts.Timeout
	}
	var data []byte
	if opts.Platform == "gitlab" {
		data, err = c.GitLabCI()
	} else {
		data, err = c.GitHubWorkflow()
	}
	if err != nil {
		return usageError(err)
	}
	p := filepath.Join(opts.Dir, filepath.FromSlash(file))
	if err := refuseOverwrite(opts.Force, p); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return failure(err)
	}
	if err := writeFileAtomic(p, func(w io.Writer) error { _, err := w.Write(data); return err }); err != nil {
		return failure(err)
	}
	out := opts.IO.Out
	fmt.Fprintf(out, "Wrote %s: grades lab %s with the course tool of %s.\n\n", p, l.Chapter, opts.CourseRepo)
	fmt.Fprintf(out, "Commit it with the workspace; every push of a student then grades the public tests.\n")
	fmt.Fprintln(out, "See docs/instructors.md.")
	return nil
}

// ReportOptions are the inputs of `course autograder report`.
type ReportOptions struct {
	IO     IOStreams
	From   string // a report written by course grade --json
	Format string // text, markdown or junit
	Output string
	Force  bool
}

// NewCmdAutograderReport returns `course autograder report <report.json>`.
func NewCmdAutograderReport(f *Factory) *cobra.Command {
	opts := &ReportOptions{IO: f.IO}
	cmd := &cobra.Command{
		Use:   "report [flags] <report.json>",
		Short: "Write a graded report as text, Markdown or JUnit XML, grading nothing",
		Long: `Write the report of one submission, as 'course grade --json' wrote it, in
another format, so that a CI job grades once and shows the result in
several places: text (the table course grade prints), markdown (a table of
the exercises for a job's summary page) or junit (JUnit XML for test
report viewers). It grades nothing.`,
		Example: `  course grade --json -o report.json mylab
  course autograder report --format markdown report.json >>"$GITHUB_STEP_SUMMARY"
  course autograder report --format junit -o junit.xml report.json`,
		Args: positional("<report.json>"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.From = args[0]
			return runAutograderReport(opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.Format, "format", "text", "`FORMAT`: text, markdown or junit")
	fl.StringVarP(&opts.Output, "output", "o", "", "write to `FILE` instead of standard output")
	fl.BoolVar(&opts.Force, "force", false, "replace an existing -o file")
	return cmd
}

func runAutograderReport(opts *ReportOptions) error {
	var write func(w io.Writer, r *report.Report) error
	switch opts.Format {
	case "text":
		write = func(w io.Writer, r *report.Report) error { return format.WriteText(w, r, format.Style{}) }
	case "markdown":
		write = format.WriteMarkdown
	case "junit":
		write = func(w io.Writer, r *report.Report) error {
			data, err := format.JUnit(r)
			if err == nil {
				_, err = w.Write(data)
			}
			return err
		}
	default:
		return usageError(fmt.Errorf("unknown --format %q (known: text, markdown, junit)", opts.Format))
	}
	data, err := os.ReadFile(opts.From)
	if err != nil {
		return inputError(err)
	}
	if t := bytes.TrimSpace(data); len(t) > 0 && t[0] == '[' {
		return inputError(fmt.Errorf("%s holds the reports of several submissions; give the report of one", opts.From))
	}
	var r report.Report
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&r); err != nil {
		return inputError(fmt.Errorf("%s: not a report of course grade --json: %w", opts.From, err))
	}
	if r.Lab == "" || len(r.Exercises) == 0 {
		return inputError(fmt.Errorf("%s: not a report of course grade --json (no lab or no exercises)", opts.From))
	}
	if opts.Output == "" {
		return write(opts.IO.Out, &r)
	}
	if err := refuseOverwrite(opts.Force, opts.Output); err != nil {
		return err
	}
	if err := writeFileAtomic(opts.Output, func(w io.Writer) error { return write(w, &r) }); err != nil {
		return failure(err)
	}
	return nil
}
