package cli

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/dustin/go-humanize"
	"github.com/rivo/uniseg"
	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/coursekit/course/grader"
	"github.com/coursekit/course/grader/lab"
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

	Paths     []string      // the submissions, as given
	Format    string        // text, json, gradescope or junit
	JSON      bool          // --json: the same as --format json
	Output    string        // -o: write the report there instead of stdout
	Exercises []string      // --lab: grade only these exercise ids
	Timeout   time.Duration // per run of the test binary
	Budget    time.Duration // all runs of one submission
	Memory    string        // per run, e.g. "1GiB"
	Jobs      int           // submissions graded at once
	CSV       string        // a CSV file with one row per submission
	Force     bool          // overwrite an existing CSV file
	TestsDir  string        // an instructor's private tests
	NoHidden  bool          // leave out the lab's hidden tests
	Bonus     bool          // also grade the bonus exercises
	Sandbox   string        // strict, best or off
	NoSandbox bool          // the old spelling of --sandbox off
	Chapter   string        // the lab to grade against
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
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageError(errors.New("missing argument <submission>"))
			}
			return nil
		},
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
	fl.StringVar(&opts.CSV, "csv", "", "write one row per submission to `FILE` as each is graded")
	fl.BoolVar(&opts.Force, "force", false, "overwrite the --csv file if it exists")
	fl.StringVar(&opts.TestsDir, "tests", "", "also run the *_test.go files of `DIR` (a private suite), as hidden tests")
	fl.BoolVar(&opts.NoHidden, "no-hidden", false, "run only the public tests")
	fl.BoolVar(&opts.Bonus, "bonus", false, "also grade the bonus exercises (see course list); their points count only then")
	fl.StringVar(&opts.Sandbox, "sandbox", string(grader.SandboxStrict), "`MODE`: strict (a full sandbox or no grading), best (the strongest this machine has; the report says which), off (no sandbox: never for student code)")
	fl.BoolVar(&opts.NoSandbox, "no-sandbox", false, "the same as --sandbox off")
	_ = fl.MarkDeprecated("no-sandbox", "use --sandbox off")
	fl.StringVar(&opts.Chapter, "chapter", "", "the lab's `CHAPTER` (default: the only one, or what the submissions say)")
	return cmd
}

// graded is the outcome of one submission.
type graded struct {
	name, path string
	report     *grader.Report // nil when it could not be graded
	err        error          // why it could not be graded
}

