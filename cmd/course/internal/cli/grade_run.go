package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/dustin/go-humanize"

	"github.com/coursekit/course/grader"
	classpkg "github.com/coursekit/course/grader/class"
	"github.com/coursekit/course/grader/format"
	"github.com/coursekit/course/grader/lab"
	"github.com/coursekit/course/grader/late"
	"github.com/coursekit/course/grader/report"
	"github.com/coursekit/course/grader/sandbox"
	"github.com/coursekit/course/grader/submission"
)

// gradeRun is one `course grade` of submissions, once its command line is
// checked: the lab, the exercises, the submissions read, and how to grade.
type gradeRun struct {
	opts       *GradeOptions
	lab        *lab.Lab
	ids        []string        // the exercises graded
	paths      []string        // the submissions as given, each once
	class      bool            // more than one, or a shard: a table, not a report
	shard      *classpkg.Shard // --shard: grade only the submissions of this part
	subs       []*submission.Submission
	unreadable []classpkg.Result // the paths that could not be read: rows of their own
	feedback   *feedbackPlan     // --feedback
	late       *late.Rule
	mode       sandbox.Mode
	memory     int64
	whole      *classpkg.Whole // after --update: the whole table regraded into
}

func runGrade(ctx context.Context, opts *GradeOptions) error {
	if err := checkFormat(opts); err != nil {
		return err
	}
	if len(opts.From) > 0 {
		return runGradeFrom(opts)
	}
	run, err := planGrade(opts)
	if err != nil {
		return err
	}
	var g *grader.Grader
	if run.total() > 0 { // a shard may have nothing to grade: no grader needed
		if g, err = run.newGrader(); err != nil {
			return err
		}
	}
	var table csvSink
	if opts.CSV != "" {
		if table, err = openCSV(opts, run.ids); err != nil {
			return inputError(err)
		}
		defer table.close()
		if opts.OnlyFailed && !run.onlyFailed(table) {
			return nil
		}
	}
	results, elapsed, err := run.grade(ctx, g, table)
	if err != nil {
		return err
	}
	if u, ok := table.(*csvUpdate); ok {
		// The summary and the page say what the whole table holds.
		whole := u.Book.Whole(opts.CSV, len(results))
		run.whole = &whole
	}
	if !run.class {
		return run.reportOne(results)
	}
	return run.reportClass(results, elapsed)
}

// checkFormat refuses an unknown --format and the --times that is no more.
func checkFormat(opts *GradeOptions) error {
	switch opts.Format {
	case formatText, formatJSON, formatGradescope, formatJUnit, formatClassroom50:
	default:
		return usageError(fmt.Errorf("unknown --format %q (known: text, json, gradescope, junit, classroom50)", opts.Format))
	}
	if opts.Times == "git" {
		return usageError(errTimesGit)
	}
	return nil
}

// planGrade checks the command line and reads every submission before any
// is graded, so that a bad flag or path is reported at once.
func planGrade(opts *GradeOptions) (*gradeRun, error) {
	run := &gradeRun{opts: opts}
	if err := run.checkLimits(); err != nil {
		return nil, err
	}
	run.paths = uniquePaths(opts.Paths)
	if err := run.pickShard(); err != nil {
		return nil, err
	}
	run.class = len(run.paths) > 1 || run.shard != nil
	if run.class && opts.Format == formatGradescope {
		return nil, usageError(fmt.Errorf("--format gradescope grades one submission (results.json is per submission), not %d", len(run.paths)))
	}
	var err error
	if run.late, err = newLateRule(opts); err != nil {
		if se := (*late.SourceError)(nil); errors.As(err, &se) {
			return nil, inputError(err) // the times cannot be read, not a flag
		}
		return nil, usageError(err)
	}
	if err := checkCSVFlags(opts); err != nil {
		return nil, usageError(err)
	}
	if run.class && opts.Format == formatClassroom50 {
		return nil, usageError(fmt.Errorf("--format classroom50 grades one submission (result.json is per submission), not %d", len(run.paths)))
	}
	if err := run.pickLab(); err != nil {
		return nil, err
	}
	if run.ids, err = exerciseIDs(run.lab, opts.Exercises, opts.Bonus); err != nil {
		return nil, usageError(err)
	}
	if err := checkOutputs(opts, run.paths); err != nil {
		return nil, inputError(err)
	}
	if err := run.read(); err != nil {
		return nil, err
	}
	if run.feedback, err = planFeedback(opts, run.paths, run.names()); err != nil {
		return nil, inputError(err)
	}
	return run, nil
}

// checkLimits checks the flags of time, memory, confinement and parallelism.
func (run *gradeRun) checkLimits() error {
	opts := run.opts
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
	run.mode, run.memory = mode, int64(memory)
	return nil
}

