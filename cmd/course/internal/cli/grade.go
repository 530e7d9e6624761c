package cli

import (
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/coursekit/course/grader"
	"github.com/coursekit/course/grader/lab"
	"github.com/coursekit/course/grader/sandbox"
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
	Feedback   string        // a directory for one Markdown file per submission, to hand back
	RulesURL   string        // where the page links rules to
	From       []string      // saved --json reports to make the reports from, instead of grading: several are merged
	Shard      string        // "K/N": grade only part K of N of the submissions
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
	Version    string        // the tool's version, recorded in every report
}

// NewCmdGrade returns the `course grade [flags] <submission>...` command.
func NewCmdGrade(f *Factory) *cobra.Command {
	opts := &GradeOptions{IO: f.IO, Catalog: f.Catalog, Getenv: os.Getenv, Version: toolVersion(f.BuildInfo)}
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

--feedback DIR writes a Markdown file per submission to hand back to each
student: the score, each exercise, the public tests that failed with their
messages, the rules they check and the first hint; hidden tests only
counted. With --from it makes them from a saved report.

A class split over machines: --shard K/N grades part K of N (by each
submission's name, whatever their order); with --json its report says
its part, lab and course version, and --from a.json --from b.json ...
merges every part's report into the class's table, --csv and --html.

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
  course grade --csv grades.csv submissions/*
  course grade --shard 2/4 --json -o shard-2.json submissions/*`,
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
	fl.StringVar(&opts.Feedback, "feedback", "", "also write one Markdown file per submission into `DIR`, to hand back to each student (hidden tests only counted)")
	fl.StringVar(&opts.RulesURL, "rules-url", "", "where the --html page links each rule: `URL` of the lab's rule table, {lab} for the chapter (default docs/lab{lab}-rules.md)")
	fl.StringArrayVar(&opts.From, "from", nil, "make the reports (text, --csv, --html, --format junit or json) from `FILE`, a saved --json report, instead of grading; repeat it to merge the reports of every --shard of a class")
	fl.StringVar(&opts.Shard, "shard", "", "grade only part `K/N` of the submissions given (each falls in one part, by its name); with --json the report records the part, for --from to merge")
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