func runGrade(ctx context.Context, opts *GradeOptions) error {
	switch opts.Format {
	case formatText, formatJSON, formatGradescope, formatJUnit, formatClassroom50:
	default:
		return usageError(fmt.Errorf("unknown --format %q (known: text, json, gradescope, junit, classroom50)", opts.Format))
	}
	if opts.Timeout <= 0 {
		return usageError(fmt.Errorf("--timeout %s: must be positive", opts.Timeout))
	}
	mode, err := grader.ParseSandboxMode(opts.Sandbox)
	if err != nil {
		return usageError(fmt.Errorf("--sandbox: %w", err))
	}
	if opts.NoSandbox {
		mode = grader.SandboxOff
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
	paths := uniquePaths(opts.Paths)
	class := len(paths) > 1
	if class && opts.Format == formatGradescope {
		return usageError(fmt.Errorf("--format gradescope grades one submission (results.json is per submission), not %d", len(paths)))
	}
	if class && opts.Format == formatJUnit {
		return usageError(fmt.Errorf("--format junit grades one submission (one XML report each), not %d", len(paths)))
	}
	if class && opts.Format == formatClassroom50 {
		return usageError(fmt.Errorf("--format classroom50 grades one submission (result.json is per submission), not %d", len(paths)))
	}
	catalog, err := opts.Catalog()
	if err != nil {
		return cannotGrade(err)
	}
	l, err := pickLab(catalog, opts.Chapter, paths)
	if errors.Is(err, grader.ErrBadSubmission) {
		// No lab could read it: the same report as for a known lab.
		if !class && opts.Format == formatGradescope && opts.Output != "" && checkOutputs(opts, paths) == nil {
			_ = writeFileAtomic(opts.Output, func(w io.Writer) error {
				return grader.WriteJSON(w, gradescopeError(err, strings.Join(catalog.EditableNames(), " or ")))
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
	subs := make([]*grader.Submission, len(paths))
	var unreadable []graded
	for i, p := range paths {
		sub, err := grader.ReadSubmission(p, l.Editable)
		if err != nil {
			if !class {
				if opts.Format == formatGradescope && opts.Output != "" {
					// Tell the student why, in the results Gradescope shows.
					_ = writeFileAtomic(opts.Output, func(w io.Writer) error {
						return grader.WriteJSON(w, gradescopeError(err, strings.Join(l.Editable, " and ")))
					})
				}
				return cannotGrade(err)
			}
			unreadable = append(unreadable, graded{name: grader.SubmissionName(p), path: p, err: err})
			continue
		}
		subs[i] = sub
	}
	subs = slices.DeleteFunc(subs, func(s *grader.Submission) bool { return s == nil })
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
		Sandbox:   mode,
	})
	if errors.Is(err, grader.ErrNoToolchain) || errors.Is(err, grader.ErrSetup) {
		return cannotGrade(err)
	}
	if err != nil {
		return usageError(err) // --tests DIR
	}
	if iso := g.Isolation(); iso.Level != grader.LevelFull {
		// Asked for with --sandbox best or off: say once, where a person
		// sees it, what the verdicts below are not protected from.
		fmt.Fprintf(opts.IO.ErrOut, "warning: grading with isolation %s; not protected: %s\n",
			iso.Name, strings.Join(iso.Missing, "; "))
	}

	var table *csvTable
	if opts.CSV != "" {
		if table, err = createCSV(opts.CSV, opts.Force, ids); err != nil {
			return usageError(err)
		}
		defer table.close()
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
	var results []graded
	record := func(r graded) error {
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
	for r := range gradeAll(ctx, g, subs, opts.Jobs) {
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
		if r.err != nil {
			return cannotGrade(fmt.Errorf("%s: could not grade: %w", r.path, r.err))
		}
		if err := writeReport(opts, func(w io.Writer, st grader.Style) error {
			switch opts.Format {
			case formatJSON:
				return grader.WriteJSON(w, r.report)
			case formatGradescope:
				return grader.WriteJSON(w, grader.Gradescope(r.report))
			case formatClassroom50:
				res, err := grader.Classroom50(r.report, opts.Getenv, time.Now())
				if err != nil {
					return err
				}
				return grader.WriteJSON(w, res)
			case formatJUnit:
				data, err := grader.JUnit(r.report)
				if err == nil {
					_, err = w.Write(data)
				}
				return err
			}
			return grader.WriteText(w, r.report, st)
		}); err != nil {
			return cannotGrade(err)
		}
		if !r.report.Passed() {
			failed := 0
			for _, ex := range r.report.Exercises {
				if !ex.Passed {
					failed++
				}
			}
			return failure(fmt.Errorf("%d of %d exercises failed", failed, len(r.report.Exercises)))
		}
		return nil
	}

	sort.SliceStable(results, func(i, j int) bool { return results[i].name < results[j].name })
	if err := writeReport(opts, func(w io.Writer, st grader.Style) error {
		if opts.Format == formatJSON {
			return writeClassJSON(w, results)
		}
		return writeClassText(w, results, l, ids, elapsed, st)
	}); err != nil {
		return cannotGrade(err)
	}
	notGraded, failed := 0, 0
	for _, r := range results {
		switch {
		case r.err != nil:
			notGraded++
		case !r.report.Passed():
			failed++
		}
	}
	if opts.Format == formatJSON {
		fmt.Fprintln(opts.IO.ErrOut, summaryLine(len(results)-notGraded, notGraded, elapsed))
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

// cannotGrade is exit status 2 for trouble that is not the command line's:
// no go command, an interrupted run, a submission the grader could not grade.
func cannotGrade(err error) *ExitError { return &ExitError{Code: ExitUsage, Err: err, NoHelp: true} }

// gradeAll grades subs with jobs workers and sends each outcome as it
// comes. Once ctx is done no submission starts, and one that was running
// when it ended is left out (its report would describe the interruption,
// not the submission). The channel is closed when every worker is gone.
func gradeAll(ctx context.Context, g *grader.Grader, subs []*grader.Submission, jobs int) <-chan graded {
	todo := make(chan *grader.Submission)
	out := make(chan graded)
	go func() {
		defer close(todo)
		for _, s := range subs {
			select {
			case todo <- s:
			case <-ctx.Done():
				return
			}
		}
	}()
	var wg sync.WaitGroup
	for range min(jobs, max(len(subs), 1)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for s := range todo {
				if ctx.Err() != nil {
					continue
				}
				rep, err := g.Grade(ctx, s)
				if ctx.Err() != nil {
					continue
				}
				out <- graded{name: s.Name, path: s.Path, report: rep, err: err}
			}
		}()
	}
	go func() {
		wg.Wait()
		close(out)
	}()
	return out
}

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
func nameSubmissions(subs []*grader.Submission, unreadable []graded) {
	count := map[string]int{}
	for _, s := range subs {
		count[s.Name]++
	}
	for _, u := range unreadable {
		count[u.name]++
	}
	for _, s := range subs {
		if count[s.Name] > 1 {
			s.Name = s.Path
		}
	}
	for i := range unreadable {
		if count[unreadable[i].name] > 1 {
			unreadable[i].name = unreadable[i].path
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
func checkOutputs(opts *GradeOptions, paths []string) error {
	outputs := []struct{ flag, path string }{{"-o", opts.Output}, {"--csv", opts.CSV}}
	for _, o := range outputs {
		if o.path == "" {
			continue
		}
		if fi, err := os.Stat(o.path); err == nil && fi.IsDir() {
			return fmt.Errorf("%s %s: is a directory", o.flag, o.path)
		}
		parent := filepath.Dir(filepath.Clean(o.path))
		if fi, err := os.Stat(parent); err != nil || !fi.IsDir() {
			return fmt.Errorf("%s %s: directory %s does not exist", o.flag, o.path, parent)
		}
		out, err := filepath.Abs(o.path)
		if err != nil {
			return fmt.Errorf("%s %s: %w", o.flag, o.path, err)
		}
		for _, p := range paths {
			sub, err := filepath.Abs(p)
			if err != nil {
				continue
			}
			if out == sub || strings.HasPrefix(out, sub+string(filepath.Separator)) {
				return fmt.Errorf("%s %s: is inside submission %s, and grading never writes a submission", o.flag, o.path, p)
			}
		}
	}
	if opts.Output != "" && opts.CSV != "" {
		a, _ := filepath.Abs(opts.Output)
		b, _ := filepath.Abs(opts.CSV)
		if a == b {
			return fmt.Errorf("-o and --csv name the same file %s", opts.Output)
		}
	}
	return nil
}

// writeReport writes the report with write to -o FILE (atomically: the
// file is whole or untouched) or to standard output, in colour only on a
// terminal without NO_COLOR.
func writeReport(opts *GradeOptions, write func(io.Writer, grader.Style) error) error {
	if opts.Output != "" {
		return writeFileAtomic(opts.Output, func(w io.Writer) error { return write(w, grader.Style{}) })
	}
	color := isTerminal(opts.IO.Out) && opts.Getenv("NO_COLOR") == ""
	return write(opts.IO.Out, grader.Style{Color: color})
}

// gradescopeError is the results.json of a submission that could not be
// read: no points, and the reason for the student to see. files names what
// to upload, as the lab's manifest names it.
func gradescopeError(err error, files string) grader.GradescopeResults {
	msg := err.Error()
	var se *grader.SubmissionError
	if errors.As(err, &se) {
		msg = "Your submission " + se.Reason + "."
	}
	return grader.GradescopeResults{
		Score: 0, Output: msg + "\nUpload your " + files + ", or a .zip holding it.", OutputFormat: "text",
		Visibility: "visible", Tests: []grader.GradescopeTest{},
	}
}

// A terminal is a stream that says whether it is one; an *os.File is
// asked with term.IsTerminal.
type terminal interface{ IsTerminal() bool }

func isTerminal(w io.Writer) bool {
	switch s := w.(type) {
	case terminal:
		return s.IsTerminal()
	case interface{ Fd() uintptr }:
		return term.IsTerminal(int(s.Fd()))
	}
	return false
}

// progress reports submissions as they finish.
type progress interface {
	done(r graded, n, total int)
	close()
}

// newProgress is a bar on a terminal; elsewhere one line per submission
// for a class, and nothing for one submission.
func newProgress(w io.Writer, class bool, total int, desc string) progress {
	if isTerminal(w) {
		return newBar(w, total, class, desc)
	}
	if class {
		return lineProgress{w}
	}
	return lineProgress{io.Discard}
}

type lineProgress struct{ w io.Writer }

func (p lineProgress) done(r graded, n, total int) {
	fmt.Fprintf(p.w, "%s (%d of %d)\n", doneLine(r), n, total)
}

func (lineProgress) close() {}

func doneLine(r graded) string {
	if r.err != nil {
		return "not graded " + r.name + ": " + firstLine(r.err.Error())
	}
	return fmt.Sprintf("graded %s %s/%d", r.name, grader.FormatPoints(r.report.Score), r.report.MaxScore)
}

// barProgress is a progress bar, redrawn every second so that its clock
// moves while a long submission runs, and cleared when grading ends.
type barProgress struct {
	bar  *progressbar.ProgressBar
	stop chan struct{}
	wg   sync.WaitGroup
}

func newBar(w io.Writer, total int, class bool, desc string) *barProgress {
	p := &barProgress{
		bar: progressbar.NewOptions(total,
			progressbar.OptionSetWriter(w),
			progressbar.OptionSetDescription(desc),
			progressbar.OptionSetWidth(30),
			progressbar.OptionShowCount(),
			progressbar.OptionSetElapsedTime(true),
			progressbar.OptionSetPredictTime(class),
			progressbar.OptionThrottle(100*time.Millisecond),
			progressbar.OptionClearOnFinish(),
			progressbar.OptionSetRenderBlankState(true),
		),
		stop: make(chan struct{}),
	}
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		for {
			select {
			case <-tick.C:
				_ = p.bar.Add(0)
			case <-p.stop:
				return
			}
		}
	}()
	return p
}

func (p *barProgress) done(r graded, n, total int) {
	_ = p.bar.Add(1)
}

func (p *barProgress) close() {
	close(p.stop)
	p.wg.Wait()
	_ = p.bar.Finish()
}

// csvTable is the --csv file: a header, then a row per submission, each
// flushed to the file as soon as it is written.
type csvTable struct {
	f   *os.File
	w   *csv.Writer
	ids []string
}

// createCSV creates the CSV file (refusing an existing one unless force)
// and writes its header.
func createCSV(p string, force bool, ids []string) (*csvTable, error) {
	flags := os.O_WRONLY | os.O_CREATE | os.O_EXCL
	if force {
		flags = os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	}
	f, err := os.OpenFile(p, flags, 0o644)
	if errors.Is(err, fs.ErrExist) {
		return nil, fmt.Errorf("--csv %s: the file exists; use --force to overwrite it", p)
	}
	if err != nil {
		return nil, fmt.Errorf("--csv: %w", err)
	}
	t := &csvTable{f: f, w: csv.NewWriter(f), ids: ids}
	if err := t.write(grader.CSVHeader(ids)); err != nil {
		t.close()
		return nil, fmt.Errorf("--csv %s: %w", p, err)
	}
	return t, nil
}

func (t *csvTable) add(r graded) error {
	if r.err != nil {
		return t.write(grader.ErrorCSVRow(r.name, t.ids, r.err))
	}
	row := grader.CSVRow(r.report, t.ids)
	row[0] = r.name
	return t.write(row)
}

func (t *csvTable) write(row []string) error {
	if err := t.w.Write(row); err != nil {
		return err
	}
	t.w.Flush()
	return t.w.Error()
}

// close closes the file once; later calls do nothing.
func (t *csvTable) close() error {
	if t.f == nil {
		return nil
	}
	err := t.f.Close()
	t.f = nil
	return err
}

// classError is a submission in the --json array that could not be graded.
type classError struct {
	Submission string `json:"submission"`
	Path       string `json:"path"`
	Error      string `json:"error"`
}

func writeClassJSON(w io.Writer, results []graded) error {
	out := make([]any, len(results))
	for i, r := range results {
		if r.err != nil {
			out[i] = classError{Submission: r.name, Path: r.path, Error: r.err.Error()}
		} else {
			out[i] = r.report
		}
	}
	return grader.WriteJSON(w, out)
}

// writeClassText writes one row per submission (pass/FAIL per exercise and
// the score), then each exercise's pass rate and a closing line.
func writeClassText(w io.Writer, results []graded, l *lab.Lab, ids []string, elapsed time.Duration, st grader.Style) error {
	plain := func(s string) string { return s }
	header := []cell{{"SUBMISSION", plain}}
	for _, id := range ids {
		header = append(header, cell{id, plain})
	}
	header = append(header, cell{"SCORE", plain})
	hasNote := false
	rows := [][]cell{header}
	passed := map[string]int{}
	notGraded := 0
	for _, r := range results {
		row := []cell{{r.name, plain}}
		note := ""
		if r.err != nil {
			notGraded++
			for range ids {
				row = append(row, cell{"-", plain})
			}
			row = append(row, cell{"-", plain})
			note = "not graded: " + firstLine(r.err.Error())
		} else {
			byID := map[string]grader.ExerciseReport{}
			for _, ex := range r.report.Exercises {
				byID[ex.ID] = ex
			}
			for _, id := range ids {
				ex, ok := byID[id]
				switch {
				case !ok:
					row = append(row, cell{"-", plain})
				case ex.Passed:
					passed[id]++
					row = append(row, cell{"pass", st.Pass})
				default:
					row = append(row, cell{"FAIL", st.Fail})
				}
			}
			row = append(row, cell{fmt.Sprintf("%s/%d", grader.FormatPoints(r.report.Score), r.report.MaxScore), plain})
			switch {
			case r.report.Build.Rejected:
				note = "rejected before building"
			case !r.report.Build.OK:
				note = "build failed"
			}
		}
		if note != "" {
			hasNote = true
			row = append(row, cell{note, st.Dim})
		}
		rows = append(rows, row)
	}
	if hasNote {
		rows[0] = append(rows[0], cell{"NOTE", plain})
	}
	if err := writeCells(w, rows); err != nil {
		return err
	}

	graded := len(results) - notGraded
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, id := range ids {
		ex, _ := l.Exercise(id)
		rate := "-"
		if graded > 0 {
			rate = fmt.Sprintf("%d%%", (100*passed[id]+graded/2)/graded)
		}
		fmt.Fprintf(tw, "%s\t%s\tpassed %d/%d (%s)\n", ex.ID, ex.Name, passed[id], graded, rate)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "\n%s\n", summaryLine(graded, notGraded, elapsed))
	return err
}

func summaryLine(graded, notGraded int, elapsed time.Duration) string {
	s := "s"
	if graded == 1 {
		s = ""
	}
	line := fmt.Sprintf("graded %d submission%s in %.1fs", graded, s, elapsed.Seconds())
	if notGraded > 0 {
		line += fmt.Sprintf(", %d could not be graded", notGraded)
	}
	return line
}

// cell is a table cell: its text and how to paint it. Columns are padded
// by the text's width on screen, so colour codes do not misalign them.
type cell struct {
	text  string
	paint func(string) string
}

// writeCells writes rows as aligned columns two spaces apart; the last
// cell of a row is not padded.
func writeCells(w io.Writer, rows [][]cell) error {
	var widths []int
	for _, row := range rows {
		for i, c := range row {
			if i >= len(widths) {
				widths = append(widths, 0)
			}
			widths[i] = max(widths[i], uniseg.StringWidth(c.text))
		}
	}
	var b strings.Builder
	for _, row := range rows {
		for i, c := range row {
			b.WriteString(c.paint(c.text))
			if i < len(row)-1 {
				b.WriteString(strings.Repeat(" ", widths[i]-uniseg.StringWidth(c.text)+2))
			}
		}
		b.WriteString("\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeFileAtomic writes the report file p atomically (see writeAtomic).
func writeFileAtomic(p string, write func(io.Writer) error) error {
	return writeAtomic(p, func(w io.Writer, _ string) error {
		if err := write(w); err != nil {
			return fmt.Errorf("-o %s: %w", p, err)
		}
		return nil
	})
}