// pickLab finds the lab to grade against; a lone submission that no lab
// can read gets, on Gradescope, a results.json that says why.
func (run *gradeRun) pickLab() error {
	catalog, err := run.opts.Catalog()
	if err != nil {
		return cannotGrade(err)
	}
	run.lab, err = pickLab(catalog, run.opts.Chapter, run.paths)
	if errors.Is(err, submission.ErrBad) {
		if !run.class && checkOutputs(run.opts, run.paths) == nil {
			run.failGradescope(err, strings.Join(catalog.EditableNames(), " or "))
		}
		return cannotGrade(err)
	}
	if err != nil {
		return usageError(err)
	}
	return nil
}

// pickShard reads --shard.
func (run *gradeRun) pickShard() error {
	opts := run.opts
	if opts.Shard == "" {
		return nil
	}
	sh, err := classpkg.ParseShard(opts.Shard)
	if err != nil {
		return usageError(fmt.Errorf("--shard %q: %w", opts.Shard, err))
	}
	switch {
	case opts.Update:
		return usageError(errors.New("--shard grades part of a class, and --update regrades rows of one table: grade the shards, merge them with --from, then regrade"))
	case opts.Format == formatGradescope || opts.Format == formatClassroom50:
		return usageError(fmt.Errorf("--shard grades part of a class, and --format %s is the report of one submission", opts.Format))
	}
	run.shard = &sh
	return nil
}

// read reads every submission (of the shard, with --shard), named as the
// whole class names it: in a class one that cannot be read is a row of
// its own; alone, it ends the command.
func (run *gradeRun) read() error {
	names := classNames(run.paths)
	for i, p := range run.paths {
		if run.shard != nil && !run.shard.Has(names[i]) {
			continue
		}
		sub, err := submission.Read(p, run.lab.Editable)
		if err == nil {
			sub.Name = names[i]
			run.subs = append(run.subs, sub)
			continue
		}
		if !run.class {
			run.failGradescope(err, strings.Join(run.lab.Editable, " and "))
			return cannotGrade(err)
		}
		run.unreadable = append(run.unreadable, classpkg.Result{Name: names[i], Path: p, Err: err})
	}
	return nil
}

// shardHead is what the report of a shard says of it.
func (run *gradeRun) shardHead() (classpkg.ShardHead, error) {
	names := run.names()
	slices.Sort(names)
	tests, err := run.lab.Fingerprint(!run.opts.NoHidden)
	if err != nil {
		return classpkg.ShardHead{}, err
	}
	return classpkg.ShardHead{Course: run.opts.Version, Tests: tests[:16], Lab: run.lab.Chapter, Shard: *run.shard,
		Class: classpkg.ClassPrint(classNames(run.paths)), Submissions: names}, nil
}

// failGradescope tells the student why nothing was graded, in the
// results.json Gradescope shows, when that is what is asked for.
func (run *gradeRun) failGradescope(err error, files string) {
	if run.opts.Format != formatGradescope || run.opts.Output == "" {
		return
	}
	_ = writeFileAtomic(run.opts.Output, func(w io.Writer) error {
		return format.WriteJSON(w, gradescopeError(err, files))
	})
}

// newGrader makes the grader, and says on stderr, once, what a weaker
// sandbox leaves open.
func (run *gradeRun) newGrader() (*grader.Grader, error) {
	opts := run.opts
	g, err := grader.New(grader.Options{
		Lab:       run.lab,
		Exercises: run.ids,
		Hidden:    !opts.NoHidden,
		Bonus:     opts.Bonus,
		TestsDir:  opts.TestsDir,
		Timeout:   opts.Timeout,
		Budget:    opts.Budget,
		Memory:    run.memory,
		Parallel:  opts.Runs,
		Sandbox:   run.mode,
		Version:   opts.Version,
	})
	if errors.Is(err, grader.ErrNoToolchain) || errors.Is(err, grader.ErrSetup) || errors.Is(err, grader.ErrSandbox) {
		return nil, cannotGrade(err)
	}
	if err != nil {
		return nil, inputError(err) // --tests DIR
	}
	if iso := g.Isolation(); iso.Level != report.LevelFull {
		// Asked for with --sandbox best or off: say once, where a person
		// sees it, what the verdicts below are not protected from.
		fmt.Fprintf(opts.IO.ErrOut, "warning: grading with isolation %s; not protected: %s\n",
			iso.Name, strings.Join(iso.Missing, "; "))
	}
	return g, nil
}

// onlyFailed keeps, of the submissions given, those whose row in the
// earlier --csv table is not full marks; false when none is left.
func (run *gradeRun) onlyFailed(table csvSink) bool {
	before := len(run.subs)
	run.subs = slices.DeleteFunc(run.subs, func(s *submission.Submission) bool { return table.fullMarks(s.Name) })
	if len(run.subs) == 0 && len(run.unreadable) == 0 {
		fmt.Fprintf(run.opts.IO.ErrOut, "course grade: every submission given has full marks in %s: nothing to regrade\n", run.opts.CSV)
		return false
	}
	if skipped := before - len(run.subs); skipped > 0 {
		fmt.Fprintf(run.opts.IO.ErrOut, "regrading %d of %d: %d had full marks in %s\n", len(run.subs)+len(run.unreadable), before+len(run.unreadable), skipped, run.opts.CSV)
	}
	run.class = len(run.subs)+len(run.unreadable) > 1 || before > 1
	return true
}

