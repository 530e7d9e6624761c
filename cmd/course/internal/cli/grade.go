package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/dustin/go-humanize"
	"github.com/spf13/cobra"

	"github.com/coursekit/course/grader"
	"github.com/coursekit/course/grader/atomicfile"
	classpkg "github.com/coursekit/course/grader/class"
	"github.com/coursekit/course/grader/format"
	"github.com/coursekit/course/grader/lab"
	"github.com/coursekit/course/grader/late"
	"github.com/coursekit/course/grader/report"
	"github.com/coursekit/course/grader/safetext"
	"github.com/coursekit/course/grader/sandbox"
	"github.com/coursekit/course/grader/submission"
)

// Output formats of `course grade`.
const (
	formatText       = "text"
	formatJSON       = "json"
	formatGradescope = "gradescope"
	formatJUnit      = "junit"
)

// formatClassroom50 is Classroom 50's result.json.
const formatClassroom50 = "classroom50"

// GradeOptions are the inputs of `course grade`.
type GradeOptions struct {
	IO      IOStreams
	Catalog func() (*lab.Catalog, error)
	// Getenv reads the environment (NO_COLOR).
	Getenv func(string) string

	Paths      []string      // the submissions, as given
	Format     string        // text, json, gradescope or junit
	JSON       bool          // --json: the same as --format json
	Output     string        // -o: write the report there instead of stdout
	Exercises  []string      // --lab: grade only these exercise ids
	Timeout    time.Duration // per run of the test binary
	Budget     time.Duration // all runs of one submission
	Memory     string        // per run, e.g. "1GiB"
	Jobs       int           // submissions graded at once
	Runs       int           // runs of one submission at once
	CSV        string        // a CSV file with one row per submission
	HTML       string        // a class report page
	RulesURL   string        // where the page links rules to
	From       string        // a saved --json report to make the reports from, instead of grading
	Force      bool          // overwrite an existing -o, --csv or --html file
	Update     bool          // --csv names an earlier table: replace the rows of the submissions graded now
	OnlyFailed bool          // with --update: grade only the submissions whose earlier row is not full marks
	Roster     string        // a class list joined to the --csv table
	Late       string        // a late policy, such as "10%/day, 0 after 3 days"
	Due        string        // the due date (RFC 3339)
	Times      string        // where submission times come from: a CSV file or gradescope[=PATH]
	TestsDir   string        // an instructor's private tests
	NoHidden   bool          // leave out the lab's hidden tests
	Bonus      bool          // also grade the bonus exercises
	Sandbox    string        // strict, best or off
	NoSandbox  bool          // the old spelling of --sandbox off
	Chapter    string        // the lab to grade against
}

// NewCmdGrade returns the `course grade [flags] <submission>...` command.
func NewCmdGrade(f *Factory) *cobra.Command {
	opts := &GradeOptions{IO: f.IO, Catalog: f.Catalog, Getenv: os.Getenv}
	cmd := &cobra.Command{
		Use:   "grade [flags] <submission>...",
		Short: "Grade submissions of a lab: one in detail, or a whole class",
		Long: `Grade submissions of a lab. A submission is a workspace directory, the lone
file a student edits (any name ending in .go), or a .zip, .tar.gz or .tgz
archive holding it. Only that file is taken from it; everything else comes
from the course, and the submission is never written to. The file of each
lab: {files}.

The lab is --chapter, or else the one the submissions say: a workspace's
.course/workspace.json, or the name of the file and its package clause
(labs whose students edit a file of the same name are in packages of their
own). Submissions of different labs are not graded together: grade each
lab apart. When the lab cannot be told, course grade names the chapters to
choose from.

One submission: a table of its exercises (pass/fail, tests, points), the
first failing test of each failing exercise, and the score; or --json, or
--format gradescope for Gradescope's results.json, or --format junit
for CI systems that read JUnit XML.

Several submissions: graded in parallel (--jobs), then one row each and the
pass rate of every exercise. --csv writes a row per submission as soon as it
is graded, so an interrupted run keeps what it finished.

The lab's hidden tests are run and marked hidden unless --no-hidden. Bonus
exercises (optional ones, see course list) are graded only with --bonus, and
only then do their points count in the maximum score.

Exit status: 0 every exercise of every submission passed, 1 some failed,
2 something could not be graded (bad flags, an unreadable submission, no go
command, interrupted). See docs/grading.md.`,
		Example: `  course grade mylab
  course grade --lab {exercise} alice.zip
  course grade --chapter {chapter} alice.go
  course grade --format gradescope -o /autograder/results/results.json /autograder/submission
  course grade --csv grades.csv submissions/*`,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Paths = args
			if cmd.Flags().Changed("json") && cmd.Flags().Changed("format") && opts.Format != formatJSON {
				return usageError(fmt.Errorf("--json and --format %s contradict each other", opts.Format))
			}
			if opts.JSON {
				opts.Format = formatJSON
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			go func() {
				// After the first Ctrl-C, a second one ends the process at once.
				<-ctx.Done()
				stop()
			}()
			return runGrade(ctx, opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.Format, "format", formatText, "report `FORMAT`: text, json, gradescope, junit or classroom50")
	fl.BoolVar(&opts.JSON, "json", false, "the same as --format json")
	fl.StringVarP(&opts.Output, "output", "o", "", "write the report to `FILE` instead of standard output")
	fl.StringSliceVar(&opts.Exercises, "lab", nil, "grade only exercise `ID` (an id that course list shows); repeatable")
	fl.DurationVar(&opts.Timeout, "timeout", grader.DefaultTimeout, "time limit of one run of the tests (each exercise's public and hidden tests run separately)")
	fl.DurationVar(&opts.Budget, "budget", 0, "time limit of all runs of one submission together (default four timeouts)")
	fl.StringVar(&opts.Memory, "memory", "1GiB", "memory limit of one run (`SIZE` such as 512MiB or 2GiB)")
	fl.IntVar(&opts.Jobs, "jobs", runtime.NumCPU(), "grade `N` submissions at once")
	fl.IntVar(&opts.Runs, "runs", runtime.NumCPU(), "let `N` runs of one submission's tests go at once (each may use --memory: 1 where memory is tight)")
	fl.StringVar(&opts.CSV, "csv", "", "write one row per submission to `FILE` as each is graded")
	fl.StringVar(&opts.HTML, "html", "", "also write the class report, one self-contained page, to `FILE`")
	fl.StringVar(&opts.RulesURL, "rules-url", "", "where the --html page links each rule: `URL` of the lab's rule table, {lab} for the chapter (default docs/lab{lab}-rules.md)")
	fl.StringVar(&opts.From, "from", "", "make the reports (text, --csv, --html, --format junit) from `FILE`, a saved --json report, instead of grading")
	fl.BoolVar(&opts.Force, "force", false, "overwrite an existing -o, --csv or --html file")
	fl.BoolVar(&opts.Update, "update", false, "regrade: the --csv file holds earlier grades; replace the rows of the submissions given, keep the others")
	fl.BoolVar(&opts.OnlyFailed, "only-failed", false, "with --update: of the submissions given, grade only those whose earlier row is not full marks")
	fl.StringVar(&opts.Roster, "roster", "", "join the class list `FILE` (CSV with a submission column, and student ids, emails...) to the --csv table: a row for every student")
	fl.StringVar(&opts.Late, "late", "", "take late penalties by `POLICY`, such as \"10%/day, 0 after 3 days, grace 10m\" (needs --times, and --due)")
	fl.StringVar(&opts.Due, "due", "", "the due date, as an RFC 3339 `TIME` such as 2026-12-01T23:59:00Z")
	fl.StringVar(&opts.Times, "times", "", "when each submission was handed in, from `SOURCE`: a CSV file of submission,submitted_at (an LMS export, a platform's push events) or gradescope (its submission metadata; gradescope=PATH)")
	fl.StringVar(&opts.TestsDir, "tests", "", "also run the *_test.go files of `DIR` (a private suite), as hidden tests")
	fl.BoolVar(&opts.NoHidden, "no-hidden", false, "run only the public tests")
	fl.BoolVar(&opts.Bonus, "bonus", false, "also grade the bonus exercises (see course list); their points count only then")
	fl.StringVar(&opts.Sandbox, "sandbox", string(sandbox.Strict), "`MODE`: strict (a full sandbox or no grading), best (the strongest this machine has; the report says which), off (no sandbox: never for student code)")
	fl.BoolVar(&opts.NoSandbox, "no-sandbox", false, "the same as --sandbox off")
	_ = fl.MarkDeprecated("no-sandbox", "use --sandbox off")
	fl.StringVar(&opts.Chapter, "chapter", "", "the lab's `CHAPTER` (default: the only one, or what the submissions say)")
	return cmd
}

func runGrade(ctx context.Context, opts *GradeOptions) error {
	switch opts.Format {
	case formatText, formatJSON, formatGradescope, formatJUnit, formatClassroom50:
	default:
		return usageError(fmt.Errorf("unknown --format %q (known: text, json, gradescope, junit, classroom50)", opts.Format))
	}
	if opts.Times == "git" {
		return usageError(errTimesGit)
	}
	if opts.From != "" {
		return runGradeFrom(opts)
	}
	if len(opts.Paths) == 0 {
		return usageError(errors.New("missing argument <submission> (or --from a saved --json report)"))
	}
	if opts.Timeout <= 0 {
		return usageError(fmt.Errorf("--timeout %s: must be positive", opts.Timeout))
	}
	mode, err := sandbox.ParseMode(opts.Sandbox)
	if err != nil {
		return usageError(fmt.Errorf("--sandbox: %w", err))
	}
	if opts.NoSandbox {
		mode = sandbox.Off
	}
	memory, err := humanize.ParseBytes(opts.Memory)
	if err != nil || memory < 64<<20 {
		return usageError(fmt.Errorf("--memory %q: want a size of at least 64MiB, such as 512MiB or 2GiB", opts.Memory))
	}
	if opts.Budget < 0 || (opts.Budget > 0 && opts.Budget < opts.Timeout) {
		return usageError(fmt.Errorf("--budget %s: must be at least --timeout (%s)", opts.Budget, opts.Timeout))
	}
	if opts.Jobs < 1 {
		return usageError(fmt.Errorf("--jobs %d: must be at least 1", opts.Jobs))
	}
	if opts.Runs < 1 {
		return usageError(fmt.Errorf("--runs %d: must be at least 1", opts.Runs))
	}
	paths := uniquePaths(opts.Paths)
	class := len(paths) > 1
	if class && opts.Format == formatGradescope {
		return usageError(fmt.Errorf("--format gradescope grades one submission (results.json is per submission), not %d", len(paths)))
	}
	lateRule, err := newLateRule(opts)
	if err != nil {
		return usageError(err)
	}
	if err := checkCSVFlags(opts); err != nil {
		return usageError(err)
	}
	if class && opts.Format == formatClassroom50 {
		return usageError(fmt.Errorf("--format classroom50 grades one submission (result.json is per submission), not %d", len(paths)))
	}
	catalog, err := opts.Catalog()
	if err != nil {
		return cannotGrade(err)
	}
	l, err := pickLab(catalog, opts.Chapter, paths)
	if errors.Is(err, submission.ErrBad) {
		// No lab could read it: the same report as for a known lab.
		if !class && opts.Format == formatGradescope && opts.Output != "" && checkOutputs(opts, paths) == nil {
			_ = writeFileAtomic(opts.Output, func(w io.Writer) error {
				return format.WriteJSON(w, gradescopeError(err, strings.Join(catalog.EditableNames(), " or ")))
			})
		}
		return cannotGrade(err)
	}
	if err != nil {
		return usageError(err)
	}
	ids, err := exerciseIDs(l, opts.Exercises, opts.Bonus)
	if err != nil {
		return usageError(err)
	}
	if err := checkOutputs(opts, paths); err != nil {
		return usageError(err)
	}

	// Read every submission before grading any: a bad path is reported at once.
	subs := make([]*submission.Submission, len(paths))
	var unreadable []classpkg.Result
	for i, p := range paths {
		sub, err := submission.Read(p, l.Editable)
		if err != nil {
			if !class {
				if opts.Format == formatGradescope && opts.Output != "" {
					// Tell the student why, in the results Gradescope shows.
					_ = writeFileAtomic(opts.Output, func(w io.Writer) error {
						return format.WriteJSON(w, gradescopeError(err, strings.Join(l.Editable, " and ")))
					})
				}
				return cannotGrade(err)
			}
			unreadable = append(unreadable, classpkg.Result{Name: submission.Name(p), Path: p, Err: err})
			continue
		}
		subs[i] = sub
	}
	subs = slices.DeleteFunc(subs, func(s *submission.Submission) bool { return s == nil })
	nameSubmissions(subs, unreadable)

	g, err := grader.New(grader.Options{
		Lab:       l,
		Exercises: ids,
		Hidden:    !opts.NoHidden,
		Bonus:     opts.Bonus,
		TestsDir:  opts.TestsDir,
		Timeout:   opts.Timeout,
		Budget:    opts.Budget,
		Memory:    int64(memory),
		Parallel:  opts.Runs,
		Sandbox:   mode,
	})
	if errors.Is(err, grader.ErrNoToolchain) || errors.Is(err, grader.ErrSetup) {
		return cannotGrade(err)
	}
	if err != nil {
		return usageError(err) // --tests DIR
	}
	if iso := g.Isolation(); iso.Level != report.LevelFull {
		// Asked for with --sandbox best or off: say once, where a person
		// sees it, what the verdicts below are not protected from.
		fmt.Fprintf(opts.IO.ErrOut, "warning: grading with isolation %s; not protected: %s\n",
			iso.Name, strings.Join(iso.Missing, "; "))
	}

	var table csvSink
	if opts.CSV != "" {
		if table, err = openCSV(opts, ids); err != nil {
			return usageError(err)
		}
		defer table.close()
	}
	if opts.OnlyFailed {
		before := len(subs)
		subs = slices.DeleteFunc(subs, func(s *submission.Submission) bool { return !table.(*csvUpdate).Failed(s.Name) })
		if len(subs) == 0 && len(unreadable) == 0 {
			fmt.Fprintf(opts.IO.ErrOut, "course grade: every submission given has full marks in %s: nothing to regrade\n", opts.CSV)
			return nil
		}
		if skipped := before - len(subs); skipped > 0 {
			fmt.Fprintf(opts.IO.ErrOut, "regrading %d of %d: %d had full marks in %s\n", len(subs)+len(unreadable), before+len(unreadable), skipped, opts.CSV)
		}
		class = len(subs)+len(unreadable) > 1 || before > 1
	}

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	started := time.Now()
	total := len(subs) + len(unreadable)
	desc := "grading"
	if !class {
		desc += " " + subs[0].Name
	}
	prog := newProgress(opts.IO.ErrOut, class, total, desc)
	var results []classpkg.Result
	record := func(r classpkg.Result) error {
		if lateRule != nil {
			one := []classpkg.Result{r}
			classpkg.ApplyLate(one, lateRule)
			r = one[0]
		}
		results = append(results, r)
		if table != nil {
			if err := table.add(r); err != nil {
				return err
			}
		}
		prog.done(r, len(results), total)
		return nil
	}
	var recordErr error
	for _, r := range unreadable {
		if err := record(r); err != nil && recordErr == nil {
			recordErr = err
			cancel()
		}
	}
	for r := range classpkg.GradeAll(ctx, g, subs, opts.Jobs) {
		if recordErr != nil {
			continue // drain: the workers stop with the context below
		}
		if err := record(r); err != nil {
			recordErr = err
			cancel() // nothing more can be recorded: stop grading
		}
	}
	prog.close()
	elapsed := time.Since(started)
	if table != nil {
		if err := table.close(); err != nil && recordErr == nil {
			recordErr = err
		}
	}
	if recordErr != nil {
		return cannotGrade(fmt.Errorf("--csv %s: %w", opts.CSV, recordErr))
	}
	interrupted := len(results) < total

	if !class {
		if interrupted {
			return cannotGrade(fmt.Errorf("interrupted: %s was not graded", paths[0]))
		}
		r := results[0]
		if r.Err != nil {
			return cannotGrade(fmt.Errorf("%s: could not grade: %w", r.Path, r.Err))
		}
		if err := writeReport(opts, func(w io.Writer, st format.Style) error {
			switch opts.Format {
			case formatJSON:
				return format.WriteJSON(w, r.Report)
			case formatGradescope:
				return format.WriteJSON(w, format.Gradescope(r.Report))
			case formatClassroom50:
				res, err := format.Classroom50(r.Report, opts.Getenv, time.Now())
				if err != nil {
					return err
				}
				return format.WriteJSON(w, res)
			case formatJUnit:
				data, err := format.JUnit(r.Report)
				if err == nil {
					_, err = w.Write(data)
				}
				return err
			}
			return format.WriteText(w, r.Report, st)
		}); err != nil {
			return cannotGrade(err)
		}
		if err := writeHTML(opts, results, l); err != nil {
			return cannotGrade(err)
		}
		if !r.Report.Passed() {
			failed := 0
			for _, ex := range r.Report.Exercises {
				if !ex.Passed {
					failed++
				}
			}
			return failure(fmt.Errorf("%d of %d exercises failed", failed, len(r.Report.Exercises)))
		}
		return nil
	}

	classpkg.Sort(results)
	notGraded, failed := 0, 0
	for _, r := range results {
		switch {
		case r.Err != nil:
			notGraded++
		case !r.Report.Passed():
			failed++
		}
	}
	closing := classpkg.Elapsed(len(results)-notGraded, notGraded, elapsed)
	if err := writeReport(opts, func(w io.Writer, st format.Style) error {
		return writeClassReport(w, st, opts.Format, results, l, ids, closing)
	}); err != nil {
		return cannotGrade(err)
	}
	if opts.Format != formatText {
		// The report is for a program: the people's lines go to stderr.
		if err := writeSummary(opts.IO.ErrOut, results, l); err != nil {
			return cannotGrade(err)
		}
		fmt.Fprintln(opts.IO.ErrOut, closing)
	}
	if err := writeHTML(opts, results, l); err != nil {
		return cannotGrade(err)
	}
	switch {
	case interrupted:
		return cannotGrade(fmt.Errorf("interrupted after %d of %d submissions", len(results), total))
	case notGraded > 0:
		return cannotGrade(fmt.Errorf("%d of %d submissions could not be graded", notGraded, total))
	case failed > 0:
		return failure(fmt.Errorf("%d of %d submissions failed some exercise", failed, total))
	}
	return nil
}

// writeClassReport writes a class's report in format: the JSON array, one
// JUnit document, or the table, the summary and the closing line.
func writeClassReport(w io.Writer, st format.Style, reportFormat string, results []classpkg.Result, l *lab.Lab, ids []string, closing string) error {
	switch reportFormat {
	case formatJSON:
		return classpkg.WriteJSON(w, results)
	case formatJUnit:
		reports, notGraded := classpkg.Split(results)
		data, err := format.JUnitClass("lab "+l.Chapter, reports, notGraded)
		if err == nil {
			_, err = w.Write(data)
		}
		return err
	}
	if err := classpkg.WriteTable(w, results, ids, st); err != nil {
		return err
	}
	if err := writeSummary(w, results, l); err != nil {
		return err
	}
	if closing == "" {
		return nil
	}
	_, err := fmt.Fprintf(w, "\n%s\n", closing)
	return err
}

// writeSummary writes the class's gist (mean, median, pass rates, the test
// most failed) after a blank line.
func writeSummary(w io.Writer, results []classpkg.Result, l *lab.Lab) error {
	reports, notGraded := classpkg.Split(results)
	s, err := classpkg.Summarize(reports, notGraded, l)
	if err != nil {
		return err
	}
	fmt.Fprintln(w)
	return classpkg.WriteSummaryText(w, s)
}

// writeHTML writes the class report page to --html, if asked for.
func writeHTML(opts *GradeOptions, results []classpkg.Result, l *lab.Lab) error {
	if opts.HTML == "" {
		return nil
	}
	reports, notGraded := classpkg.Split(results)
	s, err := classpkg.Summarize(reports, notGraded, l)
	if err != nil {
		return fmt.Errorf("--html %s: %w", opts.HTML, err)
	}
	return atomicfile.WriteFunc(opts.HTML, 0o644, func(w io.Writer, _ string) error {
		if err := classpkg.WriteHTML(w, s, classpkg.Options{RulesURL: opts.RulesURL}); err != nil {
			return fmt.Errorf("--html %s: %w", opts.HTML, err)
		}
		return nil
	})
}

// runGradeFrom makes the reports of a class from a saved --json report
// instead of grading: the table and summary, --csv, --html, --format junit.
func runGradeFrom(opts *GradeOptions) error {
	if len(opts.Paths) > 0 {
		return usageError(fmt.Errorf("--from %s reads a saved report: give no submissions (got %s)", opts.From, strings.Join(opts.Paths, " ")))
	}
	if opts.Format == formatGradescope || opts.Late != "" || opts.Due != "" || opts.Times != "" || opts.Update {
		return usageError(fmt.Errorf("--from %s: only --format text, json or junit, --csv (with --roster) and --html take a saved report", opts.From))
	}
	if err := checkOutputs(opts, nil); err != nil {
		return usageError(err)
	}
	if err := checkCSVFlags(opts); err != nil {
		return usageError(err)
	}
	f, err := os.Open(opts.From)
	if err != nil {
		return cannotGrade(fmt.Errorf("--from: %w", err))
	}
	defer f.Close()
	reports, notGraded, err := classpkg.ReadJSON(f)
	if err != nil {
		return cannotGrade(fmt.Errorf("--from %s: %w", opts.From, err))
	}
	catalog, err := opts.Catalog()
	if err != nil {
		return cannotGrade(err)
	}
	chapter := reports0Lab(reports, opts.Chapter)
	if opts.Chapter != "" && chapter != opts.Chapter {
		return usageError(fmt.Errorf("--from %s holds reports of lab %s, not --chapter %s", opts.From, chapter, opts.Chapter))
	}
	l, err := catalog.Lookup(chapter)
	if err != nil {
		return usageError(fmt.Errorf("--from %s: %w", opts.From, err))
	}
	var results []classpkg.Result
	for _, r := range reports {
		results = append(results, classpkg.Result{Name: r.Submission, Path: r.Path, Report: r})
	}
	for name, why := range notGraded {
		results = append(results, classpkg.Result{Name: name, Err: errors.New(why)})
	}
	classpkg.Sort(results)
	var ids []string
	seen := map[string]bool{}
	for _, e := range l.Exercises {
		for _, r := range reports {
			for _, ex := range r.Exercises {
				if ex.ID == e.ID && !seen[e.ID] {
					seen[e.ID] = true
					ids = append(ids, e.ID)
				}
			}
		}
	}
	if opts.CSV != "" {
		table, err := openCSV(opts, ids)
		if err != nil {
			return usageError(err)
		}
		for _, r := range results {
			if err := table.add(r); err != nil {
				table.close()
				return cannotGrade(fmt.Errorf("--csv %s: %w", opts.CSV, err))
			}
		}
		if err := table.close(); err != nil {
			return cannotGrade(fmt.Errorf("--csv %s: %w", opts.CSV, err))
		}
	}
	if err := writeReport(opts, func(w io.Writer, st format.Style) error {
		return writeClassReport(w, st, opts.Format, results, l, ids, "")
	}); err != nil {
		return cannotGrade(err)
	}
	if err := writeHTML(opts, results, l); err != nil {
		return cannotGrade(err)
	}
	// The same exit status as the grading run that made the report.
	failed := 0
	for _, r := range reports {
		if !r.Passed() {
			failed++
		}
	}
	switch {
	case len(notGraded) > 0:
		return cannotGrade(fmt.Errorf("%d of %d submissions in %s could not be graded", len(notGraded), len(results), opts.From))
	case failed > 0:
		return failure(fmt.Errorf("%d of %d submissions in %s failed some exercise", failed, len(results), opts.From))
	}
	return nil
}

// reports0Lab is the chapter of a saved report: ReadJSON has made sure
// every report is of one lab. --chapter, when given, must agree.
func reports0Lab(reports []*report.Report, chapter string) string {
	if len(reports) == 0 {
		return chapter
	}
	return reports[0].Lab
}

// errTimesGit refuses --times git, which is no more: a commit's time is
// the student's to write, and reading a submission's .git outside the
// sandbox let a crafted repository hang or swell the grader.
var errTimesGit = errors.New("--times git is no more: a commit's time is whatever the student's machine wrote; give the times a platform recorded, a CSV file of submission,submitted_at (an LMS export, GitHub or GitLab push events) or --times gradescope")

// newLateRule reads --late, --due and --times; nil without --late.
func newLateRule(opts *GradeOptions) (*late.Rule, error) {
	rule, err := late.NewRule(opts.Late, opts.Due, opts.Times)
	switch {
	case errors.Is(err, late.ErrNeedsPolicy):
		return nil, errors.New("--due and --times say when work was due and handed in: they need --late POLICY")
	case errors.Is(err, late.ErrNeedsTimes):
		return nil, errors.New("--late needs --times: a CSV file of submission,submitted_at (an LMS export, a platform's push events) or gradescope (Gradescope's submission metadata)")
	case errors.Is(err, late.ErrNeedsDue):
		return nil, errors.New("--late needs --due, the due date as an RFC 3339 time such as 2026-12-01T23:59:00Z (only --times gradescope reads it from Gradescope)")
	case errors.Is(err, late.ErrPolicy):
		return nil, fmt.Errorf("--late: %w", err)
	case errors.Is(err, late.ErrBadDue):
		return nil, fmt.Errorf("--due %q: want an RFC 3339 time such as 2026-12-01T23:59:00Z or 2026-12-01T23:59:00+08:00", opts.Due)
	}
	var se *late.SourceError
	switch {
	case errors.As(err, &se) && se.Gradescope:
		return nil, fmt.Errorf("--times %s: %w", se.Source, se.Err)
	case err != nil:
		return nil, fmt.Errorf("--times: %w", err)
	}
	return rule, nil
}

// cannotGrade is exit status 2 for trouble that is not the command line's:
// no go command, an interrupted run, a submission the grader could not grade.
func cannotGrade(err error) *ExitError { return &ExitError{Code: ExitUsage, Err: err, NoHelp: true} }

// uniquePaths drops a submission given twice (by the same clean path).
func uniquePaths(paths []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, p := range paths {
		key := filepath.Clean(p)
		if abs, err := filepath.Abs(p); err == nil {
			key = abs
		}
		if !seen[key] {
			seen[key] = true
			out = append(out, p)
		}
	}
	return out
}

// nameSubmissions makes every submission's name unique: two that share a
// name (alice/ and alice.zip) are named by their paths instead.
func nameSubmissions(subs []*submission.Submission, unreadable []classpkg.Result) {
	// Names are counted as reports show them (escaped, one line): two
	// names that read the same there are one row to a reader. Those are
	// named by their paths, and paths that still read the same get a
	// number.
	names := make([]*string, 0, len(subs)+len(unreadable))
	paths := make([]string, 0, cap(names))
	for _, s := range subs {
		names, paths = append(names, &s.Name), append(paths, s.Path)
	}
	for i := range unreadable {
		names, paths = append(names, &unreadable[i].Name), append(paths, unreadable[i].Path)
	}
	count := map[string]int{}
	for _, n := range names {
		count[safetext.Line(*n)]++
	}
	for i, n := range names {
		if count[safetext.Line(*n)] > 1 {
			*n = paths[i]
		}
	}
	seen := map[string]int{}
	for _, n := range names {
		shown := safetext.Line(*n)
		if seen[shown]++; seen[shown] > 1 {
			*n = fmt.Sprintf("%s #%d", *n, seen[shown])
		}
	}
}

// exerciseIDs checks the --lab ids and returns them in the lab's order,
// or every exercise's id when none is given (bonus exercises only with
// bonus set).
func exerciseIDs(l *lab.Lab, want []string, bonus bool) ([]string, error) {
	for _, id := range want {
		e, err := l.Exercise(id)
		if err != nil {
			return nil, fmt.Errorf("--lab: %w", err)
		}
		if e.Bonus && !bonus {
			return nil, fmt.Errorf("--lab %s: a bonus exercise, graded only with --bonus", id)
		}
	}
	var ids []string
	for _, e := range l.Exercises {
		if e.Bonus && !bonus {
			continue
		}
		if len(want) == 0 || slices.Contains(want, e.ID) {
			ids = append(ids, e.ID)
		}
	}
	return ids, nil
}

// checkOutputs refuses output files that cannot be written, or that would
// overwrite a submission or each other, before anything is graded.
// absPath is p made absolute, or "" if it cannot be.
func absPath(p string) string {
	a, err := filepath.Abs(p)
	if err != nil {
		return ""
	}
	return a
}

// resolvedPath is p made absolute with every link in it followed, as far as
// it exists; "" if it cannot be made absolute.
func resolvedPath(p string) string {
	a := absPath(p)
	if a == "" {
		return ""
	}
	if r, err := filepath.EvalSymlinks(a); err == nil {
		return r
	}
	return a
}

func checkOutputs(opts *GradeOptions, paths []string) error {
	outputs := []struct{ flag, path string }{{"-o", opts.Output}, {"--csv", opts.CSV}, {"--html", opts.HTML}}
	for _, o := range outputs {
		if o.path == "" {
			continue
		}
		if fi, err := os.Stat(o.path); err == nil && fi.IsDir() {
			return fmt.Errorf("%s %s: is a directory", o.flag, o.path)
		}
		if opts.From != "" {
			if a, _ := filepath.Abs(o.path); a != "" {
				if b, _ := filepath.Abs(opts.From); a == b {
					return fmt.Errorf("%s %s: is the --from file", o.flag, o.path)
				}
			}
		}
		parent := filepath.Dir(filepath.Clean(o.path))
		if fi, err := os.Stat(parent); err != nil || !fi.IsDir() {
			return fmt.Errorf("%s %s: directory %s does not exist", o.flag, o.path, parent)
		}
		out, err := filepath.Abs(o.path)
		if err != nil {
			return fmt.Errorf("%s %s: %w", o.flag, o.path, err)
		}
		// Where the file really lands: a link in its directory's path
		// (lnk/x.csv, lnk a link to a submission) must not take it there.
		real := filepath.Join(resolvedPath(filepath.Dir(out)), filepath.Base(out))
		for _, p := range paths {
			for _, sub := range []string{absPath(p), resolvedPath(p)} {
				if sub == "" {
					continue
				}
				for _, at := range []string{out, real} {
					if at == sub || strings.HasPrefix(at, sub+string(filepath.Separator)) {
						return fmt.Errorf("%s %s: is inside submission %s, and grading never writes a submission", o.flag, o.path, p)
					}
				}
			}
		}
		if _, err := os.Lstat(o.path); err == nil && !opts.Force && (o.flag != "--csv" || !opts.Update) {
			// One rule for every file the course tool writes.
			return fmt.Errorf("%s %s: the file exists; use --force to overwrite it", o.flag, o.path)
		}
	}
	seen := map[string]string{}
	for _, o := range outputs {
		if o.path == "" {
			continue
		}
		a, _ := filepath.Abs(o.path)
		if other, ok := seen[a]; ok {
			return fmt.Errorf("%s and %s name the same file %s", other, o.flag, o.path)
		}
		seen[a] = o.flag
	}
	return nil
}

// writeReport writes the report with write to -o FILE (atomically: the
// file is whole or untouched) or to standard output, in colour only on a
// terminal without NO_COLOR.
func writeReport(opts *GradeOptions, write func(io.Writer, format.Style) error) error {
	if opts.Output != "" {
		return writeFileAtomic(opts.Output, func(w io.Writer) error { return write(w, format.Style{}) })
	}
	color := isTerminal(opts.IO.Out) && opts.Getenv("NO_COLOR") == ""
	return write(opts.IO.Out, format.Style{Color: color})
}

// gradescopeError is the results.json of a submission that could not be
// read: no points, and the reason for the student to see. files names what
// to upload, as the lab's manifest names it.
func gradescopeError(err error, files string) format.GradescopeResults {
	msg := err.Error()
	var se *submission.Error
	if errors.As(err, &se) {
		msg = "Your submission " + se.Reason + "."
	}
	return format.GradescopeResults{
		Score: 0, Output: msg + "\nUpload your " + files + ", or a .zip holding it.", OutputFormat: "text",
		Visibility: "visible", Tests: []format.GradescopeTest{},
	}
}

// csvSink is the --csv file: a row per submission as it is graded.
type csvSink interface {
	add(r classpkg.Result) error
	close() error
}

// checkCSVFlags refuses --update, --only-failed and --roster where they
// mean nothing.
func checkCSVFlags(opts *GradeOptions) error {
	switch {
	case opts.Update && opts.CSV == "":
		return errors.New("--update regrades into an earlier --csv file: name it with --csv")
	case opts.OnlyFailed && !opts.Update:
		return errors.New("--only-failed reads what failed from an earlier --csv file: use it with --update --csv FILE")
	case opts.Roster != "" && opts.CSV == "":
		return errors.New("--roster joins the class list to the --csv table: name it with --csv")
	case opts.Update && opts.Force:
		return errors.New("--update keeps the other rows of the --csv file and --force would start it again: use one of them")
	}
	return nil
}

// openCSV opens the --csv file: a new table, or with --update the earlier
// one, read whole (and written back whole when grading ends).
func openCSV(opts *GradeOptions, ids []string) (csvSink, error) {
	var ros *classpkg.Roster
	if opts.Roster != "" {
		f, err := os.Open(opts.Roster)
		if err != nil {
			return nil, fmt.Errorf("--roster: %w", err)
		}
		ros, err = classpkg.ReadRoster(f)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("--roster: %w", err)
		}
	}
	if opts.Update {
		f, err := os.Open(opts.CSV)
		if err != nil {
			return nil, fmt.Errorf("--csv --update: %w", err)
		}
		book, err := classpkg.ReadGradebook(f, ids)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("--csv --update: %w", err)
		}
		g, err := classpkg.NewRegrade(book, ids, ros)
		if err != nil {
			return nil, fmt.Errorf("--csv %s --roster %s: %w", opts.CSV, opts.Roster, err)
		}
		return &csvUpdate{path: opts.CSV, Regrade: g}, nil
	}
	flags := os.O_WRONLY | os.O_CREATE | os.O_EXCL
	if opts.Force {
		flags = os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	}
	f, err := os.OpenFile(opts.CSV, flags, 0o644)
	if errors.Is(err, fs.ErrExist) {
		return nil, fmt.Errorf("--csv %s: the file exists; use --force to overwrite it, or --update to regrade into it", opts.CSV)
	}
	if err != nil {
		return nil, fmt.Errorf("--csv: %w", err)
	}
	t, err := classpkg.NewTable(f, ids, ros)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("--csv %s: %w", opts.CSV, err)
	}
	return &csvTable{f: f, Table: t, warn: opts.IO.ErrOut}, nil
}