// names are the names of the submissions, read or not.
func (run *gradeRun) names() []string {
	var out []string
	for _, s := range run.subs {
		out = append(out, s.Name)
	}
	for _, r := range run.unreadable {
		out = append(out, r.Name)
	}
	return out
}

// total is how many submissions this run is about.
func (run *gradeRun) total() int { return len(run.subs) + len(run.unreadable) }

// grade grades the submissions, --jobs at a time, and records each result
// as it comes (the late rule, the --csv row, the progress line). A result
// that cannot be recorded stops grading: what is not recorded is lost.
func (run *gradeRun) grade(ctx context.Context, g *grader.Grader, table csvSink) ([]classpkg.Result, time.Duration, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	started := time.Now()
	desc := "grading"
	if !run.class {
		desc += " " + run.subs[0].Name
	}
	prog := newProgress(run.opts.IO.ErrOut, run.class, run.total(), desc)
	var results []classpkg.Result
	var recordErr error
	record := func(r classpkg.Result) {
		if recordErr != nil {
			return // drain: the workers stop with the context
		}
		if run.late != nil {
			one := []classpkg.Result{r}
			classpkg.ApplyLate(one, run.late)
			r = one[0]
		}
		results = append(results, r)
		if table != nil {
			if recordErr = table.add(r); recordErr != nil {
				cancel() // nothing more can be recorded: stop grading
				return
			}
		}
		prog.done(r, len(results), run.total())
	}
	for _, r := range run.unreadable {
		record(r)
	}
	for r := range classpkg.GradeAll(ctx, g, run.subs, run.opts.Jobs) {
		record(r)
	}
	prog.close()
	elapsed := time.Since(started)
	if table != nil {
		if err := table.close(); err != nil && recordErr == nil {
			recordErr = err
		}
	}
	if recordErr != nil {
		return nil, 0, cannotGrade(fmt.Errorf("--csv %s: %w", run.opts.CSV, recordErr))
	}
	return results, elapsed, nil
}

// reportOne writes the report of a lone submission in its format.
func (run *gradeRun) reportOne(results []classpkg.Result) error {
	opts := run.opts
	if len(results) < run.total() {
		return cannotGrade(fmt.Errorf("interrupted: %s was not graded", run.paths[0]))
	}
	r := results[0]
	if r.Err != nil {
		return cannotGrade(fmt.Errorf("%s: could not grade: %w", r.Path, r.Err))
	}
	if err := writeReport(opts, func(w io.Writer, st format.Style) error { return writeOne(w, st, opts, r.Report) }); err != nil {
		return cannotGrade(err)
	}
	if err := writeHTML(opts, results, run.lab, run.whole); err != nil {
		return cannotGrade(err)
	}
	if err := run.feedback.write(opts, results, run.lab); err != nil {
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

// reportClass writes the class's report, its summary and --html, and says
// how the run ended.
func (run *gradeRun) reportClass(results []classpkg.Result, elapsed time.Duration) error {
	opts, total := run.opts, run.total()
	classpkg.Sort(results)
	failed, notGraded := classpkg.Outcomes(results)
	closing := classpkg.Elapsed(len(results)-notGraded, notGraded, elapsed)
	write := func(w io.Writer, st format.Style) error {
		return writeClassReport(w, st, opts.Format, results, run.lab, run.ids, closing, run.whole)
	}
	if run.shard != nil && opts.Format == formatJSON {
		write = func(w io.Writer, _ format.Style) error {
			head, err := run.shardHead()
			if err != nil {
				return err
			}
			return classpkg.WriteShardJSON(w, head, results)
		}
	}
	if err := writeReport(opts, write); err != nil {
		return cannotGrade(err)
	}
	if opts.Format != formatText {
		// The report is for a program: the people's lines go to stderr.
		if err := writeSummary(opts.IO.ErrOut, results, run.lab, run.whole); err != nil {
			return cannotGrade(err)
		}
		fmt.Fprintln(opts.IO.ErrOut, closing)
	}
	if err := writeHTML(opts, results, run.lab, run.whole); err != nil {
		return cannotGrade(err)
	}
	if err := run.feedback.write(opts, results, run.lab); err != nil {
		return cannotGrade(err)
	}
	switch {
	case len(results) < total:
		return cannotGrade(fmt.Errorf("interrupted after %d of %d submissions", len(results), total))
	case notGraded > 0:
		return cannotGrade(fmt.Errorf("%d of %d submissions could not be graded", notGraded, total))
	case failed > 0:
		return failure(fmt.Errorf("%d of %d submissions failed some exercise", failed, total))
	}
	return nil
}