// csvTable is a new --csv file, written row by row.
type csvTable struct {
	*classpkg.Table
	f    *os.File
	warn io.Writer
}

func (t *csvTable) add(r classpkg.Result) error { return t.Add(r) }

// close finishes the table and closes the file once; later calls do nothing.
func (t *csvTable) close() error {
	if t.f == nil {
		return nil
	}
	missing, unknown, err := t.Finish()
	if len(missing) > 0 {
		names := make([]string, len(missing))
		for i, n := range missing {
			names[i] = safetext.Line(n)
		}
		fmt.Fprintf(t.warn, "no submission from %d of the roster (a row each, noted \"no submission\"): %s\n", len(missing), strings.Join(names, ", "))
	}
	if len(unknown) > 0 {
		names := make([]string, len(unknown))
		for i, n := range unknown {
			names[i] = safetext.Line(n)
		}
		fmt.Fprintf(t.warn, "warning: not in the roster, so without a student's id: %s\n", strings.Join(names, ", "))
	}
	err = errors.Join(err, t.f.Close())
	t.f = nil
	return err
}

// csvUpdate is --csv with --update: the earlier table, written back whole,
// atomically, when grading ends, so that an interrupted regrade keeps every
// other row.
type csvUpdate struct {
	*classpkg.Regrade
	path string
	done bool
}

func (u *csvUpdate) add(r classpkg.Result) error { return u.Add(r) }

func (u *csvUpdate) close() error {
	if u.done {
		return nil
	}
	u.done = true
	return atomicfile.WriteFunc(u.path, 0o644, func(w io.Writer, _ string) error { return u.Book.Write(w) })
}

// writeFileAtomic writes the report file p atomically (see writeAtomic).
func writeFileAtomic(p string, write func(io.Writer) error) error {
	return atomicfile.WriteFunc(p, 0o644, func(w io.Writer, _ string) error {
		if err := write(w); err != nil {
			return fmt.Errorf("-o %s: %w", p, err)
		}
		return nil
	})
}
